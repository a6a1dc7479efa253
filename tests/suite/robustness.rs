//! Random and mutated input never panics the loaders or lint (the fuzz targets in `fuzz/`
//! explore the same paths for longer).

use std::path::Path;

use proptest::prelude::*;
use toolscope_core::load::load_text;
use toolscope_core::source::{Format, Limits, Loaded};

const NATIVE: &str = include_str!("../../toolkits/graph-db.yaml");
const C2G: &str = include_str!("../../toolkits/chat2graph-mini.yml");

/// Loads with both formats and lints the result; panics are the failure being looked for.
fn exercise(text: &str) {
    for format in [None, Some(Format::Native), Some(Format::Chat2Graph)] {
        if let Ok(file) = load_text(
            Path::new("p.yaml"),
            text.to_string(),
            format,
            &Limits::default(),
        ) {
            let loaded = Loaded {
                toolkit: file.toolkit,
                files: vec![file.source],
                diagnostics: file.diagnostics,
            };
            let _ = toolscope_core::lint::lint(&loaded);
            let _ = toolscope_core::export::json::toolkit_json(&loaded.toolkit);
        }
    }
}

const TOKENS: &[&str] = &[
    "actions:",
    "tools:",
    "groups:",
    "operators:",
    "toolkit:",
    "experts:",
    "leader:",
    "scores:",
    "workflow:",
    "profile:",
    "next:",
    "name:",
    "desc:",
    "score:",
    "threshold:",
    "hops:",
    "type:",
    "MCP",
    "LOCAL_TOOL",
    "from:",
    "to:",
    "- ",
    "\n",
    "\n  ",
    "\n    ",
    "[",
    "]",
    "{",
    "}",
    ", ",
    ": ",
    "&a ",
    "*a",
    "&b ",
    "*b",
    "<<: ",
    "a",
    "b",
    "0.5",
    "1.5",
    "-1",
    ".nan",
    ".inf",
    "'x'",
    "\"y\"",
    "|\n  text\n",
    ">-\n  folded\n",
    "~",
    "null",
    "yes",
    "#c\n",
    "---\n",
    "...\n",
    "\t",
    "\r\n",
    "\u{feff}",
    "é",
    "?",
    "!tag ",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..120).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn token_soup_never_panics(text in token_soup()) {
        exercise(&text);
    }

    #[test]
    fn mutated_examples_never_panic(
        which in 0usize..2,
        cuts in prop::collection::vec((0usize..5000, 0usize..40, prop::sample::select(TOKENS)), 1..6),
    ) {
        let mut text = if which == 0 { NATIVE.to_string() } else { C2G.to_string() };
        for (at, len, insert) in cuts {
            let start = floor_char(&text, at % (text.len() + 1));
            let end = floor_char(&text, (start + len).min(text.len()));
            text.replace_range(start..end, insert);
        }
        exercise(&text);
    }
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
