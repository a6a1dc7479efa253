//! A Chat2Graph config's top-level `scores:` list as a batch of edits reads it: its entries
//! by edge, found without a walk of the list per look-up, and the new entries the batch's
//! edits would each append at the end of the list, held back so that they are appended in
//! one insertion (two insertions at one place are ambiguous; see `workspace::batch`).

use std::collections::{HashMap, HashSet};

use super::Nav;
use crate::source::yaml::NodeId;

/// (from, to) to the entries naming that edge: their index in the list and their mapping,
/// in the list's order.
pub(super) type Index = HashMap<(String, String), Vec<(usize, NodeId)>>;

/// What a batch of edits held back and looked at in the `scores:` list.
#[derive(Default)]
pub struct Held {
    /// New entries' texts (`{from: .., to: .., score: ..}`) in the order the edits made them.
    pub items: Vec<String>,
    /// Whether an edit looked up an edge an earlier edit of the batch looked up or wrote
    /// (its entry may be one the earlier edit made or changed, which the batch's one parse
    /// does not show), or removed entries (a list emptied takes its next items in another
    /// style): the batch then declines.
    pub clash: bool,
    /// The edges the edits before the current one looked up.
    before: HashSet<(String, String)>,
    /// The edges the current edit looked up.
    current: HashSet<(String, String)>,
}

impl Nav<'_, '_> {
    /// The `scores:` entries for the edge `from -> to` (index, mapping), in the list's
    /// order: mapping items whose `from` and `to` are those names.
    pub fn score_entries(&self, from: &str, to: &str) -> Vec<(usize, NodeId)> {
        let key = (from.to_string(), to.to_string());
        let found = self
            .scores
            .get_or_init(|| self.score_index())
            .get(&key)
            .cloned()
            .unwrap_or_default();
        if let Some(held) = self.held.borrow_mut().as_mut() {
            held.clash |= held.before.contains(&key);
            held.current.insert(key);
        }
        found
    }

    fn score_index(&self) -> Index {
        let mut index = Index::new();
        for (i, e) in self.top_list("scores").into_iter().enumerate() {
            if self.doc.map(e).is_none() {
                continue;
            }
            let text = |k: &str| self.doc.get(e, k).and_then(|v| self.doc.str(v));
            if let (Some(from), Some(to)) = (text("from"), text("to")) {
                index
                    .entry((from.to_string(), to.to_string()))
                    .or_default()
                    .push((i, self.doc.resolve(e)));
            }
        }
        index
    }

    /// From now on new `scores:` entries are held back (see [`Nav::hold_new_scores`]).
    pub fn hold_scores(&self) {
        *self.held.borrow_mut() = Some(Held::default());
    }

    /// The next edit of the batch begins: the edges looked up so far are earlier edits'.
    pub fn next_edit(&self) {
        if let Some(held) = self.held.borrow_mut().as_mut() {
            let current = std::mem::take(&mut held.current);
            held.before.extend(current);
        }
    }

    /// Keeps new entries' texts for the batch's one insertion: `true` when they were kept
    /// (the caller writes nothing for them), `false` when nothing holds them back.
    pub(crate) fn hold_new_scores(&self, items: &[String]) -> bool {
        match self.held.borrow_mut().as_mut() {
            Some(held) => {
                held.items.extend_from_slice(items);
                true
            }
            None => false,
        }
    }

    /// Entries were removed from the list (see [`Held::clash`]).
    pub(crate) fn scores_removed(&self) {
        if let Some(held) = self.held.borrow_mut().as_mut() {
            held.clash = true;
        }
    }

    /// What was held back; nothing is held from now on.
    pub fn take_held(&self) -> Option<Held> {
        self.held.borrow_mut().take()
    }
}
