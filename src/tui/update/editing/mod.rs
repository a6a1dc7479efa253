//! The editing commands of the TUI: keys, dialogs and `:` lines become operations of the
//! `Session`, and their `Outcome`s come back to the view here. This is the one module
//! that sees both the view state (`App`) and the session; the session never sees the app.
//!
//! The [`Workspace`](toolscope_core::workspace::Workspace) is the source of truth for the graph and the files; `App.tk` is a copy
//! of its merged toolkit, refreshed after each edit, undo, redo, save or reload (never per
//! keystroke: typing into an editor changes nothing until it is applied). Keeping a copy
//! lets the rest of the TUI work on a plain `Toolkit`, and lets a failed reload leave the
//! last good graph on screen.
//!
//! Choices where the issue is silent:
//! - Threshold and hops keys and `:threshold`/`:hops` change only the view. When an
//!   operator is active and its values differ from the file's, the difference counts as
//!   unsaved (`[+]`), and it becomes `SetThreshold`/`SetHops` edits (undoable) when the user
//!   saves or switches to another operator. Without an active operator nothing is persisted.
//! - Removing an edge needs no confirmation (undo brings it back); removing a node shows
//!   the cascade (nodes and the seeds naming them) and asks.
//! - "Keep mine" in a conflict makes the next save overwrite the content on disk at that
//!   moment; Esc closes the question and changes nothing (the next save asks again).

#[cfg(test)]
mod c2g_tests;
pub(crate) mod commands;
pub(crate) mod dialog;
#[cfg(test)]
mod folder_tests;
#[cfg(test)]
mod hands_tests;
#[cfg(test)]
mod loss_tests;
#[cfg(test)]
pub(crate) mod tests;

use crate::tui::update::view_steps::recorded;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;

use crossterm::event::KeyEvent;
use petgraph::stable_graph::NodeIndex;
use ratatui_textarea::TextArea;

use toolscope_core::edit::ops::{self, EditOp};
use toolscope_core::edit::{Edit, Transaction};
use toolscope_core::model::NodeKind;
use toolscope_core::source::Format;

use crate::tui::app::{App, Level, Overlay, PromptKind};
use crate::tui::msg::Msg;
use crate::tui::update::editing::dialog::{Choice, Dialog, Step};
use toolscope_core::session::{Changed, Outcome, Question};

/// Shows what a session operation did: the new graph (with marks after a reload), its
/// message, and its dialog.
pub fn show(app: &mut App, out: Outcome) {
    match out.changed {
        Changed::Nothing => {}
        Changed::Graph => sync(app),
        Changed::Reloaded => {
            let changes = match &app.session.ws {
                Some(ws) => toolscope_core::session::changed(&app.tk, &ws.toolkit),
                None => Default::default(),
            };
            sync(app);
            app.marks.mark(changes, app.tx.as_ref());
        }
    }
    if let Some(v) = out.restore {
        crate::tui::update::view_steps::restore(app, v);
    }
    if let Some(m) = out.message {
        app.set_status(m.level, m.text);
    }
    if let Some(q) = out.question {
        open(app, ask(q));
    }
}

/// The dialog that asks a session's question.
fn ask(q: Question) -> Dialog {
    match q {
        Question::Conflict { paths } => Dialog::Conflict { paths },
        Question::Recover { edits } => Dialog::Recover { edits },
    }
}

/// Connects the app to the loop's channel and has the session watch the opened paths,
/// its events coming back as `Msg::Watch`.
pub fn watch(app: &mut App, tx: Sender<Msg>, opened: &[PathBuf], forced: Option<Format>) {
    app.tx = Some(tx.clone());
    let sink: toolscope_core::session::EventSink = std::sync::Arc::new(move |ev| {
        let _ = tx.send(Msg::Watch(ev));
    });
    if let Some(m) = app.session.start_watching(Some(sink), opened, forced) {
        app.set_status(m.level, m.text);
    }
}

/// Handles the toolkit file changes queued since the last batch of messages.
pub fn flush(app: &mut App) {
    let op = app.operator.and_then(|i| app.tk.operators.get(i));
    let out = app.session.flush(op);
    show(app, out);
}

/// Makes the app show the workspace's current graph, keeping the user's context; the
/// active operator's threshold/hops the user had not changed follow the new graph (see
/// `Session::follow_params`).
pub fn sync(app: &mut App) {
    let pending = app.session.pending_params(app.active_operator());
    if let Some(ws) = &app.session.ws {
        let (tk, files) = (
            std::sync::Arc::clone(&ws.toolkit),
            toolscope_core::session::opened_of(ws),
        );
        app.replace(tk, files);
    }
    if let Some(op) = app.operator.and_then(|i| app.tk.operators.get(i)) {
        app.session.follow_params(op, pending);
        app.mark_stale();
    }
}

/// Writes the active operator's changed threshold/hops into the workspace, as one step.
pub fn commit_params(app: &mut App) {
    let op = app.operator.and_then(|i| app.tk.operators.get(i));
    let out = app.session.commit_params(op);
    show(app, out);
}

/// Makes operator `i` active, first keeping the threshold/hops changed for the operator
/// being left as edits.
pub fn choose_operator(app: &mut App, i: usize) {
    commit_params(app);
    // The view's steps were the parameters of the operator left (now written as one
    // step of the file's history).
    if app.operator != Some(i) {
        app.session.view_history.clear();
    }
    app.choose_operator(i);
}

/// Applies a change to the workspace and shows the result; the error text on refusal.
pub fn apply_edit(app: &mut App, edit: impl Into<Transaction>) -> Result<(), String> {
    let out = app.session.apply(edit);
    result(app, out)
}

/// Shows an outcome; a failure's message as the error.
fn result(app: &mut App, out: Outcome) -> Result<(), String> {
    if out.failed() {
        let text = out.message.map(|m| m.text).unwrap_or_default();
        show(
            app,
            Outcome {
                message: None,
                ..out
            },
        );
        return Err(text);
    }
    show(app, out);
    Ok(())
}

fn report(app: &mut App, r: Result<(), String>) {
    if let Err(e) = r {
        app.set_status(Level::Error, e);
    }
}

/// Refuses when the app has no editing session (a bare toolkit in tests and benches).
fn needs_session(app: &App) -> Result<(), String> {
    match app.session.ws {
        Some(_) => Ok(()),
        None => Err("editing is not available here".into()),
    }
}

fn open(app: &mut App, dialog: Dialog) {
    app.overlay = Some(Overlay::Dialog(Box::new(dialog)));
}

/// `a` picks the source (the selection), a second `a` the target; Esc cancels.
pub(crate) fn pick_link(app: &mut App) -> Result<(), String> {
    let ix = app.selected.ok_or("select the source node first")?;
    let Some((kind, name)) = app.link_from.take() else {
        let name = app.tk.name(ix).to_string();
        app.set_status(
            Level::Info,
            format!("edge from {name}: select the target and press a (Esc cancels; or :link NAME)"),
        );
        app.link_from = Some((app.tk.kind(ix), name));
        return Ok(());
    };
    let source = app.tk.find(kind, &name).ok_or(format!("{name} is gone"))?;
    add_link(app, source, ix, 1.0)
}

fn add_link(app: &mut App, from: NodeIndex, to: NodeIndex, score: f64) -> Result<(), String> {
    let values = [
        ("FROM", app.tk.name(from).to_string()),
        ("TO", app.tk.name(to).to_string()),
        ("SCORE", score.to_string()),
        ("kind", app.tk.kind(to).as_str().to_string()),
    ];
    run_row(app, "link", &values)
}

pub(crate) fn prompt(app: &mut App, text: &str) -> Result<(), String> {
    app.overlay = Some(Overlay::Prompt {
        kind: PromptKind::Command,
        text: crate::tui::field::Field::new(text),
    });
    Ok(())
}

/// The `(from, to, to kind)` of the inspector's edge.
fn edge_ends(app: &App) -> Result<(String, String, NodeKind), String> {
    let e = app
        .selected_edge()
        .ok_or("no edge under the inspector's cursor")?;
    let (u, v) = app.tk.graph.edge_endpoints(e).ok_or("the edge is gone")?;
    Ok((
        app.tk.name(u).to_string(),
        app.tk.name(v).to_string(),
        app.tk.kind(v),
    ))
}

pub(crate) fn open_score(app: &mut App) -> Result<(), String> {
    let (from, to, to_kind) = edge_ends(app)?;
    let e = app.selected_edge().ok_or("no edge")?;
    let text = crate::tui::field::Field::selected(format!("{}", app.tk.graph[e].score));
    open(
        app,
        Dialog::Score {
            from,
            to,
            to_kind,
            text,
            error: None,
        },
    );
    Ok(())
}

pub(crate) fn open_desc(app: &mut App) -> Result<(), String> {
    let ix = app.selected.ok_or("no node selected")?;
    let desc = app.tk.node(ix).desc.clone();
    // The text area draws text raw; control characters must never reach the terminal,
    // and escaping them in the editor would change the text on save.
    if desc
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err("this description has control characters; edit it in the file".into());
    }
    let lines = desc.lines().map(str::to_string).collect();
    let dialog = Dialog::Desc {
        kind: app.tk.kind(ix),
        name: app.tk.name(ix).to_string(),
        area: Box::new(TextArea::new(lines)),
    };
    open(app, dialog);
    Ok(())
}

pub(crate) fn remove_edge(app: &mut App) -> Result<(), String> {
    let (from, to, _) = edge_ends(app)?;
    run_row(app, "unlink", &[("FROM", from), ("TO", to)])
}

/// `D`: the registry's `remove` on the selected node (asks first, as `:remove` does).
pub(crate) fn ask_remove(app: &mut App) -> Result<(), String> {
    let ix = app.selected.ok_or("no node selected")?;
    let values = [
        ("NODE", app.tk.name(ix).to_string()),
        ("kind", app.tk.kind(ix).as_str().to_string()),
    ];
    run_row(app, "remove", &values)
}

/// Asks before making a removal the registry built: the cascade's nodes and the seeds it
/// takes, one line each.
fn confirm_removal(
    app: &mut App,
    kind: NodeKind,
    name: String,
    txn: Transaction,
) -> Result<(), String> {
    app.session.ws.as_ref().ok_or("editing is off")?;
    let removed = toolscope_core::edit::removal(&app.tk, kind, &name).map_err(|e| e.to_string())?;
    let mut cascade: Vec<String> = removed
        .nodes
        .iter()
        .map(|n| format!("{} {}", n.kind.as_str(), n.name))
        .collect();
    cascade.extend(txn.edits.iter().filter_map(|e| match e {
        Edit::RemoveSeed { operator, action } => {
            Some(format!("seed {action} of operator {operator}"))
        }
        _ => None,
    }));
    open(
        app,
        Dialog::Remove {
            kind,
            name,
            cascade,
            txn,
        },
    );
    Ok(())
}

/// `q` and Ctrl-C: quits, or asks first when there are unsaved edits (a second Ctrl-C in
/// the question quits).
pub fn request_quit(app: &mut App) {
    if app.is_modified() {
        open(app, Dialog::Quit);
    } else {
        app.quit = true;
    }
}

/// Ends the session when asking is impossible (SIGTERM, SIGHUP, input gone): unsaved edits
/// (with pending threshold/hops) go to a recovery file the next start offers to reapply.
pub fn end_without_asking(app: &mut App) {
    app.quit = true;
    if !app.is_modified() {
        return;
    }
    let params = app.param_edits();
    let extra = match params.is_empty() {
        true => Vec::new(),
        false => vec![Transaction::from(params)],
    };
    app.farewell = Some(app.session.end_without_asking(extra));
}

/// Offers the edits a session on the same paths left when it ended without asking.
pub fn offer_recovery(app: &mut App) {
    let out = app.session.offer_recovery();
    show(app, out);
}

/// Saves every changed file, after writing pending threshold/hops.
pub fn save(app: &mut App) -> Result<(), String> {
    commit_params(app);
    let out = app.session.save();
    result(app, out)
}

/// `:w FILE`: writes the (single) open file to a new path; edits then go there.
pub fn save_as(app: &mut App, path: &Path, overwrite: bool) -> Result<(), String> {
    commit_params(app);
    let out = app.session.save_as(path, overwrite);
    if !out.failed() {
        app.source = path.display().to_string();
    }
    result(app, out)
}

/// Keys while a dialog is open.
pub fn key(app: &mut App, dialog: Dialog, k: KeyEvent) {
    match dialog.key(k) {
        Step::Open(d) => open(app, d),
        Step::Chosen(c) => choose(app, c),
    }
}

/// Carries out what the user chose in a dialog.
fn choose(app: &mut App, choice: Choice) {
    let r = match choice {
        Choice::Apply(txn) => apply_edit(app, txn),
        Choice::Run { op, given } => match ops::find(op) {
            Some(op) => run_given(app, op, given),
            None => Err(format!("no edit `{op}`")),
        },
        Choice::Cancel(message) => {
            if let Some(m) = message {
                app.set_status(Level::Info, m);
            }
            Ok(())
        }
        Choice::Quit => {
            app.quit = true;
            Ok(())
        }
        Choice::SaveAndQuit => {
            let r = save(app);
            if !app.is_modified() && app.dialog().is_none() {
                app.quit = true;
            }
            r
        }
        Choice::Reload => {
            let out = app.session.reload();
            result(app, out)
        }
        Choice::Reapply => {
            let out = app.session.reapply();
            show(app, out);
            Ok(())
        }
        Choice::KeepMine(paths) => {
            let out = app.session.keep_mine(&paths);
            result(app, out)
        }
        Choice::Recover(edits) => {
            let out = app.session.recover(edits);
            show(app, out);
            Ok(())
        }
        Choice::Discard => {
            app.session.discard_recovery();
            app.set_status(Level::Info, "recovered edits discarded");
            Ok(())
        }
    };
    report(app, r);
}

/// `:reload`: reads the files again, asking first when there are unsaved edits.
pub fn reload(app: &mut App, _: &str) -> Result<(), String> {
    let op = app.operator.and_then(|i| app.tk.operators.get(i));
    let out = app.session.reload_asking(op);
    result(app, out)
}

pub fn undo(app: &mut App, _: &str) -> Result<(), String> {
    let out = app.session.undo();
    result(app, out)
}

pub fn redo(app: &mut App, _: &str) -> Result<(), String> {
    let out = app.session.redo();
    result(app, out)
}

/// Runs an edit operation of the core's registry from the `:` line, with the arguments
/// `toolscope set` takes; a missing leading argument comes from the selection or the
/// active operator. Some edits go through the TUI's own way of making them: a description
/// opens the editor, a removal asks with its cascade, and the active operator's threshold
/// and hops become the view's pending values (written on save, as the keys do).
pub fn run_op(app: &mut App, op: &'static EditOp, arg: &str) -> Result<(), String> {
    let given = ops::parse_args(op, arg, |c| context(app, c))?;
    run_given(app, op, given)
}

/// A key's edit: the registry's row `name` with these values, as `:name` would run it.
pub(crate) fn run_row(
    app: &mut App,
    name: &str,
    values: &[(&'static str, String)],
) -> Result<(), String> {
    let op = ops::find(name).ok_or_else(|| format!("no edit `{name}`"))?;
    run_given(app, op, dialog::given(values))
}

/// Makes the change the row builds from `given`. What it means is the row's (the same
/// in `set`); what is here is how the TUI asks: a description is typed in an editor, a
/// removal confirmed, a Chat2Graph tool's module asked for, the active operator's
/// threshold and hops tuned in the view until saved, and a new node selected.
fn run_given(app: &mut App, op: &'static EditOp, given: ops::Given) -> Result<(), String> {
    if let Some(input) = op.input
        && !given.has(input)
    {
        needs_session(app)?;
        let node = op.positionals().next().ok_or("no node to edit")?;
        select_first(app, &given_name(&given, node.name, op)?)?;
        return open_desc(app);
    }
    // A refusal names the TUI's own commands (`:mcp discover`, `:score`).
    let mut given = given;
    given.set_front_end(toolscope_core::model::mcp::FrontEnd::Tui);
    let txn = op.build(&given, &app.tk).map_err(|e| e.message)?;
    let active = app.active_operator().map(|o| o.name.clone());
    match txn.edits.as_slice() {
        [Edit::SetThreshold { operator, value }] if Some(operator) == active.as_ref() => {
            let value = *value;
            recorded(app, "threshold", |app| {
                app.session.params.threshold = value;
                app.mark_stale();
            });
            Ok(())
        }
        [Edit::SetHops { operator, value }] if Some(operator) == active.as_ref() => {
            let value = *value;
            recorded(app, "hops", |app| {
                app.session.params.hops = value;
                app.mark_stale();
            });
            Ok(())
        }
        // A removal (`Transaction::removal`): the seeds it takes, then the node.
        [.., Edit::RemoveNode { kind, name }] => {
            let (kind, name) = (*kind, name.clone());
            let ix = app
                .tk
                .find(kind, &name)
                .ok_or(format!("no node `{name}`"))?;
            app.select(ix);
            confirm_removal(app, kind, name, txn)
        }
        [Edit::AddAction { name, .. }] => {
            let name = name.clone();
            apply_edit(app, txn)?;
            select_named(app, NodeKind::Action, &name);
            Ok(())
        }
        [
            Edit::AddTool {
                name,
                callers,
                module_path,
                ..
            },
        ] if module_path.is_empty() && goes_to_chat2graph(app, name, callers) => {
            // Chat2Graph imports the tool's class from a module: ask for it.
            let (name, callers) = (name.clone(), callers.clone());
            open(
                app,
                Dialog::ModulePath {
                    name,
                    callers,
                    text: Default::default(),
                    error: None,
                },
            );
            Ok(())
        }
        [Edit::AddTool { name, .. }] => {
            let name = name.clone();
            apply_edit(app, txn)?;
            select_named(app, NodeKind::Tool, &name);
            Ok(())
        }
        _ => apply_edit(app, txn),
    }
}

/// What the view knows that an operation may take its leading argument from.
fn context(app: &App, c: ops::Context) -> Option<String> {
    match c {
        ops::Context::Selection => app.selected.map(|ix| app.tk.name(ix).to_string()),
        ops::Context::SelectedAction => app
            .selected
            .filter(|&ix| app.tk.kind(ix) == NodeKind::Action)
            .map(|ix| app.tk.name(ix).to_string()),
        ops::Context::Operator => app.active_operator().map(|o| o.name.clone()),
    }
}

fn given_name(given: &ops::Given, name: &str, op: &EditOp) -> Result<String, String> {
    given
        .first(name)
        .map(str::to_string)
        .ok_or_else(|| format!("usage: :{} {}", op.name, op.usage()))
}

/// Selects the node called `name`, actions first.
fn select_first(app: &mut App, name: &str) -> Result<(), String> {
    let ix = [NodeKind::Action, NodeKind::Tool, NodeKind::Group]
        .into_iter()
        .find_map(|k| app.tk.find(k, name))
        .ok_or_else(|| format!("no node named `{name}`"))?;
    app.select(ix);
    Ok(())
}

/// Whether a new tool with these callers would be written to a Chat2Graph file.
fn goes_to_chat2graph(app: &App, name: &str, callers: &[(String, f64)]) -> bool {
    let Some(ws) = app.session.ws.as_ref() else {
        return false;
    };
    let probe = Transaction::from(Edit::AddTool {
        name: name.into(),
        desc: String::new(),
        callers: callers.to_vec(),
        module_path: String::new(),
    });
    ws.target_file(&probe)
        .is_ok_and(|f| ws.files()[f].source.format == Format::Chat2Graph)
}

fn select_named(app: &mut App, kind: NodeKind, name: &str) {
    if let Some(ix) = app.tk.find(kind, name) {
        app.select(ix);
        app.ensure_selection_visible();
    }
}
