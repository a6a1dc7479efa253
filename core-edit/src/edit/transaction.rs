//! The unit of change of an editing session (helix's `Transaction`): a few edits that belong
//! together, made, undone, logged as pending, reapplied and written as one step.
//!
//! A removal carries its cascade's seeds, a fit carries its batch of scores, and the undo
//! of a saved step is the inverse transaction, made of ordinary writable edits, so it
//! survives a reload like any other pending change.

use crate::model::{NodeKind, Toolkit};

use super::{Edit, EditError};

/// Edits applied in order, as one step.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Transaction {
    pub edits: Vec<Edit>,
}

impl From<Edit> for Transaction {
    fn from(edit: Edit) -> Transaction {
        Transaction { edits: vec![edit] }
    }
}

impl From<Vec<Edit>> for Transaction {
    fn from(edits: Vec<Edit>) -> Transaction {
        Transaction { edits }
    }
}

impl Transaction {
    /// Removing a node the way the TUI does: the removed actions taken out of every
    /// operator's seed list (a seed naming no action is an error), then Chat2Graph's
    /// cascade. The seeds go first so the removal itself finds no operator still naming
    /// what it removes (and says nothing about one).
    pub fn removal(tk: &Toolkit, kind: NodeKind, name: &str) -> Result<Transaction, EditError> {
        let removed = super::removal(tk, kind, name)?;
        let mut edits = Vec::new();
        let gone: Vec<&str> = removed
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Action)
            .map(|n| n.name.as_str())
            .collect();
        for op in &tk.operators {
            for seed in op.actions.iter().filter(|a| gone.contains(&a.as_str())) {
                edits.push(Edit::RemoveSeed {
                    operator: op.name.clone(),
                    action: seed.clone(),
                });
            }
        }
        edits.push(Edit::RemoveNode {
            kind,
            name: name.to_string(),
        });
        Ok(Transaction { edits })
    }

    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// A short description: the edit asked for (a removal's node, not the seeds it takes
    /// first; otherwise the first edit), and how many more come with it.
    pub fn describe(&self) -> String {
        let head = self
            .edits
            .iter()
            .find(|e| matches!(e, Edit::RemoveNode { .. }))
            .or(self.edits.first());
        match (head, self.edits.len()) {
            (None, _) => "nothing".into(),
            (Some(one), 1) => one.describe(),
            (Some(head), n) => format!("{} (+{} more)", head.describe(), n - 1),
        }
    }

    /// Applies every edit to `tk`, or none: a refused edit leaves `tk` as it was.
    pub fn apply_graph(&self, tk: &mut Toolkit) -> Result<(), EditError> {
        self.apply_each(tk, Edit::apply_graph)
    }

    /// Applies an inverse (see [`Edit::restore_graph`]), every edit or none.
    pub fn restore_graph(&self, tk: &mut Toolkit) -> Result<(), EditError> {
        self.apply_each(tk, Edit::restore_graph)
    }

    fn apply_each(
        &self,
        tk: &mut Toolkit,
        apply: fn(&Edit, &mut Toolkit) -> Result<(), EditError>,
    ) -> Result<(), EditError> {
        if let [one] = self.edits.as_slice() {
            return apply(one, tk);
        }
        if self.operators_only() {
            // Only the operators change: keep a copy of them, not of the whole graph.
            let operators = tk.operators.clone();
            let applied = self.edits.iter().try_for_each(|e| apply(e, tk));
            if applied.is_err() {
                tk.operators = operators;
            }
            return applied;
        }
        let mut scratch = tk.clone();
        for e in &self.edits {
            apply(e, &mut scratch)?;
        }
        *tk = scratch;
        Ok(())
    }

    /// Whether every edit changes only an operator's threshold or hops (what the TUI's
    /// save writes), so that the graph itself is left alone.
    pub fn operators_only(&self) -> bool {
        self.edits
            .iter()
            .all(|e| matches!(e, Edit::SetThreshold { .. } | Edit::SetHops { .. }))
    }

    /// The transaction that undoes this one, computed on `tk` before applying.
    pub fn inverse(&self, tk: &Toolkit) -> Result<Transaction, EditError> {
        let mut undo = Undo::default();
        if let [one] = self.edits.as_slice() {
            undo.push(one, tk, None)?;
            return Ok(undo.finish());
        }
        let mut scratch = tk.clone();
        for e in &self.edits {
            undo.push(e, &scratch, None)?;
            e.apply_graph(&mut scratch)?;
        }
        Ok(undo.finish())
    }
}

/// A transaction's inverse, built edit by edit as each is made (the rule in one place):
/// each edit is undone by its graph inverse on the graph before it, or by what its text
/// says more (a threshold the operator did not write is undone by removing the key), and
/// the undo runs the edits' inverses in reverse order.
#[derive(Debug, Default)]
pub struct Undo {
    steps: Vec<Vec<Edit>>,
}

impl Undo {
    /// Records the undo of `edit`, about to be applied to `before`; `text_undo` replaces its
    /// graph inverse when the file's text tells more.
    pub fn push(
        &mut self,
        edit: &Edit,
        before: &Toolkit,
        text_undo: Option<Edit>,
    ) -> Result<(), EditError> {
        self.steps.push(match text_undo {
            Some(e) => vec![e],
            None => edit.inverse(before)?,
        });
        Ok(())
    }

    pub fn finish(self) -> Transaction {
        Transaction {
            edits: self.steps.into_iter().rev().flatten().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Operator;

    fn kit() -> Toolkit {
        let mut tk = Toolkit::new();
        tk.add_node(crate::model::Node::new(NodeKind::Action, "a"));
        tk.operators
            .push(Operator::new("op", vec!["a".to_string()]));
        tk
    }

    fn both(threshold: f64, hops: u32) -> Transaction {
        Transaction::from(vec![
            Edit::SetThreshold {
                operator: "op".into(),
                value: threshold,
            },
            Edit::SetHops {
                operator: "op".into(),
                value: hops,
            },
        ])
    }

    /// Operator edits are applied in place (no copy of the graph), and all or none.
    #[test]
    fn operator_edits_apply_all_or_none_in_place() {
        let mut tk = kit();
        assert!(both(0.7, 2).operators_only());
        assert!(both(0.7, 5000).apply_graph(&mut tk).is_err());
        let op = tk.operator("op").unwrap();
        assert_eq!((op.threshold, op.hops), (0.5, 0));
        both(0.7, 2).apply_graph(&mut tk).unwrap();
        let op = tk.operator("op").unwrap();
        assert_eq!((op.threshold, op.hops), (0.7, 2));
        assert_eq!(tk.graph.node_count(), 1);
        let mixed = Transaction::from(vec![
            Edit::SetHops {
                operator: "op".into(),
                value: 1,
            },
            Edit::SetThreshold {
                operator: "nobody".into(),
                value: 0.1,
            },
        ]);
        assert!(mixed.apply_graph(&mut tk).is_err());
        assert_eq!(tk.operator("op").unwrap().hops, 2);
    }
}
