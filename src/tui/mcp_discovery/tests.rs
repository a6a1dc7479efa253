//! `:mcp discover` end to end: the command starts the toolkit's stdio server on a
//! background thread, the completion message reports it, the sidecar is written and the
//! cache watcher reloads the toolkit with the members. The servers are tiny `sh` scripts
//! speaking just enough JSON-RPC (handshake and `tools/list`), so no network or build is
//! needed.

use toolscope_core::model::NodeKind;

use crate::tui::update::commands;

use crate::tui::mcp_discovery::Report;
use crate::tui::mcp_discovery::state::ServerOutcome;

/// Answers `initialize` (echoing the client's protocol version) and `tools/list` with one
/// tool, `ping`.
const SERVER: &str = r#"while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  ver=$(printf '%s' "$line" | sed -n 's/.*"protocolVersion":"\([^"]*\)".*/\1/p')
  case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"%s","capabilities":{"tools":{}},"serverInfo":{"name":"shsrv","version":"1"}}}\n' "$id" "$ver";;
    *'"method":"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"ping","description":"Answers pong.","inputSchema":{"type":"object","properties":{"to":{"type":"string","description":"who"}}}}]}}\n' "$id";;
  esac
done
"#;

const FAILING: &str = "echo 'starting...' >&2\necho 'fatal: no such package boom' >&2\nexit 3\n";

const TOOLKIT: &str = "groups:\n  - name: files\n    mcp_transport_config: {transport_type: STDIO, command: sh, args: [server.sh]}\n  - name: broken\n    mcp_transport_config: {transport_type: STDIO, command: sh, args: [failing.sh]}\n  - name: hang\n    mcp_transport_config: {transport_type: STDIO, command: sh, args: [hang.sh]}\nactions:\n  - name: look\n    tools: [files, broken, hang]\n";

/// Never answers: starts a grandchild `sleep`, writes both pids to `pids`, waits.
const HANGING: &str = "sleep 300 &\necho \"$$ $!\" > pids.tmp && mv pids.tmp pids\nwait\n";

fn open() -> (tempfile::TempDir, crate::tui::live_tests::Live) {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("server.sh"), SERVER).expect("server");
    std::fs::write(dir.path().join("failing.sh"), FAILING).expect("failing");
    std::fs::write(dir.path().join("hang.sh"), HANGING).expect("hanging");
    let path = dir.path().join("kit.yaml");
    std::fs::write(&path, TOOLKIT).expect("write");
    let live = crate::tui::live_tests::start(std::slice::from_ref(&path));
    (dir, live)
}

#[cfg(feature = "mcp")]
#[test]
fn discover_one_server_writes_the_cache_and_the_watcher_reloads_members() {
    let (dir, mut live) = open();
    assert!(live.app.tk.find(NodeKind::Tool, "ping").is_none());
    commands::run(&mut live.app, "mcp discover files");
    let status = live.app.status.clone().expect("status");
    assert_eq!(status.text, "discovering 1 server… (Esc cancels)");
    assert!(live.app.mcp.is_running());
    live.until("the discovery result", |a| !a.mcp.is_running());
    let status = live.app.status.clone().expect("status");
    assert_eq!(status.text, "MCP discovery: files: 1 tool", "{status:?}");
    assert!(dir.path().join("kit.yaml.mcp.json").exists());
    live.until("the reload with the member", |a| {
        a.tk.find(NodeKind::Tool, "ping").is_some()
    });
    let look = live.app.tk.action("look").expect("look");
    let ping = live.app.tk.find(NodeKind::Tool, "ping").expect("ping");
    assert!(
        live.app.tk.edge(look, ping).is_some(),
        "look calls the member"
    );
}

#[cfg(feature = "mcp")]
#[test]
fn a_failing_server_shows_its_stderr_in_one_line_and_whole_in_the_log() {
    let (dir, mut live) = open();
    commands::run(&mut live.app, "mcp discover broken");
    live.until("the discovery result", |a| !a.mcp.is_running());
    let status = live.app.status.clone().expect("status");
    assert_eq!(status.level, crate::tui::app::Level::Error);
    assert!(status.text.contains("broken: failed"), "{status:?}");
    assert!(
        status.text.contains("fatal: no such package boom") && !status.text.contains('\n'),
        "{status:?}"
    );
    let whole = live
        .app
        .log
        .iter()
        .find(|s| s.text.contains("its stderr"))
        .expect("logged");
    assert!(
        whole
            .text
            .contains("starting...\nfatal: no such package boom")
    );
    assert!(!dir.path().join("kit.yaml.mcp.json").exists());
}

/// Whether a process is gone (no entry, or a zombie waiting to be reaped).
#[cfg(feature = "mcp")]
fn gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

/// Starts the hanging server, presses `key` once it runs, and checks that the discovery
/// says it was cancelled, no process of the server is left and nothing was recorded.
#[cfg(feature = "mcp")]
fn cancel_with(key: &str) {
    use std::time::{Duration, Instant};
    let (dir, mut live) = open();
    let before = std::fs::read_to_string(dir.path().join("kit.yaml")).expect("read");
    commands::run(&mut live.app, "mcp discover");
    let pidfile = dir.path().join("pids");
    let until = Instant::now() + Duration::from_secs(10);
    while !pidfile.exists() {
        assert!(Instant::now() < until, "the hanging server did not start");
        live.pump();
    }
    let pids: Vec<String> = std::fs::read_to_string(&pidfile)
        .expect("pids")
        .split_whitespace()
        .map(String::from)
        .collect();
    assert_eq!(pids.len(), 2, "server and its grandchild: {pids:?}");
    assert!(!pids.iter().any(|p| gone(p)), "running before the key");
    crate::tui::tests::press(&mut live.app, key);
    assert!(live.app.overlay.is_none(), "{key} asked nothing else");
    live.until("the cancelled discovery", |a| !a.mcp.is_running());
    let status = live.app.status.clone().expect("status");
    assert!(status.text.starts_with("discovery cancelled"), "{status:?}");
    let until = Instant::now() + Duration::from_secs(5);
    while !pids.iter().all(|p| gone(p)) {
        assert!(Instant::now() < until, "left running: {pids:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    // The servers that answered before the cancel are not recorded either.
    assert!(!dir.path().join("kit.yaml.mcp.json").exists());
    assert!(live.app.tk.find(NodeKind::Tool, "ping").is_none());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("kit.yaml")).expect("read"),
        before
    );
    assert!(!live.app.quit);
}

#[cfg(feature = "mcp")]
#[test]
fn esc_cancels_a_running_discovery_and_ends_the_server_tree() {
    cancel_with("<Esc>");
}

#[cfg(feature = "mcp")]
#[test]
fn ctrl_c_cancels_a_running_discovery_instead_of_asking_to_quit() {
    cancel_with("<C-c>");
}

#[cfg(feature = "mcp")]
#[test]
fn refusals_unknown_server_bad_subcommand_and_no_channel() {
    let (_dir, mut live) = open();
    commands::run(&mut live.app, "mcp discover nope");
    let s = live.app.status.clone().expect("status");
    assert!(s.text.contains("no MCP server named `nope`"), "{s:?}");
    assert!(!live.app.mcp.is_running());
    commands::run(&mut live.app, "mcp list");
    assert!(live.app.status.clone().expect("s").text.contains("usage"));
    let mut bare = crate::tui::tests::app(100, 30);
    commands::run(&mut bare, "mcp discover");
    assert_eq!(
        bare.status.clone().expect("s").level,
        crate::tui::app::Level::Error
    );
    assert!(!bare.mcp.is_running());
}

#[cfg(not(feature = "mcp"))]
#[test]
fn without_the_feature_the_command_says_so() {
    let (_dir, mut live) = open();
    commands::run(&mut live.app, "mcp discover");
    let s = live.app.status.clone().expect("status");
    assert!(s.text.contains("not built in"), "{s:?}");
}

#[test]
fn a_report_sums_up_servers_in_one_line() {
    let mut app = crate::tui::tests::app(100, 30);
    app.mcp.running = true;
    // As the loop delivers it.
    crate::tui::update::update(
        &mut app,
        crate::tui::msg::Msg::McpDone(Report {
            servers: vec![
                ServerOutcome {
                    name: "a".into(),
                    result: Ok(14),
                    hint: None,
                },
                ServerOutcome {
                    name: "b".into(),
                    result: Err(("exited".into(), "x\ny\n\n".into())),
                    hint: None,
                },
            ],
            write_errors: vec![],
            cancelled: false,
        }),
    );
    assert!(!app.mcp.is_running());
    let s = app.status.clone().expect("status");
    assert_eq!(
        s.text,
        "MCP discovery: a: 14 tools · b: failed: exited (y) (:messages has the whole text)"
    );
}

/// npm set not to install without asking (`yes=false`): the server's `npx` prints its
/// refusal and exits. The status line shows the hint (not npm's last line, its log path),
/// the message log has it after the stderr.
#[cfg(feature = "mcp")]
#[test]
fn npx_refusing_to_install_shows_the_hint() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("dir");
    let npx = dir.path().join("npx");
    std::fs::write(
        &npx,
        "#!/bin/sh\necho 'npm error npx canceled due to missing packages and no YES option: [\"@scope/fs@1.0.0\"]' >&2\necho 'npm error A complete log of this run can be found in: /tmp/x.log' >&2\nexit 1\n",
    )
    .expect("npx");
    std::fs::set_permissions(&npx, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = dir.path().join("kit.yaml");
    let kit = "groups:\n  - name: files\n    mcp_transport_config: {transport_type: STDIO, command: ./npx, args: [\"@scope/fs\", .]}\nactions:\n  - name: look\n    tools: [files]\n";
    std::fs::write(&path, kit).expect("write");
    let mut live = crate::tui::live_tests::start(std::slice::from_ref(&path));
    commands::run(&mut live.app, "mcp discover files");
    live.until("the discovery result", |a| !a.mcp.is_running());
    let status = live.app.status.clone().expect("status");
    assert!(
        status.text.contains("files: failed")
            && status.text.contains("run `npx -y @scope/fs` once")
            && status.text.contains("npm_config_yes=true")
            && !status.text.contains("complete log"),
        "{status:?}"
    );
    let whole = live
        .app
        .log
        .iter()
        .find(|s| s.text.contains("its stderr"))
        .expect("logged");
    assert!(
        whole
            .text
            .ends_with("npm_config_yes=true in the environment"),
        "{}",
        whole.text
    );
}

/// A toolkit with two discovered groups: `big` (10 members) and `small` (2).
fn with_members() -> (tempfile::TempDir, crate::tui::app::App) {
    use toolscope_core::mcp::cache::{Cache, CachedTool, ServerEntry, sidecar_path};
    use toolscope_core::mcp::decl::Identity;
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("kit.yaml");
    let kit = "groups:\n  - name: big\n    mcp_transport_config: {transport_type: STDIO, command: a}\n  - name: small\n    mcp_transport_config: {transport_type: STDIO, command: b}\nactions:\n  - name: look\n    tools: [big, small]\n";
    std::fs::write(&path, kit).expect("write");
    let mut cache = Cache::default();
    for (name, cmd, n) in [("big", "a", 10), ("small", "b", 2)] {
        cache.upsert(ServerEntry {
            name: name.into(),
            identity: Identity {
                transport: "stdio".into(),
                command: Some(cmd.into()),
                args: vec![],
                url: None,
            },
            discovered_at: "2026-11-23T08:00:00Z".into(),
            server_info: None,
            tools: (0..n)
                .map(|i| CachedTool {
                    name: format!("{name}_t{i}"),
                    description: format!("Tool {i} of {name}."),
                    input_schema: serde_json::json!({"type": "object", "properties": {"path": {"type": "string", "description": "where"}}, "required": ["path"]}),
                })
                .collect(),
        });
    }
    toolscope_core::source::save::write_atomic(&sidecar_path(&path), &cache.to_text())
        .expect("cache");
    let ws = toolscope_core::workspace::Workspace::open(&[path], None).expect("open");
    let app = crate::tui::app::App::with_workspace(
        ws,
        "kit.yaml".into(),
        crate::tui::theme::Theme::default(),
        (100, 30),
    );
    (dir, app)
}

fn nav_text(app: &crate::tui::app::App) -> Vec<String> {
    use crate::tui::navigator::Row;
    app.nav
        .rows
        .iter()
        .map(|r| match r {
            Row::Header(t) => format!("# {t}"),
            Row::Operator(i) => format!("op {i}"),
            Row::Node(ix) => {
                let ind = if app.nav.indented.contains(ix) {
                    "  "
                } else {
                    ""
                };
                let more = app
                    .nav
                    .hidden
                    .get(ix)
                    .map(|n| format!(" (+{n})"))
                    .unwrap_or_default();
                format!("{ind}{}{more}", app.tk.name(*ix))
            }
        })
        .collect()
}

#[test]
fn members_are_listed_under_their_group_and_a_big_group_collapses() {
    let (_dir, mut app) = with_members();
    let rows = nav_text(&app);
    let groups = rows.iter().position(|r| r == "# Groups").expect("groups");
    assert_eq!(
        rows[groups..],
        ["# Groups", "big (+10)", "small", "  small_t0", "  small_t1"],
        "{rows:?}"
    );
    assert!(
        !rows.iter().any(|r| r == "# Tools"),
        "members are not repeated: {rows:?}"
    );
    // Enter on the group row expands it, again collapses it.
    let big = app.tk.find(NodeKind::Group, "big").expect("big");
    app.active_pane = crate::tui::app::ActivePane::Navigator;
    app.nav.point_at(big);
    crate::tui::tests::press(&mut app, "<Enter>");
    let rows = nav_text(&app);
    assert_eq!(
        rows.iter().filter(|r| r.starts_with("  big_t")).count(),
        10,
        "{rows:?}"
    );
    assert!(rows.contains(&"big".to_string()), "{rows:?}");
    app.nav.point_at(big);
    crate::tui::tests::press(&mut app, "<Enter>");
    assert!(nav_text(&app).contains(&"big (+10)".to_string()));
    // A filter shows the matching members of a collapsed group.
    app.nav.filter = "t7".into();
    app.nav.rebuild(&app.tk);
    assert_eq!(nav_text(&app), ["# Groups", "big (+9)", "  big_t7"]);
}

#[test]
fn the_inspector_of_a_member_shows_its_description_and_parameters() {
    let (_dir, mut app) = with_members();
    let t = app.tk.find(NodeKind::Tool, "small_t1").expect("member");
    app.select(t);
    let screen = crate::tui::tests::screen(&app);
    assert!(screen.contains("Tool 1 of small."), "{screen}");
    assert!(screen.contains("path"), "{screen}");
}

#[test]
fn a_members_score_is_edited_with_e_saved_as_an_item_and_undone() {
    let (dir, mut app) = with_members();
    let path = dir.path().join("kit.yaml");
    let before = std::fs::read_to_string(&path).expect("read");
    let look = app.tk.action("look").expect("look");
    app.select(look);
    app.active_pane = crate::tui::app::ActivePane::Inspector;
    let i = app
        .node_edges()
        .iter()
        .position(|&(_, v, _)| app.tk.name(v) == "small_t1")
        .expect("edge to the member");
    app.inspector.point_at_edge(i);
    crate::tui::tests::press(&mut app, "e<BS><BS><BS><BS>0.7<Enter>w");
    let saved = std::fs::read_to_string(&path).expect("read");
    assert_eq!(
        saved,
        before.replace("[big, small]", "[big, small, {name: small_t1, score: 0.7}]"),
        "{:?}",
        app.status
    );
    let (a, t) = (
        app.tk.action("look").expect("look"),
        app.tk.find(NodeKind::Tool, "small_t1").expect("member"),
    );
    assert_eq!(app.tk.edge(a, t).map(|e| app.tk.graph[e].score), Some(0.7));
    // Undo after the save writes the group's score back: the item goes again.
    crate::tui::tests::press(&mut app, "uw");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), before);
}

#[cfg(feature = "mcp")]
#[test]
fn quitting_during_a_discovery_ends_the_server_tree_first() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("hang.sh"), HANGING).expect("hanging");
    let path = dir.path().join("kit.yaml");
    std::fs::write(&path, TOOLKIT).expect("write");
    let ws = toolscope_core::workspace::Workspace::open(std::slice::from_ref(&path), None)
        .expect("open");
    let mut app = crate::tui::app::App::with_workspace(
        ws,
        "kit.yaml".into(),
        crate::tui::theme::Theme::default(),
        (100, 30),
    );
    let (tx, rx) = std::sync::mpsc::channel();
    crate::tui::update::editing::watch(&mut app, tx, std::slice::from_ref(&path), None);
    commands::run(&mut app, "mcp discover hang");
    let pidfile = dir.path().join("pids");
    let until = Instant::now() + Duration::from_secs(10);
    while !pidfile.exists() {
        assert!(Instant::now() < until, "the hanging server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pids: Vec<String> = std::fs::read_to_string(&pidfile)
        .expect("pids")
        .split_whitespace()
        .map(String::from)
        .collect();
    assert!(!pids.iter().any(|p| gone(p)), "running before quitting");
    crate::tui::mcp_discovery::stop_before_exit(&app.mcp, &rx);
    // Returned once the thread reported: the group is already signalled.
    let until = Instant::now() + Duration::from_secs(5);
    while !pids.iter().all(|p| gone(p)) {
        assert!(Instant::now() < until, "left running: {pids:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!dir.path().join("kit.yaml.mcp.json").exists());
}
