//! The evidence commands: `--traces` and `:traces` load trace files, `V` shows the evidence
//! panel, `:fit` applies the Call and Next scores fitted to the traces as one undoable step.
//!
//! Trace files are watched like toolkits: a change reads them again once per batch of
//! messages (a file that cannot be read keeps the last records and says why).

use std::path::PathBuf;

use crate::tui::app::{App, Level, Status};
use crate::tui::evidence_panel::fit_job;
use crate::tui::msg::Msg;
use crate::tui::row::{Command, cmd};

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("evidence-panel", [], None, "", Evidence, "evidence panel: the traces scored at the current threshold (:traces FILE loads them)", |a, _| {
        toggle_panel(a);
        Ok(())
    }),
    cmd!("traces", [], File, "[FILE...]", Evidence, "load trace files for the evidence (no FILE: read the same files again)", traces_command),
    cmd!("fit", [], None, "[add-edges]", Evidence, "fit Call and Next scores to the loaded traces, as one undoable edit (the changes go to :messages); add-edges: also the Next edges the runs show", fit_command),
];

/// Reads the trace files again when the watcher saw a change since the last batch.
pub fn flush(app: &mut App) {
    if std::mem::take(&mut app.evidence.stale) && app.evidence.loaded() {
        let paths = app.evidence.paths.clone();
        load(app, paths);
    }
}

/// Loads trace files into the app and evaluates them; the result goes to the status line.
pub fn load(app: &mut App, paths: Vec<PathBuf>) {
    match app.evidence.load(paths) {
        Ok((records, bad)) => {
            app.recompute();
            let bad = if bad > 0 {
                format!(", {bad} bad line(s) left out (`toolscope eval` lists them)")
            } else {
                String::new()
            };
            let n = app.evidence.paths.len();
            let watch = match app.evidence.watch() {
                Ok(()) => String::new(),
                Err(e) => format!(" ({e})"),
            };
            app.set_status(
                Level::Info,
                format!(
                    "traces: {records} record(s) from {n} file(s){bad}; V shows the evidence{watch}"
                ),
            );
        }
        Err(e) => app.set_status(Level::Error, format!("traces: {e}")),
    }
}

/// `:traces FILE...` loads files (names separated by spaces); `:traces` reads the loaded
/// ones again.
pub fn traces_command(app: &mut App, arg: &str) -> Result<(), String> {
    let paths: Vec<PathBuf> = if arg.is_empty() {
        if !app.evidence.loaded() {
            return Err("no traces loaded: :traces FILE".into());
        }
        app.evidence.paths.clone()
    } else {
        arg.split_whitespace().map(PathBuf::from).collect()
    };
    load(app, paths);
    Ok(())
}

/// `V`: the evidence panel in the right-hand pane (instead of the inspector or the diff
/// panel). Opening it turns the token estimates on.
pub fn toggle_panel(app: &mut App) {
    app.evidence.panel = !app.evidence.panel;
    if app.evidence.panel {
        app.diff_panel = false;
        app.evidence.tokens_on();
        app.refresh_evidence();
        app.with_graph(|g, s| g.show_right_pane(s, "evidence panel"));
    }
}

/// `:fit`: the Call scores and, from records with their calls in order, the Next scores
/// fitted to every loaded record (as `toolscope fit` does), applied as one transaction;
/// the changes are listed in the messages (`M`). `:fit add-edges` also adds the Next
/// edges the runs show and a native graph lacks (as `fit --add-edges`). The work runs on
/// a thread (see [`fit_job`]); Esc cancels it.
pub fn fit_command(app: &mut App, arg: &str) -> Result<(), String> {
    if !app.evidence.loaded() {
        return Err("no traces loaded: :traces FILE".into());
    }
    let add_edges = match arg.trim() {
        "" => false,
        "add-edges" => true,
        other => {
            return Err(format!(
                "`:fit {other}`: the argument is `add-edges` or none"
            ));
        }
    };
    if app.evidence.fit.is_some() {
        return Err("a fit is already running (Esc cancels it)".into());
    }
    let Some(ws) = app.session.ws.as_ref() else {
        return Err("editing is not available here".into());
    };
    let chat2graph = ws.holds(toolscope_core::source::Format::Chat2Graph);
    app.evidence.fits += 1;
    let job = fit_job::Running::new(app.evidence.fits, ws);
    let (id, stop) = (app.evidence.fits, job.cancel_switch());
    let (copy, records) = (ws.clone(), app.evidence.records.clone());
    let add_edges = add_edges && !chat2graph;
    let work = move || fit_job::run(copy, &records, add_edges, &stop);
    match app.tx.clone() {
        Some(tx) => {
            app.evidence.fit = Some(job);
            let delay = debug_delay();
            std::thread::spawn(move || {
                std::thread::sleep(delay);
                let _ = tx.send(Msg::FitDone(fit_job::Done {
                    id,
                    outcome: work(),
                }));
            });
            let n = app.evidence.records().len();
            app.set_status(
                Level::Info,
                format!("fitting the scores to {n} record(s)… (Esc cancels)"),
            );
        }
        // No loop to send the result to (tests without one): fit here.
        None => {
            app.evidence.fit = Some(job);
            fit_done(
                app,
                fit_job::Done {
                    id,
                    outcome: work(),
                },
            );
        }
    }
    Ok(())
}

/// Hidden switch for the real-terminal test of a long fit: the fit's thread starts this
/// many milliseconds late (`TOOLSCOPE_DEBUG_FIT_DELAY_MS`).
fn debug_delay() -> std::time::Duration {
    let ms = std::env::var("TOOLSCOPE_DEBUG_FIT_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    std::time::Duration::from_millis(ms)
}

/// Esc while a fit runs (and no overlay is open) cancels it; returns whether the key was
/// taken.
pub fn cancel_fit_key(app: &mut App, k: &crossterm::event::KeyEvent) -> bool {
    use crossterm::event::KeyCode;
    if k.code != KeyCode::Esc || !k.modifiers.is_empty() || app.overlay.is_some() {
        return false;
    }
    let Some(job) = app.evidence.fit.take() else {
        return false;
    };
    job.cancel();
    app.set_status(Level::Info, "fit cancelled: nothing changed");
    true
}

/// A fit's result arrived: applied as one undo step when the toolkit is still the one it
/// started from, else refused (a cancelled or replaced job's result is dropped).
pub fn fit_done(app: &mut App, done: fit_job::Done) {
    let Some(job) = app.evidence.fit.take_if(|j| j.id == done.id) else {
        return;
    };
    match done.outcome {
        fit_job::Outcome::Cancelled => {}
        fit_job::Outcome::Failed(e) => app.set_status(Level::Error, format!("fit: {e}")),
        fit_job::Outcome::Unchanged { records } => app.set_status(
            Level::Info,
            format!("fit: the scores already fit the {records} record(s)"),
        ),
        fit_job::Outcome::Fitted {
            ws,
            said,
            lines,
            calls,
            next,
        } => {
            if !app
                .session
                .ws
                .as_ref()
                .is_some_and(|w| job.still_current(w))
            {
                app.set_status(
                    Level::Error,
                    "fit: the toolkit changed while fitting (an edit, undo, reload or save); nothing applied, :fit again",
                );
                return;
            }
            app.session.ws = Some(*ws);
            let out = toolscope_core::session::Outcome::info(said)
                .changed(toolscope_core::session::Changed::Graph);
            crate::tui::editing::show(app, out);
            applied(app, &lines, calls, next);
        }
    }
}

/// Lists the fitted scores in the messages and sums them up in the status line.
fn applied(app: &mut App, lines: &[String], calls: usize, next: usize) {
    for l in lines {
        app.log.push(&Status::info(l.clone()));
    }
    let first = lines.first().map_or("", |l| l.trim_start_matches("fit: "));
    let more = if lines.len() > 1 {
        format!(" and {} more (M lists them)", lines.len() - 1)
    } else {
        String::new()
    };
    app.set_status(
        Level::Info,
        format!("fit: {calls} Call and {next} Next score(s) changed, one undo step: {first}{more}"),
    );
}
