//! The registry of the TUI's commands: every user-facing operation is one row
//! ([`Command`]: name, aliases, argument, doc, section, handler), listed by the
//! feature it belongs to. The `:` line runs rows by name, the keymap binds keys to rows by
//! name, and Tab completion, the help overlay and the hint line are read from the rows, so
//! none of them can disagree with what a command does. Adding a command is adding a row to
//! its feature's table.
//!
//! Arguments run to the end of the line, so names with spaces work
//! (`:operator Query Expert/1`).

pub mod complete;
pub mod keymap;

use std::sync::OnceLock;

use toolscope_core::edit::ops::{ArgKind, EDIT_OPS, EditOp};

use crate::tui::app::{ActivePane, App, Level, Overlay, PromptKind};
use crate::tui::update::row::{Args, Command, Handler, Section, cmd};

/// The features' tables, in the order the help lists their sections' rows.
const TABLES: &[&[Command]] = &[
    GENERAL,
    crate::tui::params::COMMANDS,
    crate::tui::graph_pane::commands::COMMANDS,
    crate::tui::navigator::commands::COMMANDS,
    crate::tui::update::editing::commands::COMMANDS,
    crate::tui::insight::commands::COMMANDS,
    crate::tui::evidence_panel::commands::COMMANDS,
    crate::tui::replay::commands::COMMANDS,
    crate::tui::mcp_discovery::COMMANDS,
];

/// Every command: the features' tables, then the core's edit operations.
pub fn all() -> impl Iterator<Item = &'static Command> {
    TABLES.iter().flat_map(|t| t.iter()).chain(edit_rows())
}

/// The core's edit operations as rows (`:score FROM TO VALUE`, as `toolscope set` takes
/// them), made once.
fn edit_rows() -> &'static [Command] {
    static ROWS: OnceLock<Vec<Command>> = OnceLock::new();
    ROWS.get_or_init(|| EDIT_OPS.iter().map(edit_row).collect())
}

fn edit_row(op: &'static EditOp) -> Command {
    // Any node: the first argument may come from the selection, so the one typed first
    // can be a later one.
    let args = match op.positionals().next().map(|p| p.kind) {
        Some(ArgKind::Operator) => Args::Operators,
        Some(ArgKind::Action | ArgKind::Node) => Args::Nodes,
        _ => Args::None,
    };
    Command {
        name: op.name,
        aliases: op.aliases,
        args,
        // Made once per process for the few rows there are.
        usage: op.usage().leak(),
        doc: op.doc,
        section: Section::Edit,
        hint: None,
        handler: Handler::Edit(op),
    }
}

/// The command called `name` or aliased so.
pub fn find(name: &str) -> Option<&'static Command> {
    all().find(|c| c.name == name || c.aliases.contains(&name))
}

/// Names and aliases, for completion.
pub fn names() -> impl Iterator<Item = &'static str> {
    all().flat_map(|c| std::iter::once(c.name).chain(c.aliases.iter().copied()))
}

/// Runs one command line (without the leading `:`); a refusal goes to the status line.
pub fn run(app: &mut App, line: &str) {
    let line = line.trim();
    let (name, arg) = match line.split_once(char::is_whitespace) {
        Some((c, a)) => (c, a.trim()),
        None => (line, ""),
    };
    if name.is_empty() {
        return;
    }
    let command = find(name);
    app.running = command.map_or("", |c| c.name);
    let result = match command {
        Some(c) => handle(app, &c.handler, arg),
        None => Err(format!(
            "unknown command `{name}` (? lists every command and its keys)"
        )),
    };
    if let Err(e) = result {
        app.set_status(Level::Error, e);
    }
}

/// Runs one row's handler: a pane's through that pane's hook in `update/` (the pane taken
/// out of the app, the context built, its actions applied), the shell's with the app.
fn handle(app: &mut App, handler: &Handler, arg: &str) -> Result<(), String> {
    match *handler {
        Handler::Fn(f) => f(app, arg),
        Handler::Ctx(f) => {
            let actions = f(&app.ctx(), arg)?;
            crate::tui::update::apply::apply(app, actions);
            Ok(())
        }
        Handler::Params(f) => crate::tui::update::params::with(app, |c| f(c, arg)),
        Handler::Navigator(f) => crate::tui::update::navigator::with(app, |n, c| f(n, c, arg)),
        Handler::Evidence(f) => crate::tui::update::evidence::with(app, |p, c| f(p, c, arg)),
        Handler::Insight(f) => crate::tui::update::insight::with(app, |s, c| f(s, c, arg)),
        Handler::Mcp(f) => crate::tui::update::mcp::with(app, |d, c| f(d, c, arg)),
        Handler::Replay(f) => crate::tui::update::replay::with(app, |r, c| f(r, c, arg)),
        Handler::ReplayKey(name) => crate::tui::update::replay_keys::press(app, name),
        Handler::Edit(op) => crate::tui::update::editing::run_op(app, op, arg),
    }
}

/// The general commands: quitting, help, the command line, the filter, panes.
#[rustfmt::skip]
static GENERAL: &[Command] = &[
    cmd!("quit", ["q"], None, "", General hint "quit", "quit (asks when there are unsaved edits)", |a, _| {
        crate::tui::update::editing::request_quit(a);
        Ok(())
    }),
    cmd!("q!", [], None, "", General, "quit, dropping unsaved edits", |a, _| {
        a.quit = true;
        Ok(())
    }),
    cmd!("help", [], None, "", General hint "help", "show or hide this help", |a, _| overlay(a, Overlay::Help)),
    cmd!("command", [], None, "", General hint "cmd", "command line (Tab completes)", |a, _| prompt(a, PromptKind::Command, Default::default())),
    cmd!("filter", [], None, "", General, "filter the navigator", |a, _| {
        a.active_pane = ActivePane::Navigator;
        let text = crate::tui::field::Field::new(a.nav.filter.clone());
        prompt(a, PromptKind::Filter, text)
    }),
    cmd!("focus-next", [], None, "", General hint "pane", "next pane", |a, _| {
        a.active_pane = a.active_pane.next();
        Ok(())
    }),
    cmd!("focus-prev", [], None, "", General, "previous pane", |a, _| {
        a.active_pane = a.active_pane.prev();
        Ok(())
    }),
    cmd!("escape", [], None, "", General, "close, cancel an edge being added, clear the filter", |a, _| {
        escape(a);
        Ok(())
    }),
    cmd!("messages", ["mes"], None, "", General, "the messages of this session in full, newest last", |a, _| overlay(a, Overlay::Messages { scroll: 0 })),
    cmd!("diagnostics", ["diag"], None, "", General, "what reading the files found (as `toolscope lint`), in the message log", diagnostics),
];

/// `:diagnostics`: the files' diagnostics, one message each, in the message log.
fn diagnostics(app: &mut App, _: &str) -> Result<(), String> {
    use toolscope_core::diag::Severity;
    let list: Vec<(Level, String)> = app
        .diagnostics()
        .iter()
        .map(|d| {
            let level = match d.severity {
                Severity::Error => Level::Error,
                _ => Level::Info,
            };
            (level, d.to_string())
        })
        .collect();
    if list.is_empty() {
        app.set_status(Level::Info, "no diagnostics: the files read cleanly");
        return Ok(());
    }
    let n = list.len();
    for (level, text) in list {
        app.log.push(&crate::tui::app::Status { text, level });
    }
    app.set_status(Level::Info, format!("{n} diagnostic(s), listed above"));
    overlay(app, Overlay::Messages { scroll: 0 })
}

fn overlay(app: &mut App, o: Overlay) -> Result<(), String> {
    app.overlay = Some(o);
    Ok(())
}

fn prompt(app: &mut App, kind: PromptKind, text: crate::tui::field::Field) -> Result<(), String> {
    overlay(app, Overlay::Prompt { kind, text })
}

fn escape(app: &mut App) {
    if app.link_from.take().is_some() {
        app.set_status(Level::Info, "edge not added");
    } else if app.graph_pane.neighbourhood.is_some() {
        app.with_graph(|g, s| g.toggle_neighbourhood(s));
    } else if !app.nav.filter.is_empty() {
        crate::tui::update::navigator::hook(app, |n, c| {
            crate::tui::navigator::commands::set_filter(n, c, String::new())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keymap::KEYMAP;

    #[test]
    fn every_command_has_a_doc_and_no_name_names_two() {
        let mut seen: Vec<&str> = Vec::new();
        for c in all() {
            assert!(!c.doc.trim().is_empty(), "{} has no doc", c.name);
            for n in std::iter::once(c.name).chain(c.aliases.iter().copied()) {
                assert!(!seen.contains(&n), "`{n}` names two commands");
                seen.push(n);
            }
        }
    }

    /// Keys bind to commands by name: every bound name is a command, and every command
    /// that takes no argument (so a key can run it) has a key, except the few meant only
    /// for the `:` line.
    #[test]
    fn every_binding_names_a_command_and_every_key_command_has_a_binding() {
        for b in KEYMAP {
            assert!(
                find(b.command).is_some(),
                "the keymap binds `{}`",
                b.command
            );
            assert!(!b.keys.is_empty(), "`{}` is bound to no key", b.command);
        }
        const LINE_ONLY: &[&str] = &["q!", "wq", "reload", "fit", "diagnostics"];
        for c in all() {
            let bound = KEYMAP.iter().any(|b| b.command == c.name);
            let line_only = !c.usage.is_empty() || LINE_ONLY.contains(&c.name);
            assert!(
                bound || line_only,
                "`{}` takes no argument but no key runs it",
                c.name
            );
        }
    }

    #[test]
    fn every_command_is_found_by_name_and_alias() {
        for c in all() {
            assert!(std::ptr::eq(find(c.name).expect("found"), c));
            for a in c.aliases {
                assert!(std::ptr::eq(find(a).expect("found"), c));
            }
        }
        assert!(find("nope").is_none());
    }

    #[test]
    fn hints_are_few_and_key_commands_run_by_name() {
        assert!(all().filter(|c| c.hint.is_some()).count() <= 12);
        let mut app = crate::tui::tests::app(160, 48);
        let before = app.graph_pane.show_scores;
        run(&mut app, "toggle-scores");
        assert_ne!(app.graph_pane.show_scores, before);
        run(&mut app, "no-such-thing");
        let status = app.status.clone().expect("refused");
        assert!(status.text.contains("unknown command"), "{status:?}");
    }
}
