//! Where the shell meets the replay: each hook builds the [`Ctx`] from the app, runs one
//! handler of [`ReplayPane`](super::ReplayPane) and applies the [`Effect`]s it returns.
//! These are the only functions of the folder that see the whole app (`App::recompute`
//! builds its own [`Ctx`] to ask for the replayed step's cut).

use crossterm::event::KeyEvent;

use toolscope_core::edit::Transaction;
use toolscope_core::recommend::resolve_seeds;

use super::{Ctx, Effect};
use crate::tui::app::{App, Level};
use crate::tui::commands::keymap::{self, Context};
use crate::tui::msg::Msg;

/// The handlers' context, from the app.
macro_rules! ctx {
    ($app:expr) => {
        Ctx {
            tk: &$app.tk,
            records: $app.evidence.records(),
            params: $app.session.params,
            operator: $app
                .operator
                .and_then(|i| $app.tk.operators.get(i))
                .map(|o| o.name.as_str()),
            selected: $app.selected,
            room: super::room($app.size),
        }
    };
}

/// The keymap's context of the replay's keys now: the runs list while open, the tune list
/// while open, the replay while a step is shown; `None`: the panes'.
pub fn keys_context(app: &App) -> Option<Context> {
    if app.replay.is_off() {
        return None;
    }
    if app.replay.picking().is_some() {
        return Some(Context::Pick);
    }
    if !app.replay.shown(&app.seeds) {
        return None;
    }
    match app.replay.run() {
        Some(r) if r.tune.is_some() => Some(Context::Tune),
        _ => Some(Context::Replay),
    }
}

/// A key with no overlay open: the replay's while it is shown, when the keymap binds it
/// there (so every key the replay takes is in the help); `false`: the panes' keymap's.
/// The runs list takes every key while open (an unbound one does nothing).
pub fn key(app: &mut App, k: &KeyEvent) -> bool {
    let Some(context) = keys_context(app) else {
        return false;
    };
    let bound = match context {
        Context::Tune => keymap::lookup_only(k, Context::Tune)
            .or_else(|| keymap::lookup_only(k, Context::Replay)),
        _ => keymap::lookup_only(k, context),
    };
    if bound.is_none() && context != Context::Pick {
        return false;
    }
    send(app, k)
}

/// A replay key row run by name (`:replay-next`): its key, sent as pressed.
pub fn press(app: &mut App, command: &str) -> Result<(), String> {
    if keys_context(app).is_none() {
        return Err("no replay is shown (:replay or R starts one)".into());
    }
    let k = keymap::first_event(command).ok_or("the key is not bound")?;
    send(app, &k);
    Ok(())
}

/// Sends a key to the replay's own key handling.
fn send(app: &mut App, k: &KeyEvent) -> bool {
    let ctx = ctx!(app);
    match app.replay.key(&ctx, k) {
        Some(e) => {
            apply(app, e);
            true
        }
        None => false,
    }
}

/// A play tick.
pub fn tick(app: &mut App, generation: u64) {
    let e = app.replay.tick(generation);
    apply(app, e);
}

/// Once per batch of messages, after the trace files were read again: a followed run
/// moves on.
pub fn flush(app: &mut App) {
    if app.replay.run().is_none_or(|r| !r.follow) {
        return;
    }
    let ctx = ctx!(app);
    let e = app.replay.traces_loaded(&ctx);
    apply(app, e);
}

/// The first screen: a kit `init` made opens on one step (see `ReplayPane::opening`).
pub fn opening(app: &mut App) {
    let ctx = ctx!(app);
    let e = app.replay.opening(&ctx);
    apply(app, e);
}

/// Runs a handler with the context and applies its effects; its error to the caller.
pub fn with(
    app: &mut App,
    f: impl FnOnce(&mut super::ReplayPane, &Ctx) -> Result<Vec<Effect>, String>,
) -> Result<(), String> {
    let ctx = ctx!(app);
    let out = f(&mut app.replay, &ctx);
    apply(app, out?);
    Ok(())
}

/// Applies effects in order.
pub fn apply(app: &mut App, effects: Vec<Effect>) {
    for e in effects {
        match e {
            Effect::Show {
                operator,
                seeds,
                select,
            } => show(app, operator, seeds, select),
            Effect::Apply {
                edits,
                threshold,
                hops,
                what,
            } => {
                let r = crate::tui::editing::apply_edit(app, Transaction::from(edits));
                match r {
                    Ok(()) => {
                        if let Some(t) = threshold {
                            app.session.params.threshold = t;
                        }
                        if let Some(h) = hops {
                            app.session.params.hops = h;
                        }
                        app.recompute();
                        app.set_status(
                            Level::Info,
                            format!("tuned: {what} (one edit: u undoes it)"),
                        );
                    }
                    Err(e) => app.set_status(Level::Error, e),
                }
            }
            Effect::Tick(generation) => {
                if let Some(tx) = app.tx.clone() {
                    std::thread::spawn(move || {
                        std::thread::sleep(super::PACE);
                        let _ = tx.send(Msg::ReplayTick(generation));
                    });
                }
            }
            Effect::ShowPanel => app.with_graph(|g, s| g.show_right_pane(s, "replay panel")),
            Effect::Leave => leave(app),
            Effect::Info(t) => app.set_status(Level::Info, t),
            Effect::Error(t) => app.set_status(Level::Error, t),
        }
    }
}

/// Shows a step: its operator active, its seeds, the called tool selected.
fn show(
    app: &mut App,
    operator: Option<String>,
    seeds: Vec<petgraph::stable_graph::NodeIndex>,
    select: Option<petgraph::stable_graph::NodeIndex>,
) {
    if let Some(name) = operator {
        let active = app.active_operator().is_some_and(|o| o.name == name);
        let i = app.tk.operators.iter().position(|o| o.name == name);
        if let (false, Some(i)) = (active, i) {
            crate::tui::editing::choose_operator(app, i);
        }
    }
    app.seeds = seeds;
    app.seeds_edited = true;
    // Selected before the recommendation is laid out, so a missed call in the frontier is
    // drawn even where the rest of the frontier is not (`fit::Want::pinned`).
    if let Some(ix) = select.filter(|&ix| app.tk.graph.contains_node(ix)) {
        app.selected = Some(ix);
    }
    app.recompute();
    if let Some(ix) = select {
        app.select(ix);
    }
}

/// The replay ended: the active operator's seeds come back (its parameters stay).
fn leave(app: &mut App) {
    let Some(op) = app.active_operator() else {
        return;
    };
    let (seeds, _) = resolve_seeds(&app.tk, &op.actions);
    app.seeds = seeds;
    app.seeds_edited = false;
    app.recompute();
    if let Some(&first) = app.seeds.first() {
        app.select(first);
    }
}
