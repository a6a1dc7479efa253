//! `toolscope init` on random *well-formed* definitions (where `init_roundtrip` feeds raw
//! bytes, most of which are not JSON): the input chooses a shape (OpenAI wrapped or bare,
//! JSONL, MCP `tools/list`, a sidecar cache), hostile names, descriptions, and schemas of
//! any depth and width with awkward numbers (1e308, 5e-324, -0.0, u64::MAX, i64::MIN).
//! Read as `init` reads them (a byte-order mark sometimes in front), fitted to the schema
//! limits, built and written: the toolkit must load back with no error, the same nodes and
//! edges, each tool's schema exactly as fitted, and no lint error.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use toolscope_core::diag::Severity;
use toolscope_core::evidence::defs::{fit_schemas, parse};
use toolscope_core::evidence::init::{build, duplicates};
use toolscope_core::export::native::to_native;
use toolscope_core::load::load_text;
use toolscope_core::model::NodeKind;
use toolscope_core::source::{Format, Limits, Loaded};

/// The input as a stream of choices (zeros when it runs out).
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn below(&mut self, n: usize) -> usize {
        self.byte() as usize % n.max(1)
    }
}

const NAMES: &[&str] = &[
    "ls",
    "cd",
    "defs",
    "call ls",
    "call ls (2)",
    "a b",
    " lead",
    "trail ",
    "x\"y",
    "x'y",
    "\\",
    "#c",
    "- d",
    "k: v",
    "[e]",
    "{f}",
    "*g",
    "&h",
    "!i",
    "%j",
    "@k",
    "`l",
    "yes",
    "null",
    "~",
    "0.5",
    "1e3",
    ".inf",
    "é",
    "\u{ffff}",
    "\u{fffe}",
    "\u{feff}x",
    "\u{85}",
    "\u{2028}",
    "\u{7f}",
    "\u{9b}",
    "\u{202e}",
    "tab\there",
    "line\nbreak",
    "cr\rx",
    "\u{1F600}",
    ".json",
    "server 1",
    "tools",
];

const NUMBERS: &[&str] = &[
    "0",
    "-0.0",
    "1",
    "-1",
    "1.5",
    "1e308",
    "-1e308",
    "5e-324",
    "1.7976931348623157e308",
    "18446744073709551615",
    "-9223372036854775808",
    "9223372036854775808",
    "0.1",
    "1e16",
    "1e-5",
    "123456789012345678",
    "2.5e-300",
];

fn name(b: &mut Bytes) -> String {
    match b.below(4) {
        0 => format!(
            "{}{}",
            NAMES[b.below(NAMES.len())],
            NAMES[b.below(NAMES.len())]
        ),
        _ => NAMES[b.below(NAMES.len())].to_string(),
    }
}

fn scalar(b: &mut Bytes) -> Value {
    match b.below(4) {
        0 => serde_json::from_str(NUMBERS[b.below(NUMBERS.len())]).unwrap_or(Value::Null),
        1 => Value::String(name(b)),
        2 => Value::Bool(b.byte() % 2 == 0),
        _ => Value::Null,
    }
}

/// A schema-ish value: nested `depth` levels down one path, `width` values beside it.
fn schema(b: &mut Bytes) -> Value {
    let depth = match b.below(8) {
        0 => 90 + b.below(40),
        _ => b.below(6),
    };
    let mut v = json!({"type": "string"});
    for _ in 0..depth {
        v = match b.below(3) {
            0 => json!([v, scalar(b)]),
            _ => json!({"type": "object", "properties": {name(b): v}}),
        };
    }
    let width = match b.below(16) {
        0 => 100_000 + b.below(1000),
        _ => b.below(8),
    };
    let values: Vec<Value> = (0..width).map(|_| scalar(b)).collect();
    json!({"type": "object", "properties": {"p": v}, "enum": values, "maximum": scalar(b)})
}

fn definitions(b: &mut Bytes) -> String {
    let tools: Vec<(String, String, Option<Value>)> = (0..1 + b.below(6))
        .map(|_| {
            let n = name(b);
            let d = name(b);
            let s = (b.below(4) != 0).then(|| schema(b));
            (n, d, s)
        })
        .collect();
    let openai = |wrapped: bool, (n, d, s): &(String, String, Option<Value>)| {
        let mut f = json!({"name": n, "description": d});
        if let Some(s) = s {
            f["parameters"] = s.clone();
        }
        if wrapped {
            json!({"type": "function", "function": f})
        } else {
            f
        }
    };
    let text = match b.below(5) {
        0 => Value::Array(tools.iter().map(|t| openai(true, t)).collect()).to_string(),
        1 => tools
            .iter()
            .map(|t| openai(false, t).to_string())
            .collect::<Vec<_>>()
            .join("\n"),
        2 => json!({"result": {"tools": tools.iter().map(|(n, d, s)| json!({
            "name": n, "description": d, "inputSchema": s.clone().unwrap_or(json!({}))
        })).collect::<Vec<_>>()}})
        .to_string(),
        3 => json!({"toolscope_mcp_cache": 1, "servers": [{
            "name": name(b), "transport": "stdio", "command": "x", "args": [], "discovered_at": "t",
            "tools": tools.iter().map(|(n, d, s)| json!({
                "name": n, "description": d, "input_schema": s.clone().unwrap_or(json!({}))
            })).collect::<Vec<_>>()}]})
        .to_string(),
        _ => Value::Array(tools.iter().map(|t| openai(false, t)).collect()).to_string(),
    };
    if b.below(4) == 0 {
        format!("\u{feff}{text}")
    } else {
        text
    }
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let text = definitions(&mut b);
    let group = name(&mut b);
    let Ok(mut sources) = parse(&group, "defs.json", &text) else {
        return; // refused with a message (an empty or blank name)
    };
    fit_schemas(&mut sources);
    if !duplicates(&sources).is_empty() || sources.iter().any(|s| s.group.trim().is_empty()) {
        return; // init refuses these with a message
    }
    let (tk, _) = build("kit", &sources, &[]);
    let text = to_native(&tk);
    let file = match load_text(
        Path::new("kit.yaml"),
        text.clone(),
        Some(Format::Native),
        &Limits::default(),
    ) {
        Ok(f) => f,
        Err(e) => panic!("init's toolkit does not load: {e:?}\n{text}"),
    };
    let errors: Vec<_> = file
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(
        errors.is_empty(),
        "init's toolkit loads with errors: {errors:?}\n{text}"
    );
    assert_eq!(file.toolkit.counts(), tk.counts(), "nodes changed\n{text}");
    assert_eq!(
        file.toolkit.graph.edge_count(),
        tk.graph.edge_count(),
        "edges changed\n{text}"
    );
    for s in &sources {
        for t in &s.tools {
            let ix = file
                .toolkit
                .find(NodeKind::Tool, &t.name)
                .unwrap_or_else(|| panic!("tool {:?} lost\n{text}", t.name));
            let back = file
                .toolkit
                .node(ix)
                .meta
                .as_ref()
                .and_then(|m| m.input_schema.clone());
            assert_eq!(back, t.schema, "schema of {:?} changed\n{text}", t.name);
        }
    }
    let loaded = Loaded {
        toolkit: file.toolkit,
        files: vec![file.source],
        diagnostics: file.diagnostics,
    };
    let lint_errors: Vec<_> = toolscope_core::lint::lint(&loaded)
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(
        lint_errors.is_empty(),
        "lint errors: {lint_errors:?}\n{text}"
    );
});
