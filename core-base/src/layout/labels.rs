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

/// The narrowest name width the views choose: the kept characters, the ellipsis and three
/// characters of the end, so names sharing their first 8 characters can still be told
/// apart (`content_…_2`, `content_…_3`) without being shown whole.
pub const NARROW: usize = KEEP + 4;

/// Every name of a toolkit, sorted, to tell whether a cut label could be read as another
/// name than its own (`information_…` for `information_synthesis_report`).
#[derive(Debug, Clone, Default)]
pub struct NameIndex {
    sorted: Vec<String>,
}

/// Names sharing a label's front that are looked at before calling it ambiguous anyway.
const SCAN: usize = 256;

impl NameIndex {
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> NameIndex {
        let mut sorted: Vec<String> = names.into_iter().map(str::to_string).collect();
        sorted.sort_unstable();
        sorted.dedup();
        NameIndex { sorted }
    }

    /// Whether a name other than `own` starts with `front` and ends with `tail`.
    fn other_reads_as(&self, front: &str, tail: &str, own: &str) -> bool {
        let from = self.sorted.partition_point(|n| n.as_str() < front);
        let mut seen = 0;
        for n in self.sorted[from..]
            .iter()
            .take_while(|n| n.starts_with(front))
        {
            seen += 1;
            if seen > SCAN {
                return true;
            }
            if n != own && n.ends_with(tail) && n.len() >= front.len() + tail.len() {
                return true;
            }
        }
        false
    }
}

/// Shortens each name to `width` cells (at least [`MIN_WIDTH`]) with `ellipsis`. Distinct
/// names get distinct labels, and (given `index`) no cut label reads as another name of
/// the toolkit: such labels are cut in the middle instead, keeping as much of their end as
/// tells them apart; names that still collide are kept whole (wider than asked).
pub fn shorten_all(
    names: &[&str],
    width: usize,
    ellipsis: &str,
    index: Option<&NameIndex>,
) -> Vec<String> {
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
    let most = width.saturating_sub(ellipsis.width() + KEEP);
    let fine = |i: usize, label: &str, tail: &str, out: &[String]| {
        let front = label.split(ellipsis).next().unwrap_or(label);
        let clash = out
            .iter()
            .enumerate()
            .any(|(j, l)| j != i && l == label && names[j] != names[i]);
        !clash && !index.is_some_and(|x| x.other_reads_as(front, tail, names[i]))
    };
    // Every cut label that clashes or reads as another name is redone, all of a clash
    // at once (fixing one side alone would leave the other ambiguous).
    let redo: Vec<usize> = (0..names.len())
        .filter(|&i| out[i] != names[i] && !fine(i, &out[i], "", &out))
        .collect();
    for i in redo {
        let mut label = names[i].to_string();
        for tail in 1..=most {
            let t = end(names[i], tail);
            let tried = cut_middle(names[i], width, tail, ellipsis);
            if fine(i, &tried, &t, &out) {
                label = tried;
                break;
            }
        }
        out[i] = label;
    }
    // A label fixed later may have been the clash of one fixed earlier: settle the rest.
    for group in collisions(names, &out) {
        for &i in &group {
            out[i] = names[i].to_string();
        }
    }
    out
}

/// `s` cut in the middle to at most `width` cells (at least 3: its first and last
/// characters round the ellipsis), as much kept of its end as of its front. For a row
/// whose counts must stay on screen where [`shorten_all`]'s floor of [`MIN_WIDTH`] cells
/// would push them off its edge.
pub fn squeeze(s: &str, width: usize, ellipsis: &str) -> String {
    if s.width() <= width {
        return s.to_string();
    }
    let room = width.max(ellipsis.width() + 2) - ellipsis.width();
    cut_middle(s, room + ellipsis.width(), room / 2, ellipsis)
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
    fn squeeze_cuts_the_middle_to_any_width_down_to_three_cells() {
        assert_eq!(squeeze("DocumentReader", 7, "…"), "Doc…der");
        assert_eq!(squeeze("DocumentReader", 2, "…"), "D…r");
        assert_eq!(squeeze("Doc", 7, "…"), "Doc");
        assert!(squeeze("DocumentReader", 6, "…").width() <= 6);
    }

    #[test]
    fn short_names_stay_whole_and_long_ones_are_cut_at_the_end() {
        let got = shorten_all(&["query", "knowledge_base_retrieving"], 12, "…", None);
        assert_eq!(got, vec!["query", "knowledge_b…"]);
    }

    #[test]
    fn shared_prefixes_are_cut_in_the_middle_and_stay_apart() {
        let names = [
            "content_understanding",
            "content_understanding_2",
            "content_understanding_3",
        ];
        let got = shorten_all(&names, 12, "…", None);
        assert_eq!(got, vec!["content_un…g", "content_un…2", "content_un…3"]);
        for l in &got {
            assert!(l.width() <= 12);
            assert!(l.starts_with("content_"));
        }
    }

    #[test]
    fn at_least_eight_characters_are_kept_even_when_narrower_is_asked() {
        let got = shorten_all(&["algorithms_execution"], 3, "…", None);
        assert_eq!(got, vec!["algorith…"]);
    }

    #[test]
    fn names_equal_in_every_cut_are_kept_whole() {
        let names = ["abcdefghij_xx_1", "abcdefghij_yy_1"];
        let got = shorten_all(&names, 9, "…", None);
        // Middle cuts keep 8 + ellipsis, so nothing of the end fits: shown whole.
        assert_eq!(got, vec!["abcdefghij_xx_1", "abcdefghij_yy_1"]);
    }

    #[test]
    fn wide_characters_are_measured_in_cells() {
        let got = shorten_all(&["数据导入数据导入数据"], 10, "…", None);
        assert!(got[0].width() <= 10, "{}", got[0]);
        assert!(got[0].ends_with('…'));
    }

    #[test]
    fn a_cut_label_never_reads_as_another_name_of_the_toolkit() {
        let all = [
            "information_synthesis",
            "information_synthesis_report",
            "query",
        ];
        let index = NameIndex::new(all);
        // Only the first is on screen; its plain cut would also fit the second.
        let got = shorten_all(&["information_synthesis"], 14, "…", Some(&index));
        assert_eq!(got, vec!["information_…s"]);
        let got = shorten_all(&["information_synthesis"], 14, "…", None);
        assert_eq!(got, vec!["information_s…"]);
    }

    proptest::proptest! {
        #[test]
        fn distinct_names_never_share_a_label(
            names in proptest::collection::vec("[a-c_]{1,16}", 1..12),
            width in 0usize..20,
        ) {
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let index = NameIndex::new(refs.iter().copied());
            let got = shorten_all(&refs, width, "…", Some(&index));
            for i in 0..names.len() {
                let kept: String = names[i].chars().take(KEEP).collect();
                proptest::prop_assert!(got[i].starts_with(&kept));
                for j in 0..names.len() {
                    if names[i] != names[j] {
                        proptest::prop_assert_ne!(&got[i], &got[j]);
                        if let Some((front, tail)) = got[i].split_once('…') {
                            let reads = names[j].starts_with(front)
                                && names[j].ends_with(tail)
                                && names[j].len() >= front.len() + tail.len();
                            proptest::prop_assert!(!reads, "{} reads as {}", got[i], names[j]);
                        }
                    }
                }
            }
        }
    }
}
