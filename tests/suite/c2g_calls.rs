//! Call edges, tools and `Next` edges of Chat2Graph configs edited through the real
//! `toolscope set`, on a file shaped like Chat2Graph's own (local tools, MCP servers with
//! one and with two tools, tools with one caller) with and without the MCP sidecar cache
//! `mcp discover` writes. Every accepted edit is verified by `set` itself (the written file
//! must load into the graph the edit made); these tests check what is written, that lint
//! stays clean, and what the refusals say.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const CONFIG: &str = r#"app:
  name: "Calls"

tools:
  - &reader_tool
    name: "Reader"
    type: "LOCAL_TOOL"
    module_path: "app.tools.reading"

  - &writer_tool
    name: "Writer"
    type: "LOCAL_TOOL"
    module_path: "app.tools.writing"

  - &files_tool
    name: "Files"
    type: "MCP"
    mcp_transport_config:
      transport_type: "STDIO"
      command: "npx"
      args: ["files-server", "."]

  - &browser_tool
    name: "Browser"
    type: "MCP"
    mcp_transport_config:
      transport_type: "SSE"
      url: "http://localhost:8931/sse"
      # headers: none

actions:
  - &read_action
    name: "read"
    desc: "Reads."
    tools:
      - *reader_tool
      - *files_tool
  - &write_action
    name: "write"
    desc: "Writes."
    tools:
      - *writer_tool
      - *files_tool
  - &note_action
    name: "note"
    desc: "Takes a note."
  - &browse_action
    name: "browse"
    desc: "Browses."
    tools:
      - *browser_tool
  - &think_action
    name: "think"
    desc: "Thinks."

toolkit:
  - [*read_action, *write_action, *note_action]
  - [*browse_action, *think_action]

operators:
  - &work_operator
    instruction: "Work."
    output_schema: "result"
    actions: [*read_action]

experts:
  - profile:
      name: "Worker"
    workflow:
      - [*work_operator]

leader:
  actions: [*think_action]
"#;

/// What `mcp discover` would record for the two servers: Files lists two tools, Browser one.
const CACHE: &str = r#"{"toolscope_mcp_cache": 1, "servers": [
  {"name": "Files", "transport": "stdio", "command": "npx", "args": ["files-server", "."],
   "discovered_at": "2026-01-01T00:00:00Z",
   "tools": [{"name": "read_file", "description": "Reads a file.", "input_schema": {}},
             {"name": "write_file", "description": "Writes a file.", "input_schema": {}}]},
  {"name": "Browser", "transport": "sse", "url": "http://localhost:8931/sse",
   "discovered_at": "2026-01-01T00:00:00Z",
   "tools": [{"name": "click", "description": "Clicks.", "input_schema": {}}]}
]}"#;

/// The config (with the MCP cache beside it when `cache`) in a fresh folder.
fn config(text: &str, cache: bool) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("agent.yml");
    fs::write(&p, text).unwrap();
    if cache {
        fs::write(dir.path().join("agent.yml.mcp.json"), CACHE).unwrap();
    }
    (dir, p)
}

fn toolscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn set(p: &Path, args: &[&str]) -> Output {
    let mut all = vec!["set", p.to_str().unwrap()];
    all.extend_from_slice(args);
    toolscope(&all)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(p: &Path, args: &[&str]) -> String {
    let out = set(p, args);
    assert!(out.status.success(), "set {args:?}: {}", stderr(&out));
    stderr(&out)
}

fn refused(p: &Path, args: &[&str]) -> String {
    let before = fs::read_to_string(p).unwrap();
    let out = set(p, args);
    assert_eq!(out.status.code(), Some(1), "set {args:?} was not refused");
    assert_eq!(
        fs::read_to_string(p).unwrap(),
        before,
        "a refusal writes nothing"
    );
    stderr(&out)
}

/// Lint's warnings and errors (its infos, such as TS061 for joined chains, are left out).
fn problems(p: &Path) -> Vec<String> {
    let out = toolscope(&["lint", p.to_str().unwrap()]);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains(" warning ") || l.contains(" error "))
        .map(str::to_string)
        .collect()
}

fn export(p: &Path) -> Value {
    serde_json::from_slice(&toolscope(&["export", p.to_str().unwrap(), "--to", "json"]).stdout)
        .unwrap()
}

/// The Call edges of the graph as (from, to, score).
fn calls(p: &Path) -> Vec<(String, String, f64)> {
    let mut out: Vec<_> = export(p)["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "call")
        .map(|e| {
            (
                e["from"].as_str().unwrap().to_string(),
                e["to"].as_str().unwrap().to_string(),
                e["score"].as_f64().unwrap(),
            )
        })
        .collect();
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    out
}

fn named(p: &Path, name: &str) -> bool {
    let v = export(p);
    ["actions", "tools", "groups"]
        .iter()
        .any(|k| v[k].as_array().unwrap().iter().any(|n| n["name"] == name))
}

/// Unlinking a tool's last caller writes exactly what removing the tool writes (the
/// reference, and the entry no action names any more), for a local tool and for an MCP
/// server whose tools are unknown; the result lints as clean as the original.
#[test]
fn unlinking_a_last_caller_writes_what_the_removal_writes() {
    for (action, target, kind) in [("read", "Reader", "tool"), ("browse", "Browser", "group")] {
        let (_a, unlinked) = config(CONFIG, false);
        let (_b, removed) = config(CONFIG, false);
        let note = ok(&unlinked, &["unlink", action, target]);
        assert!(
            note.contains("had no other caller: it leaves the graph"),
            "{note}"
        );
        ok(&removed, &["remove", target, "--kind", kind]);
        let text = fs::read_to_string(&unlinked).unwrap();
        assert_eq!(text, fs::read_to_string(&removed).unwrap());
        assert!(!text.contains(&format!("name: \"{target}\"")), "{text}");
        assert!(!named(&unlinked, target));
        assert_eq!(problems(&unlinked), Vec::<String>::new());
    }
    // A server another action still calls keeps its entry and its place in the graph.
    let (_c, p) = config(CONFIG, false);
    ok(&p, &["unlink", "read", "Files"]);
    assert!(fs::read_to_string(&p).unwrap().contains("name: \"Files\""));
    assert!(calls(&p).contains(&("write".into(), "Files".into(), 1.0)));
    assert_eq!(problems(&p), Vec::<String>::new());
}

/// Every Call edge of the example config can be unlinked, whoever else calls the tool.
#[test]
fn every_call_edge_of_the_example_unlinks() {
    let example = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/chat2graph-mini.yml"),
    )
    .unwrap();
    let (_d, probe) = config(&example, false);
    let edges = calls(&probe);
    assert_eq!(edges.len(), 7, "{edges:?}");
    for (from, to, _) in &edges {
        let (_d, p) = config(&example, false);
        ok(&p, &["unlink", from, to]);
        assert!(!calls(&p).iter().any(|(f, t, _)| f == from && t == to));
        let left: Vec<String> = problems(&p)
            .into_iter()
            .filter(|l| !problems(&probe).contains(l))
            .collect();
        assert!(left.is_empty(), "unlink {from} {to}: {left:?}");
    }
}

/// With the MCP cache, toolscope knows the servers' tools: a server's calls are calls of
/// each tool, so linking, scoring and unlinking the server edit those, and one tool of a
/// server with more cannot be unlinked alone (the refusal says what can).
#[test]
fn a_server_whose_tools_are_known() {
    let (_d, p) = config(CONFIG, true);
    let why = refused(&p, &["unlink", "read", "read_file"]);
    assert!(
        why.contains("names the MCP server `Files`")
            && why.contains(
                "unlinking `Files` from `read` removes all of them (read_file, write_file)"
            ),
        "{why}"
    );
    ok(&p, &["link", "think", "Files", "0.6"]);
    let text = fs::read_to_string(&p).unwrap();
    assert!(
        text.contains("  - {from: think, to: read_file, score: 0.6}\n  - {from: think, to: write_file, score: 0.6}\n"),
        "{text}"
    );
    assert!(calls(&p).contains(&("think".into(), "write_file".into(), 0.6)));
    ok(&p, &["score", "read", "Files", "0.3"]);
    let read: Vec<f64> = calls(&p)
        .into_iter()
        .filter(|(f, t, _)| f == "read" && t.ends_with("_file"))
        .map(|(_, _, s)| s)
        .collect();
    assert_eq!(read, vec![0.3, 0.3]);
    ok(&p, &["unlink", "read", "Files"]);
    assert!(
        !calls(&p)
            .iter()
            .any(|(f, t, _)| f == "read" && t.ends_with("_file"))
    );
    assert!(!fs::read_to_string(&p).unwrap().contains("from: read, to:"));
    // A server's only tool is the server: unlinking it from its last caller removes both.
    ok(&p, &["unlink", "browse", "click"]);
    assert!(!named(&p, "click") && !named(&p, "Browser"));
    assert!(!fs::read_to_string(&p).unwrap().contains("Browser"));
    assert_eq!(problems(&p), Vec::<String>::new());
}

/// A score written for a server before its tools were discovered scores its tools once
/// they are (TS063, an info); scoring the server again writes its tools' entries in its
/// place.
#[test]
fn a_server_score_written_before_discovery_is_taken_over() {
    let (dir, p) = config(CONFIG, false);
    ok(&p, &["score", "write", "Files", "0.9"]);
    assert!(
        fs::read_to_string(&p)
            .unwrap()
            .contains("{from: write, to: Files, score: 0.9}")
    );
    fs::write(dir.path().join("agent.yml.mcp.json"), CACHE).unwrap();
    assert_eq!(problems(&p), Vec::<String>::new());
    assert!(
        calls(&p)
            .iter()
            .any(|(f, t, s)| (f.as_str(), t.as_str(), *s) == ("write", "read_file", 0.9)),
        "{:?}",
        calls(&p)
    );
    ok(&p, &["score", "write", "Files", "0.4"]);
    let text = fs::read_to_string(&p).unwrap();
    assert!(!text.contains("to: Files"), "{text}");
    assert!(
        text.contains("{from: write, to: read_file, score: 0.4}")
            && text.contains("{from: write, to: write_file, score: 0.4}"),
        "{text}"
    );
    assert_eq!(problems(&p), Vec::<String>::new());
}

/// A removed tool's entry goes unless something else in the file refers to it; then it
/// stays and the note says where.
#[test]
fn a_removal_keeps_an_entry_only_while_it_is_referred_to() {
    let (_d, p) = config(CONFIG, false);
    let note = ok(&p, &["remove", "Writer"]);
    assert!(note.contains("is removed with it"), "{note}");
    assert!(!fs::read_to_string(&p).unwrap().contains("Writer"));
    assert_eq!(problems(&p), Vec::<String>::new());
    let kept = CONFIG.replace("app:\n", "app:\n  extra: *writer_tool\n").replace(
        "tools:\n  - &reader_tool",
        "tools:\n  - &writer_def\n    name: \"Writer2\"\n    module_path: \"x\"\n  - &reader_tool",
    );
    // The alias must come after its anchor: move `app:` below `tools:`.
    let kept = {
        let (app, rest) = kept.split_once("\ntools:").unwrap();
        format!("tools:{rest}\n{app}\n")
    };
    let (_e, q) = config(&kept, false);
    let note = ok(&q, &["remove", "Writer"]);
    assert!(
        note.contains("the `tools:` entry of `Writer` stays: line"),
        "{note}"
    );
    assert!(fs::read_to_string(&q).unwrap().contains("name: \"Writer\""));
}

/// Chat2Graph imports a tool's class from its `module_path`: `add-tool` asks for it on a
/// Chat2Graph file and writes the entry as Chat2Graph's own are.
#[test]
fn add_tool_needs_and_writes_a_module_path() {
    let (_d, p) = config(CONFIG, false);
    let why = refused(&p, &["add-tool", "Painter", "--caller", "note"]);
    assert!(
        why.contains("module_path") && why.contains("Empty module name"),
        "{why}"
    );
    let why = refused(
        &p,
        &[
            "add-tool",
            "Painter",
            "--caller",
            "note",
            "--module-path",
            "app..paint",
        ],
    );
    assert!(why.contains("not a Python module path"), "{why}");
    let why = refused(
        &p,
        &[
            "add-tool",
            "my painter",
            "--caller",
            "note",
            "--module-path",
            "app.paint",
        ],
    );
    assert!(why.contains("Python class name"), "{why}");
    ok(
        &p,
        &[
            "add-tool",
            "Painter",
            "--caller",
            "note",
            "--module-path",
            "app.tools.painting",
        ],
    );
    let text = fs::read_to_string(&p).unwrap();
    assert!(
        text.contains("  - &painter_tool\n    name: \"Painter\"\n    type: \"LOCAL_TOOL\"\n    module_path: \"app.tools.painting\"\n"),
        "{text}"
    );
    assert!(
        text.contains("    tools:\n      - *painter_tool\n"),
        "{text}"
    );
    // (`set` verified that the file loads into the graph with the tool's module path.)
    assert!(calls(&p).contains(&("note".into(), "Painter".into(), 1.0)));
    assert_eq!(problems(&p), Vec::<String>::new());
    // `export --to json` carries each tool's module path.
    let tools = export(&p)["tools"].as_array().unwrap().clone();
    let painter = tools.iter().find(|t| t["name"] == "Painter").unwrap();
    assert_eq!(painter["module_path"], "app.tools.painting");
    let reader = tools.iter().find(|t| t["name"] == "Reader").unwrap();
    assert_eq!(reader["module_path"], "app.tools.reading");
}

/// A native toolkit takes the module path too, as a key of the declaration.
#[test]
fn add_tool_writes_a_module_path_in_a_native_toolkit() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("kit.yaml");
    fs::write(
        &p,
        "tools:\n  - name: a\n    desc: A.\nactions:\n  - name: go\n    tools: [a]\n",
    )
    .unwrap();
    ok(
        &p,
        &["add-tool", "b", "--caller", "go", "--module-path", "pkg.b"],
    );
    let text = fs::read_to_string(&p).unwrap();
    assert!(
        text.contains("  - name: b\n    module_path: pkg.b\n    desc: \"\"\n"),
        "{text}"
    );
}

/// `Next` edges come from the flattened chains: an edit that changes exactly one edge is
/// made (a new chain at the end, a place taken out); the others are refused naming the
/// edges the nearest change would also add or drop.
#[test]
fn next_edges_follow_the_flattened_chains() {
    let (_d, p) = config(CONFIG, false);
    let why = refused(&p, &["unlink", "note", "browse"]);
    assert!(
        why.contains("`note` ends chain 1 and `browse` starts chain 2")
            && why.contains("would also add `write -> browse` and drop `write -> note`"),
        "{why}"
    );
    let why = refused(&p, &["link", "note", "read"]);
    assert!(
        why.contains("a new chain `[note, read]` at the end would also add `think -> note`")
            && why.contains("build the tools of `read` a second time"),
        "{why}"
    );
    // `think` ends the flattened chain and `note` calls no tool: `[note]` after it adds
    // exactly `think -> note`, and unlinking takes that place out again.
    ok(&p, &["link", "think", "note"]);
    let text = fs::read_to_string(&p).unwrap();
    assert!(
        text.contains("  - [*browse_action, *think_action]\n  - [*note_action]\n"),
        "{text}"
    );
    ok(&p, &["unlink", "think", "note"]);
    assert_eq!(fs::read_to_string(&p).unwrap(), CONFIG);
}
