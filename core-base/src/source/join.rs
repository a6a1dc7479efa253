//! How the files of one opening become one toolkit. Read-only loads
//! (`load::load_paths`) and the editing workspace (`workspace::Workspace`) both go through
//! these functions, so `lint`, `recommend`, `set` and the TUI agree on a folder:
//!
//! - A `next` reference to an action another opened file declares is an edge. In the
//!   file's own graph it points at a *stand-in*: an implicit action of that name with no
//!   description ([`link`]). Merging puts the declared action in its place
//!   ([`merge_all`]), so the edge belongs to the file that holds the `next:` entry and is
//!   edited there like any other edge. Its TS030 is dropped.
//! - Operators of one name defined in several files are all kept, each shown as
//!   `NAME @ FILE` with the file relative to the opened folder, and the clash is reported
//!   (TS075, [`operator_names`]). Each file's own graph keeps the name it writes.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::diag::{Code, Diagnostic, Severity};
use crate::model::{Node, NodeKind, Operator, Toolkit};

use super::{FileLoad, Unresolved};

/// One file's parts that linking changes.
pub struct Part<'a> {
    pub toolkit: &'a mut Toolkit,
    pub diagnostics: &'a mut Vec<Diagnostic>,
    /// The file's unresolved references; those linked are taken out.
    pub unresolved: &'a mut Vec<Unresolved>,
}

impl<'a> From<&'a mut FileLoad> for Part<'a> {
    fn from(f: &'a mut FileLoad) -> Part<'a> {
        Part {
            toolkit: &mut f.toolkit,
            diagnostics: &mut f.diagnostics,
            unresolved: &mut f.unresolved,
        }
    }
}

/// Links every file's `next` references to actions that another of the files declares.
pub fn link_across_files(parts: &mut [Part<'_>]) {
    // One file, or no file with a reference to settle: nothing links (and a 100k-action
    // file is spared an index of its names).
    if parts.len() < 2 || parts.iter().all(|p| p.unresolved.is_empty()) {
        return;
    }
    let mut declared_in: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, f) in parts.iter().enumerate() {
        let tk = &*f.toolkit;
        for ix in tk.nodes_of(NodeKind::Action) {
            if !tk.node(ix).implicit {
                declared_in
                    .entry(tk.name(ix).to_string())
                    .or_default()
                    .push(i);
            }
        }
    }
    for (i, f) in parts.iter_mut().enumerate() {
        let elsewhere = |name: &str| {
            declared_in
                .get(name)
                .is_some_and(|v| v.iter().any(|&j| j != i))
        };
        let unresolved = std::mem::take(f.unresolved);
        *f.unresolved = link(f.toolkit, f.diagnostics, &unresolved, elsewhere);
    }
}

/// Makes each reference of `unresolved` whose target `elsewhere` declares an edge to a
/// stand-in of that target in `tk`, and drops its TS030 from `diagnostics`. Returns the
/// references left unresolved.
pub fn link(
    tk: &mut Toolkit,
    diagnostics: &mut Vec<Diagnostic>,
    unresolved: &[Unresolved],
    elsewhere: impl Fn(&str) -> bool,
) -> Vec<Unresolved> {
    let mut settled = HashSet::new();
    let mut left = Vec::new();
    for u in unresolved {
        let Some(from) = tk.action(&u.from) else {
            left.push(u.clone());
            continue;
        };
        if !elsewhere(&u.to) {
            left.push(u.clone());
            continue;
        }
        let to = stand_in(tk, &u.to);
        if tk.edge(from, to).is_none() {
            tk.add_edge(from, to, u.score, Some(u.origin));
        }
        settled.insert(u.diag);
    }
    if !settled.is_empty() {
        let mut i = 0;
        diagnostics.retain(|_| {
            i += 1;
            !settled.contains(&(i - 1))
        });
    }
    left
}

/// The stand-in for an action another file declares (an existing node of that name is
/// used as it is).
fn stand_in(tk: &mut Toolkit, name: &str) -> petgraph::stable_graph::NodeIndex {
    let mut node = Node::new(NodeKind::Action, name);
    node.implicit = true;
    tk.add_node(node)
}

/// Whether node `ix` of a file's own graph stands in for an action of another file.
pub fn is_stand_in(tk: &Toolkit, ix: petgraph::stable_graph::NodeIndex) -> bool {
    let n = tk.node(ix);
    n.kind == NodeKind::Action && n.implicit
}

/// For checking an edited file: links `load`'s references to the stand-ins `expected` (the
/// file's own graph) holds, and keeps the stand-ins no reference uses any more (an edge to
/// one was removed), so that the reloaded file compares equal to what the user sees.
pub fn keep_stand_ins(load: &mut FileLoad, expected: &Toolkit) {
    let stand_ins: HashSet<&str> = expected
        .nodes_of(NodeKind::Action)
        .filter(|&ix| expected.node(ix).implicit)
        .map(|ix| expected.name(ix))
        .collect();
    if stand_ins.is_empty() {
        return;
    }
    let unresolved = std::mem::take(&mut load.unresolved);
    load.unresolved = link(
        &mut load.toolkit,
        &mut load.diagnostics,
        &unresolved,
        |name| stand_ins.contains(name),
    );
    for name in stand_ins {
        if load.toolkit.action(name).is_none() {
            stand_in(&mut load.toolkit, name);
        }
    }
}

/// The files' own graphs merged in order into one toolkit. A stand-in takes the declared
/// action's place; one no opened file declares any more (its action was removed) is
/// dropped with its edges, as a fresh load would not have made the edge.
pub fn merge_all(parts: impl IntoIterator<Item = Toolkit>) -> Toolkit {
    let mut parts = parts.into_iter();
    let Some(mut tk) = parts.next() else {
        return Toolkit::new();
    };
    for p in parts {
        tk.merge(&p);
    }
    let orphans: Vec<_> = tk
        .nodes_of(NodeKind::Action)
        .filter(|&ix| tk.node(ix).implicit)
        .collect();
    for ix in orphans {
        tk.remove_node(ix);
    }
    tk
}

/// A new name for an operator that another opened file also defines.
#[derive(Debug, Clone, PartialEq)]
pub struct OperatorName {
    /// Index of the file, and of the operator in that file's `operators`.
    pub file: usize,
    pub index: usize,
    /// The name as written in the file, and as shown: `NAME @ FILE`.
    pub written: String,
    pub shown: String,
    /// The clash, reported at the operator (TS075).
    pub diagnostic: Diagnostic,
}

/// The operators of `files` (path and operators of each, in order) whose name another file
/// also defines, with their shown names; `roots` are the paths the user opened (file names
/// are shown relative to an opened folder).
pub fn operator_names(roots: &[PathBuf], files: &[(&Path, &[Operator])]) -> Vec<OperatorName> {
    let shown: Vec<String> = files.iter().map(|(p, _)| shown_name(roots, p)).collect();
    let mut files_of: HashMap<&str, Vec<&str>> = HashMap::new();
    for ((_, ops), name) in files.iter().zip(&shown) {
        let mut seen = HashSet::new();
        for op in ops.iter() {
            if seen.insert(op.name.as_str()) {
                files_of.entry(op.name.as_str()).or_default().push(name);
            }
        }
    }
    let mut out = Vec::new();
    for (file, ((path, ops), name)) in files.iter().zip(&shown).enumerate() {
        for (index, op) in ops.iter().enumerate() {
            let Some(files) = files_of.get(op.name.as_str()).filter(|v| v.len() > 1) else {
                continue;
            };
            let others: Vec<&str> = files.iter().copied().filter(|n| n != name).collect();
            let new = format!("{} @ {name}", op.name);
            let at = op.origin.unwrap_or_default();
            out.push(OperatorName {
                file,
                index,
                written: op.name.clone(),
                diagnostic: Diagnostic {
                    file: path.display().to_string(),
                    line: at.line.max(1),
                    column: at.col.max(1),
                    severity: Severity::Warning,
                    code: Code::SharedOperatorName,
                    message: format!(
                        "operator `{}` is also defined in {}; both are kept, this one as `{new}`",
                        op.name,
                        others.join(", "),
                    ),
                },
                shown: new,
            });
        }
    }
    out
}

/// A file's name as users know it: relative to the opened folder it was found in, or the
/// path as given.
fn shown_name(roots: &[PathBuf], file: &Path) -> String {
    roots
        .iter()
        .filter(|p| p.is_dir())
        .find_map(|dir| file.strip_prefix(dir).ok())
        .unwrap_or(file)
        .display()
        .to_string()
}
