//! Commands of the insight features: baseline pin and diff panel, prompt preview, the tool
//! filters stage, and the `:baseline` and `:export` command lines. Kept apart from
//! `update.rs` so the editing features can grow there without conflicts.

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEvent};
use petgraph::stable_graph::NodeIndex;

use toolscope_core::export::describe::{Style, describe};
use toolscope_core::export::{ExportFormat, Highlight};
use toolscope_core::model::NodeKind;
use toolscope_core::tokens::{Encoding, Tokenizer, ToolTokens};

use crate::tui::app::{App, Level, Overlay};
use crate::tui::row::{Command, cmd};

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("pin-baseline", [], None, "", Insight, "pin the current result as the baseline (again: re-pin)", |a, _| {
        pin(a);
        Ok(())
    }),
    cmd!("baseline", [], File, "[FILE]", Insight, "pin the result as the baseline (FILE: of another toolkit)", baseline_command),
    cmd!("diff-panel", [], None, "", Insight, "diff panel: what entered and left since the baseline", |a, _| {
        toggle_diff_panel(a);
        Ok(())
    }),
    cmd!("prompt-preview", [], None, "", Insight, "prompt preview: offered tools as the model reads them", |a, _| {
        open_preview(a);
        Ok(())
    }),
    cmd!("toggle-filters", [], None, "", Insight, "tool filters stage on / off (disabled, exclusive, chosen)", |a, _| {
        toggle_filters(a);
        Ok(())
    }),
    cmd!("choose-tool", [], None, "", Insight, "mark the selected tool as a forced choice (again: unmark)", |a, _| {
        choose_tool(a);
        Ok(())
    }),
    cmd!("toggle-enabled", [], None, "", Insight, "enable / disable the selected tool", |a, _| {
        toggle_enabled(a);
        Ok(())
    }),
    cmd!("export", [], Formats, "FORMAT FILE", Insight, "export the graph (Tab lists the formats) to a new file", |a, arg| export_command(a, arg, false)),
    cmd!("export!", [], Formats, "FORMAT FILE", Insight, "export, replacing FILE if it exists (never an opened toolkit)", |a, arg| export_command(a, arg, true)),
];

fn pin(app: &mut App) {
    app.insight.pin(&app.tk, &app.rec, app.session.params);
    let (a, t) = (app.rec.actions.len(), app.rec.tools.len());
    let pinned = format!(
        "baseline pinned: {a} actions, {t} tools at {:.2}/h{}",
        app.session.params.threshold, app.session.params.hops
    );
    let hidden = app.graph_pane.split().hide_inspector;
    open_diff_panel(app);
    // The panes' note first: at 80 columns the status line has room for little more.
    let status = if hidden {
        format!("side panes shown for the diff panel (m hides them); {pinned}")
    } else {
        pinned
    };
    app.set_status(Level::Info, status);
}

fn toggle_diff_panel(app: &mut App) {
    if app.insight.pinned.is_none() {
        app.diff_panel = false;
        app.set_status(
            Level::Info,
            "no baseline: b pins one, :baseline FILE loads one",
        );
        return;
    }
    if app.diff_panel {
        app.diff_panel = false;
    } else {
        open_diff_panel(app);
    }
}

/// The diff panel in the right-hand pane, brought back where it was hidden.
fn open_diff_panel(app: &mut App) {
    app.diff_panel = true;
    app.evidence.close_panel();
    app.with_graph(|g, s| g.show_right_pane(s, "diff panel"));
}

/// The preview's text: the shown tools (after the filters stage when it is on) in the
/// markdown `toolscope describe` writes, one entry per line.
pub fn preview_lines(app: &App) -> Vec<String> {
    let mut tools: Vec<NodeIndex> = app.insight.shown_tools(&app.rec).to_vec();
    tools.sort_by(|a, b| app.tk.name(*a).cmp(app.tk.name(*b)));
    describe(&app.tk, &tools, Style::Markdown)
        .lines()
        .map(str::to_string)
        .collect()
}

fn open_preview(app: &mut App) {
    app.insight.preview = preview_lines(app);
    app.insight.preview_tokens = preview_tokens(app);
    app.overlay = Some(Overlay::Preview { scroll: 0 });
}

/// The shown tools' tokens as `toolscope recommend` reports them (`tokens: ~N`): their
/// function definitions in the default encoding, a tool Chat2Graph sends more than once
/// counted each time.
fn preview_tokens(app: &mut App) -> u64 {
    let shown = app.insight.shown_tools(&app.rec).to_vec();
    let tokenizer = app
        .insight
        .tokenizer
        .get_or_insert_with(|| Tokenizer::new(Encoding::default()));
    ToolTokens::new(&app.tk, tokenizer).total_sent(&app.rec, &shown, app.session.params.threshold)
}

/// Keys while the prompt preview is open: scroll, or close.
pub fn preview_key(app: &mut App, scroll: u16, k: KeyEvent) {
    let last = u16::try_from(app.insight.preview.len().saturating_sub(1)).unwrap_or(u16::MAX);
    let page = app.size.1.saturating_sub(6).max(1);
    let scroll = match k.code {
        KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('p') | KeyCode::Enter => return,
        KeyCode::Char('j') | KeyCode::Down => scroll.saturating_add(1),
        KeyCode::Char('k') | KeyCode::Up => scroll.saturating_sub(1),
        KeyCode::PageDown | KeyCode::Char(' ') => scroll.saturating_add(page),
        KeyCode::PageUp => scroll.saturating_sub(page),
        KeyCode::Char('g') | KeyCode::Home => 0,
        KeyCode::Char('G') | KeyCode::End => last,
        _ => scroll,
    };
    app.overlay = Some(Overlay::Preview {
        scroll: scroll.min(last),
    });
}

fn toggle_filters(app: &mut App) {
    app.insight.filters_on = !app.insight.filters_on;
    app.recompute();
    let state = if app.insight.filters_on { "on" } else { "off" };
    app.set_status(
        Level::Info,
        format!(
            "tool filters {state}: {} of {} recommended tools offered",
            app.insight.offered.len(),
            app.rec.tools.len()
        ),
    );
}

/// The selected tool (or member-less group), or a status saying why there is none.
fn selected_tool(app: &mut App) -> Option<NodeIndex> {
    let ix = app
        .selected
        .filter(|&ix| app.tk.kind(ix) != NodeKind::Action);
    if ix.is_none() {
        app.set_status(Level::Error, "select a tool first");
    }
    ix
}

fn choose_tool(app: &mut App) {
    let Some(ix) = selected_tool(app) else { return };
    let name = app.tk.name(ix).to_string();
    app.insight.toggle_chosen(&name);
    if !app.insight.filters_on {
        app.insight.filters_on = true;
    }
    app.recompute();
    let n = app.insight.filters.chosen.len();
    app.set_status(
        Level::Info,
        format!("{n} forced tool choice(s); the filters stage is on (F turns it off)"),
    );
}

fn toggle_enabled(app: &mut App) {
    let Some(ix) = selected_tool(app) else { return };
    let now = !app.tk.node(ix).enabled();
    if app.session.ws.is_some() {
        // The registry's `enabled`, as `:enabled` runs it: written on save, undoable.
        let values = [
            ("TOOL", app.tk.name(ix).to_string()),
            ("VALUE", now.to_string()),
            ("kind", app.tk.kind(ix).as_str().to_string()),
        ];
        if let Err(e) = crate::tui::editing::run_row(app, "enabled", &values) {
            app.set_status(Level::Error, e);
        }
        return;
    }
    set_enabled(app, ix, now);
    app.recompute();
    let what = if now { "enabled" } else { "disabled" };
    app.set_status(
        Level::Info,
        format!("{} {what} (in memory: no editable file)", app.tk.name(ix)),
    );
}

/// Sets a tool's `enabled` flag in memory, for views without an editable workspace.
pub fn set_enabled(app: &mut App, ix: NodeIndex, enabled: bool) {
    let node = std::sync::Arc::make_mut(&mut app.tk).node_mut(ix);
    node.meta.get_or_insert_with(Default::default).enabled = enabled;
}

/// `:baseline FILE` loads another toolkit as the baseline; `:baseline off` clears it;
/// `:baseline` alone pins the current result.
pub fn baseline_command(app: &mut App, arg: &str) -> Result<(), String> {
    match arg {
        "" => {
            pin(app);
            Ok(())
        }
        "off" | "clear" => {
            app.insight.unpin();
            app.diff_panel = false;
            app.set_status(Level::Info, "baseline cleared");
            Ok(())
        }
        path => baseline_file(app, Path::new(path)),
    }
}

fn baseline_file(app: &mut App, path: &Path) -> Result<(), String> {
    let loaded =
        toolscope_core::load::load_paths(&[path.to_path_buf()], None).map_err(|e| e.to_string())?;
    app.insight.pin_file(
        PathBuf::from(path),
        loaded.toolkit,
        &app.tk,
        &app.seeds,
        app.session.params,
    );
    app.recompute();
    app.diff_panel = true;
    let changes = app
        .insight
        .pinned
        .as_ref()
        .and_then(|p| p.file.as_ref())
        .map_or(0, |f| f.structural.lines().len());
    app.set_status(
        Level::Info,
        format!(
            "baseline: {} ({changes} structural change(s))",
            path.display()
        ),
    );
    Ok(())
}

/// `:export dot|mermaid|json|svg FILE`: the whole graph with the recommendation highlighted.
/// Never over an opened toolkit file; over another existing file only as `:export!`.
pub fn export_command(app: &mut App, arg: &str, force: bool) -> Result<(), String> {
    let (fmt, file) = arg
        .split_once(char::is_whitespace)
        .map(|(f, p)| (f, p.trim()))
        .filter(|(_, file)| !file.is_empty())
        .ok_or_else(|| format!("usage: :export {} FILE", format_names("|")))?;
    let text = export_text(app, fmt)?;
    let mut opened = app.tk.files.clone();
    if let Some(ws) = &app.session.ws {
        opened.extend(ws.files().iter().map(|f| f.source.path.clone()));
    }
    toolscope_core::source::save::write_output(std::path::Path::new(file), &text, &opened, force)
        .map_err(|e| e.to_string())?;
    app.set_status(Level::Info, format!("exported {fmt} to {file}"));
    Ok(())
}

fn export_text(app: &App, fmt: &str) -> Result<String, String> {
    let hl = Highlight {
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
    Ok(ExportFormat::parse(fmt)?.write(&app.tk, Some(&hl), false, &title))
}

/// The export formats' names joined by `sep`.
pub fn format_names(sep: &str) -> String {
    let names: Vec<&str> = ExportFormat::ALL.iter().map(|f| f.name()).collect();
    names.join(sep)
}
