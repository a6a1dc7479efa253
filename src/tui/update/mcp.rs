//! Where the shell meets the MCP discovery: [`with`] builds the handlers' [`Ctx`] from the
//! app, runs one handler on the [`Discovery`] and applies the [`Effect`]s it returns. The
//! only functions of the folder that see the app.

use crate::tui::app::App;
use crate::tui::mcp_discovery::{Ctx, Discovery, Effect};

/// Runs a handler with the context and applies its effects; its error to the caller.
pub fn with(
    app: &mut App,
    f: impl FnOnce(&mut Discovery, &Ctx) -> Result<Vec<Effect>, String>,
) -> Result<(), String> {
    let ctx = Ctx {
        files: &app.files,
        tx: app.tx.as_ref(),
    };
    let effects = f(&mut app.mcp, &ctx)?;
    apply(app, effects);
    Ok(())
}

/// Applies effects in order.
pub fn apply(app: &mut App, effects: Vec<Effect>) {
    for e in effects {
        match e {
            Effect::Say(level, text) => app.set_status(level, text),
            Effect::Log(entry) => app.log.push(&entry),
        }
    }
}
