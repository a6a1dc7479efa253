//! The windowed verify of a save: instead of loading the whole new text and comparing its
//! graph with the expected one (seconds on a 26 MB file), prove the same from the lines of
//! the one top-level list item the edit changed.
//!
//! The proof holds when all of these hold (each checked; any failure means the full verify):
//! - The file was unchanged since it was loaded or saved before the edit, its positions were
//!   fresh, and the edit was one edit patched in the window (`window::patch_in_window`, which
//!   already ran the whole-document check on the window's own parse).
//! - The texts before and after are byte-equal outside the window (checked, not assumed).
//! - The window is whole lines of one block sequence item of `actions:`, `tools:` or
//!   `operators:` (a threshold or hops edit): the new
//!   first line keeps the dash and indentation up to the item's mapping column, every other
//!   content line is indented at least to that column, and the line after the window (the
//!   same bytes before and after) is indented less. So the item ends where it ended, and a
//!   quoted scalar or flow collection cannot cross the edge (the window parses on its own).
//! - Neither the old nor the new window holds `&`, `*`, `<` (no anchor, alias or merge key:
//!   nothing outside can refer into the window, and the window refers to nothing outside)
//!   nor a tab.
//! - Loaded on their own (as the only item of their list), the old window reads exactly as
//!   the node reads in the graph before the edit, and the new window exactly as the expected
//!   graph after it: description, tool properties, and every out-edge with kind and score.
//!   Every edge target must be a node the file declares (a tool, not a group; an action),
//!   so that a reference resolves the same in the window and in the whole file. An
//!   operator's window reads as the operator does (its actions, threshold and hops), and
//!   every action it names is one the file declares.
//! - The window's diagnostics before the edit match the file's diagnostics on those lines
//!   (apart from unresolved references, which the whole file resolves); the new ones
//!   replace them, and later lines shift.

use std::path::Path;

use crate::diag::{Code, Diagnostic};
use crate::model::{EdgeKind, NodeKind, Origin, ToolMeta, Toolkit};
use crate::source::{Format, Limits};

use crate::edit::window::{Subject, Window};

/// What one node says in a graph: what the whole-graph comparison compares for it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sig {
    pub(super) desc: String,
    pub(super) meta: Option<Box<ToolMeta>>,
    /// (target kind, target name) -> (edge kind, score bits), sorted; the first edge counts.
    pub(super) edges: Vec<(Target, (EdgeKind, u64))>,
}

/// An edge's target: kind (`tool` or `action`) and name.
type Target = (&'static str, String);

/// What one operator says: what the whole-graph comparison compares for it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OpSig {
    actions: Vec<String>,
    threshold: u64,
    hops: u32,
}

/// What the window's item said before the edit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Before {
    Node(Sig),
    Operator(OpSig),
}

/// A windowed edit since the last load or save, kept for the save's verify.
#[derive(Debug, Clone)]
pub(crate) struct WindowEdit {
    pub window: Window,
    /// What the window declares, as the graph read it before the edit.
    pub before: Before,
}

impl WindowEdit {
    /// The record of an edit made in `window` on a file whose graph before it is `tk`;
    /// `None` when the proof could not hold anyway (those saves take the full verify).
    pub fn new(window: Window, tk: &Toolkit) -> Option<WindowEdit> {
        let before = match &window.subject {
            Subject::Node(kind, name) => {
                let before = sig(tk, *kind, name)?;
                if !before.edges.iter().all(|((k, n), _)| declared(tk, k, n)) {
                    return None;
                }
                Before::Node(before)
            }
            Subject::Operator(name) => {
                let before = op_sig(tk, name)?;
                if !names_declared(tk, &before) {
                    return None;
                }
                Before::Operator(before)
            }
        };
        Some(WindowEdit { window, before })
    }
}

/// Proves that `text` (after the edit) loads into `after` given that `disk` (before it)
/// loaded into the graph recorded in `w` with diagnostics `diags` (this file's only).
/// Returns the file's new diagnostics, or `None` when the proof does not hold.
pub(crate) fn prove(
    path: &Path,
    disk: &str,
    text: &str,
    w: &WindowEdit,
    after: &Toolkit,
    diags: &[Diagnostic],
) -> Option<Vec<Diagnostic>> {
    let bom = crate::source::bom_len(disk);
    if bom != crate::source::bom_len(text) {
        return None;
    }
    let r = &w.window.range;
    let (start, old_end) = (bom + r.start, bom + r.end);
    let new_end = (old_end + text.len()).checked_sub(disk.len())?;
    if new_end < start
        || disk.get(..start)? != text.get(..start)?
        || disk.get(old_end..)? != text.get(new_end..)?
    {
        return None;
    }
    let (old_cut, new_cut) = (disk.get(start..old_end)?, text.get(start..new_end)?);
    if !shape_kept(old_cut, new_cut, w.window.col) {
        return None;
    }
    let (old_diags, new_diags) = match (&w.window.subject, &w.before) {
        (Subject::Node(kind, name), Before::Node(before)) => {
            let list = match kind {
                NodeKind::Action => "actions",
                NodeKind::Tool => "tools",
                NodeKind::Group => return None,
            };
            let (old_sig, old_diags, _) = read_alone(path, list, old_cut, *kind, name)?;
            let (new_sig, new_diags, _) = read_alone(path, list, new_cut, *kind, name)?;
            if old_sig != *before || new_sig != sig(after, *kind, name)? {
                return None;
            }
            if !new_sig
                .edges
                .iter()
                .all(|((k, n), _)| declared(after, k, n))
            {
                return None;
            }
            (old_diags, new_diags)
        }
        (Subject::Operator(name), Before::Operator(before)) => {
            let (old_sig, old_diags) = read_operator_alone(path, old_cut, name)?;
            let (new_sig, new_diags) = read_operator_alone(path, new_cut, name)?;
            if old_sig != *before || new_sig != op_sig(after, name)? {
                return None;
            }
            if !names_declared(after, &new_sig) {
                return None;
            }
            (old_diags, new_diags)
        }
        _ => return None,
    };
    shifted_diags(
        w.window.line,
        old_cut,
        new_cut,
        diags,
        &old_diags,
        new_diags,
    )
}

/// Whether a reference named `n` to a node of kind `k` resolves in the whole file the way it
/// does in the window read alone: a declared tool (a group would expand to its members) or
/// an action.
pub(super) fn declared(t: &Toolkit, k: &str, n: &str) -> bool {
    match k {
        "tool" => t
            .find(NodeKind::Tool, n)
            .is_some_and(|ix| !t.node(ix).implicit),
        "action" => t.action(n).is_some(),
        _ => false,
    }
}

/// The text conditions: same first line up to the mapping column, every later content
/// line indented at least to it, same final newline, no anchors, aliases, merge keys or tabs.
pub(super) fn shape_kept(old: &str, new: &str, col: usize) -> bool {
    let clean = |s: &str| !s.contains(['&', '*', '<', '\t']);
    let head = |s: &str| s.get(..col).map(str::to_owned);
    if !clean(old) || !clean(new) || head(old) != head(new) || head(old).is_none() {
        return false;
    }
    if old.ends_with('\n') != new.ends_with('\n') {
        return false;
    }
    new.split('\n').skip(1).all(|line| {
        let content = line.trim_start_matches(' ');
        let indent = line.len() - content.len();
        let content = content.trim_end_matches('\r');
        content.is_empty() || content.starts_with('#') || indent >= col
    })
}

/// The node as its window reads on its own (wrapped as the only item of its list), with
/// the window's diagnostics (lines counted in the window, 1-based) other than unresolved
/// references.
pub(super) fn read_alone(
    path: &Path,
    list: &str,
    cut: &str,
    kind: NodeKind,
    name: &str,
) -> Option<(Sig, Vec<Diagnostic>, Vec<Origin>)> {
    let wrapped = format!("{list}:\n{cut}");
    let load =
        crate::load::load_text(path, wrapped, Some(Format::Native), &Limits::default()).ok()?;
    let tk = &load.toolkit;
    if tk.graph.node_count()
        != 1 + tk
            .graph
            .node_indices()
            .filter(|ix| tk.node(*ix).implicit)
            .count()
    {
        return None;
    }
    let mut s = sig(tk, kind, name)?;
    let ix = tk.find(kind, name)?;
    let mut origins: Vec<Origin> = tk
        .out_edges(ix)
        .map(|(e, _)| tk.graph[e].origin.unwrap_or_default())
        .collect();
    // `sig` sorted the edges; origins follow the same order.
    let mut keyed: Vec<_> = tk
        .out_edges(ix)
        .map(|(_, t)| (tk.kind(t).as_str(), tk.name(t).to_string()))
        .zip(origins.drain(..))
        .collect();
    for u in load.unresolved.iter().filter(|u| u.from == name) {
        let key = ("action", u.to.clone());
        if !s.edges.iter().any(|(k, _)| *k == key) {
            s.edges
                .push((key.clone(), (EdgeKind::Next, u.score.to_bits())));
            keyed.push((key, u.origin));
        }
    }
    s.edges.sort_by(|a, b| a.0.cmp(&b.0));
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    let origins = keyed.into_iter().map(|(_, o)| o).collect();
    let diags = load
        .diagnostics
        .into_iter()
        .filter(|d| !matches!(d.code, Code::UnknownAction | Code::UnknownTool))
        .map(|mut d| {
            d.line = d.line.saturating_sub(1);
            d
        })
        .collect();
    Some((s, diags, origins))
}

/// The operator as its window reads on its own (the only item of `operators:`), with the
/// window's diagnostics (lines counted in the window) other than actions it names that the
/// lone window cannot know ([`names_declared`] checks those against the whole file).
fn read_operator_alone(path: &Path, cut: &str, name: &str) -> Option<(OpSig, Vec<Diagnostic>)> {
    let wrapped = format!("operators:\n{cut}");
    let load =
        crate::load::load_text(path, wrapped, Some(Format::Native), &Limits::default()).ok()?;
    let tk = &load.toolkit;
    if tk.operators.len() != 1 || tk.graph.node_count() != 0 {
        return None;
    }
    let s = op_sig(tk, name)?;
    let diags = load
        .diagnostics
        .into_iter()
        .filter(|d| d.code != Code::OperatorUnknownAction)
        .map(|mut d| {
            d.line = d.line.saturating_sub(1);
            d
        })
        .collect();
    Some((s, diags))
}

/// An operator's signature in a graph.
fn op_sig(tk: &Toolkit, name: &str) -> Option<OpSig> {
    let op = tk.operator(name)?;
    Some(OpSig {
        actions: op.actions.clone(),
        threshold: op.threshold.to_bits(),
        hops: op.hops,
    })
}

/// Whether every action the operator names is declared in `tk` (not only referenced), so
/// that the whole file, unlike the lone window, reports none of them as unknown.
fn names_declared(tk: &Toolkit, op: &OpSig) -> bool {
    op.actions
        .iter()
        .all(|a| tk.action(a).is_some_and(|ix| !tk.node(ix).implicit))
}

/// A node's signature in a graph; `None` when it is missing or only implicit.
pub(super) fn sig(tk: &Toolkit, kind: NodeKind, name: &str) -> Option<Sig> {
    let ix = tk.find(kind, name)?;
    let n = tk.node(ix);
    if n.implicit {
        return None;
    }
    let mut edges: Vec<_> = tk
        .out_edges(ix)
        .map(|(e, t)| {
            let edge = &tk.graph[e];
            (
                (tk.kind(t).as_str(), tk.name(t).to_string()),
                (edge.kind, edge.score.to_bits()),
            )
        })
        .collect();
    edges.sort_by(|a, b| a.0.cmp(&b.0));
    Some(Sig {
        desc: n.desc.clone(),
        meta: n.meta.clone(),
        edges,
    })
}

/// The file's diagnostics after the edit: those on the window's lines (which must be the
/// window's own, read alone) replaced by the new window's, later lines shifted.
pub(super) fn shifted_diags(
    first: u32,
    old_cut: &str,
    new_cut: &str,
    diags: &[Diagnostic],
    old_alone: &[Diagnostic],
    new_alone: Vec<Diagnostic>,
) -> Option<Vec<Diagnostic>> {
    let lines = |s: &str| s.matches('\n').count() as u32;
    let (old_n, new_n) = (lines(old_cut), lines(new_cut));
    let inside = |d: &&Diagnostic| d.line >= first && d.line < first + old_n.max(1);
    let key = |d: &Diagnostic, base: u32| (d.line + base, d.column, d.code, d.message.clone());
    let mut theirs: Vec<_> = diags.iter().filter(inside).map(|d| key(d, 0)).collect();
    let mut mine: Vec<_> = old_alone.iter().map(|d| key(d, first - 1)).collect();
    theirs.sort_by(|a, b| (a.0, a.1, &a.3).cmp(&(b.0, b.1, &b.3)));
    mine.sort_by(|a, b| (a.0, a.1, &a.3).cmp(&(b.0, b.1, &b.3)));
    if theirs != mine {
        return None;
    }
    let mut out: Vec<Diagnostic> = Vec::with_capacity(diags.len() + new_alone.len());
    for d in diags {
        if inside(&d) {
            continue;
        }
        // A message that names a line ("first at line N") would need its text shifted:
        // leave those to the full verify.
        if new_n != old_n && d.message.contains("line ") {
            return None;
        }
        let mut d = d.clone();
        if d.line >= first + old_n.max(1) {
            d.line = u32::try_from(i64::from(d.line) + i64::from(new_n) - i64::from(old_n)).ok()?;
        }
        out.push(d);
    }
    out.extend(new_alone.into_iter().map(|mut d| {
        d.line += first - 1;
        d
    }));
    Some(out)
}

pub(super) fn kind_of(k: &str) -> NodeKind {
    if k == "action" {
        NodeKind::Action
    } else {
        NodeKind::Tool
    }
}
