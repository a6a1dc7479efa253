//! What one user-facing command of the TUI is: one row, read by the `:` line, the keymap
//! (which binds keys to rows by name), Tab completion, the help overlay and the hint line.
//! Each feature folder lists its own rows (`graph_pane::commands::COMMANDS`, ...); the
//! registry in `commands` puts the tables together. This file sits beside the shell, not in
//! `commands/`, so that a feature naming its rows names no folder that names it back.

use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::ctx::Ctx;

/// What a command's argument completes to.
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

/// Where a command sits in the help, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Section {
    General,
    Recommendation,
    Graph,
    Lists,
    Edit,
    Insight,
    Evidence,
    Replay,
}

impl Section {
    pub const ALL: [Section; 8] = [
        Section::General,
        Section::Recommendation,
        Section::Graph,
        Section::Lists,
        Section::Edit,
        Section::Insight,
        Section::Evidence,
        Section::Replay,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Section::General => "General",
            Section::Recommendation => "Recommendation",
            Section::Graph => "Graph",
            Section::Lists => "Lists",
            Section::Edit => "Edit",
            Section::Insight => "Insight",
            Section::Evidence => "Evidence",
            Section::Replay => "Replay (while shown), its tune list and runs list",
        }
    }
}

/// A command's entry in the hint line: its label, and the keys shown when they are not
/// simply its first key (`+/-` for the threshold pair).
#[derive(Debug, Clone, Copy)]
pub struct Hint {
    pub label: &'static str,
    pub keys: Option<&'static str>,
}

/// A shell command's handler: the app and the argument typed after its name (empty from a
/// key). Only the shell's own rows (`update/`: editing, the general rows) take the app.
pub type Run = fn(&mut App, &str) -> Result<(), String>;

/// A pane's command handler: the pane's state, the read-only context and the argument; it
/// returns the actions `update` applies (or a refusal for the status line).
pub type PaneRun<P> = fn(&mut P, &Ctx, &str) -> Result<Vec<Action>, String>;

/// A command handler that reads only the context.
pub type CtxRun = fn(&Ctx, &str) -> Result<Vec<Action>, String>;

/// What runs a command: the shell's own handler, a pane's (its state and the context, run
/// by `commands::run` through that pane's hook in `update/`), a replay key sent as pressed,
/// or an edit operation of the core's registry (the same arguments as `toolscope set`).
/// A pane's row names no app: it says what it wants as actions.
pub enum Handler {
    Fn(Run),
    /// Reads the context; its actions are applied as they come.
    Ctx(CtxRun),
    /// A recommendation parameter's row: as [`Handler::Ctx`], recorded as one view step
    /// (`u` undoes it).
    Params(CtxRun),
    Navigator(PaneRun<crate::tui::navigator::Navigator>),
    Evidence(PaneRun<crate::tui::evidence_panel::EvidencePane>),
    Insight(PaneRun<crate::tui::insight::InsightState>),
    Mcp(PaneRun<crate::tui::mcp_discovery::state::Discovery>),
    Replay(PaneRun<crate::tui::replay::ReplayPane>),
    /// A replay key row (`replay-next`): the key the keymap binds to it, sent to the
    /// replay as pressed.
    ReplayKey(&'static str),
    Edit(&'static toolscope_core::edit::ops::EditOp),
}

/// One command.
pub struct Command {
    /// Its name after `:` and in the keymap (`threshold-up`, `w`, `operator`).
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub args: Args,
    /// The argument as the help shows it (`[FILE]`); empty for none.
    pub usage: &'static str,
    pub doc: &'static str,
    pub section: Section,
    pub hint: Option<Hint>,
    pub handler: Handler,
}

/// A command row. `cmd!(name, [aliases], Args, "usage", Section, "doc", run)`, with an
/// optional `hint "label"` (or `hint "label" keys "+/-"`) after the section. `run` is a
/// shell handler ([`Run`]); a pane's row puts its kind before it: `@Navigator |n, ctx, arg|
/// …` makes a [`Handler::Navigator`].
macro_rules! cmd {
    (@handler ; $run:expr) => { crate::tui::update::row::Handler::Fn($run) };
    (@handler $kind:ident ; $run:expr) => { crate::tui::update::row::Handler::$kind($run) };
    ($name:literal, [$($alias:literal),*], $args:ident, $usage:literal, $sec:ident, $doc:literal, $(@ $kind:ident)? $run:expr) => {
        crate::tui::update::row::Command {
            name: $name, aliases: &[$($alias),*],
            args: crate::tui::update::row::Args::$args, usage: $usage,
            doc: $doc, section: crate::tui::update::row::Section::$sec, hint: None, handler: cmd!(@handler $($kind)? ; $run),
        }
    };
    ($name:literal, [$($alias:literal),*], $args:ident, $usage:literal, $sec:ident hint $hint:literal, $doc:literal, $(@ $kind:ident)? $run:expr) => {
        crate::tui::update::row::Command {
            name: $name, aliases: &[$($alias),*],
            args: crate::tui::update::row::Args::$args, usage: $usage,
            doc: $doc, section: crate::tui::update::row::Section::$sec,
            hint: Some(crate::tui::update::row::Hint { label: $hint, keys: None }), handler: cmd!(@handler $($kind)? ; $run),
        }
    };
    ($name:literal, [$($alias:literal),*], $args:ident, $usage:literal, $sec:ident hint $hint:literal keys $keys:literal, $doc:literal, $(@ $kind:ident)? $run:expr) => {
        crate::tui::update::row::Command {
            name: $name, aliases: &[$($alias),*],
            args: crate::tui::update::row::Args::$args, usage: $usage,
            doc: $doc, section: crate::tui::update::row::Section::$sec,
            hint: Some(crate::tui::update::row::Hint { label: $hint, keys: Some($keys) }), handler: cmd!(@handler $($kind)? ; $run),
        }
    };
}

pub(crate) use cmd;
