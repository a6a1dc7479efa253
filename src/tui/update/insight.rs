//! The insight features meet the app: [`with`] runs one handler on the [`InsightState`]
//! and the [`Ctx`] and applies the [`Action`]s it returns; with `:export`, which reads the
//! whole view and changes no state of the pane.

use crate::tui::action::Action;
use crate::tui::app::{App, Level};
use crate::tui::ctx::Ctx;
use crate::tui::insight::InsightState;

/// Runs a handler with the context and applies its actions; its error to the caller.
pub fn with(
    app: &mut App,
    f: impl FnOnce(&mut InsightState, &Ctx) -> Result<Vec<Action>, String>,
) -> Result<(), String> {
    let mut pane = std::mem::take(&mut app.insight);
    let out = f(&mut pane, &app.ctx());
    app.insight = pane;
    super::apply::apply(app, out?);
    Ok(())
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
///
/// An export as it runs off the UI thread: owned copies of what it draws (the toolkit is
/// shared, the recommendation and seeds copied), so keys and replay steps go on while an
/// SVG of a large kit is laid out and written.
pub struct ExportJob {
    tk: std::sync::Arc<toolscope_core::model::Toolkit>,
    rec: toolscope_core::recommend::Recommendation,
    seeds: Vec<petgraph::stable_graph::NodeIndex>,
    threshold: f64,
    title: toolscope_core::export::Title,
    fmt: String,
    file: String,
    /// The files it must not replace ([`protected`]), gathered on the UI thread.
    inputs: Vec<std::path::PathBuf>,
    force: bool,
}

/// `:export FORMAT FILE`: what to export, checked on the UI thread (a usage error or an
/// unknown format is refused at once); [`ExportJob::run`] draws and writes it.
pub fn export(app: &App, arg: &str, force: bool) -> Result<ExportJob, String> {
    let (fmt, file) = arg
        .split_once(char::is_whitespace)
        .map(|(f, p)| (f, p.trim()))
        .filter(|(_, file)| !file.is_empty())
        .ok_or_else(|| format!("usage: :export {} FILE", format_names("|")))?;
    toolscope_core::export::ExportFormat::parse(fmt)?;
    let title = toolscope_core::export::Title {
        file: app.source.clone(),
        operator: app
            .active_operator()
            .filter(|_| !app.seeds_edited)
            .map(|o| o.name.clone()),
        hops: Some(app.session.params.hops),
        called: app.replay.called(&app.seeds),
    };
    Ok(ExportJob {
        tk: std::sync::Arc::clone(&app.tk),
        rec: app.rec.clone(),
        seeds: app.seeds.clone(),
        threshold: app.session.params.threshold,
        title,
        fmt: fmt.to_string(),
        file: file.to_string(),
        inputs: protected(app),
        force,
    })
}

impl ExportJob {
    /// What the status line says while the job runs.
    pub fn started(&self) -> String {
        format!("exporting {} to {}…", self.fmt, self.file)
    }

    /// Draws and writes the export; the line said when done.
    pub fn run(self) -> Result<String, String> {
        let ExportJob {
            tk,
            rec,
            seeds,
            threshold,
            title,
            fmt,
            file,
            inputs,
            force,
        } = self;
        let hl = toolscope_core::export::Highlight {
            rec: &rec,
            threshold,
            seeds: &seeds,
        };
        let text =
            toolscope_core::export::ExportFormat::parse(&fmt)?.write(&tk, Some(&hl), false, &title);
        toolscope_core::source::save::write_output(
            std::path::Path::new(&file),
            &text,
            &inputs,
            force,
        )
        .map_err(|e| e.to_string())?;
        Ok(format!("exported {fmt} to {file}"))
    }
}

/// Runs an export on a thread of its own, its line (done or the error) coming back as
/// `Msg::ExportDone`, as `:fit` does; without the loop's channel (tests) it runs here.
pub fn start_export(app: &mut App, job: ExportJob) -> Result<(), String> {
    let Some(tx) = app.tx.clone() else {
        let done = job.run()?;
        app.set_status(Level::Info, done);
        return Ok(());
    };
    app.set_status(Level::Info, job.started());
    std::thread::spawn(move || {
        let _ = tx.send(crate::tui::msg::Msg::ExportDone(job.run()));
    });
    Ok(())
}

/// An export finished on its thread: its line in the status.
pub fn export_done(app: &mut App, done: Result<String, String>) {
    match done {
        Ok(said) => app.set_status(Level::Info, said),
        Err(e) => app.set_status(Level::Error, format!("export failed: {e}")),
    }
}

/// The export formats' names joined by `sep`.
pub fn format_names(sep: &str) -> String {
    let names: Vec<&str> = toolscope_core::export::ExportFormat::ALL
        .iter()
        .map(|f| f.name())
        .collect();
    names.join(sep)
}
