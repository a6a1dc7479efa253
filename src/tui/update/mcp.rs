//! The MCP discovery meets the app: [`with`] runs one handler on the [`Discovery`] and
//! the [`Ctx`] and applies the [`Action`]s it returns.

use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::ctx::Ctx;
use crate::tui::mcp_discovery::state::Discovery;

/// Runs a handler with the context and applies its actions; its error to the caller.
pub fn with(
    app: &mut App,
    f: impl FnOnce(&mut Discovery, &Ctx) -> Result<Vec<Action>, String>,
) -> Result<(), String> {
    let mut pane = std::mem::take(&mut app.mcp);
    let out = f(&mut pane, &app.ctx());
    app.mcp = pane;
    super::apply::apply(app, out?);
    Ok(())
}
