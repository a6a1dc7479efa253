//! `update`: the only place the app state changes in response to a message.

pub(crate) mod apply;
pub mod commands;
pub mod editing;
pub(crate) mod evidence;
pub(crate) mod insight;
#[cfg(test)]
pub(crate) mod keystr;
pub(crate) mod mcp;
pub(crate) mod mouse;
pub(crate) mod navigator;
pub(crate) mod params;
pub(crate) mod replay;
pub(crate) mod replay_keys;
pub mod row;
pub(crate) mod view_steps;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::tui::app::{ActivePane, App, Level, Overlay, PromptKind};
use crate::tui::evidence_panel;
use crate::tui::mcp_discovery;
use crate::tui::msg::Msg;
use crate::tui::navigator::commands::set_filter;
use crate::tui::update::commands::keymap::{self, Context};
use crate::tui::update::navigator::hook;

/// Handles what changed on disk since the last batch of messages, once per batch: the
/// toolkit files, then the trace files.
pub fn flush(app: &mut App) {
    crate::tui::update::editing::flush(app);
    crate::tui::update::evidence::hook(app, |p, _| evidence_panel::commands::flush(p));
    crate::tui::update::replay::flush(app);
    app.ensure_fresh();
}

/// Applies one message; the recommendation its actions made stale is computed once, at
/// the end, so what is read or drawn next is fresh.
pub fn update(app: &mut App, msg: Msg) {
    message(app, msg);
    app.ensure_fresh();
}

fn message(app: &mut App, msg: Msg) {
    match msg {
        Msg::Key(k) => key(app, k),
        Msg::Paste(s) => paste(app, &s),
        Msg::Mouse(m) => crate::tui::update::mouse::mouse(app, m),
        Msg::Resize(w, h) => {
            app.size = (w, h);
            app.with_graph(|g, s| g.resized(s));
        }
        Msg::TracesChanged => app.evidence.changed_on_disk(),
        Msg::Watch(ev) => {
            if let Some(m) = app.session.queue(ev) {
                app.set_status(m.level, m.text);
            }
        }
        Msg::McpDone(report) => {
            let said = mcp_discovery::finished(&mut app.mcp, report);
            apply::apply(app, said);
        }
        Msg::FitDone(done) => {
            crate::tui::update::evidence::hook(app, |p, ctx| {
                evidence_panel::commands::fit_done(p, ctx, done)
            });
        }
        Msg::ExportDone(done) => crate::tui::update::insight::export_done(app, done),
        Msg::LayoutReady(_) => app.layout_ready(),
        Msg::MarksExpired(generation) => app.marks.expire(generation),
        Msg::ReplayTick(generation) => crate::tui::update::replay::tick(app, generation),
        Msg::ReplayHits(done) => app.replay.hits_done(done),
        Msg::ReplaySummaries(done) => app.replay.summaries_done(done),
        Msg::ReplayJob(done) => crate::tui::update::replay::job_done(app, done),
        Msg::InputClosed(_) | Msg::Terminate => {
            crate::tui::update::editing::end_without_asking(app)
        }
    }
}

fn key(app: &mut App, k: KeyEvent) {
    let overlay_open = app.overlay.is_some();
    if let Some(said) = mcp_discovery::cancel_key(&app.mcp, &k, overlay_open) {
        apply::apply(app, said);
        return;
    }
    if let Some(said) =
        evidence_panel::commands::cancel_fit_key(&mut app.evidence, &k, overlay_open)
    {
        app.set_status(Level::Info, said);
        return;
    }
    // Ctrl-C asks as `q` does; a second Ctrl-C in the question quits with the unsaved
    // edits in the recovery file the next start offers (never dropped by Ctrl-C).
    if k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char('c') {
        match app.overlay.take() {
            Some(Overlay::Dialog(d)) if *d == crate::tui::update::editing::dialog::Dialog::Quit => {
                crate::tui::update::editing::end_without_asking(app)
            }
            _ => crate::tui::update::editing::request_quit(app),
        }
        return;
    }
    match app.overlay.take() {
        Some(Overlay::Help) => crate::tui::view::help::key(app, k),
        Some(Overlay::Prompt { kind, text }) => prompt_key(app, kind, text, k),
        Some(Overlay::Dialog(d)) => crate::tui::update::editing::key(app, *d, k),
        Some(Overlay::Preview { scroll }) => {
            let height = app.size.1;
            app.overlay =
                crate::tui::insight::commands::preview_key(&app.insight, height, scroll, k)
                    .map(|scroll| Overlay::Preview { scroll });
        }
        Some(Overlay::Messages { scroll }) => messages_key(app, scroll, k),
        None if crate::tui::update::replay_keys::key(app, &k) => {}
        None => {
            let ctx = match app.active_pane {
                ActivePane::Graph => Context::Graph,
                ActivePane::Navigator | ActivePane::Inspector => Context::List,
            };
            if let Some(name) = keymap::lookup(&k, ctx) {
                crate::tui::update::commands::run(app, name);
            }
        }
    }
}

/// Keys while the message log is open: scroll back (k) and forward (j), or close.
fn messages_key(app: &mut App, scroll: u16, k: KeyEvent) {
    let scroll = match k.code {
        KeyCode::Esc | KeyCode::Char('q' | 'M') | KeyCode::Enter => return,
        KeyCode::Char('k') | KeyCode::Up => scroll.saturating_add(1),
        KeyCode::Char('j') | KeyCode::Down => scroll.saturating_sub(1),
        _ => scroll,
    };
    let last = u16::try_from(app.log.len().saturating_sub(1)).unwrap_or(u16::MAX);
    app.overlay = Some(Overlay::Messages {
        scroll: scroll.min(last),
    });
}

/// A key in the `:` line or the filter (a [`Field`](crate::tui::field::Field)): Enter runs
/// the line and closes it, as vim's does (a refusal is in the status line and the message
/// log), Tab completes, Esc closes (and clears the filter).
fn prompt_key(app: &mut App, kind: PromptKind, mut text: crate::tui::field::Field, k: KeyEvent) {
    match k.code {
        KeyCode::Esc => {
            if kind == PromptKind::Filter {
                hook(app, |n, c| set_filter(n, c, String::new()));
            }
            return;
        }
        KeyCode::Enter => {
            if kind == PromptKind::Command {
                crate::tui::update::commands::run(app, text.text());
            }
            return;
        }
        KeyCode::Tab if kind == PromptKind::Command => {
            let done = crate::tui::update::commands::complete::complete(app, text.text());
            text.set(done);
        }
        _ => {
            text.key(&k);
        }
    }
    prompt_changed(app, kind, text);
}

/// The prompt after its text changed: the filter applies as typed.
fn prompt_changed(app: &mut App, kind: PromptKind, text: crate::tui::field::Field) {
    if kind == PromptKind::Filter {
        let t = text.text().to_string();
        hook(app, |n, c| set_filter(n, c, t));
    }
    app.overlay = Some(Overlay::Prompt { kind, text });
}

/// Pasted text (bracketed paste, one event): into the open field or editor; ignored
/// elsewhere (a paste is never taken as keys).
pub fn paste(app: &mut App, s: &str) {
    match app.overlay.take() {
        Some(Overlay::Prompt { kind, mut text }) => {
            text.paste(s);
            prompt_changed(app, kind, text);
        }
        Some(Overlay::Dialog(mut d)) => {
            crate::tui::update::editing::dialog::paste(&mut d, s);
            app.overlay = Some(Overlay::Dialog(d));
        }
        other => app.overlay = other,
    }
}
