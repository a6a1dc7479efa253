//! `:mcp discover` in a real terminal: the built binary opens a toolkit whose `FileTool`
//! group is a stdio server (a small `sh` script, `tests/fixtures/mcp-fs-server.sh`, that
//! answers the handshake and lists 10 tools); the command discovers it off the UI thread,
//! the cache watcher reloads the file, and the navigator shows the group collapsed
//! (`(+10)`) until `Enter` expands it.
#![cfg(feature = "mcp")]

use crate::common::tmux;
use tmux::Tmux;

const KIT: &str = "actions:\n  - name: read_docs\n    tools: [FileTool]\ngroups:\n  - name: FileTool\n    mcp_transport_config: {transport_type: STDIO, command: sh, args: [fs-server.sh]}\n";

#[test]
fn mcp_discover_in_the_terminal_shows_the_members_under_the_group() {
    if !tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().expect("dir");
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/mcp-fs-server.sh"
        ),
        dir.path().join("fs-server.sh"),
    )
    .expect("server");
    std::fs::write(dir.path().join("kit.yaml"), KIT).expect("kit");
    let tmux = Tmux::new("test-mcp");
    let bin = env!("CARGO_BIN_EXE_toolscope");
    tmux.start((100, 30), Some(dir.path()), &[bin, "kit.yaml"]);
    let before = tmux.wait("the TUI", |s| s.contains("Navigator"));
    assert!(!before.contains("(+10)"), "{before}");
    tmux.send(&[":mcp discover", "Enter"]);
    tmux.wait("the members", |s| s.contains("FileTool (+10)"));
    assert!(dir.path().join("kit.yaml.mcp.json").exists());
    // Tab twice reaches the navigator; G its last row (the group); Enter expands it.
    tmux.send(&["Tab", "Tab", "G", "Enter"]);
    let open = tmux.wait("the expanded group", |s| s.contains("    write_file"));
    assert!(
        open.contains("    read_text_file") && !open.contains("(+10)"),
        "{open}"
    );
}
