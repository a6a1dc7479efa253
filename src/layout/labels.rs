//! Names cut to a box: as little as needed, never below [`KEEP`] leading characters, and
//! never two different names shortened to the same label. Names that share a long prefix
//! (`content_understanding_2`, `content_understanding_3`) are cut in the middle so their
//! distinct ends stay visible.

use std::collections::HashMap;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Leading characters a shortened label always keeps.
pub const KEEP: usize = 8;

/// The narrowest width a label is cut to: the kept characters and the ellipsis.
pub const MIN_WIDTH: usize = KEEP + 1;

/// Shortens each name to `width` cells (at least [`MIN_WIDTH`]) with `ellipsis`. Distinct
/// names get distinct labels: cut names that would collide are cut in the middle instead,
/// keeping as much of their end as tells them apart; names that still collide are kept
/// whole (wider than asked) rather than shown alike.
pub fn shorten_all(names: &[&str], width: usize, ellipsis: &str) -> Vec<String> {
    let width = width.max(MIN_WIDTH);
    let mut out: Vec<String> = names
        .iter()
        .map(|n| {
            if n.width() <= width {
                (*n).to_string()
            } else {
                cut_end(n, width, ellipsis)
            }
        })
        .collect();
    for group in collisions(names, &out) {
        let mut fixed = false;
        let most = width.saturating_sub(ellipsis.width() + KEEP);
        for tail in 1..=most {
            let tried: Vec<String> = group
                .iter()
                .map(|&i| cut_middle(names[i], width, tail, ellipsis))
                .collect();
            if distinct(&tried) && tried.iter().all(|t| !taken(&out, &group, t)) {
                for (&i, t) in group.iter().zip(tried) {
                    out[i] = t;
                }
                fixed = true;
                break;
            }
        }
        if !fixed {
            for &i in &group {
                out[i] = names[i].to_string();
            }
        }
    }
    out
}

/// Groups of indices of cut labels equal to another label of a different name.
fn collisions(names: &[&str], labels: &[String]) -> Vec<Vec<usize>> {
    let mut by_label: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, l) in labels.iter().enumerate() {
        by_label.entry(l.as_str()).or_default().push(i);
    }
    let mut groups: Vec<Vec<usize>> = by_label
        .into_values()
        .filter(|g| {
            let first = names[g[0]];
            g.iter().any(|&i| names[i] != first)
        })
        .map(|g| g.into_iter().filter(|&i| labels[i] != names[i]).collect())
        .filter(|g: &Vec<usize>| !g.is_empty())
        .collect();
    groups.sort();
    groups
}

fn distinct(labels: &[String]) -> bool {
    let mut seen = std::collections::HashSet::new();
    labels.iter().all(|l| seen.insert(l.as_str()))
}

/// Whether `label` is already used by a label outside `group`.
fn taken(labels: &[String], group: &[usize], label: &str) -> bool {
    labels
        .iter()
        .enumerate()
        .any(|(i, l)| l == label && !group.contains(&i))
}

/// The first `width - 1` cells of `s` and the ellipsis.
fn cut_end(s: &str, width: usize, ellipsis: &str) -> String {
    let mut out = head(s, width.saturating_sub(ellipsis.width()));
    out.push_str(ellipsis);
    out
}

/// `s` with its middle replaced by the ellipsis, keeping `tail` cells of its end.
fn cut_middle(s: &str, width: usize, tail: usize, ellipsis: &str) -> String {
    let front = width.saturating_sub(ellipsis.width() + tail);
    let mut out = head(s, front);
    out.push_str(ellipsis);
    out.push_str(&end(s, tail));
    out
}

/// The longest prefix of `s` at most `cells` wide.
fn head(s: &str, cells: usize) -> String {
    let mut used = 0;
    s.chars()
        .take_while(|c| {
            used += c.width().unwrap_or(0);
            used <= cells
        })
        .collect()
}

/// The longest suffix of `s` at most `cells` wide.
fn end(s: &str, cells: usize) -> String {
    let mut used = 0;
    let mut rev: Vec<char> = s
        .chars()
        .rev()
        .take_while(|c| {
            used += c.width().unwrap_or(0);
            used <= cells
        })
        .collect();
    rev.reverse();
    rev.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_stay_whole_and_long_ones_are_cut_at_the_end() {
        let got = shorten_all(&["query", "knowledge_base_retrieving"], 12, "…");
        assert_eq!(got, vec!["query", "knowledge_b…"]);
    }

    #[test]
    fn shared_prefixes_are_cut_in_the_middle_and_stay_apart() {
        let names = [
            "content_understanding",
            "content_understanding_2",
            "content_understanding_3",
        ];
        let got = shorten_all(&names, 12, "…");
        assert_eq!(got, vec!["content_un…g", "content_un…2", "content_un…3"]);
        for l in &got {
            assert!(l.width() <= 12);
            assert!(l.starts_with("content_"));
        }
    }

    #[test]
    fn at_least_eight_characters_are_kept_even_when_narrower_is_asked() {
        let got = shorten_all(&["algorithms_execution"], 3, "…");
        assert_eq!(got, vec!["algorith…"]);
    }

    #[test]
    fn names_equal_in_every_cut_are_kept_whole() {
        let names = ["abcdefghij_xx_1", "abcdefghij_yy_1"];
        let got = shorten_all(&names, 9, "…");
        // Middle cuts keep 8 + ellipsis, so nothing of the end fits: shown whole.
        assert_eq!(got, vec!["abcdefghij_xx_1", "abcdefghij_yy_1"]);
    }

    #[test]
    fn wide_characters_are_measured_in_cells() {
        let got = shorten_all(&["数据导入数据导入数据"], 10, "…");
        assert!(got[0].width() <= 10, "{}", got[0]);
        assert!(got[0].ends_with('…'));
    }

    proptest::proptest! {
        #[test]
        fn distinct_names_never_share_a_label(
            names in proptest::collection::vec("[a-c_]{1,16}", 1..12),
            width in 0usize..20,
        ) {
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let got = shorten_all(&refs, width, "…");
            for i in 0..names.len() {
                let kept: String = names[i].chars().take(KEEP).collect();
                proptest::prop_assert!(got[i].starts_with(&kept));
                for j in 0..names.len() {
                    if names[i] != names[j] {
                        proptest::prop_assert_ne!(&got[i], &got[j]);
                    }
                }
            }
        }
    }
}
