//! Loading both formats: the graph each builds, its diagnostics, and hostile input.

use std::path::Path;
use std::time::{Duration, Instant};

use toolscope_core::diag::{Code, Diagnostic};
use toolscope_core::load::load_text;
use toolscope_core::model::{EdgeKind, NodeKind, Toolkit};
use toolscope_core::source::{FileLoad, Format, Limits};

fn load(text: &str) -> FileLoad {
    load_text(
        Path::new("t.yaml"),
        text.to_string(),
        None,
        &Limits::default(),
    )
    .expect("loads")
}

fn codes(d: &[Diagnostic]) -> Vec<Code> {
    d.iter().map(|d| d.code).collect()
}

fn score(tk: &Toolkit, from: &str, to: &str) -> Option<f64> {
    let a = tk.action(from)?;
    tk.named(to)
        .find_map(|b| tk.edge(a, b))
        .map(|e| tk.graph[e].score)
}

const C2G: &str = r#"
tools:
  - &reader {name: Reader, module_path: m}
  - &mcp
    name: Browser
    type: MCP
  - &mcp2
    name: Remote
    type: MCP
    tools: [{name: fetch, desc: Fetches a page}, open]
  - {name: Weird, type: PLUGIN}
  - {name: Unused, module_path: m}
actions:
  - &a {name: a, desc: first, tools: [*reader, {name: Missing}]}
  - &b {name: b, desc: second, tools: [*mcp]}
  - &c {name: c, tools: [*mcp2]}
  - &lonely {name: lonely}
  - not a mapping
toolkit:
  - [*a, *b]
  - [*c, *a]
operators:
  - &op1 {instruction: x, output_schema: y, actions: [*a], threshold: 0.25, hops: 2}
  - &op2 {instruction: x, output_schema: y, actions: [*lonely]}
leader:
  actions: [*b]
experts:
  - profile: {name: First Expert}
    workflow:
      - [*op1, *op2]
      - [*op1]
scores:
  - {from: a, to: b, score: 0.4}
  - {from: b, to: Browser, score: 0.3}
  - {from: a, to: nowhere, score: 0.5}
"#;

#[test]
fn chat2graph_builds_the_agentic_service_graph() {
    let f = load(C2G);
    assert_eq!(f.source.format, Format::Chat2Graph);
    let tk = &f.toolkit;
    // Only chained actions are vertices; the chains flatten into a -> b -> c -> a.
    assert!(tk.action("lonely").is_none());
    assert_eq!(
        score(tk, "a", "b"),
        Some(0.4),
        "scores: overrides the 1.0 default"
    );
    assert_eq!(score(tk, "b", "c"), Some(1.0), "cross-chain edge");
    assert_eq!(score(tk, "c", "a"), Some(1.0));
    assert_eq!(score(tk, "b", "Browser"), Some(0.3));
    // MCP without listed tools is a group called directly; with tools, Has + Call edges.
    assert!(tk.find(NodeKind::Group, "Browser").is_some());
    let remote = tk.find(NodeKind::Group, "Remote").expect("group");
    let fetch = tk.find(NodeKind::Tool, "fetch").expect("member tool");
    assert_eq!(
        tk.graph[tk.edge(remote, fetch).expect("has")].kind,
        EdgeKind::Has
    );
    assert_eq!(tk.node(fetch).desc, "Fetches a page");
    assert!(score(tk, "c", "fetch").is_some() && score(tk, "c", "open").is_some());
    assert!(score(tk, "c", "Remote").is_none());
    // The unknown tool reference is dropped; the unknown type skipped.
    assert!(tk.find(NodeKind::Tool, "Missing").is_none());
    assert!(tk.find(NodeKind::Tool, "Weird").is_none());
    let c = codes(&f.diagnostics);
    for want in [
        Code::UnknownTool,
        Code::UnsupportedToolType,
        Code::CrossChainEdge,
        Code::ScoreEntryNoEdge,
        Code::OperatorUnknownAction,
        Code::ActionNotInChain,
        Code::ToolNeverCalled,
    ] {
        assert!(c.contains(&want), "missing {want:?} in {c:?}");
    }
}

#[test]
fn chat2graph_operators_are_numbered_per_expert_with_anchor_and_leader() {
    let f = load(C2G);
    let names: Vec<String> = f.toolkit.operators.iter().map(|o| o.label()).collect();
    assert_eq!(
        names,
        vec![
            "First Expert/1 (&op1)",
            "First Expert/2 (&op2)",
            "First Expert/3 (&op1)",
            "leader"
        ]
    );
    let op = f.toolkit.operator("First Expert/1").expect("op");
    assert_eq!((op.threshold, op.hops), (0.25, 2));
    assert_eq!(op.actions, vec!["a"]);
    let leader = f.toolkit.operator("leader").expect("leader");
    assert_eq!(
        (leader.threshold, leader.hops, leader.actions.clone()),
        (0.5, 0, vec!["b".to_string()])
    );
}

#[test]
fn native_refs_groups_and_positions() {
    let text = "tools:\n  - &s {name: S, desc: schema}\ngroups:\n  - name: g\n    tools: [m1, m2]\n  - name: empty\nactions:\n  - name: x\n    tools: [*s, g, {name: empty, score: 0.3}, ghost]\n    next: [{name: y, score: 0.7}, y]\n  - name: y\n";
    let f = load(text);
    let tk = &f.toolkit;
    assert_eq!(f.source.format, Format::Native);
    assert_eq!(score(tk, "x", "S"), Some(1.0), "alias item");
    assert_eq!(score(tk, "x", "m1"), Some(1.0), "group expands to members");
    assert_eq!(
        score(tk, "x", "empty"),
        Some(0.3),
        "member-less group called directly"
    );
    let ghost = tk.find(NodeKind::Tool, "ghost").expect("implicit");
    assert!(tk.node(ghost).implicit);
    assert_eq!(
        score(tk, "x", "y"),
        Some(0.7),
        "first listing of a duplicate edge counts"
    );
    let c = codes(&f.diagnostics);
    assert!(c.contains(&Code::DuplicateEdge));
    assert!(c.contains(&Code::UnknownTool));
    let x = tk.action("x").expect("x");
    let o = tk.node(x).origin.expect("origin");
    assert_eq!((o.line, o.col), (8, 5));
    let e = tk.edge(x, tk.action("y").expect("y")).expect("edge");
    let o = tk.graph[e].origin.expect("edge origin");
    assert_eq!((o.line, o.col), (10, 12));
}

#[test]
fn native_duplicates_and_two_kinds() {
    let text = "tools:\n  - name: search\nactions:\n  - name: search\n    tools: [search]\n  - name: search\n";
    let f = load(text);
    assert!(codes(&f.diagnostics).contains(&Code::DuplicateName));
    assert_eq!(f.toolkit.kinds_of("search"), 2);
}

#[test]
fn bom_and_crlf_load() {
    let f = load("\u{feff}actions:\r\n  - name: a\r\n    next: [b]\r\n  - name: b\r\n");
    assert!(score(&f.toolkit, "a", "b").is_some());
}

fn assert_fast_error(text: &str) {
    let start = Instant::now();
    let r = load_text(
        Path::new("h.yaml"),
        text.to_string(),
        None,
        &Limits::default(),
    );
    let took = start.elapsed();
    // A hang guard, not a benchmark (release figures are in docs/performance.md).
    assert!(took < Duration::from_secs(10), "took {took:?}");
    match r {
        Err(e) => assert!(!e.message.is_empty()),
        Ok(f) => panic!(
            "loaded hostile input with {} nodes",
            f.toolkit.graph.node_count()
        ),
    }
}

#[test]
fn hostile_nesting_is_refused_fast() {
    assert_fast_error(&"[".repeat(100_000));
    assert_fast_error(&"{a: ".repeat(100_000));
    assert_fast_error(&"- ".repeat(100_000));
    let deep_block: String = (0..200)
        .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
        .collect();
    assert_fast_error(&deep_block);
}

#[test]
fn huge_scalar_is_refused() {
    let text = format!("name: \"{}\"\n", "x".repeat(3 * 1024 * 1024));
    assert_fast_error(&text);
}

#[test]
fn alias_bombs_do_not_expand() {
    let mut text = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..12 {
        let refs = vec![format!("*a{}", i - 1); 9].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    // Under keys toolscope does not read, and where it reads references.
    text.push_str("actions:\n  - name: x\n    tools: *a11\n");
    let start = Instant::now();
    let r = load_text(Path::new("bomb.yaml"), text, None, &Limits::default());
    assert!(start.elapsed() < Duration::from_secs(10));
    // Loads (nothing is expanded); the list items are lists, which are reported.
    let f = r.expect("loads without expanding");
    assert!(f.toolkit.graph.node_count() < 10);
}

#[test]
fn scores_that_are_not_numbers_or_out_of_range() {
    let text = "actions:\n  - name: a\n    next:\n      - {name: b, score: '0.5'}\n      - {name: c, score: .inf}\n      - {name: d, score: -0.1}\n      - {name: e, score: [1]}\n  - name: b\n  - name: c\n  - name: d\n  - name: e\n";
    let f = load(text);
    let c = codes(&f.diagnostics);
    assert_eq!(c.iter().filter(|c| **c == Code::ScoreNotNumber).count(), 2);
    assert_eq!(c.iter().filter(|c| **c == Code::ScoreOutOfRange).count(), 2);
    assert_eq!(
        score(&f.toolkit, "a", "d"),
        Some(-0.1),
        "out-of-range loads as written"
    );
    assert_eq!(score(&f.toolkit, "a", "b"), Some(1.0));
}

#[test]
fn example_loads_clean() {
    let loaded = toolscope_core::load::load_example();
    assert!(loaded.toolkit.graph.node_count() > 30);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    assert!(loaded.toolkit.operators.len() >= 2);
}

/// Found by the `init_roundtrip` fuzz target: operators `assistant` and `assistant ` were
/// called one operator declared twice (the duplicate check went through the lookup that
/// trims what a user types). Names are compared exactly; the lookup tries the exact name
/// before the trimmed one, so each is reachable.
#[test]
fn operators_differing_in_spaces_are_two_operators() {
    let f = load(
        "actions:\n  - name: a\n  - name: b\noperators:\n  - name: assistant\n    actions: [a]\n  - name: \"assistant \"\n    actions: [b]\n",
    );
    assert_eq!(codes(&f.diagnostics), vec![], "{:?}", f.diagnostics);
    let tk = &f.toolkit;
    assert_eq!(tk.operators.len(), 2);
    assert_eq!(
        tk.operator("assistant").map(|o| &o.actions[0][..]),
        Some("a")
    );
    assert_eq!(
        tk.operator("assistant ").map(|o| &o.actions[0][..]),
        Some("b")
    );
    // As typed with stray spaces, the trimmed name still finds its operator.
    assert_eq!(
        tk.operator(" assistant").map(|o| &o.actions[0][..]),
        Some("a")
    );
}
