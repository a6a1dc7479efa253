//! The lists meet the app (the navigator, and the inspector's edge cursor, which the same
//! keys move): [`with`] runs one handler on the [`Navigator`] and the [`Ctx`] and applies
//! the [`Action`]s it returns.

use crate::tui::action::Action;
use crate::tui::app::{ActivePane, App};
use crate::tui::ctx::Ctx;
use crate::tui::navigator::Navigator;

/// Runs a handler with the context and applies its actions; its error to the caller.
pub fn with(
    app: &mut App,
    f: impl FnOnce(&mut Navigator, &Ctx) -> Result<Vec<Action>, String>,
) -> Result<(), String> {
    let mut refused = None;
    hook(app, |n, c| {
        f(n, c).unwrap_or_else(|e| {
            refused = Some(e);
            Vec::new()
        })
    });
    refused.map_or(Ok(()), Err)
}

/// Runs a handler that cannot fail (a step of the mouse wheel, a filter typed).
pub fn hook(app: &mut App, f: impl FnOnce(&mut Navigator, &Ctx) -> Vec<Action>) {
    let mut nav = std::mem::take(&mut app.nav);
    let mut ctx = app.ctx();
    // The inspector's edges are only asked for when its keys are the ones pressed.
    if app.active_pane == ActivePane::Inspector {
        ctx.edge_target = app.selected_edge_target();
    }
    let actions = f(&mut nav, &ctx);
    app.nav = nav;
    super::apply::apply(app, actions);
}
