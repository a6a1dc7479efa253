//! Where the shell meets the evidence panel: [`with`] builds the handlers' [`Ctx`] from
//! the app, runs one handler on the [`EvidencePane`] and applies the
//! [`Effect`]s it returns. The only functions of the folder that see the app.

use crate::tui::app::{App, Level, Status};
use crate::tui::evidence_panel::EvidencePane;
use crate::tui::evidence_panel::commands::{Ctx, Effect};

/// Runs a handler with the context and applies its effects; its error to the caller.
pub fn with(
    app: &mut App,
    f: impl FnOnce(&mut EvidencePane, &Ctx) -> Result<Vec<Effect>, String>,
) -> Result<(), String> {
    let ctx = Ctx {
        ws: app.session.ws.as_ref(),
        tx: app.tx.as_ref(),
    };
    let effects = f(&mut app.evidence, &ctx)?;
    apply(app, effects);
    Ok(())
}

/// Runs a handler that cannot fail (a hook of the loop: a flush, a fit's result).
pub fn hook(app: &mut App, f: impl FnOnce(&mut EvidencePane, &Ctx) -> Vec<Effect>) {
    let ctx = Ctx {
        ws: app.session.ws.as_ref(),
        tx: app.tx.as_ref(),
    };
    let effects = f(&mut app.evidence, &ctx);
    apply(app, effects);
}

fn apply(app: &mut App, effects: Vec<Effect>) {
    for e in effects {
        match e {
            Effect::Recompute => app.recompute(),
            Effect::PanelOpened => {
                app.diff_panel = false;
                app.refresh_evidence();
                app.with_graph(|g, s| g.show_right_pane(s, "evidence panel"));
            }
            Effect::Fitted { ws, said } => {
                app.session.ws = Some(*ws);
                let out = toolscope_core::session::Outcome::info(said)
                    .changed(toolscope_core::session::Changed::Graph);
                crate::tui::update::editing::show(app, out);
            }
            Effect::Log(lines) => {
                for l in lines {
                    app.log.push(&Status::info(l));
                }
            }
            Effect::Info(t) => app.set_status(Level::Info, t),
            Effect::Error(t) => app.set_status(Level::Error, t),
        }
    }
}
