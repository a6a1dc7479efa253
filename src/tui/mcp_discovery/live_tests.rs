//! An MCP cache written while the TUI is open (a `mcp discover` run elsewhere) reloads the
//! toolkit file it belongs to, with the discovered members.

use toolscope_core::mcp::cache::{Cache, CachedTool, ServerEntry, sidecar_path};
use toolscope_core::mcp::decl::Identity;

const TOOLKIT: &str = "groups:\n  - name: files\n    mcp_transport_config: {transport_type: STDIO, command: srv, args: [a]}\nactions:\n  - name: look\n    tools: [files]\n";

#[test]
fn a_new_mcp_cache_reloads_the_toolkit_with_members() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("kit.yaml");
    std::fs::write(&path, TOOLKIT).expect("write");
    let mut live = crate::tui::live_tests::start(std::slice::from_ref(&path));
    assert!(
        live.app
            .tk
            .find(toolscope_core::model::NodeKind::Tool, "ping")
            .is_none()
    );
    let mut cache = Cache::default();
    cache.upsert(ServerEntry {
        name: "files".into(),
        identity: Identity {
            transport: "stdio".into(),
            command: Some("srv".into()),
            args: vec!["a".into()],
            url: None,
        },
        discovered_at: "2026-11-23T08:00:00Z".into(),
        server_info: None,
        tools: vec![CachedTool {
            name: "ping".into(),
            description: "Answers pong.".into(),
            input_schema: serde_json::json!({"type": "object"}),
        }],
    });
    toolscope_core::source::save::write_atomic(&sidecar_path(&path), &cache.to_text())
        .expect("cache");
    live.until("the discovered member", |a| {
        a.tk.find(toolscope_core::model::NodeKind::Tool, "ping")
            .is_some()
    });
    let look = live.app.tk.action("look").expect("look");
    let ping = live
        .app
        .tk
        .find(toolscope_core::model::NodeKind::Tool, "ping")
        .expect("ping");
    assert!(
        live.app.tk.edge(look, ping).is_some(),
        "look calls the member"
    );
}
