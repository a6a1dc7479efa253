//! The keymap as data: one table of named commands with their default keys, a help text,
//! a section and the context where they apply. The help overlay and the hint line are both
//! generated from [`BINDINGS`], so they can never disagree with what the keys do.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Every command a key can trigger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cmd {
    Quit,
    Help,
    CommandLine,
    Filter,
    FocusNext,
    FocusPrev,
    Escape,
    ThresholdUp,
    ThresholdDown,
    ThresholdUpFine,
    ThresholdDownFine,
    HopsUp,
    HopsDown,
    ToggleSeed,
    ClearSeeds,
    NextOperator,
    PrevOperator,
    ToggleScores,
    ToggleZoom,
    ToggleNeighbourhood,
    ToggleFocus,
    Refit,
    ShowMore,
    ToggleSidePanes,
    RadiusUp,
    RadiusDown,
    Centre,
    Parent,
    Child,
    PanLeft,
    PanRight,
    PanUp,
    PanDown,
    CursorUp,
    CursorDown,
    PageUp,
    PageDown,
    Home,
    End,
    Open,
    EditScore,
    EditDesc,
    AddEdge,
    AddNode,
    RemoveEdge,
    RemoveNode,
    Undo,
    Redo,
    Save,
    PinBaseline,
    ToggleDiffPanel,
    PromptPreview,
    ToggleFilters,
    ChooseTool,
    ToggleEnabled,
    Messages,
    ToggleEvidence,
}

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// Any pane (when no overlay is open).
    Global,
    /// The graph pane has focus.
    Graph,
    /// The navigator or inspector has focus (lists).
    List,
}

/// A key: code and modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key(pub KeyCode, pub KeyModifiers);

const fn ch(c: char) -> Key {
    Key(KeyCode::Char(c), KeyModifiers::NONE)
}

const fn code(c: KeyCode) -> Key {
    Key(c, KeyModifiers::NONE)
}

/// One row of the keymap.
#[derive(Debug)]
pub struct Binding {
    pub cmd: Cmd,
    /// Stable command name (used by `:` later and by user keymaps).
    pub name: &'static str,
    pub keys: &'static [Key],
    pub context: Context,
    pub section: &'static str,
    pub help: &'static str,
    /// Shown in the hint line, with this short label.
    pub hint: Option<&'static str>,
}

macro_rules! bind {
    ($cmd:ident, $name:literal, [$($k:expr),*], $ctx:ident, $sec:literal, $help:literal) => {
        Binding { cmd: Cmd::$cmd, name: $name, keys: &[$($k),*], context: Context::$ctx,
                  section: $sec, help: $help, hint: None }
    };
    ($cmd:ident, $name:literal, [$($k:expr),*], $ctx:ident, $sec:literal, $help:literal, $hint:literal) => {
        Binding { cmd: Cmd::$cmd, name: $name, keys: &[$($k),*], context: Context::$ctx,
                  section: $sec, help: $help, hint: Some($hint) }
    };
}

/// The default keymap.
#[rustfmt::skip]
pub static BINDINGS: &[Binding] = &[
    bind!(Quit, "quit", [ch('q')], Global, "General", "quit (asks when there are unsaved edits)", "quit"),
    bind!(Help, "help", [ch('?')], Global, "General", "show or hide this help", "help"),
    bind!(CommandLine, "command", [ch(':')], Global, "General", "command line (Tab completes; the commands are listed below)", "cmd"),
    bind!(Filter, "filter", [ch('/')], Global, "General", "filter the navigator"),
    bind!(FocusNext, "focus-next", [code(KeyCode::Tab)], Global, "General", "next pane", "pane"),
    bind!(FocusPrev, "focus-prev", [Key(KeyCode::BackTab, KeyModifiers::SHIFT)], Global, "General", "previous pane"),
    bind!(Escape, "escape", [code(KeyCode::Esc)], Global, "General", "close, clear the filter"),
    bind!(Messages, "messages", [ch('M')], Global, "General", "messages: the last ones in full (also :messages)"),
    bind!(ThresholdUp, "threshold-up", [ch('+'), ch('=')], Global, "Recommendation", "threshold + 0.05", "threshold"),
    bind!(ThresholdDown, "threshold-down", [ch('-')], Global, "Recommendation", "threshold - 0.05"),
    bind!(ThresholdUpFine, "threshold-up-fine", [ch('>')], Global, "Recommendation", "threshold + 0.01"),
    bind!(ThresholdDownFine, "threshold-down-fine", [ch('<')], Global, "Recommendation", "threshold - 0.01"),
    bind!(HopsUp, "hops-up", [ch(']')], Global, "Recommendation", "one more hop", "hops"),
    bind!(HopsDown, "hops-down", [ch('[')], Global, "Recommendation", "one hop fewer"),
    bind!(ToggleSeed, "toggle-seed", [ch(' ')], Global, "Recommendation", "seed / unseed the selected action", "seed"),
    bind!(ClearSeeds, "clear-seeds", [ch('x')], Global, "Recommendation", "clear all seeds"),
    bind!(NextOperator, "next-operator", [ch('o')], Global, "Recommendation", "next operator (its seeds, threshold, hops)", "operator"),
    bind!(PrevOperator, "prev-operator", [ch('O')], Global, "Recommendation", "previous operator"),
    bind!(ToggleFocus, "focus-view", [ch('f')], Global, "Graph", "focus view (recommendation + frontier) / whole graph", "focus"),
    bind!(ToggleSidePanes, "side-panes", [ch('m')], Global, "Graph", "hide / show the side panes (the graph takes the width)"),
    bind!(Refit, "refit", [ch('v')], Global, "Graph", "fit the focus view to the whole recommendation again"),
    bind!(ShowMore, "show-more", [ch('n')], Global, "Graph", "focus view: go to the nodes beyond the pane's edge (the `N more` marks), then back"),
    bind!(ToggleScores, "toggle-scores", [ch('s')], Global, "Graph", "show or hide edge scores", "scores"),
    bind!(ToggleZoom, "toggle-zoom", [ch('z')], Global, "Graph", "zoom: detailed / compact / fit", "zoom"),
    bind!(ToggleNeighbourhood, "neighbourhood", [ch('N')], Global, "Graph", "neighbourhood view of the selection"),
    bind!(RadiusUp, "radius-up", [ch('}')], Global, "Graph", "neighbourhood: one hop more"),
    bind!(RadiusDown, "radius-down", [ch('{')], Global, "Graph", "neighbourhood: one hop less"),
    bind!(Centre, "centre", [ch('.')], Global, "Graph", "centre on the selection"),
    bind!(Parent, "parent", [ch('P')], Global, "Graph", "select a parent (along an incoming edge)"),
    bind!(Child, "child", [ch('c')], Global, "Graph", "select a child (along an outgoing edge)"),
    bind!(PanLeft, "pan-left", [ch('h'), code(KeyCode::Left)], Graph, "Graph", "pan left (mouse: drag)"),
    bind!(PanRight, "pan-right", [ch('l'), code(KeyCode::Right)], Graph, "Graph", "pan right"),
    bind!(PanUp, "pan-up", [ch('k'), code(KeyCode::Up)], Graph, "Graph", "pan up (mouse: wheel)"),
    bind!(PanDown, "pan-down", [ch('j'), code(KeyCode::Down)], Graph, "Graph", "pan down"),
    bind!(CursorUp, "up", [ch('k'), code(KeyCode::Up)], List, "Lists", "move up (inspector: previous edge)"),
    bind!(CursorDown, "down", [ch('j'), code(KeyCode::Down)], List, "Lists", "move down (inspector: next edge)"),
    bind!(PageUp, "page-up", [code(KeyCode::PageUp)], List, "Lists", "page up"),
    bind!(PageDown, "page-down", [code(KeyCode::PageDown)], List, "Lists", "page down"),
    bind!(Home, "first", [ch('g'), code(KeyCode::Home)], List, "Lists", "first row"),
    bind!(End, "last", [ch('G'), code(KeyCode::End)], List, "Lists", "last row"),
    bind!(Open, "open", [code(KeyCode::Enter)], List, "Lists", "operator: activate; node: centre (a group of 9+ members: also expand/collapse); edge: go to its other end"),
    bind!(EditScore, "edit-score", [ch('e')], Global, "Edit", "edit the score of the inspector's edge"),
    bind!(EditDesc, "edit-desc", [ch('E')], Global, "Edit", "edit the selected node's description (C-s applies)"),
    bind!(AddEdge, "add-edge", [ch('a')], Global, "Edit", "add an edge: a on the source, a on the target (or :link TARGET [SCORE])"),
    bind!(AddNode, "add-node", [ch('A')], Global, "Edit", "add an action or tool (:add-action / :add-tool NAME)"),
    bind!(RemoveEdge, "remove-edge", [ch('d')], Global, "Edit", "remove the inspector's edge"),
    bind!(RemoveNode, "remove-node", [ch('D')], Global, "Edit", "remove the selected node (shows the cascade, asks)"),
    bind!(Undo, "undo", [ch('u')], Global, "Edit", "undo the last edit"),
    bind!(Redo, "redo", [Key(KeyCode::Char('r'), KeyModifiers::CONTROL)], Global, "Edit", "redo"),
    bind!(Save, "save", [ch('w')], Global, "Edit", "save every changed file (also threshold/hops of the operator)", "save"),
    bind!(PinBaseline, "pin-baseline", [ch('b')], Global, "Insight", "pin the current result as the baseline (again: re-pin)"),
    bind!(ToggleDiffPanel, "diff-panel", [ch('B')], Global, "Insight", "diff panel: what entered and left since the baseline"),
    bind!(PromptPreview, "prompt-preview", [ch('p')], Global, "Insight", "prompt preview: offered tools as the model reads them"),
    bind!(ToggleFilters, "toggle-filters", [ch('F')], Global, "Insight", "tool filters stage on / off (disabled, exclusive, chosen)"),
    bind!(ChooseTool, "choose-tool", [ch('C')], Global, "Insight", "mark the selected tool as a forced choice (again: unmark)"),
    bind!(ToggleEnabled, "toggle-enabled", [ch('T')], Global, "Insight", "enable / disable the selected tool"),
    bind!(ToggleEvidence, "evidence-panel", [ch('V')], Global, "Insight", "evidence panel: the traces scored at the current threshold (:traces FILE loads them)"),
];

/// The command bound to `ev` in `context` (context-specific bindings first).
pub fn lookup(ev: &KeyEvent, context: Context) -> Option<Cmd> {
    let mods = ev.modifiers - KeyModifiers::SHIFT;
    let matches = |k: &Key| k.0 == ev.code && (k.1 - KeyModifiers::SHIFT == mods);
    let find = |ctx: Context| {
        BINDINGS
            .iter()
            .find(|b| b.context == ctx && b.keys.iter().any(matches))
            .map(|b| b.cmd)
    };
    find(context).or_else(|| find(Context::Global))
}

/// Display form of a key: `q`, `Tab`, `Space`, `←`.
pub fn key_label(k: &Key) -> String {
    let base = match k.0 {
        KeyCode::Char(' ') => "Space".to_string(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Tab => "Tab".into(),
        KeyCode::BackTab => "S-Tab".into(),
        KeyCode::Esc => "Esc".into(),
        KeyCode::Enter => "Enter".into(),
        KeyCode::Left => "Left".into(),
        KeyCode::Right => "Right".into(),
        KeyCode::Up => "Up".into(),
        KeyCode::Down => "Down".into(),
        KeyCode::PageUp => "PgUp".into(),
        KeyCode::PageDown => "PgDn".into(),
        KeyCode::Home => "Home".into(),
        KeyCode::End => "End".into(),
        other => format!("{other:?}"),
    };
    if k.1.contains(KeyModifiers::CONTROL) {
        format!("C-{base}")
    } else {
        base
    }
}

/// All keys of a binding, joined: `h/Left`.
pub fn keys_label(b: &Binding) -> String {
    b.keys.iter().map(key_label).collect::<Vec<_>>().join("/")
}

/// The hint line: `q quit  ? help  ...`, from the bindings marked as hints.
pub fn hints() -> Vec<(String, &'static str)> {
    BINDINGS
        .iter()
        .filter_map(|b| {
            let label = b.hint?;
            let key = match b.cmd {
                Cmd::ThresholdUp => "+/-".to_string(),
                Cmd::HopsUp => "[/]".to_string(),
                _ => b.keys.first().map(key_label).unwrap_or_default(),
            };
            Some((key, label))
        })
        .collect()
}

/// Sections in the order they first appear.
pub fn sections() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for b in BINDINGS {
        if !out.contains(&b.section) {
            out.push(b.section);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_is_bound_twice_in_one_context() {
        for (i, a) in BINDINGS.iter().enumerate() {
            for b in &BINDINGS[i + 1..] {
                let overlap = a.keys.iter().any(|k| b.keys.contains(k));
                let clash = a.context == b.context
                    || a.context == Context::Global && b.context != Context::Global
                    || b.context == Context::Global && a.context != Context::Global;
                assert!(!(overlap && clash), "{} and {} share a key", a.name, b.name);
            }
        }
    }

    #[test]
    fn context_bindings_win_over_global() {
        let j = KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE);
        assert_eq!(lookup(&j, Context::Graph), Some(Cmd::PanDown));
        assert_eq!(lookup(&j, Context::List), Some(Cmd::CursorDown));
        let plus = KeyEvent::new(KeyCode::Char('+'), KeyModifiers::SHIFT);
        assert_eq!(lookup(&plus, Context::Graph), Some(Cmd::ThresholdUp));
    }

    #[test]
    fn every_command_has_a_binding_and_hints_are_short() {
        assert!(hints().len() <= 12);
        assert!(BINDINGS.iter().all(|b| !b.keys.is_empty()));
    }
}
