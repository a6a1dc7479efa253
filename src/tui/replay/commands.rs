//! The replay's commands: `:replay RECORD STEP` (and `:replay` alone to follow the newest
//! record), `R` to choose a loaded run, `S` for the step after the selected tool. The keys
//! inside a replay (steps, play, tune) are the pane's own (see
//! [`super::ReplayPane::key`]); the panel names them.

use crate::tui::update::row::{Command, cmd};

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("replay", [], None, "[RECORD [STEP]]", Evidence, "replay a loaded run step by step: RECORD numbered from 1 in load order (or a record's id), STEP from 0; alone: follow the newest record as the trace file grows", |a, arg| {
        crate::tui::update::replay::with(a, |r, ctx| r.command(ctx, arg))
    }),
    cmd!("replay-runs", [], None, "", Evidence, "choose a loaded run to replay (j/k, Enter)", |a, _| {
        crate::tui::update::replay::with(a, |r, ctx| Ok(r.pick(ctx)))
    }),
    cmd!("step-after", [], None, "", Evidence, "the step after the selected tool: its offer on the graph, as eval --steps computes it (Esc: back)", |a, _| {
        crate::tui::update::replay::with(a, |r, ctx| Ok(r.step_after_selected(ctx)))
    }),
    // The keys of a replay shown, its tune list and its runs list: each row sends its key
    // to the replay's own key handling (`ReplayPane::key`), so the keymap lists them all.
    cmd!("replay-next", [], None, "", Replay, "the next step", |a, _| crate::tui::update::replay_keys::press(a, "replay-next")),
    cmd!("replay-prev", [], None, "", Replay, "the previous step", |a, _| crate::tui::update::replay_keys::press(a, "replay-prev")),
    cmd!("replay-first", [], None, "", Replay, "the first step", |a, _| crate::tui::update::replay_keys::press(a, "replay-first")),
    cmd!("replay-last", [], None, "", Replay, "the last step", |a, _| crate::tui::update::replay_keys::press(a, "replay-last")),
    cmd!("replay-play", [], None, "", Replay, "play / pause the steps at their pace", |a, _| crate::tui::update::replay_keys::press(a, "replay-play")),
    cmd!("replay-faster", [], None, "", Replay, "play faster (down to 0.225 s a step)", |a, _| crate::tui::update::replay_keys::press(a, "replay-faster")),
    cmd!("replay-slower", [], None, "", Replay, "play slower (up to 3.6 s a step)", |a, _| crate::tui::update::replay_keys::press(a, "replay-slower")),
    cmd!("replay-next-miss", [], None, "", Replay, "the next miss across the loaded runs (searched off the UI thread; Esc cancels)", |a, _| crate::tui::update::replay_keys::press(a, "replay-next-miss")),
    cmd!("replay-prev-miss", [], None, "", Replay, "the previous miss across the loaded runs (searched off the UI thread; Esc cancels)", |a, _| crate::tui::update::replay_keys::press(a, "replay-prev-miss")),
    cmd!("replay-tune", [], None, "", Replay, "tune: the changes that would have offered a missed call, measured over every run off the UI thread (Esc cancels), ranked", |a, _| crate::tui::update::replay_keys::press(a, "replay-tune")),
    cmd!("replay-next-run", [], None, "", Replay, "the next loaded run, from its first step", |a, _| crate::tui::update::replay_keys::press(a, "replay-next-run")),
    cmd!("replay-prev-run", [], None, "", Replay, "the previous loaded run", |a, _| crate::tui::update::replay_keys::press(a, "replay-prev-run")),
    cmd!("replay-leave", [], None, "", Replay, "leave the replay (the operator's seeds come back); while a search for a miss or t's measures run, cancel them first", |a, _| crate::tui::update::replay_keys::press(a, "replay-leave")),
    cmd!("tune-down", [], None, "", Replay, "tune list: next change", |a, _| crate::tui::update::replay_keys::press(a, "tune-down")),
    cmd!("tune-up", [], None, "", Replay, "tune list: previous change", |a, _| crate::tui::update::replay_keys::press(a, "tune-up")),
    cmd!("tune-apply", [], None, "", Replay, "tune list: make the change (one edit: u undoes it)", |a, _| crate::tui::update::replay_keys::press(a, "tune-apply")),
    cmd!("tune-close", [], None, "", Replay, "tune list: close", |a, _| crate::tui::update::replay_keys::press(a, "tune-close")),
    cmd!("runs-down", [], None, "", Replay, "runs list: next run", |a, _| crate::tui::update::replay_keys::press(a, "runs-down")),
    cmd!("runs-up", [], None, "", Replay, "runs list: previous run", |a, _| crate::tui::update::replay_keys::press(a, "runs-up")),
    cmd!("runs-page-down", [], None, "", Replay, "runs list: ten runs down", |a, _| crate::tui::update::replay_keys::press(a, "runs-page-down")),
    cmd!("runs-page-up", [], None, "", Replay, "runs list: ten runs up", |a, _| crate::tui::update::replay_keys::press(a, "runs-page-up")),
    cmd!("runs-first", [], None, "", Replay, "runs list: the first run", |a, _| crate::tui::update::replay_keys::press(a, "runs-first")),
    cmd!("runs-last", [], None, "", Replay, "runs list: the last run", |a, _| crate::tui::update::replay_keys::press(a, "runs-last")),
    cmd!("runs-open", [], None, "", Replay, "runs list: replay the run from its first step", |a, _| crate::tui::update::replay_keys::press(a, "runs-open")),
    cmd!("runs-close", [], None, "", Replay, "runs list: close", |a, _| crate::tui::update::replay_keys::press(a, "runs-close")),
    cmd!("runs-order", [], None, "", Replay, "runs list: order by file, most misses first, lowest recall first (cycles)", |a, _| crate::tui::update::replay_keys::press(a, "runs-order")),
    cmd!("runs-misses", [], None, "", Replay, "runs list: only the runs with a miss / every run", |a, _| crate::tui::update::replay_keys::press(a, "runs-misses")),
];
