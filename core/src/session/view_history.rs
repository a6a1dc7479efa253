//! The view's parameter steps in the session's undo history: threshold, hops and seeds
//! change in the view (pending until saved, see [`super::Session::params`]), and each
//! change is a step undo takes back and redo makes again, interleaved with the
//! workspace's own steps by depth. Repeats of one key within [`MERGE_WITHIN`] are one
//! step, so holding `+` is undone by one `u`.

use std::time::{Duration, Instant};

use crate::recommend::Params;

/// Repeats of one key closer than this merge into one step.
pub const MERGE_WITHIN: Duration = Duration::from_secs(1);

/// The view's parameters: threshold, hops and the seeds (by action name, so a reload that
/// renumbers the graph does not change what a step restores).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ViewParams {
    pub params: Params,
    pub seeds: Vec<String>,
}

impl ViewParams {
    /// What `self` says that `other` does not, as `threshold 0.60, hops 2`.
    pub fn differences(&self, other: &ViewParams) -> String {
        let mut out = Vec::new();
        if (self.params.threshold - other.params.threshold).abs() > 1e-12 {
            out.push(format!("threshold {:.2}", self.params.threshold));
        }
        if self.params.hops != other.params.hops {
            out.push(format!("hops {}", self.params.hops));
        }
        if self.seeds != other.seeds {
            match self.seeds.is_empty() {
                true => out.push("no seeds".into()),
                false => out.push(format!("seeds {}", self.seeds.join(", "))),
            }
        }
        out.join(", ")
    }
}

#[derive(Debug, Clone)]
struct Step {
    before: ViewParams,
    after: ViewParams,
    key: &'static str,
    at: Instant,
    /// The workspace's undo (for a step to undo) or redo (for a step to redo) depth when
    /// the step was made: it is the next to take while the workspace's depth is no more.
    depth: usize,
}

/// The view's steps to undo and to redo.
#[derive(Debug, Clone, Default)]
pub struct ViewHistory {
    undo: Vec<Step>,
    redo: Vec<Step>,
}

impl ViewHistory {
    /// Records a change made by `key` at `now`, the workspace's undo depth being `depth`;
    /// `false` when nothing changed.
    pub fn record(
        &mut self,
        before: ViewParams,
        after: ViewParams,
        key: &'static str,
        now: Instant,
        depth: usize,
    ) -> bool {
        if before == after {
            return false;
        }
        self.redo.clear();
        if let Some(top) = self.undo.last_mut()
            && top.key == key
            && top.depth == depth
            && now.duration_since(top.at) < MERGE_WITHIN
        {
            top.after = after;
            top.at = now;
            if top.after == top.before {
                self.undo.pop();
            }
            return true;
        }
        self.undo.push(Step {
            before,
            after,
            key,
            at: now,
            depth,
        });
        true
    }

    /// The parameters to restore when undo's next step is the view's (the workspace's undo
    /// depth being `ws_undo` and its redo depth `ws_redo`): (restore, was).
    pub fn undo(&mut self, ws_undo: usize, ws_redo: usize) -> Option<(ViewParams, ViewParams)> {
        let top = self.undo.last()?;
        if top.depth < ws_undo {
            return None;
        }
        let mut step = self.undo.pop()?;
        let out = (step.before.clone(), step.after.clone());
        step.depth = ws_redo;
        self.redo.push(step);
        Some(out)
    }

    /// The parameters to restore when redo's next step is the view's: (restore, was).
    pub fn redo(&mut self, ws_undo: usize, ws_redo: usize) -> Option<(ViewParams, ViewParams)> {
        let top = self.redo.last()?;
        if top.depth < ws_redo {
            return None;
        }
        let mut step = self.redo.pop()?;
        let out = (step.after.clone(), step.before.clone());
        step.depth = ws_undo;
        // A redone step never merges with a later key.
        step.key = "";
        self.undo.push(step);
        Some(out)
    }

    /// Forgets the steps redo could make (an edit came after them).
    pub fn forget_redo(&mut self) {
        self.redo.clear();
    }

    /// Forgets every step (another operator is active: the steps were its parameters).
    pub fn clear(&mut self) {
        *self = ViewHistory::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t: f64) -> ViewParams {
        ViewParams {
            params: Params {
                threshold: t,
                hops: 1,
            },
            seeds: Vec::new(),
        }
    }

    #[test]
    fn repeats_within_a_second_merge_and_later_ones_do_not() {
        let mut h = ViewHistory::default();
        let t0 = Instant::now();
        assert!(h.record(at(0.5), at(0.55), "threshold-up", t0, 0));
        assert!(h.record(
            at(0.55),
            at(0.6),
            "threshold-up",
            t0 + Duration::from_millis(400),
            0
        ));
        // Another key is another step, and so is the same key after a pause.
        assert!(h.record(
            at(0.6),
            at(0.55),
            "threshold-down",
            t0 + Duration::from_millis(500),
            0
        ));
        assert!(h.record(
            at(0.55),
            at(0.5),
            "threshold-down",
            t0 + Duration::from_secs(3),
            0
        ));
        assert_eq!(h.undo(0, 0), Some((at(0.55), at(0.5))));
        assert_eq!(h.undo(0, 0), Some((at(0.6), at(0.55))));
        assert_eq!(h.undo(0, 0), Some((at(0.5), at(0.6))));
        assert_eq!(h.undo(0, 0), None);
        assert_eq!(h.redo(0, 0), Some((at(0.6), at(0.5))));
    }

    #[test]
    fn a_workspace_step_made_later_is_undone_first() {
        let mut h = ViewHistory::default();
        h.record(at(0.5), at(0.6), "threshold-up", Instant::now(), 0);
        // One file edit came after: the workspace's undo depth is 1, so it goes first.
        assert_eq!(h.undo(1, 0), None);
        // Undone (its redo depth is 1): now the view's step.
        assert_eq!(h.undo(0, 1), Some((at(0.5), at(0.6))));
        // Redo goes the other way: the view's step (undone last) first, then the file's.
        assert_eq!(h.redo(0, 1), Some((at(0.6), at(0.5))));
        // Redone, it waits under the file's step again (undo depth 0 then).
        assert_eq!(h.undo(1, 0), None);
    }

    #[test]
    fn no_change_records_nothing() {
        let mut h = ViewHistory::default();
        assert!(!h.record(at(0.5), at(0.5), "threshold-up", Instant::now(), 0));
        assert_eq!(h.undo(0, 0), None);
    }
}
