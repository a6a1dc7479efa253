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
