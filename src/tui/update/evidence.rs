//! The evidence panel meets the app: [`with`] runs one handler on the [`EvidencePane`]
//! and the [`Ctx`] and applies the [`Action`]s it returns.

use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::ctx::Ctx;
use crate::tui::evidence_panel::EvidencePane;

/// Runs a handler with the context and applies its actions; its error to the caller.
pub fn with(
    app: &mut App,
    f: impl FnOnce(&mut EvidencePane, &Ctx) -> Result<Vec<Action>, String>,
) -> Result<(), String> {
    let mut pane = std::mem::take(&mut app.evidence);
    let out = f(&mut pane, &app.ctx());
    app.evidence = pane;
    super::apply::apply(app, out?);
    Ok(())
}

/// Runs a handler that cannot fail (a hook of the loop: a flush, a fit's result).
pub fn hook(app: &mut App, f: impl FnOnce(&mut EvidencePane, &Ctx) -> Vec<Action>) {
    let _ = with(app, |p, c| Ok(f(p, c)));
}
