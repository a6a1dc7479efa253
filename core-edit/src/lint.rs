//! Lint: the loaders' diagnostics plus checks over the merged graph (names used by two
//! kinds, tools never called, actions never reached).

use std::collections::BTreeSet;

use crate::diag::{Code, Diagnostic, Severity};
use crate::model::{EdgeKind, NodeKind, Origin, Toolkit};
use crate::source::Loaded;

/// Every diagnostic for a loaded toolkit, sorted by file, line, column.
pub fn lint(loaded: &Loaded) -> Vec<Diagnostic> {
    let mut out = loaded.diagnostics.clone();
    let tk = &loaded.toolkit;
    two_kinds(tk, &mut out);
    never_called(tk, &mut out);
    never_reached(tk, &mut out);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    old_caches(tk, now, &mut out);
    shared_members(tk, &mut out);
    out.sort_by(|a, b| {
        (&a.file, a.line, a.column, a.code).cmp(&(&b.file, b.line, b.column, b.code))
    });
    out.dedup();
    out
}

fn push(
    tk: &Toolkit,
    out: &mut Vec<Diagnostic>,
    origin: Option<Origin>,
    severity: Severity,
    code: Code,
    message: String,
) {
    let o = origin.unwrap_or_default();
    out.push(Diagnostic {
        file: tk.file_name(origin),
        line: o.line.max(1),
        column: o.col.max(1),
        severity,
        code,
        message,
    });
}

fn two_kinds(tk: &Toolkit, out: &mut Vec<Diagnostic>) {
    let mut seen = BTreeSet::new();
    for ix in tk.graph.node_indices() {
        let name = tk.name(ix);
        if tk.kinds_of(name) > 1 && seen.insert(name.to_string()) {
            let kinds: Vec<&str> = tk.named(name).map(|n| tk.kind(n).as_str()).collect();
            push(
                tk,
                out,
                tk.node(ix).origin,
                Severity::Warning,
                Code::NameTwoKinds,
                format!("`{name}` names more than one kind: {}", kinds.join(" and ")),
            );
        }
    }
}

fn never_called(tk: &Toolkit, out: &mut Vec<Diagnostic>) {
    for t in tk.nodes_of(NodeKind::Tool) {
        let called = tk
            .in_edges(t)
            .any(|(e, _)| tk.graph[e].kind == EdgeKind::Call);
        if !called {
            push(
                tk,
                out,
                tk.node(t).origin,
                Severity::Warning,
                Code::ToolNeverCalled,
                format!("no action calls tool `{}`", tk.name(t)),
            );
        }
    }
}

fn never_reached(tk: &Toolkit, out: &mut Vec<Diagnostic>) {
    let seeds: BTreeSet<&str> = tk
        .operators
        .iter()
        .flat_map(|o| o.actions.iter().map(String::as_str))
        .collect();
    for a in tk.nodes_of(NodeKind::Action) {
        let reached = tk
            .in_edges(a)
            .any(|(e, u)| tk.graph[e].kind == EdgeKind::Next && u != a);
        if !reached && !seeds.contains(tk.name(a)) {
            push(
                tk,
                out,
                tk.node(a).origin,
                Severity::Warning,
                Code::ActionNeverReached,
                format!(
                    "action `{}` has no incoming Next edge and starts no operator, so no recommendation can include it",
                    tk.name(a)
                ),
            );
        }
    }
}

/// MCP caches older than `MAX_AGE_DAYS` (TS097, info: age alone is no fault): the server
/// may list other tools now, and Chat2Graph offers what it lists when it loads.
fn old_caches(tk: &Toolkit, now: u64, out: &mut Vec<Diagnostic>) {
    use crate::mcp::cache::{MAX_AGE_DAYS, age_days};
    for s in &tk.mcp_cached {
        let Some(days) = age_days(&s.discovered_at, now) else {
            continue;
        };
        if days <= MAX_AGE_DAYS || tk.find(NodeKind::Group, &s.name).is_none() {
            continue;
        }
        let file = tk.file_name(Some(s.origin));
        push(
            tk,
            out,
            Some(s.origin),
            Severity::Info,
            Code::McpCacheOld,
            format!(
                "the MCP cache's tools of `{}` were listed {days} days ago ({}), more than {MAX_AGE_DAYS}: the server may list others now; run `toolscope mcp discover {file}`",
                s.name, s.discovered_at
            ),
        );
    }
}

/// Tools of one name on several MCP servers (TS065): the loaders name each `SERVER/TOOL`,
/// but the model is offered functions named alike.
fn shared_members(tk: &Toolkit, out: &mut Vec<Diagnostic>) {
    use crate::model::mcp::split_qualified;
    let mut by_name: std::collections::BTreeMap<String, Vec<(String, String, Option<Origin>)>> =
        Default::default();
    for g in tk.nodes_of(NodeKind::Group) {
        for (e, m) in tk.out_edges(g) {
            if tk.graph[e].kind != EdgeKind::Has {
                continue;
            }
            if let Some((server, tool)) = split_qualified(tk.name(m))
                && server == tk.name(g)
            {
                let shown = tk.name(m).to_string();
                by_name
                    .entry(tool)
                    .or_default()
                    .push((server, shown, tk.node(g).origin));
            }
        }
    }
    for (tool, mut servers) in by_name {
        if servers.len() < 2 {
            continue;
        }
        servers.sort_by_key(|s| s.2.map(|o| (o.file, o.line, o.col)));
        let names: Vec<String> = servers.iter().map(|s| format!("`{}`", s.0)).collect();
        let shown: Vec<String> = servers.iter().map(|s| format!("`{}`", s.1)).collect();
        push(
            tk,
            out,
            servers[servers.len() - 1].2,
            Severity::Warning,
            Code::McpSharedMember,
            format!(
                "the MCP servers {} each have a tool `{tool}`: the model is offered {} functions named `{tool}`; toolscope keeps them apart as {} (write these names in `scores:`, `set` and trace records)",
                names.join(" and "),
                servers.len(),
                shown.join(" and ")
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CachedServer, Node};

    #[test]
    fn an_old_cache_is_reported_with_the_command_that_renews_it() {
        let mut tk = Toolkit::new();
        tk.files.push("kit.yml".into());
        tk.add_node(Node::new(NodeKind::Group, "FileTool"));
        let server = |name: &str, at: &str| CachedServer {
            name: name.into(),
            discovered_at: at.into(),
            tools: vec!["read".into()],
            origin: Origin {
                file: 0,
                line: 3,
                col: 5,
            },
        };
        tk.mcp_cached = vec![
            server("FileTool", "2026-10-01T00:00:00Z"),
            server("Gone", "2020-01-01T00:00:00Z"),
        ];
        let now = 1_795_000_000; // 2026-11-18
        let mut out = Vec::new();
        old_caches(&tk, now, &mut out);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!((out[0].code, out[0].line), (Code::McpCacheOld, 3));
        assert!(out[0].message.contains("48 days ago"), "{}", out[0].message);
        assert!(out[0].message.contains("toolscope mcp discover kit.yml"));
        out.clear();
        old_caches(&tk, now - 20 * 86_400, &mut out);
        assert!(out.is_empty(), "{out:?}");
    }
}
