//! The evidence commands: `--traces` and `:traces` load trace files, `V` shows the evidence
//! panel, `:fit` applies the Call and Next scores fitted to the traces as one undoable step.
//!
//! Trace files are watched like toolkits: a change reads them again once per batch of
//! messages (a file that cannot be read keeps the last records and says why).

use std::path::PathBuf;

use super::EvidencePane;
use crate::tui::action::{Action, EvidenceAction};
use crate::tui::ctx::Ctx;
use crate::tui::evidence_panel::fit_job;
use crate::tui::msg::Msg;
use crate::tui::update::row::{Command, cmd};
use toolscope_core::session::Status;

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("evidence-panel", [], None, "", Evidence, "evidence panel: the traces scored at the current threshold (:traces FILE loads them)", @Evidence |p, _, _| Ok(toggle_panel(p))),
    cmd!("traces", [], File, "[--operator-attr KEY] [--default-operator NAME] [FILE...]", Evidence, "load trace files for the evidence (no FILE: read the same files again); the OTLP options as on the command line, kept for later loads", @Evidence |p, _, arg| traces_command(p, arg)),
    cmd!("fit", [], None, "[add-edges]", Evidence, "fit Call and Next scores to the loaded traces, as one undoable edit (the changes go to :messages); add-edges: also the Next edges the runs show", @Evidence fit_command),
];

/// Reads the trace files again when the watcher saw a change since the last batch.
pub fn flush(p: &mut EvidencePane) -> Vec<Action> {
    if std::mem::take(&mut p.stale) && p.loaded() {
        let paths = p.paths.clone();
        return load(p, paths);
    }
    Vec::new()
}

/// Loads trace files and evaluates them; the result goes to the status line.
pub fn load(p: &mut EvidencePane, paths: Vec<PathBuf>) -> Vec<Action> {
    match p.load(paths) {
        Ok((records, bad)) => {
            let bad = if bad > 0 {
                format!(", {bad} bad line(s) left out (`toolscope eval` lists them)")
            } else {
                String::new()
            };
            let n = p.paths.len();
            let watch = match p.watch() {
                Ok(()) => String::new(),
                Err(e) => format!(" ({e})"),
            };
            vec![
                Action::Stale,
                Action::info(format!(
                    "traces: {records} record(s) from {n} file(s){bad}; V shows the evidence{watch}"
                )),
            ]
        }
        Err(e) => vec![Action::error(format!("traces: {e}"))],
    }
}

/// `:traces FILE...` loads files (names separated by spaces); `:traces` reads the loaded
/// ones again. `--operator-attr KEY` and `--default-operator NAME` (`-` for none) set how
/// OTLP runs are named, for this load and the later ones.
fn traces_command(p: &mut EvidencePane, arg: &str) -> Result<Vec<Action>, String> {
    let mut naming = p.naming().clone();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut words = arg.split_whitespace();
    while let Some(w) = words.next() {
        let slot = match w {
            "--operator-attr" => &mut naming.operator_attr,
            "--default-operator" => &mut naming.default_operator,
            _ => {
                files.push(PathBuf::from(w));
                continue;
            }
        };
        let Some(value) = words.next() else {
            return Err(format!("{w} takes a value (`-` for none)"));
        };
        *slot = (value != "-").then(|| value.to_string());
    }
    p.set_naming(naming);
    let paths = if files.is_empty() {
        if !p.loaded() {
            return Err("no traces loaded: :traces FILE".into());
        }
        p.paths.clone()
    } else {
        files
    };
    Ok(load(p, paths))
}

/// `V`: the evidence panel in the right-hand pane (instead of the inspector or the diff
/// panel). Opening it turns the token estimates on.
fn toggle_panel(p: &mut EvidencePane) -> Vec<Action> {
    p.panel = !p.panel;
    if !p.panel {
        return Vec::new();
    }
    p.tokens_on();
    vec![Action::Evidence(EvidenceAction::PanelOpened)]
}

/// `:fit`: the Call scores and, from records with their calls in order, the Next scores
/// fitted to every loaded record (as `toolscope fit` does), applied as one transaction;
/// the changes are listed in the messages (`M`). `:fit add-edges` also adds the Next
/// edges the runs show and a native graph lacks (as `fit --add-edges`). The work runs on
/// a thread (see [`fit_job`]); Esc cancels it.
fn fit_command(p: &mut EvidencePane, ctx: &Ctx, arg: &str) -> Result<Vec<Action>, String> {
    if !p.loaded() {
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
    if p.fit.is_some() {
        return Err("a fit is already running (Esc cancels it)".into());
    }
    let Some(ws) = ctx.ws else {
        return Err("editing is not available here".into());
    };
    let chat2graph = ws.holds(toolscope_core::source::Format::Chat2Graph);
    p.fits += 1;
    let job = fit_job::Running::new(p.fits, ws);
    let (id, stop) = (p.fits, job.cancel_switch());
    let (copy, records) = (ws.clone(), p.records.clone());
    let add_edges = add_edges && !chat2graph;
    let work = move || fit_job::run(copy, &records, add_edges, &stop);
    p.fit = Some(job);
    match ctx.tx.cloned() {
        Some(tx) => {
            let delay = debug_delay();
            std::thread::spawn(move || {
                std::thread::sleep(delay);
                let _ = tx.send(Msg::FitDone(fit_job::Done {
                    id,
                    outcome: work(),
                }));
            });
            let n = p.records().len();
            Ok(vec![Action::info(format!(
                "fitting the scores to {n} record(s)… (Esc cancels)"
            ))])
        }
        // No loop to send the result to (tests without one): fit here.
        None => Ok(fit_done(
            p,
            ctx,
            fit_job::Done {
                id,
                outcome: work(),
            },
        )),
    }
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

/// Esc while a fit runs (and no overlay is open: `overlay_open`) cancels it; what to say
/// when the key was taken.
pub fn cancel_fit_key(
    p: &mut EvidencePane,
    k: &crossterm::event::KeyEvent,
    overlay_open: bool,
) -> Option<&'static str> {
    use crossterm::event::KeyCode;
    if k.code != KeyCode::Esc || !k.modifiers.is_empty() || overlay_open {
        return None;
    }
    p.fit.take()?.cancel();
    Some("fit cancelled: nothing changed")
}

/// A fit's result arrived: applied as one undo step when the toolkit is still the one it
/// started from, else refused (a cancelled or replaced job's result is dropped).
pub fn fit_done(p: &mut EvidencePane, ctx: &Ctx, done: fit_job::Done) -> Vec<Action> {
    let Some(job) = p.fit.take_if(|j| j.id == done.id) else {
        return Vec::new();
    };
    match done.outcome {
        fit_job::Outcome::Cancelled => Vec::new(),
        fit_job::Outcome::Failed(e) => vec![Action::error(format!("fit: {e}"))],
        fit_job::Outcome::Unchanged { records } => vec![Action::info(format!(
            "fit: the scores already fit the {records} record(s)"
        ))],
        fit_job::Outcome::Fitted {
            ws,
            said,
            lines,
            calls,
            next,
        } => {
            if !ctx.ws.is_some_and(|w| job.still_current(w)) {
                return vec![Action::error(
                    "fit: the toolkit changed while fitting (an edit, undo, reload or save); nothing applied, :fit again".into(),
                )];
            }
            let first = lines.first().map_or("", |l| l.trim_start_matches("fit: "));
            let more = if lines.len() > 1 {
                format!(" and {} more (M lists them)", lines.len() - 1)
            } else {
                String::new()
            };
            let summary = format!(
                "fit: {calls} Call and {next} Next score(s) changed, one undo step: {first}{more}"
            );
            let mut out = vec![Action::Evidence(EvidenceAction::Fitted { ws, said })];
            out.extend(lines.into_iter().map(|l| Action::Log(Status::info(l))));
            out.push(Action::info(summary));
            out
        }
    }
}
