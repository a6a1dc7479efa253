//! The replay's commands: `:replay RECORD STEP` (and `:replay` alone to follow the newest
//! record), `R` to choose a loaded run, `S` for the step after the selected tool. The keys
//! inside a replay (steps, play, tune) are the pane's own (see
//! [`super::ReplayPane::key`]); the panel names them.

use crate::tui::update::row::{Command, cmd};

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("replay", [], None, "[RECORD [STEP]]", Evidence, "replay a loaded run step by step: RECORD numbered from 1 in load order (or a record's id), STEP from 0; alone: follow the newest record as the trace file grows", @Replay |r, ctx, arg| r.command(ctx, arg)),
    cmd!("replay-runs", [], None, "", Evidence, "choose a loaded run to replay (j/k, Enter)", @Replay |r, ctx, _| Ok(r.pick(ctx))),
    cmd!("step-after", [], None, "", Evidence, "the step after the selected tool: its offer on the graph, as eval --steps computes it (Esc: back)", @Replay |r, ctx, _| Ok(r.step_after_selected(ctx))),
    // The keys of a replay shown, its tune list and its runs list: each row sends its key
    // to the replay's own key handling (`ReplayPane::key`), so the keymap lists them all.
    cmd!("replay-next", [], None, "", Replay, "the next step", @ReplayKey "replay-next"),
    cmd!("replay-prev", [], None, "", Replay, "the previous step", @ReplayKey "replay-prev"),
    cmd!("replay-first", [], None, "", Replay, "the first step", @ReplayKey "replay-first"),
    cmd!("replay-last", [], None, "", Replay, "the last step", @ReplayKey "replay-last"),
    cmd!("replay-play", [], None, "", Replay, "play / pause the steps at their pace", @ReplayKey "replay-play"),
    cmd!("replay-faster", [], None, "", Replay, "play faster (down to 0.225 s a step)", @ReplayKey "replay-faster"),
    cmd!("replay-slower", [], None, "", Replay, "play slower (up to 3.6 s a step)", @ReplayKey "replay-slower"),
    cmd!("replay-next-miss", [], None, "", Replay, "the next miss across the loaded runs (searched off the UI thread; Esc cancels)", @ReplayKey "replay-next-miss"),
    cmd!("replay-prev-miss", [], None, "", Replay, "the previous miss across the loaded runs (searched off the UI thread; Esc cancels)", @ReplayKey "replay-prev-miss"),
    cmd!("replay-tune", [], None, "", Replay, "tune: the changes that would have offered a missed call, measured over every run off the UI thread (Esc cancels), ranked", @ReplayKey "replay-tune"),
    cmd!("replay-next-run", [], None, "", Replay, "the next loaded run, from its first step", @ReplayKey "replay-next-run"),
    cmd!("replay-prev-run", [], None, "", Replay, "the previous loaded run", @ReplayKey "replay-prev-run"),
    cmd!("replay-leave", [], None, "", Replay, "leave the replay (the operator's seeds come back); while a search for a miss or t's measures run, cancel them first", @ReplayKey "replay-leave"),
    cmd!("tune-down", [], None, "", Replay, "tune list: next change", @ReplayKey "tune-down"),
    cmd!("tune-up", [], None, "", Replay, "tune list: previous change", @ReplayKey "tune-up"),
    cmd!("tune-apply", [], None, "", Replay, "tune list: make the change (one edit: u undoes it)", @ReplayKey "tune-apply"),
    cmd!("tune-close", [], None, "", Replay, "tune list: close", @ReplayKey "tune-close"),
    cmd!("runs-down", [], None, "", Replay, "runs list: next run", @ReplayKey "runs-down"),
    cmd!("runs-up", [], None, "", Replay, "runs list: previous run", @ReplayKey "runs-up"),
    cmd!("runs-page-down", [], None, "", Replay, "runs list: ten runs down", @ReplayKey "runs-page-down"),
    cmd!("runs-page-up", [], None, "", Replay, "runs list: ten runs up", @ReplayKey "runs-page-up"),
    cmd!("runs-first", [], None, "", Replay, "runs list: the first run", @ReplayKey "runs-first"),
    cmd!("runs-last", [], None, "", Replay, "runs list: the last run", @ReplayKey "runs-last"),
    cmd!("runs-open", [], None, "", Replay, "runs list: replay the run from its first step", @ReplayKey "runs-open"),
    cmd!("runs-close", [], None, "", Replay, "runs list: close", @ReplayKey "runs-close"),
    cmd!("runs-order", [], None, "", Replay, "runs list: order by file, most misses first, lowest recall first (cycles)", @ReplayKey "runs-order"),
    cmd!("runs-misses", [], None, "", Replay, "runs list: only the runs with a miss / every run", @ReplayKey "runs-misses"),
];
