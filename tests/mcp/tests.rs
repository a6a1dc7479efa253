//! Discovery over every transport, the failure modes, and the cache as commands load it.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub const ALL: &[(&str, fn())] = &[
    (
        "stdio_discovery_pages_env_and_cache",
        stdio_discovery_pages_env_and_cache,
    ),
    ("members_behave_as_tools", members_behave_as_tools),
    (
        "member_score_is_written_as_scores_entry",
        member_score_is_written_as_scores_entry,
    ),
    (
        "native_group_with_transport_block",
        native_group_with_transport_block,
    ),
    (
        "native_member_score_is_an_item_of_its_own",
        native_member_score_is_an_item_of_its_own,
    ),
    (
        "stale_and_unreadable_caches_are_diagnostics",
        stale_and_unreadable_caches_are_diagnostics,
    ),
    ("streamable_http_discovery", streamable_http_discovery),
    ("sse_discovery_with_headers", sse_discovery_with_headers),
    (
        "hanging_server_times_out_and_leaves_no_process",
        hanging_server_times_out_and_leaves_no_process,
    ),
    ("ctrl_c_stops_the_server_tree", ctrl_c_stops_the_server_tree),
    (
        "failing_server_shows_its_stderr",
        failing_server_shows_its_stderr,
    ),
    ("npx_refusal_gets_a_hint", npx_refusal_gets_a_hint),
    (
        "malformed_tool_is_a_diagnostic",
        malformed_tool_is_a_diagnostic,
    ),
    ("websocket_is_unsupported", websocket_is_unsupported),
    (
        "a_deep_schema_is_cut_and_the_cache_reads_back",
        a_deep_schema_is_cut_and_the_cache_reads_back,
    ),
    (
        "a_bad_cache_entry_costs_only_that_entry",
        a_bad_cache_entry_costs_only_that_entry,
    ),
    (
        "a_huge_tools_list_is_reported_at_once",
        a_huge_tools_list_is_reported_at_once,
    ),
    (
        "a_too_deep_answer_is_reported_at_once",
        a_too_deep_answer_is_reported_at_once,
    ),
    (
        "an_endless_sse_event_is_cut_off_and_reported",
        an_endless_sse_event_is_cut_off_and_reported,
    ),
];

pub fn toolscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(args)
        .output()
        .expect("run toolscope")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn exe() -> String {
    std::env::current_exe().expect("exe").display().to_string()
}

/// A Chat2Graph config whose one MCP entry `TestServer` has `block` (indented 6) as its
/// `mcp_transport_config`, called by two chained actions.
pub fn c2g(dir: &Path, block: &str) -> PathBuf {
    let text = format!(
        r#"tools:
  - &server
    name: "TestServer"
    type: "MCP"
    mcp_transport_config:
{block}
actions:
  - &explore
    name: "explore"
    desc: "Look around."
    tools:
      - *server
  - &report
    name: "report"
    desc: "Write it up."
    tools:
      - *server
toolkit:
  - [*explore, *report]
"#
    );
    let path = dir.join("agent.yml");
    std::fs::write(&path, text).expect("write config");
    path
}

fn stdio_block(args: &[&str]) -> String {
    let args: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
    format!(
        "      transport_type: \"STDIO\"\n      command: {:?}\n      args: [{}]\n      env:\n        {}: \"serve-secret-token\"\n        TS_GREETING: \"hello from env\"",
        exe(),
        args.join(", "),
        super::server::ENV
    )
}

fn discover(path: &Path, extra: &[&str]) -> Output {
    let p = path.display().to_string();
    let mut args = vec!["mcp", "discover", p.as_str(), "--format", "json"];
    args.extend_from_slice(extra);
    toolscope(&args)
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\nstderr: {}", stdout(o), stderr(o)))
}

fn cache_of(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap().to_os_string();
    name.push(".mcp.json");
    path.with_file_name(name)
}

fn discovered(dir: &Path) -> PathBuf {
    let path = c2g(dir, &stdio_block(&["stdio", "2"]));
    let out = discover(&path, &[]);
    assert!(out.status.success(), "discover failed: {}", stderr(&out));
    path
}

fn stdio_discovery_pages_env_and_cache() {
    let dir = tempfile::tempdir().unwrap();
    let path = c2g(dir.path(), &stdio_block(&["stdio", "2"]));
    let before = std::fs::read_to_string(&path).unwrap();
    let out = discover(&path, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    let server = &v["servers"][0];
    assert_eq!(server["name"], "TestServer");
    // Five tools in pages of two: three `tools/list` requests.
    assert_eq!(server["pages"], 3);
    assert_eq!(
        server["tools"],
        serde_json::json!(["list_dir", "ping", "read_file", "search", "whoami"])
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        before,
        "config unchanged"
    );
    let cache_text = std::fs::read_to_string(cache_of(&path)).unwrap();
    let cache: Value = serde_json::from_str(&cache_text).unwrap();
    let entry = &cache["servers"][0];
    assert_eq!(entry["transport"], "stdio");
    assert_eq!(entry["command"], exe());
    assert_eq!(entry["args"], serde_json::json!(["stdio", "2"]));
    assert!(entry["discovered_at"].as_str().unwrap().ends_with('Z'));
    // env values never reach the cache; env does reach the server, which ran in the
    // config's folder.
    assert!(!cache_text.contains("serve-secret-token"));
    let whoami = entry["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "whoami")
        .unwrap();
    let cwd = dir.path().canonicalize().unwrap();
    assert_eq!(
        whoami["description"],
        format!("cwd={} greeting=hello from env", cwd.display())
    );
    let read = entry["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "read_file")
        .unwrap();
    assert_eq!(
        read["input_schema"]["required"],
        serde_json::json!(["path"])
    );
    // Deterministic: a second discovery changes at most the `discovered_at` line.
    let again = discover(&path, &[]);
    assert!(again.status.success());
    let second = std::fs::read_to_string(cache_of(&path)).unwrap();
    let differing = cache_text
        .lines()
        .zip(second.lines())
        .filter(|(a, b)| a != b)
        .count();
    assert!(differing <= 1, "{cache_text}\n---\n{second}");
    assert_eq!(cache_text.lines().count(), second.lines().count());
}

fn members_behave_as_tools() {
    let dir = tempfile::tempdir().unwrap();
    let path = discovered(dir.path());
    let p = path.display().to_string();
    let export = json(&toolscope(&["export", &p, "--to", "json"]));
    let group = export["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "TestServer")
        .unwrap();
    assert_eq!(group["tools"].as_array().unwrap().len(), 5);
    let edges = export["edges"].as_array().unwrap();
    let has = |from: &str, to: &str, kind: &str| {
        edges
            .iter()
            .any(|e| e["from"] == from && e["to"] == to && e["kind"] == kind)
    };
    assert!(has("TestServer", "read_file", "has"));
    assert!(has("explore", "read_file", "call") && has("report", "whoami", "call"));
    assert!(
        !has("explore", "TestServer", "call"),
        "callers call members, not the group"
    );
    let rec = json(&toolscope(&[
        "recommend",
        &p,
        "--seeds",
        "explore",
        "--format",
        "json",
    ]));
    assert!(
        rec["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "search")
    );
    let described = toolscope(&["describe", &p, "--style", "json"]);
    let funcs = json(&described);
    let read = funcs
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["function"]["name"] == "read_file")
        .unwrap();
    assert_eq!(read["function"]["description"], "Read a file.");
    assert_eq!(
        read["function"]["parameters"]["properties"]["path"]["description"],
        "Which file"
    );
    let md = stdout(&toolscope(&["describe", &p, "--style", "markdown"]));
    assert!(
        md.contains("## list_dir") && md.contains("How deep"),
        "{md}"
    );
    // --no-mcp-cache: the group stands for its unknown members again.
    let plain = json(&toolscope(&[
        "export",
        &p,
        "--to",
        "json",
        "--no-mcp-cache",
    ]));
    assert!(
        plain["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["name"] != "read_file")
    );
    assert!(
        plain["edges"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["from"] == "explore" && e["to"] == "TestServer")
    );
}

fn member_score_is_written_as_scores_entry() {
    let dir = tempfile::tempdir().unwrap();
    let path = discovered(dir.path());
    let p = path.display().to_string();
    let out = toolscope(&["set", &p, "score", "explore", "read_file", "0.3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("scores:") && text.contains("read_file"),
        "{text}"
    );
    let export = json(&toolscope(&["export", &p, "--to", "json"]));
    let edge = export["edges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["from"] == "explore" && e["to"] == "read_file")
        .unwrap()
        .clone();
    assert_eq!(edge["score"], 0.3);
    let rec = json(&toolscope(&[
        "recommend",
        &p,
        "--seeds",
        "explore",
        "--threshold",
        "0.5",
        "--format",
        "json",
    ]));
    assert!(
        rec["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t != "read_file")
    );
    // Members have no YAML of their own: a description edit is refused, not misplaced.
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(["set", &p, "desc", "read_file"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"new text\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        text,
        "nothing written"
    );
}

fn native_group_with_transport_block() {
    let dir = tempfile::tempdir().unwrap();
    let block = stdio_block(&["stdio"]).replace("\n      ", "\n        ");
    let text = format!(
        "groups:\n  - name: files\n    mcp_transport_config:\n  {}\nactions:\n  - name: look\n    tools: [files]\n",
        block.trim_end()
    );
    let path = dir.path().join("native.yaml");
    std::fs::write(&path, text).unwrap();
    let out = discover(&path, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let p = path.display().to_string();
    let export = json(&toolscope(&["export", &p, "--to", "json"]));
    let edges = export["edges"].as_array().unwrap();
    assert!(
        edges
            .iter()
            .any(|e| e["from"] == "look" && e["to"] == "ping" && e["kind"] == "call")
    );
    assert!(
        edges
            .iter()
            .any(|e| e["from"] == "files" && e["to"] == "ping" && e["kind"] == "has")
    );
}

/// A native file whose group `files` is discovered; `look` calls it at 0.5.
fn native_discovered(dir: &Path) -> (PathBuf, String) {
    let block = stdio_block(&["stdio"]).replace("\n      ", "\n        ");
    let text = format!(
        "groups:\n  - name: files\n    mcp_transport_config:\n  {}\nactions:\n  - name: look\n    tools:\n      - {{name: files, score: 0.5}}  # the server\n",
        block.trim_end()
    );
    let path = dir.join("native.yaml");
    std::fs::write(&path, &text).unwrap();
    let out = discover(&path, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    (path, text)
}

fn call_scores(path: &str) -> Vec<(String, f64)> {
    let export = json(&toolscope(&["export", path, "--to", "json"]));
    let mut scores: Vec<(String, f64)> = export["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["from"] == "look" && e["kind"] == "call")
        .map(|e| {
            (
                e["to"].as_str().unwrap().to_string(),
                e["score"].as_f64().unwrap(),
            )
        })
        .collect();
    scores.sort_by(|a, b| a.0.cmp(&b.0));
    scores
}

fn native_member_score_is_an_item_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let (path, before) = native_discovered(dir.path());
    let p = path.display().to_string();
    let out = toolscope(&["set", &p, "score", "look", "read_file", "0.7"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("group `files`"), "{}", stderr(&out));
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        text,
        before.replace(
            "# the server\n",
            "# the server\n      - {name: read_file, score: 0.7}\n"
        )
    );
    let expected: Vec<(String, f64)> = [
        ("list_dir", 0.5),
        ("ping", 0.5),
        ("read_file", 0.7),
        ("search", 0.5),
        ("whoami", 0.5),
    ]
    .iter()
    .map(|(n, s)| (n.to_string(), *s))
    .collect();
    assert_eq!(call_scores(&p), expected);
    // Lint does not flag the item (no duplicate edge, no undeclared tool).
    let lint = json(&toolscope(&["lint", &p, "--format", "json"]));
    let codes: Vec<&str> = lint["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(
        !codes.contains(&"TS023") && !codes.contains(&"TS031"),
        "{codes:?}"
    );
    // The member at 0.5 -> 0.2 changes the item only; back to the group's 0.5 removes it.
    let out = toolscope(&["set", &p, "score", "look", "read_file", "0.2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("- {name: read_file, score: 0.2}\n")
    );
    let out = toolscope(&["set", &p, "score", "look", "read_file", "0.5"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
}

fn stale_and_unreadable_caches_are_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let path = discovered(dir.path());
    let p = path.display().to_string();
    // The file now declares another server: the cache is stale and ignored.
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"stdio\", \"2\"", "\"stdio\", \"3\"");
    std::fs::write(&path, text).unwrap();
    let lint = json(&toolscope(&["lint", &p, "--format", "json"]));
    let codes: Vec<&str> = lint["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(codes.contains(&"TS091"), "{codes:?}");
    let export = json(&toolscope(&["export", &p, "--to", "json"]));
    assert!(
        export["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["name"] != "ping")
    );
    // Garbage in the cache: a warning, the toolkit still loads.
    std::fs::write(
        cache_of(&path),
        "{\"toolscope_mcp_cache\": 1, \"servers\": [",
    )
    .unwrap();
    let out = toolscope(&["lint", &p, "--format", "json"]);
    let lint = json(&out);
    let d = lint["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "TS090")
        .expect("TS090");
    assert_eq!(d["severity"], "warning");
    assert!(
        toolscope(&["recommend", &p, "--seeds", "explore"])
            .status
            .success()
    );
}

/// Starts the test server in a network mode; returns it and its port.
fn network_server(args: &[&str]) -> (Child, u16) {
    let mut child = Command::new(exe())
        .args(args)
        .env(super::server::ENV, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start test server");
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line.trim().parse().expect("port");
    (child, port)
}

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn streamable_http_discovery() {
    let (child, port) = network_server(&["http"]);
    let _guard = Killed(child);
    let dir = tempfile::tempdir().unwrap();
    let block =
        format!("      transport_type: STREAMABLE_HTTP\n      url: http://127.0.0.1:{port}/mcp");
    let path = c2g(dir.path(), &block);
    let out = discover(&path, &["--timeout", "20"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["servers"][0]["pages"], 3);
    assert_eq!(v["servers"][0]["tools"].as_array().unwrap().len(), 5);
    let cache: Value =
        serde_json::from_str(&std::fs::read_to_string(cache_of(&path)).unwrap()).unwrap();
    assert_eq!(cache["servers"][0]["transport"], "streamable_http");
    assert_eq!(
        cache["servers"][0]["url"],
        format!("http://127.0.0.1:{port}/mcp")
    );
}

fn sse_discovery_with_headers() {
    let (child, port) = network_server(&["sse"]);
    let _guard = Killed(child);
    let dir = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{port}/sse");
    // Without the header the server refuses the stream.
    let path = c2g(
        dir.path(),
        &format!("      transport_type: SSE\n      url: {url}"),
    );
    let out = discover(&path, &["--timeout", "20"]);
    assert!(!out.status.success());
    let refused = &json(&out)["diagnostics"][0];
    assert_eq!(refused["code"], "TS095");
    assert!(
        refused["message"].as_str().unwrap().contains("401"),
        "{refused}"
    );
    let block = format!(
        "      transport_type: SSE\n      url: {url}\n      headers:\n        X-Test-Token: letmein\n      timeout: 10"
    );
    let path = c2g(dir.path(), &block);
    let out = discover(&path, &["--timeout", "20"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["servers"][0]["pages"], 3);
    assert_eq!(v["servers"][0]["tools"].as_array().unwrap().len(), 5);
    let cache = std::fs::read_to_string(cache_of(&path)).unwrap();
    assert!(
        !cache.contains("letmein"),
        "header values never reach the cache"
    );
}

/// Whether a process is gone (or a zombie waiting for a reaper that is not us).
fn gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

fn wait_gone(pids: &[String]) -> bool {
    let until = Instant::now() + Duration::from_secs(5);
    while Instant::now() < until {
        if pids.iter().all(|p| gone(p)) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

fn hang_config(dir: &Path) -> (PathBuf, PathBuf) {
    let pidfile = dir.join("pids");
    let path = c2g(dir, &stdio_block(&["hang", &pidfile.display().to_string()]));
    (path, pidfile)
}

fn hanging_server_times_out_and_leaves_no_process() {
    let dir = tempfile::tempdir().unwrap();
    let (path, pidfile) = hang_config(dir.path());
    let started = Instant::now();
    let out = discover(&path, &["--timeout", "2"]);
    let took = started.elapsed();
    assert!(!out.status.success());
    assert!(took < Duration::from_secs(15), "took {took:?}");
    let v = json(&out);
    assert!(
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "TS096"),
        "{v}"
    );
    let pids: Vec<String> = std::fs::read_to_string(&pidfile)
        .unwrap()
        .split_whitespace()
        .map(String::from)
        .collect();
    assert_eq!(pids.len(), 2, "server and its grandchild");
    assert!(wait_gone(&pids), "left running: {pids:?}");
    assert!(!cache_of(&path).exists(), "nothing recorded");
}

fn ctrl_c_stops_the_server_tree() {
    let dir = tempfile::tempdir().unwrap();
    let (path, pidfile) = hang_config(dir.path());
    let child = Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args([
            "mcp",
            "discover",
            &path.display().to_string(),
            "--timeout",
            "60",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    while !pidfile.exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(200));
    let pids: Vec<String> = std::fs::read_to_string(&pidfile)
        .unwrap()
        .split_whitespace()
        .map(String::from)
        .collect();
    assert!(
        !pids.iter().any(|p| gone(p)),
        "server running before Ctrl-C"
    );
    // SIGINT to toolscope alone, as a terminal's Ctrl-C reaches its process group (the
    // server runs in a group of its own, so it relies on toolscope to stop it).
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(wait_gone(&pids), "left running: {pids:?}");
}

fn failing_server_shows_its_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let path = c2g(dir.path(), &stdio_block(&["fail"]));
    let p = path.display().to_string();
    let out = toolscope(&["mcp", "discover", &p, "--timeout", "20"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("fatal: no database configured (set DB_URL)"),
        "{err}"
    );
    assert!(err.contains("TS095"), "{err}");
    // A program that does not exist is the same kind of failure, with the reason.
    let path = c2g(
        dir.path(),
        "      transport_type: STDIO\n      command: ./no-such-server",
    );
    let out = toolscope(&["mcp", "discover", &path.display().to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cannot start"), "{}", stderr(&out));
}

/// Chat2Graph's published `npx PKG` line where npm is set not to install without asking
/// (`yes=false` in an npmrc): a stand-in `npx` prints npm's refusal and exits. The stderr is
/// shown, then a one-line hint naming the package; in JSON, the hint is an info diagnostic.
fn npx_refusal_gets_a_hint() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let npx = dir.path().join("npx");
    std::fs::write(
        &npx,
        "#!/bin/sh\necho 'npm error npx canceled due to missing packages and no YES option: [\"@modelcontextprotocol/server-filesystem@2025.8.21\"]' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&npx, std::fs::Permissions::from_mode(0o755)).unwrap();
    let block = "      transport_type: \"STDIO\"\n      command: \"./npx\"\n      args: [\"@modelcontextprotocol/server-filesystem\", \".\"]";
    let path = c2g(dir.path(), block);
    let out = toolscope(&["mcp", "discover", &path.display().to_string()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    let hint =
        "run `npx -y @modelcontextprotocol/server-filesystem` once, or set npm_config_yes=true";
    let lines: Vec<&str> = err.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains(hint))
        .unwrap_or_else(|| panic!("no hint in {err}"));
    assert!(lines[at].contains("info TS095"), "{err}");
    assert!(lines[at - 1].contains("error TS095"), "{err}");
    assert!(
        err.contains("npx canceled due to missing packages"),
        "{err}"
    );
    let v = json(&discover(&path, &[]));
    let infos: Vec<&Value> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "info")
        .collect();
    assert_eq!(infos.len(), 1, "{v}");
    assert!(infos[0]["message"].as_str().unwrap().contains(hint), "{v}");
}

fn malformed_tool_is_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let path = c2g(dir.path(), &stdio_block(&["malformed"]));
    let out = discover(&path, &["--timeout", "20"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["servers"][0]["tools"], serde_json::json!(["good"]));
    let warnings: Vec<&Value> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "TS094")
        .collect();
    assert_eq!(warnings.len(), 2, "{v}");
    assert!(
        warnings
            .iter()
            .any(|d| d["message"].as_str().unwrap().contains("no_schema"))
    );
}

fn websocket_is_unsupported() {
    let dir = tempfile::tempdir().unwrap();
    let path = c2g(
        dir.path(),
        "      transport_type: WEBSOCKET\n      url: ws://127.0.0.1:9/ws",
    );
    let out = discover(&path, &[]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["diagnostics"][0]["code"], "TS093");
    assert!(
        v["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("WEBSOCKET")
    );
}

/// The names of the tools a later load knows as the group's members, and its diagnostics.
fn members_after(path: &Path) -> (Vec<String>, String) {
    let out = toolscope(&["export", &path.display().to_string(), "--to", "json"]);
    let v = json(&out);
    let tools = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    let lint = toolscope(&["lint", &path.display().to_string(), "--format", "json"]);
    (tools, json(&lint)["diagnostics"].to_string())
}

/// Issue 27, item 10: a schema nesting 120 levels parsed from the server, but written into
/// the cache seven levels deeper, past the JSON reader's depth limit: every later load
/// ignored the whole cache (TS090), good servers' members included. It is cut (and said so)
/// before writing, so the cache reads back with both tools.
fn a_deep_schema_is_cut_and_the_cache_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = c2g(dir.path(), &stdio_block(&["deep"]));
    let out = discover(&path, &["--timeout", "20"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert!(v["diagnostics"].to_string().contains("levels"), "{v}");
    let (tools, diags) = members_after(&path);
    assert!(
        tools.contains(&"deep".into()) && tools.contains(&"plain".into()),
        "{tools:?} {diags}"
    );
    assert!(!diags.contains("TS090"), "{diags}");
}

/// A cache written by hand (or by an older toolscope) with one entry too deep to read and
/// one malformed: each costs only itself, with a warning naming it.
fn a_bad_cache_entry_costs_only_that_entry() {
    let dir = tempfile::tempdir().unwrap();
    let path = discovered(dir.path());
    let cache = cache_of(&path);
    let text = std::fs::read_to_string(&cache).unwrap();
    let mut deep = String::from("{}");
    for _ in 0..140 {
        deep = format!("{{\"a\": {deep}}}");
    }
    let bad = format!(
        "{{\"name\": \"too_deep\", \"description\": \"\", \"input_schema\": {deep}}}, {{\"name\": 7}}, "
    );
    let text = text.replacen("\"tools\": [", &format!("\"tools\": [{bad}"), 1);
    std::fs::write(&cache, text).unwrap();
    let (tools, diags) = members_after(&path);
    assert!(tools.contains(&"read_file".into()), "{tools:?} {diags}");
    assert!(!tools.contains(&"too_deep".into()), "{tools:?}");
    assert!(
        diags.contains("TS090") && diags.contains("tool #1"),
        "{diags}"
    );
    assert!(diags.contains("tool #2"), "{diags}");
}

/// Issue 27, item 11: a `tools/list` answer over 16 MiB on one line was dropped by the
/// stdio transport, and discovery waited out the whole timeout, then advised raising it.
/// It is reported at once, with the real cause.
fn a_huge_tools_list_is_reported_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = c2g(dir.path(), &stdio_block(&["huge"]));
    let started = Instant::now();
    let out = discover(&path, &["--timeout", "120"]);
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = json(&out)["diagnostics"].to_string();
    assert!(
        said.contains("16 MiB") && !said.contains("raise --timeout"),
        "{said}"
    );
    assert!(took < Duration::from_secs(60), "took {took:?}: {said}");
}

/// An answer nested deeper than the JSON reader accepts was dropped the same way (the
/// request waited out the timeout): reported at once too.
fn a_too_deep_answer_is_reported_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let block = stdio_block(&["deep"]) + "\n        DEEP: \"200\"";
    let path = c2g(dir.path(), &block);
    let started = Instant::now();
    let out = discover(&path, &["--timeout", "120"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = json(&out)["diagnostics"].to_string();
    assert!(
        said.contains("127 levels") && !said.contains("raise --timeout"),
        "{said}"
    );
    assert!(started.elapsed() < Duration::from_secs(60), "{said}");
}

/// An SSE server could grow one event without end (one endless line, or endless short
/// `data:` lines of one event), and toolscope held every byte until its timeout. Past
/// 16 MiB the stream is cut off and the cause reported at once, before the `endpoint`
/// event and after it.
fn an_endless_sse_event_is_cut_off_and_reported() {
    for when in ["before-endpoint", "after-endpoint"] {
        let (child, port) = network_server(&["sse-flood", when]);
        let _guard = Killed(child);
        let dir = tempfile::tempdir().unwrap();
        let block = format!("      transport_type: SSE\n      url: http://127.0.0.1:{port}/sse");
        let path = c2g(dir.path(), &block);
        let started = Instant::now();
        let out = discover(&path, &["--timeout", "120"]);
        assert_eq!(out.status.code(), Some(1), "{when}: {}", stderr(&out));
        let said = json(&out)["diagnostics"].to_string();
        assert!(said.contains("event of more than 16 MiB"), "{when}: {said}");
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{when}: {said}"
        );
    }
}
