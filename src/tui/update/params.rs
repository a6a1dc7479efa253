//! The parameters' commands meet the app: [`with`] runs one handler on the
//! [`Ctx`] and applies the [`Action`]s it returns, recorded as a view step of undo.

use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::ctx::Ctx;

/// Runs a handler with the context and applies its actions; its error to the caller.
pub fn with(
    app: &mut App,
    f: impl FnOnce(&Ctx) -> Result<Vec<Action>, String>,
) -> Result<(), String> {
    let actions = f(&app.ctx())?;
    let key = app.running;
    super::view_steps::recorded(app, key, |app| super::apply::apply(app, actions));
    Ok(())
}
