//! Commands of the insight features: baseline pin and diff panel, prompt preview, the tool
//! filters stage, and the `:baseline` and `:export` command lines. The handlers take the
//! pane's [`InsightState`] and a [`Ctx`] and return the [`Action`]s the shell
//! (`update::insight`) applies; none of them sees the app.

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEvent};
use petgraph::stable_graph::NodeIndex;

use toolscope_core::export::describe::{Style, describe};
use toolscope_core::model::{NodeKind, Toolkit};
use toolscope_core::recommend::{Recommendation, offered_tools};
use toolscope_core::tokens::{Encoding, Tokenizer, ToolTokens};

use super::InsightState;
use crate::tui::action::{Action, InsightAction};
use crate::tui::ctx::Ctx;
use crate::tui::update::row::{Command, cmd};

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("pin-baseline", [], None, "", Insight, "pin the current result as the baseline and show the diff panel (again: re-pin)", @Insight |s, ctx, _| Ok(pin(s, ctx))),
    cmd!("baseline", [], File, "[FILE]", Insight, "pin the result as the baseline (FILE: of another toolkit)", @Insight baseline_command),
    cmd!("diff-panel", [], None, "", Insight, "diff panel: what entered and left since the baseline", @Insight |s, ctx, _| Ok(toggle_diff_panel(s, ctx))),
    cmd!("prompt-preview", [], None, "", Insight, "prompt preview: offered tools as the model reads them", @Insight |s, ctx, _| Ok(open_preview(s, ctx))),
    cmd!("toggle-filters", [], None, "", Insight, "tool filters stage on / off (disabled, exclusive, chosen)", @Insight |s, ctx, _| Ok(toggle_filters(s, ctx))),
    cmd!("choose-tool", [], None, "", Insight, "mark the selected tool as a forced choice (again: unmark)", @Insight |s, ctx, _| Ok(choose_tool(s, ctx))),
    cmd!("toggle-enabled", [], None, "", Insight, "enable / disable the selected tool", @Insight |_, ctx, _| Ok(toggle_enabled(ctx))),
    cmd!("export", [], Formats, "FORMAT FILE", Insight, "export the graph (Tab lists the formats) to a new file", @Ctx |_, arg| Ok(vec![Action::Insight(InsightAction::Export { arg: arg.to_string(), force: false })])),
    cmd!("export!", [], Formats, "FORMAT FILE", Insight, "export, replacing FILE if it exists (never an opened toolkit)", @Ctx |_, arg| Ok(vec![Action::Insight(InsightAction::Export { arg: arg.to_string(), force: true })])),
];

fn pin(s: &mut InsightState, ctx: &Ctx) -> Vec<Action> {
    s.pin(ctx.tk, ctx.rec, ctx.params);
    let (a, t) = (ctx.rec.actions.len(), ctx.rec.tools.len());
    let pinned = format!(
        "baseline pinned: {a} actions, {t} tools at {:.2}/h{}",
        ctx.params.threshold, ctx.params.hops
    );
    // The panes' note first: at 80 columns the status line has room for little more.
    let status = if ctx.right_hidden() {
        format!("side panes shown for the diff panel (m hides them); {pinned}")
    } else {
        pinned
    };
    vec![
        Action::Insight(InsightAction::OpenDiffPanel),
        Action::info(status),
    ]
}

fn toggle_diff_panel(s: &InsightState, ctx: &Ctx) -> Vec<Action> {
    if s.pinned.is_none() {
        return vec![
            Action::Insight(InsightAction::DiffPanel(false)),
            Action::info("no baseline: b pins one, :baseline FILE loads one".into()),
        ];
    }
    vec![if ctx.diff_panel {
        Action::Insight(InsightAction::DiffPanel(false))
    } else {
        Action::Insight(InsightAction::OpenDiffPanel)
    }]
}

/// The preview's text: the shown tools (after the filters stage when it is on) in the
/// markdown `toolscope describe` writes, one entry per line.
pub fn preview_lines(s: &InsightState, tk: &Toolkit, rec: &Recommendation) -> Vec<String> {
    let mut tools: Vec<NodeIndex> = s.shown_tools(rec).to_vec();
    tools.sort_by(|a, b| tk.name(*a).cmp(tk.name(*b)));
    describe(tk, &tools, Style::Markdown)
        .lines()
        .map(str::to_string)
        .collect()
}

fn open_preview(s: &mut InsightState, ctx: &Ctx) -> Vec<Action> {
    s.preview = preview_lines(s, ctx.tk, ctx.rec);
    s.preview_tokens = preview_tokens(s, ctx);
    vec![Action::Insight(InsightAction::Preview)]
}

/// The shown tools' tokens as `toolscope recommend` reports them (`tokens: ~N`): their
/// function definitions in the default encoding, a tool Chat2Graph sends more than once
/// counted each time.
fn preview_tokens(s: &mut InsightState, ctx: &Ctx) -> u64 {
    let shown = s.shown_tools(ctx.rec).to_vec();
    let tokenizer = s
        .tokenizer
        .get_or_insert_with(|| Tokenizer::new(Encoding::default()));
    ToolTokens::new(ctx.tk, tokenizer).total_sent(ctx.rec, &shown, ctx.params.threshold)
}

/// Keys while the prompt preview is open, on a screen `height` rows tall: the new scroll,
/// or `None` to close it.
pub fn preview_key(s: &InsightState, height: u16, scroll: u16, k: KeyEvent) -> Option<u16> {
    let last = u16::try_from(s.preview.len().saturating_sub(1)).unwrap_or(u16::MAX);
    let page = height.saturating_sub(6).max(1);
    let scroll = match k.code {
        KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('p') | KeyCode::Enter => return None,
        KeyCode::Char('j') | KeyCode::Down => scroll.saturating_add(1),
        KeyCode::Char('k') | KeyCode::Up => scroll.saturating_sub(1),
        KeyCode::PageDown | KeyCode::Char(' ') => scroll.saturating_add(page),
        KeyCode::PageUp => scroll.saturating_sub(page),
        KeyCode::Char('g') | KeyCode::Home => 0,
        KeyCode::Char('G') | KeyCode::End => last,
        _ => scroll,
    };
    Some(scroll.min(last))
}

fn toggle_filters(s: &mut InsightState, ctx: &Ctx) -> Vec<Action> {
    s.filters_on = !s.filters_on;
    let state = if s.filters_on { "on" } else { "off" };
    // What the recompute will offer: the recommendation does not depend on the filters.
    let offered = offered_tools(ctx.tk, ctx.rec, &s.filters).len();
    vec![
        Action::Stale,
        Action::info(format!(
            "tool filters {state}: {offered} of {} recommended tools offered",
            ctx.rec.tools.len()
        )),
    ]
}

/// The selected tool (or member-less group), or the error saying why there is none.
fn selected_tool(ctx: &Ctx) -> Result<NodeIndex, Vec<Action>> {
    ctx.selected
        .filter(|&ix| ctx.tk.kind(ix) != NodeKind::Action)
        .ok_or_else(|| vec![Action::error("select a tool first".into())])
}

fn choose_tool(s: &mut InsightState, ctx: &Ctx) -> Vec<Action> {
    let ix = match selected_tool(ctx) {
        Ok(ix) => ix,
        Err(e) => return e,
    };
    s.toggle_chosen(ctx.tk.name(ix));
    s.filters_on = true;
    let n = s.filters.chosen.len();
    vec![
        Action::Stale,
        Action::info(format!(
            "{n} forced tool choice(s); the filters stage is on (F turns it off)"
        )),
    ]
}

fn toggle_enabled(ctx: &Ctx) -> Vec<Action> {
    let ix = match selected_tool(ctx) {
        Ok(ix) => ix,
        Err(e) => return e,
    };
    let now = !ctx.tk.node(ix).enabled();
    let mut out = vec![Action::Insight(InsightAction::Enable {
        tool: ix,
        enabled: now,
    })];
    if !ctx.editable() {
        let what = if now { "enabled" } else { "disabled" };
        out.push(Action::Stale);
        out.push(Action::info(format!(
            "{} {what} (in memory: no editable file)",
            ctx.tk.name(ix)
        )));
    }
    out
}

/// `:baseline FILE` loads another toolkit as the baseline; `:baseline off` clears it;
/// `:baseline` alone pins the current result.
fn baseline_command(s: &mut InsightState, ctx: &Ctx, arg: &str) -> Result<Vec<Action>, String> {
    match arg {
        "" => Ok(pin(s, ctx)),
        "off" | "clear" => {
            s.unpin();
            Ok(vec![
                Action::Insight(InsightAction::DiffPanel(false)),
                Action::info("baseline cleared".into()),
            ])
        }
        path => baseline_file(s, ctx, Path::new(path)),
    }
}

fn baseline_file(s: &mut InsightState, ctx: &Ctx, path: &Path) -> Result<Vec<Action>, String> {
    let loaded =
        toolscope_core::load::load_paths(&[path.to_path_buf()], None).map_err(|e| e.to_string())?;
    s.pin_file(
        PathBuf::from(path),
        loaded.toolkit,
        ctx.tk,
        ctx.seeds,
        ctx.params,
    );
    let changes = s
        .pinned
        .as_ref()
        .and_then(|p| p.file.as_ref())
        .map_or(0, |f| f.structural.lines().len());
    Ok(vec![
        Action::Stale,
        Action::Insight(InsightAction::DiffPanel(true)),
        Action::info(format!(
            "baseline: {} ({changes} structural change(s))",
            path.display()
        )),
    ])
}
