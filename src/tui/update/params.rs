//! Where the shell meets the parameters' commands: [`with`] builds the [`Ctx`] from the
//! app, runs one handler and applies the [`Effect`]s it returns. The only function of the
//! folder that sees the app.

use crate::tui::app::{App, Level};
use crate::tui::params::{Ctx, Effect};

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
    crate::tui::update::view_steps::recorded(app, key, |app| apply(app, effects));
    Ok(())
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
                crate::tui::update::editing::choose_operator(app, index);
                if announce {
                    let said = format!("operator {}", app.tk.operators[index].name);
                    app.set_status(Level::Info, said);
                }
            }
            Effect::Info(t) => app.set_status(Level::Info, t),
        }
    }
}
