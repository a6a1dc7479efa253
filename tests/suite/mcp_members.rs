//! MCP servers' tools through the real binary (issue 32): a score on a server scores its
//! tools that have none of their own, with and without the `mcp discover` cache; lint on
//! a stale or old cache and on scores naming tools the cache does not list; the refusal
//! of a score to a tool of a server whose tools are unknown; one tool name on two servers
//! kept as two tools named `SERVER/TOOL`; and the functions Chat2Graph sends counted once
//! per place of their caller in the chains.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// A Chat2Graph config shaped like the GAIA agents: two browser servers, one action in two
/// chains (Chat2Graph builds its tool twice), `SCORES` replaced by each test.
const CONFIG: &str = r#"tools:
  - &browser_use_tool
    name: "BrowserTool"
    type: "MCP"
    mcp_transport_config:
      transport_type: "STDIO"
      command: "uvx"
      args: ["browser-use", "--mcp"]
  - &playwright_tool
    name: "Playwright"
    type: "MCP"
    mcp_transport_config:
      transport_type: "SSE"
      url: "http://localhost:8931/sse"
  - &multi_modal_tool
    name: "GeminiMultiModalTool"
    type: "LOCAL_TOOL"
    module_path: "app.core.toolkit.system_tool.gemini_multi_modal_tool"

actions:
  - &browse_action
    name: "browser using action"
    desc: "Browses."
    tools:
      - *browser_use_tool
      - *playwright_tool
  - &analyze_action
    name: "analyze"
    desc: "Looks at media."
    tools:
      - *multi_modal_tool
  - &verify_action
    name: "verify"
    desc: "Checks."

toolkit:
  - [*browse_action, *analyze_action]
  - [*verify_action, *analyze_action]

operators:
  - &dev_operator
    instruction: "Work."
    output_schema: "result"
    actions: [*browse_action, *analyze_action]

experts:
  - profile:
      name: "Dev"
    workflow:
      - [*dev_operator]

leader:
  actions: [*verify_action]
SCORES"#;

fn server(name: &str, id: &str, at: &str, tools: &[&str]) -> String {
    let tools: Vec<String> = tools
        .iter()
        .map(|t| format!(r#"{{"name": "{t}", "description": "Does {t}.", "input_schema": {{}}}}"#))
        .collect();
    format!(
        r#"{{"name": "{name}", {id}, "discovered_at": "{at}", "tools": [{}]}}"#,
        tools.join(", ")
    )
}

const BROWSER_ID: &str =
    r#""transport": "stdio", "command": "uvx", "args": ["browser-use", "--mcp"]"#;
const PLAYWRIGHT_ID: &str = r#""transport": "sse", "url": "http://localhost:8931/sse""#;

/// What `mcp discover` records: both servers list `browser_navigate`.
fn cache(at: &str) -> String {
    format!(
        r#"{{"toolscope_mcp_cache": 1, "servers": [{}, {}]}}"#,
        server(
            "BrowserTool",
            BROWSER_ID,
            at,
            &["browser_click", "browser_navigate", "browser_open_tab"]
        ),
        server(
            "Playwright",
            PLAYWRIGHT_ID,
            at,
            &["browser_navigate", "browser_snapshot"]
        )
    )
}

/// A date `mcp discover` could have written today.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    toolscope_core::mcp::cache::rfc3339(secs)
}

/// The config with `scores` (YAML lines) in a fresh folder, with `cache` beside it.
fn config(scores: &str, cache: Option<&str>) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("agent.yml");
    fs::write(&p, CONFIG.replace("SCORES", scores)).unwrap();
    if let Some(c) = cache {
        fs::write(dir.path().join("agent.yml.mcp.json"), c).unwrap();
    }
    (dir, p)
}

fn toolscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `recommend --operator Dev/1 --format json` (extra arguments after).
fn recommend(p: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "recommend",
        p.to_str().unwrap(),
        "--operator",
        "Dev/1",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let out = toolscope(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("json")
}

fn tools(v: &Value) -> Vec<String> {
    let mut t: Vec<String> = v["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|n| n.as_str().expect("name").to_string())
        .collect();
    t.sort();
    t
}

/// Lint's lines with `code`.
fn lint(p: &Path, code: &str) -> Vec<String> {
    stdout(&toolscope(&["lint", p.to_str().unwrap()]))
        .lines()
        .filter(|l| l.contains(code))
        .map(str::to_string)
        .collect()
}

const SERVER_SCORE: &str =
    "scores:\n  - {from: browser using action, to: BrowserTool, score: 0.3}\n";
const OWN_SCORE: &str = "  - {from: browser using action, to: browser_click, score: 0.8}\n";

#[test]
fn a_server_score_scores_its_tools_that_have_none_of_their_own() {
    let cache = cache(&today());
    // The server's entry before and after the tool's own: the same meaning.
    let before = format!("{SERVER_SCORE}{OWN_SCORE}");
    let after = format!("scores:\n{OWN_SCORE}{}", &SERVER_SCORE["scores:\n".len()..]);
    for scores in [before, after] {
        let (_d, p) = config(&scores, Some(&cache));
        let v = recommend(&p, &[]);
        assert_eq!(
            tools(&v),
            [
                "GeminiMultiModalTool",
                "Playwright/browser_navigate",
                "browser_click",
                "browser_snapshot"
            ],
            "{scores}"
        );
        // At 0.3 the tools the server's score reaches come in.
        let low = recommend(&p, &["--threshold", "0.3"]);
        assert!(tools(&low).contains(&"browser_open_tab".to_string()));
        assert!(tools(&low).contains(&"BrowserTool/browser_navigate".to_string()));
        let note = lint(&p, "TS063");
        assert_eq!(note.len(), 1, "{note:?}");
        assert!(
            note[0].contains(" info ")
                && note[0].contains("BrowserTool/browser_navigate, browser_open_tab")
                && !note[0].contains("browser_click"),
            "{note:?}"
        );
        assert!(lint(&p, "TS060").is_empty());
        // explain names the score the server's entry gave.
        let ex = toolscope(&[
            "explain",
            p.to_str().unwrap(),
            "browser_open_tab",
            "--operator",
            "Dev/1",
        ]);
        assert!(stdout(&ex).contains("0.3"), "{}", stdout(&ex));
    }
}

#[test]
fn without_the_cache_a_server_score_scores_the_server() {
    let (_d, p) = config(&format!("{SERVER_SCORE}{OWN_SCORE}"), None);
    let v = recommend(&p, &[]);
    assert_eq!(tools(&v), ["GeminiMultiModalTool", "Playwright"]);
    assert_eq!(
        tools(&recommend(&p, &["--threshold", "0.3"])),
        ["BrowserTool", "GeminiMultiModalTool", "Playwright"]
    );
    // The tool's own score names no tool toolscope knows: lint says why and what to do.
    let w = lint(&p, "TS064");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("`BrowserTool`, `Playwright`")
            && w[0].contains("whose tools are unknown")
            && w[0].contains("toolscope mcp discover")
            && w[0].contains("agent.yml"),
        "{w:?}"
    );
}

#[test]
fn a_score_to_an_unknown_tool_of_a_server_says_both_ways_forward() {
    let (_d, p) = config("", None);
    let out = toolscope(&[
        "set",
        p.to_str().unwrap(),
        "score",
        "browser using action",
        "browser_open_tab",
        "0.3",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    let file = p.to_str().unwrap();
    assert!(e.contains("whose tools are unknown"), "{e}");
    assert!(e.contains(&format!("toolscope mcp discover {file}")), "{e}");
    assert!(
        e.contains(&format!(
            "toolscope set {file} score 'browser using action' BrowserTool 0.3"
        )),
        "{e}"
    );
    // A name that exists nowhere, from an action calling no server: the plain refusal.
    let out = toolscope(&["set", file, "score", "analyze", "nowhere", "0.3"]);
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert!(e.contains("no edge analyze -> nowhere"), "{e}");
    assert!(!e.contains("mcp discover"), "{e}");
}

#[test]
fn lint_reports_a_cache_the_file_or_time_has_left_behind() {
    // Another declaration: the file now runs another program.
    let moved = cache(&today()).replace(r#""--mcp""#, r#""--old""#);
    let (_d, p) = config("", Some(&moved));
    let w = lint(&p, "TS091");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("stdio: uvx browser-use --old")
            && w[0].contains("stdio: uvx browser-use --mcp")
            && w[0].contains(&format!("toolscope mcp discover {}", p.display())),
        "{w:?}"
    );
    // An old cache: an info naming its age and the command.
    let (_e, q) = config("", Some(&cache("2020-01-01T00:00:00Z")));
    let old = lint(&q, "TS097");
    assert_eq!(old.len(), 2, "{old:?}");
    assert!(
        old[0].contains(" info ") && old[0].contains("days ago"),
        "{old:?}"
    );
    assert!(lint(&config("", Some(&cache(&today()))).1, "TS097").is_empty());
    // A score naming a tool the server no longer lists.
    let gone = "scores:\n  - {from: browser using action, to: browser_scroll, score: 0.4}\n";
    let (_f, r) = config(gone, Some(&cache(&today())));
    let w = lint(&r, "TS064");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("`BrowserTool`, `Playwright`")
            && w[0].contains("cache is out of date")
            && w[0].contains("toolscope mcp discover"),
        "{w:?}"
    );
}

#[test]
fn one_tool_name_on_two_servers_is_two_tools() {
    let (_d, p) = config("", Some(&cache(&today())));
    let file = p.to_str().unwrap();
    let w = lint(&p, "TS065");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("2 functions named `browser_navigate`")
            && w[0].contains("`BrowserTool/browser_navigate` and `Playwright/browser_navigate`"),
        "{w:?}"
    );
    // The bare name is ambiguous: refused, naming both.
    let out = toolscope(&[
        "set",
        file,
        "score",
        "browser using action",
        "browser_navigate",
        "0.2",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("name one"), "{}", stderr(&out));
    // Each qualified tool is scored on its own.
    let out = toolscope(&[
        "set",
        file,
        "score",
        "browser using action",
        "Playwright/browser_navigate",
        "0.2",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = fs::read_to_string(&p).unwrap();
    assert!(
        text.contains("to: Playwright/browser_navigate, score: 0.2"),
        "{text}"
    );
    let t = tools(&recommend(&p, &[]));
    assert!(
        t.contains(&"BrowserTool/browser_navigate".to_string()),
        "{t:?}"
    );
    assert!(
        !t.contains(&"Playwright/browser_navigate".to_string()),
        "{t:?}"
    );
    // A unique tool's qualified name is accepted too, and written as the tool's name.
    let out = toolscope(&[
        "set",
        file,
        "score",
        "browser using action",
        "BrowserTool/browser_click",
        "0.6",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        fs::read_to_string(&p)
            .unwrap()
            .contains("to: browser_click, score: 0.6")
    );
    // Trace records name a tool either way.
    let traces = p.with_file_name("runs.jsonl");
    fs::write(
        &traces,
        "{\"operator\": \"Dev/1\", \"called\": [\"Playwright/browser_navigate\", \"BrowserTool/browser_click\"]}\n",
    )
    .unwrap();
    let out = toolscope(&[
        "eval",
        file,
        "--traces",
        traces.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["overall"]["records"].as_f64(), Some(1.0), "{v}");
    assert_eq!(v["overall"]["unknown_calls"].as_f64(), Some(0.0), "{v}");
}

#[test]
fn a_tool_is_counted_once_per_function_chat2graph_sends() {
    let (_d, p) = config("", None);
    let v = recommend(&p, &[]);
    // `analyze` has two places in the chains: Chat2Graph sends its tool twice.
    assert_eq!(v["functions_sent"], 4, "{v}");
    let text = stdout(&toolscope(&[
        "recommend",
        p.to_str().unwrap(),
        "--operator",
        "Dev/1",
    ]));
    assert!(
        text.contains("functions sent: 4 (GeminiMultiModalTool x2"),
        "{text}"
    );
    // The same config with `analyze` in one chain: one function fewer, and its tokens.
    let dir = tempfile::tempdir().unwrap();
    let once = dir.path().join("once.yml");
    fs::write(
        &once,
        CONFIG
            .replace("SCORES", "")
            .replace("[*verify_action, *analyze_action]", "[*verify_action]"),
    )
    .unwrap();
    let w = recommend(&once, &[]);
    assert_eq!(w["functions_sent"], 3, "{w}");
    assert_eq!(tools(&w), tools(&v));
    let describe = toolscope(&["describe", once.to_str().unwrap(), "--style", "json"]);
    assert!(describe.status.success());
    let entry_tokens = {
        let all: Value = serde_json::from_slice(&describe.stdout).expect("json");
        let entry = all
            .as_array()
            .expect("list")
            .iter()
            .find(|e| e["function"]["name"] == "GeminiMultiModalTool")
            .expect("the tool's entry")
            .clone();
        let text = serde_json::to_string_pretty(&entry).unwrap();
        toolscope_core::tokens::Tokenizer::new(Default::default()).count(&text)
    };
    assert_eq!(
        v["tokens"].as_u64().unwrap(),
        w["tokens"].as_u64().unwrap() + entry_tokens,
        "{v} {w}"
    );
}

#[test]
fn a_server_whose_cache_lists_no_tools_offers_nothing() {
    // Playwright listed nothing when it was discovered: Chat2Graph adds the tools a server
    // lists and nothing else, so neither the server nor any tool of it is offered.
    let empty = format!(
        r#"{{"toolscope_mcp_cache": 1, "servers": [{}, {}]}}"#,
        server("BrowserTool", BROWSER_ID, &today(), &["browser_click"]),
        server("Playwright", PLAYWRIGHT_ID, &today(), &[])
    );
    let scores = "scores:\n  - {from: browser using action, to: Playwright, score: 0.9}\n";
    let (_d, p) = config(scores, Some(&empty));
    let file = p.to_str().unwrap();
    let all = recommend(&p, &["--threshold", "0"]);
    assert_eq!(
        tools(&all),
        ["GeminiMultiModalTool", "browser_click"],
        "{all}"
    );
    assert_eq!(all["functions_sent"], 3, "{all}");
    let w = lint(&p, "TS098");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains(" warning ")
            && w[0].contains("no tools for the server `Playwright`")
            && w[0].contains(&format!("toolscope mcp discover {file}")),
        "{w:?}"
    );
    // The score on it scores nothing, and lint says why rather than "no such edge".
    let s = lint(&p, "TS064");
    assert_eq!(s.len(), 1, "{s:?}");
    assert!(
        s[0].contains("lists no tools for the server `Playwright`"),
        "{s:?}"
    );
    assert!(lint(&p, "TS060").is_empty());
    let out = toolscope(&[
        "set",
        file,
        "score",
        "browser using action",
        "Playwright",
        "0.3",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("lists no tools for the server `Playwright`"),
        "{}",
        stderr(&out)
    );
    // Without a cache entry its tools are unknown, and the server stands for them.
    let browser_only = format!(
        r#"{{"toolscope_mcp_cache": 1, "servers": [{}]}}"#,
        server("BrowserTool", BROWSER_ID, &today(), &["browser_click"])
    );
    let (_e, q) = config("", Some(&browser_only));
    let t = tools(&recommend(&q, &["--threshold", "0"]));
    assert_eq!(t, ["GeminiMultiModalTool", "Playwright", "browser_click"]);
    assert!(lint(&q, "TS098").is_empty());
}
