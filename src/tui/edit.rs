//! Editing in the TUI: the [`Workspace`] is the source of truth for the graph and the files;
//! `App.tk` is a copy of its merged toolkit, refreshed after each edit, undo, redo, save or
//! reload (never per keystroke: typing into an editor changes nothing until it is applied).
//! Keeping a copy rather than reading through the workspace lets the rest of the TUI (and
//! its tests) keep working on a plain `Toolkit`, and lets a failed reload leave the last
//! good graph on screen.
//!
//! Choices where the issue is silent:
//! - Threshold and hops keys and `:threshold`/`:hops` change only the view. When an
//!   operator is active and its values differ from the file's, the difference counts as
//!   unsaved (`[+]`), and it becomes `SetThreshold`/`SetHops` edits (undoable) when the user
//!   saves or switches to another operator. Without an active operator nothing is persisted.
//! - Removing an edge needs no confirmation (undo brings it back); removing a node shows
//!   the cascade and asks.
//! - "Keep mine" in a conflict makes the next save overwrite the changed files; Esc closes
//!   the question and changes nothing (the next save asks again).

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use petgraph::stable_graph::NodeIndex;
use ratatui_textarea::TextArea;

use crate::edit::{Edit, SaveErrorKind, Transaction, Workspace};
use crate::model::NodeKind;
use crate::source::Loaded;

use super::app::{App, Level, Overlay, PromptKind};
use super::keymap::Cmd;

/// The editing session: the workspace, the open dialog and live-reload state.
#[derive(Default)]
pub struct Session {
    /// None only for apps built from a bare `Loaded` (tests, benches): editing is off.
    pub ws: Option<Workspace>,
    pub dialog: Option<Dialog>,
    /// The user chose "keep mine": the next save overwrites files changed on disk.
    pub overwrite: bool,
    /// Source of an edge being added (`a`, then select the target and `a` again).
    pub link_from: Option<(NodeKind, String)>,
    pub live: super::live::Live,
}

/// A modal dialog of the editing session (shown through [`Overlay::Edit`]).
pub enum Dialog {
    /// The score of `from -> to`; `error` says why the typed text was refused.
    Score {
        from: String,
        to: String,
        to_kind: NodeKind,
        text: String,
        error: Option<String>,
    },
    /// A node's description in a multi-line editor.
    Desc {
        kind: NodeKind,
        name: String,
        area: Box<TextArea<'static>>,
    },
    /// Quit with unsaved edits?
    Quit,
    /// Remove a node and what its cascade takes with it?
    Remove {
        kind: NodeKind,
        name: String,
        /// What goes, one line each: the cascade's nodes and the seeds naming them.
        cascade: Vec<String>,
        /// The removal as made on confirmation.
        txn: Transaction,
    },
    /// Files changed on disk while they had unsaved edits (or a save found them changed).
    Conflict { paths: Vec<PathBuf> },
}

impl App {
    /// An app over an editing session: the workspace's toolkit, files and diagnostics.
    pub fn with_workspace(
        ws: Workspace,
        source: String,
        theme: super::Theme,
        size: (u16, u16),
    ) -> App {
        let mut app = App::new(loaded_of(&ws), source, theme, size);
        app.session.ws = Some(ws);
        app
    }

    /// Unsaved edits in a file, or threshold/hops of the active operator not yet written.
    pub fn is_modified(&self) -> bool {
        let Some(ws) = &self.session.ws else {
            return false;
        };
        ws.is_dirty() || !param_edits(self).is_empty()
    }
}

/// The workspace's state as a `Loaded` for [`App::new`] and [`App::replace`].
pub fn loaded_of(ws: &Workspace) -> Loaded {
    Loaded {
        toolkit: ws.toolkit.clone(),
        files: ws.files().iter().map(|f| f.source.clone()).collect(),
        diagnostics: ws.diagnostics.clone(),
    }
}

/// Makes the app show the workspace's current graph, keeping the user's context. Those of
/// the active operator's threshold/hops the user had not changed follow the new graph
/// (an undo, or a reload that changed them on disk), so a later save never writes back
/// stale values.
pub fn sync(app: &mut App) {
    let pending = param_edits(app);
    let keep_threshold = pending
        .iter()
        .any(|e| matches!(e, Edit::SetThreshold { .. }));
    let keep_hops = pending.iter().any(|e| matches!(e, Edit::SetHops { .. }));
    if let Some(ws) = &app.session.ws {
        let loaded = loaded_of(ws);
        app.replace(loaded);
    }
    if let Some(op) = app.operator.and_then(|i| app.tk.operators.get(i)) {
        if !keep_threshold {
            app.params.threshold = op.threshold;
        }
        if !keep_hops {
            app.params.hops = op.hops;
        }
        app.recompute();
    }
}

/// `SetThreshold`/`SetHops` edits for the active operator's changed parameters.
pub fn param_edits(app: &App) -> Vec<Edit> {
    let Some(op) = app.operator.and_then(|i| app.tk.operators.get(i)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if (app.params.threshold - op.threshold).abs() > 1e-12 {
        out.push(Edit::SetThreshold {
            operator: op.name.clone(),
            value: app.params.threshold,
        });
    }
    if app.params.hops != op.hops {
        out.push(Edit::SetHops {
            operator: op.name.clone(),
            value: app.params.hops,
        });
    }
    out
}

/// Writes the active operator's changed threshold/hops into the workspace as edits.
pub fn commit_params(app: &mut App) {
    if app.session.ws.is_none() {
        return;
    }
    let edits = param_edits(app);
    if edits.is_empty() {
        return;
    }
    let params = app.params;
    for e in edits {
        if let Err(msg) = apply_edit(app, e) {
            app.set_status(Level::Error, msg);
        }
    }
    app.params = params;
}

/// Applies one edit to the workspace and shows the result; the error text on refusal.
pub fn apply_edit(app: &mut App, edit: impl Into<Transaction>) -> Result<(), String> {
    let edit = edit.into();
    let ws = app
        .session
        .ws
        .as_mut()
        .ok_or("editing is not available here")?;
    let what = edit.describe();
    let applied = ws.apply(edit).map_err(|e| e.to_string())?;
    let mut text = what;
    for n in &applied.notes {
        text.push_str("; ");
        text.push_str(n);
    }
    sync(app);
    app.set_status(Level::Info, text);
    Ok(())
}

fn report(app: &mut App, r: Result<(), String>) {
    if let Err(e) = r {
        app.set_status(Level::Error, e);
    }
}

/// Runs an editing command from a key.
pub fn command(app: &mut App, cmd: Cmd) {
    if app.session.ws.is_none() {
        app.set_status(Level::Error, "editing is not available here");
        return;
    }
    let r = match cmd {
        Cmd::EditScore => open_score(app),
        Cmd::EditDesc => open_desc(app),
        Cmd::AddEdge => pick_link(app),
        Cmd::AddNode => prompt(app, "add-action "),
        Cmd::RemoveEdge => remove_edge(app),
        Cmd::RemoveNode => ask_remove(app),
        Cmd::Undo => undo_redo(app, true),
        Cmd::Redo => undo_redo(app, false),
        Cmd::Save => save(app),
        _ => Ok(()),
    };
    report(app, r);
    show_dialog(app);
}

/// `a` picks the source (the selection), a second `a` the target; Esc cancels.
fn pick_link(app: &mut App) -> Result<(), String> {
    let ix = app.selected.ok_or("select the source node first")?;
    let Some((kind, name)) = app.session.link_from.take() else {
        let name = app.tk.name(ix).to_string();
        app.set_status(
            Level::Info,
            format!("edge from {name}: select the target and press a (Esc cancels; or :link NAME)"),
        );
        app.session.link_from = Some((app.tk.kind(ix), name));
        return Ok(());
    };
    let source = app.tk.find(kind, &name).ok_or(format!("{name} is gone"))?;
    add_link(app, source, ix, 1.0)
}

fn add_link(app: &mut App, from: NodeIndex, to: NodeIndex, score: f64) -> Result<(), String> {
    apply_edit(
        app,
        Edit::AddEdge {
            from: app.tk.name(from).to_string(),
            to: app.tk.name(to).to_string(),
            to_kind: app.tk.kind(to),
            score,
        },
    )
}

fn prompt(app: &mut App, text: &str) -> Result<(), String> {
    app.overlay = Some(Overlay::Prompt {
        kind: PromptKind::Command,
        text: text.into(),
    });
    Ok(())
}

/// Opens the overlay when a dialog is pending.
fn show_dialog(app: &mut App) {
    if app.session.dialog.is_some() {
        app.overlay = Some(Overlay::Edit);
    }
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

fn open_score(app: &mut App) -> Result<(), String> {
    let (from, to, to_kind) = edge_ends(app)?;
    let e = app.selected_edge().ok_or("no edge")?;
    let text = format!("{}", app.tk.graph[e].score);
    app.session.dialog = Some(Dialog::Score {
        from,
        to,
        to_kind,
        text,
        error: None,
    });
    Ok(())
}

fn open_desc(app: &mut App) -> Result<(), String> {
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
    app.session.dialog = Some(Dialog::Desc {
        kind: app.tk.kind(ix),
        name: app.tk.name(ix).to_string(),
        area: Box::new(TextArea::new(lines)),
    });
    Ok(())
}

fn remove_edge(app: &mut App) -> Result<(), String> {
    let (from, to, to_kind) = edge_ends(app)?;
    apply_edit(app, Edit::RemoveEdge { from, to, to_kind })
}

fn ask_remove(app: &mut App) -> Result<(), String> {
    let ix = app.selected.ok_or("no node selected")?;
    let (kind, name) = (app.tk.kind(ix), app.tk.name(ix).to_string());
    let removed = crate::edit::removal(&app.tk, kind, &name).map_err(|e| e.to_string())?;
    let ws = app.session.ws.as_ref().ok_or("editing is off")?;
    let txn = ws.removal(kind, &name).map_err(|e| e.to_string())?;
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
    app.session.dialog = Some(Dialog::Remove {
        kind,
        name,
        cascade,
        txn,
    });
    Ok(())
}

fn undo_redo(app: &mut App, undo: bool) -> Result<(), String> {
    let ws = app.session.ws.as_mut().ok_or("editing is off")?;
    let done = if undo { ws.undo() } else { ws.redo() };
    let edit = done.ok_or(if undo {
        "nothing to undo"
    } else {
        "nothing to redo"
    })?;
    sync(app);
    let verb = if undo { "undid" } else { "redid" };
    app.set_status(Level::Info, format!("{verb}: {}", edit.describe()));
    Ok(())
}

/// `q`: quits, or asks first when there are unsaved edits.
pub fn request_quit(app: &mut App) {
    if app.is_modified() {
        app.session.dialog = Some(Dialog::Quit);
        show_dialog(app);
    } else {
        app.quit = true;
    }
}

/// Saves every changed file (after writing pending threshold/hops), announcing the bytes
/// to the watcher first so the save does not come back as a reload.
pub fn save(app: &mut App) -> Result<(), String> {
    commit_params(app);
    let overwrite = app.session.overwrite;
    let Some(ws) = app.session.ws.as_mut() else {
        return Err("editing is off".into());
    };
    if ws.files().iter().any(|f| f.detached && f.dirty()) {
        return Err("the bundled example is not on disk: save it with :w FILE".into());
    }
    let dirty: Vec<(PathBuf, String)> = ws
        .files()
        .iter()
        .filter(|f| f.dirty() && !f.detached)
        .map(|f| (f.source.path.clone(), f.source.text.clone()))
        .collect();
    if dirty.is_empty() {
        app.set_status(Level::Info, "nothing to save");
        return Ok(());
    }
    for (p, t) in &dirty {
        app.session.live.expect_own_write(p, t.as_bytes());
    }
    let result = if overwrite {
        ws.save_all_overwrite()
    } else {
        ws.save_all()
    };
    let written = match &result {
        Ok(w) => w.clone(),
        Err(_) => Vec::new(),
    };
    for (p, _) in dirty.iter().filter(|(p, _)| !written.contains(p)) {
        app.session.live.forget_own_write(p);
    }
    match result {
        Ok(w) => {
            app.session.overwrite = false;
            sync(app);
            app.set_status(Level::Info, format!("saved {}", names(&w)));
            Ok(())
        }
        Err(e) if e.kind == SaveErrorKind::Conflict => {
            app.session.dialog = Some(Dialog::Conflict {
                paths: vec![e.path.clone()],
            });
            show_dialog(app);
            app.set_status(Level::Error, e.to_string());
            Ok(())
        }
        Err(e) => Err(e.to_string()),
    }
}

fn names(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `:w FILE`: writes the (single) open file to a new path; edits then go there.
pub fn save_as(app: &mut App, path: &Path, overwrite: bool) -> Result<(), String> {
    commit_params(app);
    let ws = app.session.ws.as_mut().ok_or("editing is off")?;
    if ws.files().len() != 1 {
        return Err(":w FILE needs exactly one open file".into());
    }
    let text = ws.files()[0].source.text.clone();
    app.session.live.expect_own_write(path, text.as_bytes());
    if let Err(e) = ws.save_as(0, path, overwrite) {
        app.session.live.forget_own_write(path);
        return Err(match e.kind {
            SaveErrorKind::Exists => format!("{} exists; :w! FILE overwrites it", e.path.display()),
            _ => e.to_string(),
        });
    }
    app.source = path.display().to_string();
    app.session.live.watch(path);
    sync(app);
    app.set_status(Level::Info, format!("wrote {}", path.display()));
    Ok(())
}

/// Keys while an editing dialog is open.
pub fn key(app: &mut App, k: KeyEvent) {
    let Some(dialog) = app.session.dialog.take() else {
        return;
    };
    app.session.dialog = match dialog {
        Dialog::Score {
            from,
            to,
            to_kind,
            text,
            error,
        } => score_key(app, (from, to, to_kind), text, error, k),
        Dialog::Desc { kind, name, area } => desc_key(app, kind, name, area, k),
        Dialog::Quit => quit_key(app, k),
        Dialog::Remove {
            kind,
            name,
            cascade,
            txn,
        } => remove_key(app, kind, name, cascade, txn, k),
        Dialog::Conflict { paths } => conflict_key(app, paths, k),
    };
    // A handler may have opened a new dialog (e.g. a save that found a conflict).
    if app.session.dialog.is_some() {
        app.overlay = Some(Overlay::Edit);
    }
}

fn score_key(
    app: &mut App,
    edge: (String, String, NodeKind),
    mut text: String,
    mut error: Option<String>,
    k: KeyEvent,
) -> Option<Dialog> {
    match k.code {
        KeyCode::Esc => return None,
        KeyCode::Enter => match parse_score(&text) {
            Ok(score) => {
                let (from, to, to_kind) = edge;
                let e = Edit::SetScore {
                    from,
                    to,
                    to_kind,
                    score,
                };
                let r = apply_edit(app, e);
                report(app, r);
                return app.session.dialog.take();
            }
            Err(e) => error = Some(e),
        },
        KeyCode::Backspace => {
            text.pop();
            error = None;
        }
        KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => {
            text.push(c);
            error = None;
        }
        _ => {}
    }
    let (from, to, to_kind) = edge;
    Some(Dialog::Score {
        from,
        to,
        to_kind,
        text,
        error,
    })
}

/// A score as typed: a finite number in [0, 1].
pub fn parse_score(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let v: f64 = t
        .parse()
        .map_err(|_| format!("`{t}` is not a number; type a score in [0, 1]"))?;
    if !v.is_finite() || !(0.0..=1.0).contains(&v) {
        return Err(format!("{t} is outside [0, 1]"));
    }
    Ok(v)
}

fn desc_key(
    app: &mut App,
    kind: NodeKind,
    name: String,
    mut area: Box<TextArea<'static>>,
    k: KeyEvent,
) -> Option<Dialog> {
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    match k.code {
        KeyCode::Esc => {
            app.set_status(Level::Info, "description unchanged");
            None
        }
        KeyCode::Char('s') if ctrl => {
            let text = area.lines().join("\n");
            let r = apply_edit(app, Edit::SetDesc { kind, name, text });
            report(app, r);
            None
        }
        _ => {
            area.input(k);
            Some(Dialog::Desc { kind, name, area })
        }
    }
}

fn quit_key(app: &mut App, k: KeyEvent) -> Option<Dialog> {
    match k.code {
        KeyCode::Char('y') | KeyCode::Char('q') => {
            app.quit = true;
            None
        }
        KeyCode::Char('w') => {
            let r = save(app);
            report(app, r);
            if !app.is_modified() && app.session.dialog.is_none() {
                app.quit = true;
            }
            None
        }
        KeyCode::Esc | KeyCode::Char('n') => None,
        _ => Some(Dialog::Quit),
    }
}

fn remove_key(
    app: &mut App,
    kind: NodeKind,
    name: String,
    cascade: Vec<String>,
    txn: Transaction,
    k: KeyEvent,
) -> Option<Dialog> {
    match k.code {
        KeyCode::Char('y') | KeyCode::Enter => {
            let r = apply_edit(app, txn);
            report(app, r);
            None
        }
        KeyCode::Esc | KeyCode::Char('n') => None,
        _ => Some(Dialog::Remove {
            kind,
            name,
            cascade,
            txn,
        }),
    }
}

fn conflict_key(app: &mut App, paths: Vec<PathBuf>, k: KeyEvent) -> Option<Dialog> {
    let r = match k.code {
        KeyCode::Char('r') => reload_dropping(app),
        KeyCode::Char('a') => reapply(app),
        KeyCode::Char('k') => {
            app.session.overwrite = true;
            app.set_status(
                Level::Info,
                "kept your edits; the next save overwrites the file on disk",
            );
            Ok(())
        }
        KeyCode::Esc => {
            app.set_status(
                Level::Info,
                "conflict left open: your edits are kept and the next save asks again",
            );
            Ok(())
        }
        _ => return Some(Dialog::Conflict { paths }),
    };
    report(app, r);
    None
}

/// Reloads every file from disk, dropping unsaved edits.
pub fn reload_dropping(app: &mut App) -> Result<(), String> {
    super::live::reopen(app)?;
    app.session.overwrite = false;
    super::live::after_reload(app);
    app.set_status(Level::Info, "reloaded from disk; your edits were dropped");
    Ok(())
}

/// Reloads and reapplies the pending edits, reporting those that no longer apply.
pub fn reapply(app: &mut App) -> Result<(), String> {
    let ws = app.session.ws.as_mut().ok_or("editing is off")?;
    let rep = ws.reapply().map_err(|e| e.to_string())?;
    app.session.overwrite = false;
    super::live::after_reload(app);
    let mut text = format!("reapplied {} edit(s)", rep.reapplied.len());
    if !rep.dropped.is_empty() {
        let dropped: Vec<String> = rep
            .dropped
            .iter()
            .map(|(e, why)| format!("{} ({why})", e.describe()))
            .collect();
        text.push_str(&format!("; no longer apply: {}", dropped.join("; ")));
        app.set_status(Level::Error, text);
    } else {
        app.set_status(Level::Info, text);
    }
    Ok(())
}

/// Commands of the `:` line that edit or save; `None` when `cmd` is not one of them.
pub fn command_line(app: &mut App, cmd: &str, arg: &str) -> Option<Result<(), String>> {
    let r = match cmd {
        "w" | "write" if arg.is_empty() => save(app),
        "w" | "write" => save_as(app, Path::new(arg), false),
        "w!" => save_as(app, Path::new(arg), true),
        "wq" | "x" => save(app).map(|()| {
            if !app.is_modified() && app.session.dialog.is_none() {
                app.quit = true;
            }
        }),
        "q" | "quit" => {
            request_quit(app);
            Ok(())
        }
        "q!" => {
            app.quit = true;
            Ok(())
        }
        "reload" => reload_command(app),
        "undo" => undo_redo(app, true),
        "redo" => undo_redo(app, false),
        "link" => link(app, arg),
        "add-action" => add_action(app, arg),
        "add-tool" => add_tool(app, arg),
        _ => return None,
    };
    show_dialog(app);
    Some(r)
}

fn reload_command(app: &mut App) -> Result<(), String> {
    if app.session.ws.as_ref().is_some_and(Workspace::is_dirty) {
        let paths = app
            .session
            .ws
            .as_ref()
            .map(Workspace::dirty_files)
            .unwrap_or_default();
        app.session.dialog = Some(Dialog::Conflict { paths });
        return Ok(());
    }
    reload_dropping(app).map(|()| app.set_status(Level::Info, "reloaded from disk"))
}

/// A node by exact name, actions first.
fn node_named(app: &App, name: &str) -> Option<NodeIndex> {
    [NodeKind::Action, NodeKind::Tool, NodeKind::Group]
        .into_iter()
        .find_map(|k| app.tk.find(k, name))
}

/// `:link TARGET [SCORE]`: an edge from the selected node.
fn link(app: &mut App, arg: &str) -> Result<(), String> {
    let from = app.selected.ok_or("select the source node first")?;
    let (target, score) = match arg.rsplit_once(char::is_whitespace) {
        Some((t, s)) if node_named(app, arg).is_none() && s.parse::<f64>().is_ok() => {
            (t.trim(), parse_score(s)?)
        }
        _ => (arg, 1.0),
    };
    let to = node_named(app, target).ok_or_else(|| format!("no node named `{target}`"))?;
    add_link(app, from, to, score)
}

fn add_action(app: &mut App, name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("usage: :add-action NAME".into());
    }
    let edit = Edit::AddAction {
        name: name.into(),
        desc: String::new(),
    };
    apply_edit(app, edit)?;
    select_named(app, NodeKind::Action, name);
    Ok(())
}

/// `:add-tool NAME`: a tool, called by the selected action when one is selected.
fn add_tool(app: &mut App, name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("usage: :add-tool NAME".into());
    }
    let callers = app
        .selected
        .filter(|&ix| app.tk.kind(ix) == NodeKind::Action)
        .map(|ix| vec![(app.tk.name(ix).to_string(), 1.0)])
        .unwrap_or_default();
    let edit = Edit::AddTool {
        name: name.into(),
        desc: String::new(),
        callers,
    };
    apply_edit(app, edit)?;
    select_named(app, NodeKind::Tool, name);
    Ok(())
}

fn select_named(app: &mut App, kind: NodeKind, name: &str) {
    if let Some(ix) = app.tk.find(kind, name) {
        app.select(ix);
        app.ensure_selection_visible();
    }
}
