//! The replay's commands: `:replay RECORD STEP` (and `:replay` alone to follow the newest
//! record), `R` to choose a loaded run, `S` for the step after the selected tool. The keys
//! inside a replay (steps, play, tune) are the pane's own (see
//! [`super::ReplayPane::key`]); the panel names them.

use crate::tui::row::{Command, cmd};

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("replay", [], None, "[RECORD [STEP]]", Evidence, "replay a loaded run step by step: RECORD numbered from 1 in load order (or a record's id), STEP from 0; alone: follow the newest record as the trace file grows", |a, arg| {
        super::shell::with(a, |r, ctx| r.command(ctx, arg))
    }),
    cmd!("replay-runs", [], None, "", Evidence, "choose a loaded run to replay (j/k, Enter)", |a, _| {
        super::shell::with(a, |r, ctx| Ok(r.pick(ctx)))
    }),
    cmd!("step-after", [], None, "", Evidence, "the step after the selected tool: its offer on the graph, as eval --steps computes it (Esc: back)", |a, _| {
        super::shell::with(a, |r, ctx| Ok(r.step_after_selected(ctx)))
    }),
];
