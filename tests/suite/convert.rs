//! `toolscope convert --to native` (issue 27, item 2): every field the native format can
//! hold is carried (a group's `enabled`, `exclusive` and `mcp_transport_config`), each one it
//! cannot hold is named, and the conversion refuses (exit 1, nothing written) unless
//! `--allow-loss` accepts the loss. Tested on Chat2Graph's published `chat2graph.yml`.

use crate::common::shared;

use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolscope"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("toolscope runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// `mcp discover --server NAME` with no program on PATH: the server is found and its start
/// fails (nothing runs). Returns discovery's JSON report.
fn discover(file: &Path, server: &str) -> serde_json::Value {
    let empty = tempfile::tempdir().expect("tempdir");
    let out = bin()
        .args(["mcp", "discover", &s(file), "--server", server])
        .args(["--timeout", "5", "--format", "json"])
        .env("PATH", empty.path())
        .output()
        .expect("toolscope runs");
    serde_json::from_slice(&out.stdout).expect("json report")
}

fn server_names(report: &serde_json::Value) -> Vec<String> {
    report["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .map(|s| s["name"].as_str().expect("name").to_string())
        .collect()
}

#[test]
fn the_published_config_is_refused_with_each_loss_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(src) = shared::chat2graph_yml() else {
        return;
    };
    let out_file = dir.path().join("native.yaml");
    let out = run(&["convert", &s(&src), "--to", "native", "-o", &s(&out_file)]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        !out_file.exists(),
        "nothing is written without --allow-loss"
    );
    for lost in [
        "`reasoner`",
        "`instruction`",
        "`output_schema`",
        "profile: `desc`",
    ] {
        assert!(err.contains(lost), "{lost} not named:\n{err}");
    }
    assert!(err.contains("chat2graph.yml:9:"), "positions:\n{err}");
    assert!(err.contains("--allow-loss"), "{err}");
    for carried in ["mcp_transport_config", "enabled", "exclusive"] {
        assert!(!err.contains(carried), "{carried} is carried:\n{err}");
    }
}

#[test]
fn groups_keep_their_servers_so_discover_still_finds_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(src) = shared::chat2graph_yml() else {
        return;
    };
    let out_file = dir.path().join("native.yaml");
    let out = run(&[
        "convert",
        &s(&src),
        "--to",
        "native",
        "-o",
        &s(&out_file),
        "--allow-loss",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("`reasoner`"), "still named");
    for (server, program) in [("FileTool", "npx"), ("BrowserTool", "uvx")] {
        let before = discover(&src, server);
        let after = discover(&out_file, server);
        assert_eq!(server_names(&after), vec![server.to_string()], "{after}");
        let said = after["diagnostics"].to_string();
        assert!(
            said.contains(&format!("cannot start `{program}`")),
            "{said}"
        );
        assert_eq!(server_names(&before), server_names(&after));
    }
    let text = std::fs::read_to_string(&out_file).expect("read");
    assert!(
        text.contains("ANONYMIZED_TELEMETRY"),
        "env carried:\n{text}"
    );
    // The graph is the same: every group (with its flags), edge and operator.
    let json = |f: &Path| {
        let o = run(&["export", &s(f), "--to", "json", "--no-mcp-cache"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        v
    };
    let (a, b) = (json(&src), json(&out_file));
    for key in ["groups", "edges", "operators"] {
        let strip = |v: &serde_json::Value| {
            let mut v = v[key].clone();
            for x in v.as_array_mut().into_iter().flatten() {
                if let Some(m) = x.as_object_mut() {
                    m.retain(|k, _| !matches!(k.as_str(), "file" | "line" | "anchor"));
                }
            }
            v
        };
        assert_eq!(strip(&a), strip(&b), "{key}");
    }
}

const GROUPS: &str = "\
tools:
  - name: t1
  - name: t2
groups:
  - name: off
    desc: A server turned off.
    type: MCP
    enabled: false
    tools: [t1]
    mcp_transport_config:
      transport_type: STDIO
      command: \"srv\"
      args: [\"--port\", \"8\", \"a: b\"]
      env: {TOKEN: \"x\", LEVEL: \"3\"}
      timeout: 30
  - name: alone
    type: MCP
    exclusive: true
    tools: [t2]
actions:
  - name: a
    tools: [off, alone, t1, t2]
operators:
  - {name: op, actions: [a], threshold: 0.5, hops: 0}
";

fn offered(file: &Path) -> String {
    let out = run(&[
        "recommend",
        &s(file),
        "--operator",
        "op",
        "--offered",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    v["offered_tools"].to_string()
}

#[test]
fn group_flags_and_transport_survive_a_conversion() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("kit.yaml");
    std::fs::write(&src, GROUPS).expect("write");
    let out_file = dir.path().join("native.yaml");
    let out = run(&["convert", &s(&src), "-o", &s(&out_file)]);
    assert!(
        out.status.success(),
        "no loss, no flag needed: {}",
        stderr(&out)
    );
    assert_eq!(
        offered(&src),
        offered(&out_file),
        "the disabled group stays off"
    );
    let json = |f: &Path| {
        let o = run(&["export", &s(f), "--to", "json"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        v["groups"].clone()
    };
    assert_eq!(json(&src), json(&out_file));
    assert_eq!(server_names(&discover(&out_file, "off")), vec!["off"]);
    let text = std::fs::read_to_string(&out_file).expect("read");
    for kept in ["timeout: 30", "LEVEL: \"3\"", "\"a: b\""] {
        assert!(text.contains(kept), "{kept}:\n{text}");
    }
}

#[test]
fn an_unknown_key_is_named_with_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("kit.yaml");
    std::fs::write(
        &src,
        GROUPS.replace("  - name: t2\n", "  - name: t2\n    cost: 3\n"),
    )
    .expect("write");
    let out = run(&["convert", &s(&src)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "nothing printed");
    let err = stderr(&out);
    assert!(
        err.contains("kit.yaml:4:5") && err.contains("`cost`"),
        "{err}"
    );
}
