//! Where the shell meets the lists (the navigator, and the inspector's edge cursor, which
//! the same keys move): [`with`] builds the handlers' [`Ctx`] from the app, runs one
//! handler on the [`Navigator`] and applies the [`Effect`]s it returns. The only functions
//! of the folder that see the app.

use crate::tui::app::{ActivePane, App};
use crate::tui::navigator::Navigator;
use crate::tui::navigator::commands::{Ctx, Effect};
use crate::tui::panes::Panes;

/// Runs a handler with the context and applies its effects; its error to the caller.
pub fn with(
    app: &mut App,
    f: impl FnOnce(&mut Navigator, &Ctx) -> Result<Vec<Effect>, String>,
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
pub fn hook(app: &mut App, f: impl FnOnce(&mut Navigator, &Ctx) -> Vec<Effect>) {
    // The inspector's edges are only asked for when its keys are the ones pressed.
    let edges = if app.active_pane == ActivePane::Inspector {
        app.node_edges()
    } else {
        Vec::new()
    };
    let ctx = Ctx {
        tk: &app.tk,
        active: app.active_pane,
        diff_panel: app.diff_panel,
        height: Panes::new(app.size, app.layout_hint()).nav_inner().height as usize,
        edge_target: edges.get(app.inspector.edge_cursor()).map(|e| e.1),
    };
    let effects = f(&mut app.nav, &ctx);
    apply(app, edges.len(), effects);
}

/// Applies effects in order; `edges`: how many edges the inspector lists.
fn apply(app: &mut App, edges: usize, effects: Vec<Effect>) {
    for e in effects {
        match e {
            Effect::EdgeStep(delta) => app.inspector.step_edge(delta, edges),
            Effect::Scroll(delta) => app.inspector.scroll_by(delta),
            Effect::Select { node, centre } => {
                app.select(node);
                if centre {
                    app.centre_on_selection();
                } else {
                    app.ensure_selection_visible();
                }
            }
            Effect::Centre => app.centre_on_selection(),
            Effect::Operator(i) => crate::tui::update::editing::choose_operator(app, i),
        }
    }
}
