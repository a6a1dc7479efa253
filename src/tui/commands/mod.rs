//! The `:` command line: the table of typed commands, parsing and running them. Arguments run to the end of the
//! line, so names with spaces work (`:operator Query Expert/1`).

use std::path::Path;

use toolscope_core::model::NodeKind;

pub mod actions;
pub mod complete;
pub mod keymap;

use crate::tui::app::{App, Level};
use crate::tui::editing;

/// What the argument of a command completes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Args {
    None,
    Operators,
    Actions,
    /// Actions, tools and groups.
    Nodes,
    /// Export formats, then a file name.
    Formats,
    /// A file name (not completed).
    File,
}

/// One `:` command (helix's typed commands): its name, aliases, what its argument
/// completes to, a one-line help and the handler. Dispatch, completion and the help
/// overlay are generated from [`COMMANDS`]; adding a command is adding a row.
pub struct Typed {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub args: Args,
    /// Argument shown in the help, e.g. `[FILE]`.
    pub usage: &'static str,
    pub help: &'static str,
    pub run: fn(&mut App, &str) -> Result<(), String>,
}

macro_rules! typed {
    ($name:literal, [$($alias:literal),*], $args:ident, $usage:literal, $help:literal, $run:expr) => {
        Typed { name: $name, aliases: &[$($alias),*], args: Args::$args, usage: $usage,
                help: $help, run: $run }
    };
}

/// Every `:` command. Rows for later commands (`:traces`, `:fit`, `:mcp discover`) go here
/// with their handlers; the tests check every row has help and that no name collides.
#[rustfmt::skip]
pub static COMMANDS: &[Typed] = &[
    typed!("w", ["write"], File, "[FILE]", "save every changed file; with FILE, write the open file there", |a, arg| {
        if arg.is_empty() { editing::save(a) } else { editing::save_as(a, Path::new(arg), false) }
    }),
    typed!("w!", [], File, "FILE", "write the open file to FILE, overwriting it", |a, arg| editing::save_as(a, Path::new(arg), true)),
    typed!("wq", ["x"], None, "", "save, then quit", |a, _| {
        editing::save(a).map(|()| {
            if !a.is_modified() && a.dialog().is_none() {
                a.quit = true;
            }
        })
    }),
    typed!("q", ["quit"], None, "", "quit (asks when there are unsaved edits)", |a, _| {
        editing::request_quit(a);
        Ok(())
    }),
    typed!("q!", [], None, "", "quit, dropping unsaved edits", |a, _| {
        a.quit = true;
        Ok(())
    }),
    typed!("reload", [], None, "", "read the files again (asks when there are unsaved edits)", editing::reload),
    typed!("undo", [], None, "", "undo the last edit", editing::undo),
    typed!("redo", [], None, "", "redo", editing::redo),
    typed!("link", [], Nodes, "TARGET [SCORE]", "add an edge from the selected node", editing::link),
    typed!("add-action", [], None, "NAME", "add an action", editing::add_action),
    typed!("add-tool", [], None, "NAME", "add a tool, called by the selected action", editing::add_tool),
    typed!("operator", ["op"], Operators, "NAME", "make an operator active", operator),
    typed!("goto", ["g"], Nodes, "NAME", "select and centre a node", goto),
    typed!("seed", [], Actions, "ACTION", "seed / unseed an action", seed),
    typed!("threshold", ["t"], None, "VALUE", "set the threshold (0 to 1)", threshold),
    typed!("hops", ["h"], None, "N", "set the hops", hops),
    typed!("baseline", [], File, "[FILE]", "pin the result as the baseline (FILE: of another toolkit)", crate::tui::insight::commands::baseline_command),
    typed!("export", [], Formats, "FORMAT FILE", "export the graph (dot, json, mermaid, svg) to a new file", |a, arg| crate::tui::insight::commands::export_command(a, arg, false)),
    typed!("export!", [], Formats, "FORMAT FILE", "export, replacing FILE if it exists (never an opened toolkit)", |a, arg| crate::tui::insight::commands::export_command(a, arg, true)),
    typed!("traces", [], File, "[FILE...]", "load trace files for the evidence (no FILE: read the same files again)", crate::tui::evidence_panel::commands::traces_command),
    typed!("fit", [], None, "", "fit Call scores to the loaded traces, as one undoable edit (the diff goes to :messages)", crate::tui::evidence_panel::commands::fit_command),
    typed!("mcp", [], None, "discover [SERVER]", "start the MCP servers (all or SERVER), list their tools; runs the programs the files name, only on this command", crate::tui::mcp_discovery::command),
    typed!("messages", ["mes"], None, "", "the messages of this session, newest last", messages),
    typed!("diagnostics", ["diag"], None, "", "what reading the files found (as `toolscope lint`), in the message log", diagnostics),
    typed!("help", [], None, "", "keys and commands", |a, _| {
        a.overlay = Some(crate::tui::app::Overlay::Help);
        Ok(())
    }),
];

/// The command called `name` or aliased so.
pub fn find(name: &str) -> Option<&'static Typed> {
    COMMANDS
        .iter()
        .find(|c| c.name == name || c.aliases.contains(&name))
}

/// Names and aliases, for completion.
pub fn names() -> impl Iterator<Item = &'static str> {
    COMMANDS
        .iter()
        .flat_map(|c| std::iter::once(c.name).chain(c.aliases.iter().copied()))
}

/// Runs one command line (without the leading `:`): a typed command, else a key command
/// by its name in the key table.
pub fn run(app: &mut App, line: &str) {
    let line = line.trim();
    let (cmd, arg) = match line.split_once(char::is_whitespace) {
        Some((c, a)) => (c, a.trim()),
        None => (line, ""),
    };
    if cmd.is_empty() {
        return;
    }
    // A key command by its name (`:toggle-scores`), from the key table.
    let key_cmd = keymap::BINDINGS.iter().find(|b| b.name == cmd);
    let result = match (find(cmd), key_cmd) {
        (Some(c), _) => (c.run)(app, arg),
        (None, Some(b)) if arg.is_empty() => {
            actions::apply(app, b.cmd);
            Ok(())
        }
        _ => Err(format!(
            "unknown command `{cmd}`; commands: {}",
            COMMANDS
                .iter()
                .map(|c| c.name)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    };
    if let Err(e) = result {
        app.set_status(Level::Error, e);
    }
}

/// `:diagnostics`: the files' diagnostics, one message each, in the message log.
fn diagnostics(app: &mut App, _: &str) -> Result<(), String> {
    use toolscope_core::diag::Severity;
    let list: Vec<(Level, String)> = app
        .diagnostics()
        .iter()
        .map(|d| {
            let level = if d.severity == Severity::Error {
                Level::Error
            } else {
                Level::Info
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
    messages(app, "")
}

fn messages(app: &mut App, _: &str) -> Result<(), String> {
    app.overlay = Some(crate::tui::app::Overlay::Messages { scroll: 0 });
    Ok(())
}

/// `:operator NAME`: a name several operators share (operators of one name in several
/// files, shown as `NAME @ FILE`) is refused with the choices, as `--operator` is.
fn operator(app: &mut App, name: &str) -> Result<(), String> {
    let ops = app.tk.operators_named(name);
    if ops.len() > 1 {
        let labels: Vec<String> = ops.iter().map(|o| o.label()).collect();
        return Err(format!(
            "`{name}` names {} operators; pass one of: {}",
            ops.len(),
            labels.join(", ")
        ));
    }
    let i = ops
        .first()
        .and_then(|op| app.tk.operators.iter().position(|o| std::ptr::eq(o, *op)))
        .ok_or_else(|| {
            let names: Vec<&str> = app.tk.operators.iter().map(|o| o.name.as_str()).collect();
            format!("no operator `{name}`; operators: {}", names.join(", "))
        })?;
    crate::tui::editing::choose_operator(app, i);
    app.set_status(
        Level::Info,
        format!("operator {}", app.tk.operators[i].name),
    );
    Ok(())
}

fn goto(app: &mut App, name: &str) -> Result<(), String> {
    let ix = find_node(app, name)?;
    app.select(ix);
    app.centre_on_selection();
    Ok(())
}

/// A node by exact name, else the one node whose name contains `name` (ignoring case).
fn find_node(app: &App, name: &str) -> Result<petgraph::stable_graph::NodeIndex, String> {
    let kinds = [NodeKind::Action, NodeKind::Tool, NodeKind::Group];
    if let Some(ix) = kinds.into_iter().find_map(|k| app.tk.find(k, name)) {
        return Ok(ix);
    }
    let needle = name.to_lowercase();
    let hits: Vec<_> = app
        .tk
        .graph
        .node_indices()
        .filter(|&ix| app.tk.name(ix).to_lowercase().contains(&needle))
        .collect();
    match hits.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!("no node named `{name}`")),
        many => {
            let mut names: Vec<&str> = many.iter().map(|&ix| app.tk.name(ix)).collect();
            names.sort_unstable();
            names.truncate(5);
            Err(format!(
                "`{name}` matches {} nodes: {}, ...",
                many.len(),
                names.join(", ")
            ))
        }
    }
}

fn seed(app: &mut App, name: &str) -> Result<(), String> {
    let ix = app
        .tk
        .action(name)
        .ok_or_else(|| format!("no action named `{name}`"))?;
    actions::toggle_seed(app, ix);
    Ok(())
}

fn threshold(app: &mut App, v: &str) -> Result<(), String> {
    let t: f64 = v.parse().map_err(|_| format!("`{v}` is not a number"))?;
    if !(0.0..=1.0).contains(&t) {
        return Err(format!("threshold {v} is outside [0, 1]"));
    }
    app.session.params.threshold = t;
    app.recompute();
    Ok(())
}

fn hops(app: &mut App, v: &str) -> Result<(), String> {
    let h: u32 = v.parse().map_err(|_| format!("`{v}` is not a hop count"))?;
    if h > 1000 {
        return Err("hops must be at most 1000".into());
    }
    app.session.params.hops = h;
    app.recompute();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::commands::keymap::BINDINGS;

    #[test]
    fn every_command_and_key_has_help_and_none_collide() {
        let mut seen: Vec<&str> = Vec::new();
        for c in COMMANDS {
            assert!(!c.help.trim().is_empty(), ":{} has no help", c.name);
            for n in std::iter::once(c.name).chain(c.aliases.iter().copied()) {
                assert!(!seen.contains(&n), "`:{n}` names two commands");
                seen.push(n);
            }
        }
        let mut names: Vec<&str> = Vec::new();
        for b in BINDINGS {
            assert!(
                !b.help.trim().is_empty(),
                "key command {} has no help",
                b.name
            );
            assert!(
                !names.contains(&b.name),
                "two key commands are called {}",
                b.name
            );
            names.push(b.name);
        }
    }

    #[test]
    fn every_command_is_found_by_name_and_alias() {
        for c in COMMANDS {
            assert!(std::ptr::eq(find(c.name).expect("found"), c));
            for a in c.aliases {
                assert!(std::ptr::eq(find(a).expect("found"), c));
            }
        }
        assert!(find("nope").is_none());
    }

    #[test]
    fn key_commands_run_by_name() {
        let mut app = crate::tui::tests::app(160, 48);
        let before = app.show_scores;
        run(&mut app, "toggle-scores");
        assert_ne!(app.show_scores, before);
        run(&mut app, "no-such-thing");
        let status = app.status.clone().expect("refused");
        assert!(status.text.contains("unknown command"), "{status:?}");
    }
}
