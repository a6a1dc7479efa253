//! Names across files. The merged graph shows operators that several files define as
//! `NAME @ FILE`, and a `next` into another file as an edge to a stand-in (see
//! `source::join`), while each file's own graph, its text and its pending log keep what the
//! file writes. Edits come in with the names shown and are mapped to their file and written
//! name here; transactions going out (undo, removals, the unsaved log) are mapped back.

use crate::edit::{Edit, EditError, Transaction};
use crate::model::{NodeKind, Toolkit};
use crate::source::join;

use super::Workspace;

/// The operator an edit names, if any.
fn operator_of(edit: &mut Edit) -> Option<&mut String> {
    match edit {
        Edit::SetThreshold { operator, .. }
        | Edit::SetHops { operator, .. }
        | Edit::AddSeed { operator, .. }
        | Edit::RemoveSeed { operator, .. }
        | Edit::ResetParam { operator, .. } => Some(operator),
        _ => None,
    }
}

impl Workspace {
    /// The edit with the names its file writes, and the file it must go to when it names
    /// an operator shown as `NAME @ FILE`. A name several operators share is refused with
    /// the choices.
    pub(super) fn localize(
        &self,
        mut txn: Transaction,
    ) -> Result<(Option<usize>, Transaction), EditError> {
        if self.names.is_empty() {
            return Ok((None, txn));
        }
        let mut file = None;
        for edit in &mut txn.edits {
            let Some(name) = operator_of(edit) else {
                continue;
            };
            let ops = self.toolkit.operators_named(name);
            if ops.len() > 1 {
                let labels: Vec<String> = ops.iter().map(|o| o.label()).collect();
                return Err(EditError::Invalid(format!(
                    "`{name}` names {} operators; pass one of: {}",
                    ops.len(),
                    labels.join(", ")
                )));
            }
            let Some(shown) = ops.first().map(|o| o.name.as_str()) else {
                continue;
            };
            let Some(r) = self.names.iter().find(|r| r.shown == shown) else {
                continue;
            };
            if file.is_some_and(|f| f != r.file) {
                return Err(EditError::Invalid(
                    "one change cannot edit operators of two files".into(),
                ));
            }
            file = Some(r.file);
            name.clone_from(&r.written);
        }
        Ok((file, txn))
    }

    /// A transaction of file `file` with the operator names shown to the user.
    pub(super) fn shown(&self, file: usize, mut txn: Transaction) -> Transaction {
        for edit in &mut txn.edits {
            if let Some(name) = operator_of(edit)
                && let Some(r) = self
                    .names
                    .iter()
                    .find(|r| r.file == file && r.written == *name)
            {
                name.clone_from(&r.shown);
            }
        }
        txn
    }

    /// Every file's unsaved transactions, in order, with the names shown (what
    /// [`Workspace::apply`] takes back, e.g. from a recovery file).
    pub fn unsaved(&self) -> Vec<Transaction> {
        self.files
            .iter()
            .enumerate()
            .flat_map(|(i, f)| f.pending().map(move |t| self.shown(i, t.clone())))
            .collect()
    }
}

/// Whether a transaction would make `tk`'s stand-in for another file's action its subject
/// (describe it, remove it, start an edge at it): that file must take it, not this one.
/// An edge *to* a stand-in is this file's (it holds the `next:` entry).
pub(super) fn acts_on_stand_in(tk: &Toolkit, txn: &Transaction) -> bool {
    let stand_in = |name: &str| tk.action(name).is_some_and(|ix| join::is_stand_in(tk, ix));
    txn.edits.iter().any(|e| match e {
        Edit::SetScore { from, .. }
        | Edit::AddEdge { from, .. }
        | Edit::RemoveEdge { from, .. } => stand_in(from),
        Edit::SetDesc { kind, name, .. } | Edit::RemoveNode { kind, name } => {
            *kind == NodeKind::Action && stand_in(name)
        }
        Edit::AddNode(n) => n.kind == NodeKind::Action && stand_in(&n.name),
        _ => false,
    })
}
