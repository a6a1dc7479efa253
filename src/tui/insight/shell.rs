//! Where the shell meets the insight features: [`with`] builds the handlers' [`Ctx`] from
//! the app, runs one handler on the [`InsightState`] and applies the
//! [`Effect`]s it returns. With `:export` (which reads the whole view and changes no state
//! of the pane), these are the only functions of the folder that see the app.

use std::sync::Arc;

use super::InsightState;
use super::commands::{Ctx, Effect};
use crate::tui::app::{App, Level, Overlay};

/// Runs a handler with the context and applies its effects; its error to the caller.
pub fn with(
    app: &mut App,
    f: impl FnOnce(&mut InsightState, &Ctx) -> Result<Vec<Effect>, String>,
) -> Result<(), String> {
    let ctx = Ctx {
        tk: &app.tk,
        rec: &app.rec,
        params: app.session.params,
        seeds: &app.seeds,
        selected: app.selected,
        editable: app.session.ws.is_some(),
        right_hidden: app.graph_pane.split().hide_inspector,
        diff_panel: app.diff_panel,
    };
    let effects = f(&mut app.insight, &ctx)?;
    for e in effects {
        apply(app, e);
    }
    Ok(())
}

fn apply(app: &mut App, e: Effect) {
    match e {
        Effect::Recompute => app.recompute(),
        Effect::OpenDiffPanel => {
            app.diff_panel = true;
            app.evidence.close_panel();
            app.with_graph(|g, s| g.show_right_pane(s, "diff panel"));
        }
        Effect::DiffPanel(on) => app.diff_panel = on,
        Effect::Preview => app.overlay = Some(Overlay::Preview { scroll: 0 }),
        Effect::Enable { tool, enabled } => {
            if app.session.ws.is_some() {
                // The registry's `enabled`, as `:enabled` runs it: written on save, undoable.
                let values = [
                    ("TOOL", app.tk.name(tool).to_string()),
                    ("VALUE", enabled.to_string()),
                    ("kind", app.tk.kind(tool).as_str().to_string()),
                ];
                if let Err(e) = crate::tui::editing::run_row(app, "enabled", &values) {
                    app.set_status(Level::Error, e);
                }
            } else {
                // No editable workspace: the view's own copy changes.
                let node = Arc::make_mut(&mut app.tk).node_mut(tool);
                node.meta.get_or_insert_with(Default::default).enabled = enabled;
            }
        }
        Effect::Info(t) => app.set_status(Level::Info, t),
        Effect::Error(t) => app.set_status(Level::Error, t),
    }
}

/// Every file the session reads, which an export must not replace (SPEC 6): the toolkit
/// files with their sidecars and recovery file, the trace files (a followed replay's
/// among them) and a baseline file; see `session::inputs`.
pub fn protected(app: &App) -> Vec<std::path::PathBuf> {
    let mut files = app.tk.files.clone();
    if let Some(ws) = &app.session.ws {
        files.extend(ws.files().iter().map(|f| f.source.path.clone()));
    }
    let mut others = app.evidence.paths().to_vec();
    let baseline = app.insight.pinned.as_ref().and_then(|p| p.file.as_ref());
    others.extend(baseline.map(|b| b.path.clone()));
    toolscope_core::session::inputs::protected(
        app.session.live.opened(),
        &files,
        &others,
        app.session.recovery_dir.as_deref(),
    )
}

/// `:export dot|mermaid|json|svg FILE`: the whole graph with the recommendation
/// highlighted, and what was done. Never over an input ([`protected`]); over another
/// existing file only as `:export!`.
pub fn export(app: &App, arg: &str, force: bool) -> Result<String, String> {
    let (fmt, file) = arg
        .split_once(char::is_whitespace)
        .map(|(f, p)| (f, p.trim()))
        .filter(|(_, file)| !file.is_empty())
        .ok_or_else(|| format!("usage: :export {} FILE", super::commands::format_names("|")))?;
    let hl = toolscope_core::export::Highlight {
        rec: &app.rec,
        threshold: app.session.params.threshold,
        seeds: &app.seeds,
    };
    let title = toolscope_core::export::Title {
        file: app.source.clone(),
        operator: app
            .active_operator()
            .filter(|_| !app.seeds_edited)
            .map(|o| o.name.clone()),
        hops: Some(app.session.params.hops),
        called: app.replay.called(&app.seeds),
    };
    let text =
        toolscope_core::export::ExportFormat::parse(fmt)?.write(&app.tk, Some(&hl), false, &title);
    let inputs = protected(app);
    toolscope_core::source::save::write_output(std::path::Path::new(file), &text, &inputs, force)
        .map_err(|e| e.to_string())?;
    Ok(format!("exported {fmt} to {file}"))
}
