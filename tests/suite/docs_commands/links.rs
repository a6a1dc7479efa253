//! The cross-references of the docs: every relative link leads to a file (and a heading of
//! it, after `#`), and every inline-code path into one of the repository's folders
//! (`core-base/src/text.rs`) names a file or folder that exists.

use std::fs;
use std::path::Path;

use super::markdown::fence;

/// What is wrong with the links and paths of `text`, the markdown file `file` (relative to
/// `repo`).
pub fn check(repo: &Path, file: &str, text: &str) -> Vec<String> {
    let prose = outside_fences(text);
    let here = Path::new(file).parent().unwrap_or(Path::new(""));
    let mut problems = Vec::new();
    for (line, target) in links(&prose) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
        let linked = if path.is_empty() {
            repo.join(file)
        } else {
            repo.join(here).join(path)
        };
        if !linked.exists() {
            problems.push(format!(
                "{file}:{line}: the link `{target}` leads to no file"
            ));
            continue;
        }
        if !anchor.is_empty() && linked.extension().is_some_and(|e| e == "md") {
            let heads = fs::read_to_string(&linked)
                .map(|t| headings(&t))
                .unwrap_or_default();
            if !heads.iter().any(|h| h == anchor) {
                problems.push(format!(
                    "{file}:{line}: the link `{target}`: no heading `#{anchor}` there"
                ));
            }
        }
    }
    let folders = top_folders(repo);
    for (line, span) in code_spans(&prose) {
        let path = span.split(':').next().unwrap_or("");
        let into_repo = folders.iter().any(|f| path.starts_with(&format!("{f}/")));
        if into_repo && !path.contains(['*', ' ', '{']) && !repo.join(path).exists() {
            problems.push(format!(
                "{file}:{line}: `{span}` names no file of the repository"
            ));
        }
    }
    problems
}

/// The text with the lines of fenced blocks blanked (line numbers kept).
fn outside_fences(text: &str) -> String {
    let mut open = None;
    let mut out = String::new();
    for line in text.lines() {
        match (&open, fence(line)) {
            (None, Some(f)) => open = Some((f.mark, f.len)),
            (Some((mark, len)), Some(f))
                if f.mark == *mark && f.len >= *len && f.info.is_empty() =>
            {
                open = None;
            }
            (None, None) => out.push_str(line),
            _ => {}
        }
        out.push('\n');
    }
    out
}

/// The targets of `[text](target)` and `![alt](target)`, with the line of each.
fn links(prose: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut rest = prose;
    let mut offset = 0;
    while let Some(at) = rest.find("](") {
        let start = at + 2;
        let end = rest[start..].find(')').map(|e| start + e);
        if let Some(end) = end.filter(|e| !rest[start..*e].contains(char::is_whitespace)) {
            let line = prose[..offset + at].matches('\n').count() + 1;
            out.push((line, rest[start..end].to_string()));
        }
        offset += start;
        rest = &rest[start..];
    }
    out
}

/// Inline code spans (a run of backticks to the next run of the same length, across
/// lines), with the line each starts on.
fn code_spans(prose: &str) -> Vec<(usize, String)> {
    let bytes = prose.as_bytes();
    let run = |at: usize| bytes[at..].iter().take_while(|b| **b == b'`').count();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let open = run(i);
        let start = i + open;
        let mut j = start;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let n = run(j);
                if n == open {
                    close = Some(j);
                    break;
                }
                j += n;
            } else {
                j += 1;
            }
        }
        let Some(end) = close else { break };
        let line = prose[..i].matches('\n').count() + 1;
        out.push((line, prose[start..end].trim().to_string()));
        i = end + open;
    }
    out
}

/// The anchors GitHub gives a markdown file's headings.
fn headings(text: &str) -> Vec<String> {
    outside_fences(text)
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| slug(l.trim_start_matches('#')))
        .collect()
}

/// A heading's anchor: lower case, punctuation dropped, spaces as hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The repository's top-level folders (`target` aside): a code span starting with one of
/// them is a path into the repository.
fn top_folders(repo: &Path) -> Vec<String> {
    fs::read_dir(repo)
        .expect("the repository")
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name != "target" && name != ".git")
        .collect()
}

#[test]
fn links_spans_and_anchors_are_read() {
    let page = "# Title: `one` (two)\n```sh\n[x](in-a-block.md)\n```\nsee [a\nb](c.md#d) and \
                `core/src/x.rs:12` or ``a ` b``, ![p](assets/p.svg)\n";
    let prose = outside_fences(page);
    assert_eq!(
        links(&prose),
        [(6, "c.md#d".to_string()), (6, "assets/p.svg".to_string())]
    );
    assert_eq!(
        code_spans(&prose),
        [
            (1, "one".to_string()),
            (6, "core/src/x.rs:12".to_string()),
            (6, "a ` b".to_string())
        ]
    );
    assert_eq!(headings(page), ["title-one-two"]);
    assert_eq!(slug(" Token cost (an estimate)"), "token-cost-an-estimate");
}

#[test]
fn broken_links_and_paths_are_caught() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = "See [the CLI](cli.md#recommendation-semantics), [no](cli.md#nowhere),\n\
                [gone](gone.md), [up](../README.md), `core-base/src/text.rs`, `core/src/gone.rs:3`,\n\
                `app/core/sdk/chat2graph.yml` and [web](https://example.com/x.md).\n";
    assert_eq!(
        check(repo, "docs/page.md", page),
        [
            "docs/page.md:1: the link `cli.md#nowhere`: no heading `#nowhere` there",
            "docs/page.md:2: the link `gone.md` leads to no file",
            "docs/page.md:2: `core/src/gone.rs:3` names no file of the repository",
        ]
    );
}
