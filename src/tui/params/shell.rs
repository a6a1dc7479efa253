//! Where the shell meets the parameters' commands: [`with`] builds the [`Ctx`] from the
//! app, runs one handler and applies the [`Effect`]s it returns. The only function of the
//! folder that sees the app.

use super::{Ctx, Effect};
use toolscope_core::session::ViewParams;

use crate::tui::app::{App, Level};

/// Runs a handler with the context and applies its effects; its error to the caller.
pub fn with(
    app: &mut App,
    f: impl FnOnce(&Ctx) -> Result<Vec<Effect>, String>,
) -> Result<(), String> {
    let ctx = Ctx {
        tk: &app.tk,
        params: app.session.params,
        seeds: &app.seeds,
        selected: app.selected,
        operator: app.operator,
    };
    let effects = f(&ctx)?;
    let key = app.running;
    recorded(app, key, |app| apply(app, effects));
    Ok(())
}

/// The view's threshold, hops and seeds as a step of undo records them.
pub fn view_params(app: &App) -> ViewParams {
    ViewParams {
        params: app.session.params,
        seeds: app
            .seeds
            .iter()
            .map(|&s| app.tk.name(s).to_string())
            .collect(),
    }
}

/// Runs `f` and records what it changed of the threshold, hops and seeds as a step of
/// undo made by `key` (repeats of one key within a second are one step).
pub fn recorded(app: &mut App, key: &'static str, f: impl FnOnce(&mut App)) {
    let before = view_params(app);
    f(app);
    let after = view_params(app);
    app.session
        .record_view(before, after, key, std::time::Instant::now());
}

/// Shows the parameters and seeds an undo or redo of a view step restores (seeds gone
/// from the graph since are left out).
pub fn restore(app: &mut App, v: ViewParams) {
    app.session.params = v.params;
    app.seeds = v.seeds.iter().filter_map(|n| app.tk.action(n)).collect();
    // Back to the operator's own seeds: no longer "seeds edited".
    let own = app
        .active_operator()
        .map(|o| toolscope_core::recommend::resolve_seeds(&app.tk, &o.actions).0);
    app.seeds_edited = own.as_ref() != Some(&app.seeds);
    app.recompute();
}

fn apply(app: &mut App, effects: Vec<Effect>) {
    for e in effects {
        match e {
            Effect::Threshold(t) => {
                app.session.params.threshold = t;
                app.recompute();
            }
            Effect::Hops(h) => {
                app.session.params.hops = h;
                app.recompute();
            }
            Effect::Seeds(seeds) => {
                app.seeds = seeds;
                app.seeds_edited = true;
                // The user chose: context a reload left out is no longer wanted back.
                app.kept = Default::default();
                app.recompute();
            }
            Effect::Operator { index, announce } => {
                crate::tui::editing::choose_operator(app, index);
                if announce {
                    let said = format!("operator {}", app.tk.operators[index].name);
                    app.set_status(Level::Info, said);
                }
            }
            Effect::Info(t) => app.set_status(Level::Info, t),
        }
    }
}
