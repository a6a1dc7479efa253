//! The replay meets the app: each hook runs one handler of [`ReplayPane`] on the
//! [`Ctx`] and applies the [`Action`]s it returns.

use crossterm::event::KeyEvent;

use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::ctx::Ctx;
use crate::tui::replay::ReplayPane;

/// Runs `f` on the replay taken out of the app and the context, then applies what it
/// returns.
fn run<T>(app: &mut App, f: impl FnOnce(&mut ReplayPane, &Ctx) -> (Vec<Action>, T)) -> T {
    let mut pane = std::mem::take(&mut app.replay);
    let (actions, out) = f(&mut pane, &app.ctx());
    app.replay = pane;
    super::apply::apply(app, actions);
    out
}

/// Sends a key to the replay's own key handling; `false` when it is not the replay's.
pub fn send(app: &mut App, k: &KeyEvent) -> bool {
    run(app, |r, ctx| match r.key(ctx, k) {
        Some(actions) => (actions, true),
        None => (Vec::new(), false),
    })
}

/// A play tick.
pub fn tick(app: &mut App, generation: u64) {
    run(app, |r, _| (r.tick(generation), ()));
}

/// Once per batch of messages, after the trace files were read again: a followed run
/// moves on.
pub fn flush(app: &mut App) {
    if app.replay.run().is_none_or(|r| !r.follow) {
        return;
    }
    run(app, |r, ctx| (r.traces_loaded(ctx), ()));
}

/// The first screen: a kit `init` made opens on one step (see `ReplayPane::opening`).
pub fn opening(app: &mut App) {
    run(app, |r, ctx| (r.opening(ctx), ()));
}

/// Runs a handler with the context and applies its actions; its error to the caller.
pub fn with(
    app: &mut App,
    f: impl FnOnce(&mut ReplayPane, &Ctx) -> Result<Vec<Action>, String>,
) -> Result<(), String> {
    run(app, |r, ctx| match f(r, ctx) {
        Ok(actions) => (actions, Ok(())),
        Err(e) => (Vec::new(), Err(e)),
    })
}

/// A replay job finished on its thread (the next miss, `t`'s measures, the standing).
pub fn job_done(app: &mut App, done: crate::tui::replay::jobs::JobDone) {
    run(app, |r, ctx| (r.job_done(ctx, done), ()));
}
