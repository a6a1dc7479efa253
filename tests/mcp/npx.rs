//! Real published MCP servers through `npx`, when `npx` is installed (CI installs node and
//! npm); otherwise each test prints a note and passes. The first run downloads the
//! packages (bounded by the discovery timeout).

use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::tests::{c2g, stderr, stdout, toolscope};

pub const ALL: &[(&str, fn())] = &[
    (
        "npx_filesystem_server_as_published",
        npx_filesystem_server_as_published,
    ),
    (
        "npx_everything_server_over_sse",
        npx_everything_server_over_sse,
    ),
];

fn have_npx(test: &str) -> bool {
    let ok = Command::new("npx")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        println!("note: {test} skipped: `npx` is not installed (install nodejs and npm)");
    }
    ok
}

fn npx_filesystem_server_as_published() {
    if !have_npx("npx_filesystem_server_as_published") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    // Exactly as Chat2Graph's published chat2graph.yml declares FileTool (no `-y`).
    let block = "      transport_type: \"STDIO\"\n      command: \"npx\"\n      args: [\"@modelcontextprotocol/server-filesystem\", \".\"]";
    let path = c2g(dir.path(), block);
    let p = path.display().to_string();
    // npx assumes yes when its stdin is not a terminal, unless the npm configuration says
    // `yes=false` (some machines do); the environment overrides that without touching the
    // config file under test.
    let out = Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(["mcp", "discover", &p, "--timeout", "240"])
        .env("npm_config_yes", "true")
        .output()
        .expect("toolscope");
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let export: Value =
        serde_json::from_slice(&toolscope(&["describe", &p, "--style", "json"]).stdout).unwrap();
    let tool = |name: &str| {
        export
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["function"]["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {export}"))
            .clone()
    };
    for name in ["read_text_file", "list_directory"] {
        let f = tool(name);
        assert!(!f["function"]["description"].as_str().unwrap().is_empty());
        assert_eq!(f["function"]["parameters"]["type"], "object");
        assert!(
            f["function"]["parameters"]["properties"]["path"].is_object(),
            "{f}"
        );
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(38_931)
}

/// The server's process group, killed when the test ends.
struct Group(i32, std::process::Child);
impl Drop for Group {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.0)])
            .status();
        let _ = self.1.wait();
    }
}

fn npx_everything_server_over_sse() {
    if !have_npx("npx_everything_server_over_sse") {
        return;
    }
    let port = free_port();
    let child = Command::new("npx")
        .args(["-y", "@modelcontextprotocol/server-everything", "sse"])
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("npx");
    let _group = Group(child.id() as i32, child);
    let until = Instant::now() + Duration::from_secs(240);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < until,
            "server-everything did not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let dir = tempfile::tempdir().unwrap();
    let block =
        format!("      transport_type: \"SSE\"\n      url: \"http://localhost:{port}/sse\"");
    let path = c2g(dir.path(), &block);
    let out = toolscope(&[
        "mcp",
        "discover",
        &path.display().to_string(),
        "--timeout",
        "60",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tools = v["servers"][0]["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t == "echo"), "{v}");
}
