//! Where the shell meets the replay: each hook builds the [`Ctx`] from the app, runs one
//! handler of [`ReplayPane`](crate::tui::replay::ReplayPane) and applies the [`Effect`]s it returns.
//! These are the only functions of the folder that see the whole app (`App::recompute`
//! builds its own [`Ctx`] to ask for the replayed step's cut).

use crossterm::event::KeyEvent;

use toolscope_core::edit::Transaction;
use toolscope_core::recommend::resolve_seeds;

use crate::tui::app::{App, Level};
use crate::tui::msg::Msg;
use crate::tui::replay::{Ctx, Effect};

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
            room: crate::tui::replay::room($app.size),
        }
    };
}

/// Sends a key to the replay's own key handling; `false` when it is not the replay's.
pub fn send(app: &mut App, k: &KeyEvent) -> bool {
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
    f: impl FnOnce(&mut crate::tui::replay::ReplayPane, &Ctx) -> Result<Vec<Effect>, String>,
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
                let r = crate::tui::update::editing::apply_edit(app, Transaction::from(edits));
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
                    let pace = app.replay.pace();
                    std::thread::spawn(move || {
                        std::thread::sleep(pace);
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
            crate::tui::update::editing::choose_operator(app, i);
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
