//! `:fit` off the UI thread. Fitting and applying the fitted scores to the files' text can
//! take seconds on a large kit (`:fit add-edges` most), so the work runs on a copy of the
//! workspace on a thread of its own while the screen keeps drawing and every key (`:q!`,
//! Ctrl-C) and signal (SIGTERM, SIGHUP) still works. The copy comes back whole: the shell
//! puts it in place of the session's workspace as one undoable step, unless the toolkit
//! changed meanwhile (an edit, an undo, a reload, a save), when the fit is refused. Esc
//! stops the job between its phases and, while the edits are applied, before each edit.
//!
//! Nothing here names the app or the message channel: the job's state and the work only.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use toolscope_core::edit::Transaction;
use toolscope_core::evidence::Record;
use toolscope_core::evidence::fit::Changes;
use toolscope_core::fit::report::call_line;
use toolscope_core::fit::{FitOptions, fit};
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::explain::num;
use toolscope_core::workspace::Workspace;

/// A fit running on its thread: what it started from, and its stop switch.
#[derive(Debug)]
pub struct Running {
    /// Tells an old job's result from the current one's.
    pub(super) id: u64,
    /// The toolkit the fit started from (kept, so a changed toolkit is a new allocation).
    started_on: Arc<Toolkit>,
    /// Whether the workspace had unsaved edits then (a save leaves the toolkit alone).
    dirty: bool,
    cancel: Arc<AtomicBool>,
}

impl Running {
    pub(super) fn new(id: u64, ws: &Workspace) -> Running {
        Running {
            id,
            started_on: Arc::clone(&ws.toolkit),
            dirty: ws.is_dirty(),
            cancel: Arc::default(),
        }
    }

    /// The stop switch, for the thread.
    pub(super) fn cancel_switch(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.cancel)
    }

    /// Asks the thread to stop (it stops at its next check; its result is dropped).
    pub(super) fn cancel(&self) {
        self.cancel.store(true, Ordering::SeqCst);
    }

    /// Whether `ws` is still what the fit started from: same toolkit, same saved state.
    pub(super) fn still_current(&self, ws: &Workspace) -> bool {
        Arc::ptr_eq(&ws.toolkit, &self.started_on) && ws.is_dirty() == self.dirty
    }
}

/// What a fit found, sent back to the loop.
#[derive(Debug, Clone)]
pub struct Done {
    pub id: u64,
    pub outcome: Outcome,
}

/// What came of a fit.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The scores already fit the records.
    Unchanged {
        records: usize,
    },
    /// The workspace with the fitted scores applied as one step, what the step says, and
    /// one line per changed score.
    Fitted {
        ws: Box<Workspace>,
        said: String,
        lines: Vec<String>,
        calls: usize,
        next: usize,
    },
    Failed(String),
    /// Stopped by its switch before it finished.
    Cancelled,
}

/// Fits the Call (and, from ordered runs, Next) scores of `ws` to `records` and applies
/// them to `ws` as one transaction; `add_edges` also adds the Next edges the runs show.
pub fn run(mut ws: Workspace, records: &[Record], add_edges: bool, stop: &AtomicBool) -> Outcome {
    let stopped = || stop.load(Ordering::SeqCst);
    let tk = Arc::clone(&ws.toolkit);
    // The core's fit pipeline, as `toolscope fit` runs it: no hold-out, no evaluation.
    let opts = FitOptions {
        add_edges,
        ..FitOptions::default()
    };
    let Some(done) = fit(&tk, records, &opts, &stopped) else {
        return Outcome::Cancelled;
    };
    let changes = done.changes;
    if changes.is_empty() {
        return Outcome::Unchanged {
            records: done.fitted,
        };
    }
    let lines = lines(&tk, &changes);
    let txn = Transaction::from(changes.edits(&tk));
    let mut said = txn.describe();
    if stopped() {
        return Outcome::Cancelled;
    }
    // The edits look at the switch too: a cancel during a long apply ends it there.
    match ws.apply_or_stop(txn, &stopped) {
        Err(_) if stopped() => Outcome::Cancelled,
        Ok(applied) => {
            for n in &applied.notes {
                said.push_str("; ");
                said.push_str(n);
            }
            Outcome::Fitted {
                ws: Box::new(ws),
                said,
                lines,
                calls: changes.calls.len(),
                next: changes.next.len(),
            }
        }
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

/// One line per changed score, for the message log.
fn lines(tk: &Toolkit, changes: &Changes) -> Vec<String> {
    let mut lines = Vec::with_capacity(changes.calls.len() + changes.next.len());
    for f in &changes.calls {
        lines.push(format!("fit: {}", call_line(tk, f)));
    }
    for f in &changes.next {
        let old = f.old.map_or_else(|| "(new)".to_string(), num);
        lines.push(format!(
            "fit: {} -> {}: {old} -> {} ({} of {} steps)",
            tk.name(f.from),
            tk.name(f.to),
            num(f.new),
            f.steps,
            f.row_steps
        ));
    }
    lines
}
