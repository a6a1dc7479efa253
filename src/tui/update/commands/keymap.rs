//! The default keys: each binds keys, in a context, to a command of the registry by its
//! name. The help and the hint line read the keys from here, so they never disagree
//! with what the keys do.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// Any pane (when no overlay is open).
    Global,
    /// The graph pane is the active pane.
    Graph,
    /// The navigator or inspector is the active pane (lists).
    List,
    /// A replay is shown (its steps, play, tune); before the panes' keys.
    Replay,
    /// The replay's tune list is open; before the replay's keys.
    Tune,
    /// The list of loaded runs (`R`) is open; it takes every key while open.
    Pick,
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

const fn ctrl(c: char) -> Key {
    Key(KeyCode::Char(c), KeyModifiers::CONTROL)
}

/// Keys bound to a command (by its name in the registry) in a context.
#[derive(Debug)]
pub struct Binding {
    pub command: &'static str,
    pub keys: &'static [Key],
    pub context: Context,
}

macro_rules! bind {
    ($name:literal, [$($k:expr),*]) => {
        Binding { command: $name, keys: &[$($k),*], context: Context::Global }
    };
    ($name:literal, [$($k:expr),*], $ctx:ident) => {
        Binding { command: $name, keys: &[$($k),*], context: Context::$ctx }
    };
}

/// The default keymap.
#[rustfmt::skip]
pub static KEYMAP: &[Binding] = &[
    bind!("quit", [ch('q')]),
    bind!("help", [ch('?')]),
    bind!("command", [ch(':')]),
    bind!("filter", [ch('/')]),
    bind!("focus-next", [code(KeyCode::Tab)]),
    bind!("focus-prev", [Key(KeyCode::BackTab, KeyModifiers::SHIFT)]),
    bind!("escape", [code(KeyCode::Esc)]),
    bind!("messages", [ch('M')]),
    bind!("threshold-up", [ch('+'), ch('=')]),
    bind!("threshold-down", [ch('-')]),
    bind!("threshold-up-fine", [ch('>')]),
    bind!("threshold-down-fine", [ch('<')]),
    bind!("hops-up", [ch(']')]),
    bind!("hops-down", [ch('[')]),
    bind!("toggle-seed", [ch(' ')]),
    bind!("clear-seeds", [ch('x')]),
    bind!("next-operator", [ch('o')]),
    bind!("prev-operator", [ch('O')]),
    bind!("focus-view", [ch('f')]),
    bind!("side-panes", [ch('m')]),
    bind!("refit", [ch('v')]),
    bind!("show-more", [ch('n')]),
    bind!("toggle-scores", [ch('s')]),
    bind!("toggle-zoom", [ch('z')]),
    bind!("neighbourhood", [ch('N')]),
    bind!("radius-up", [ch('}')]),
    bind!("radius-down", [ch('{')]),
    bind!("centre", [ch('.')]),
    bind!("parent", [ch('P')]),
    bind!("child", [ch('c')]),
    bind!("pan-left", [ch('h'), code(KeyCode::Left)], Graph),
    bind!("pan-right", [ch('l'), code(KeyCode::Right)], Graph),
    bind!("pan-up", [ch('k'), code(KeyCode::Up)], Graph),
    bind!("pan-down", [ch('j'), code(KeyCode::Down)], Graph),
    bind!("up", [ch('k'), code(KeyCode::Up)], List),
    bind!("down", [ch('j'), code(KeyCode::Down)], List),
    bind!("page-up", [code(KeyCode::PageUp)], List),
    bind!("page-down", [code(KeyCode::PageDown)], List),
    bind!("first", [ch('g'), code(KeyCode::Home)], List),
    bind!("last", [ch('G'), code(KeyCode::End)], List),
    bind!("open", [code(KeyCode::Enter)], List),
    bind!("unfold", [ch('i')]),
    bind!("edit-score", [ch('e')]),
    bind!("edit-desc", [ch('E')]),
    bind!("add-edge", [ch('a')]),
    bind!("add-node", [ch('A')]),
    bind!("remove-edge", [ch('d')]),
    bind!("remove-node", [ch('D')]),
    bind!("undo", [ch('u')]),
    bind!("redo", [ctrl('r')]),
    bind!("w", [ch('w')]),
    bind!("pin-baseline", [ch('b')]),
    bind!("diff-panel", [ch('B')]),
    bind!("prompt-preview", [ch('p')]),
    bind!("toggle-filters", [ch('F')]),
    bind!("choose-tool", [ch('C')]),
    bind!("toggle-enabled", [ch('T')]),
    bind!("evidence-panel", [ch('V')]),
    bind!("replay-runs", [ch('R')]),
    bind!("step-after", [ch('S')]),
    bind!("replay-next", [code(KeyCode::Right), ch('l')], Replay),
    bind!("replay-prev", [code(KeyCode::Left), ch('h')], Replay),
    bind!("replay-first", [ch('g'), code(KeyCode::Home)], Replay),
    bind!("replay-last", [ch('G'), code(KeyCode::End)], Replay),
    bind!("replay-play", [ch(' ')], Replay),
    bind!("replay-faster", [ch(';')], Replay),
    bind!("replay-slower", [ch(',')], Replay),
    bind!("replay-next-miss", [ch(')')], Replay),
    bind!("replay-prev-miss", [ch('(')], Replay),
    bind!("replay-tune", [ch('t')], Replay),
    bind!("replay-next-run", [code(KeyCode::PageDown)], Replay),
    bind!("replay-prev-run", [code(KeyCode::PageUp)], Replay),
    bind!("replay-leave", [code(KeyCode::Esc)], Replay),
    bind!("tune-down", [ch('j'), code(KeyCode::Down)], Tune),
    bind!("tune-up", [ch('k'), code(KeyCode::Up)], Tune),
    bind!("tune-apply", [code(KeyCode::Enter)], Tune),
    bind!("tune-close", [ch('t'), code(KeyCode::Esc)], Tune),
    bind!("runs-down", [ch('j'), code(KeyCode::Down)], Pick),
    bind!("runs-up", [ch('k'), code(KeyCode::Up)], Pick),
    bind!("runs-page-down", [code(KeyCode::PageDown)], Pick),
    bind!("runs-page-up", [code(KeyCode::PageUp)], Pick),
    bind!("runs-first", [ch('g'), code(KeyCode::Home)], Pick),
    bind!("runs-last", [ch('G'), code(KeyCode::End)], Pick),
    bind!("runs-open", [code(KeyCode::Enter)], Pick),
    bind!("runs-close", [code(KeyCode::Esc)], Pick),
    bind!("runs-order", [ch('o')], Pick),
    bind!("runs-misses", [ch('f')], Pick),
];

/// The command bound to `ev` in `context` (context-specific bindings first).
pub fn lookup(ev: &KeyEvent, context: Context) -> Option<&'static str> {
    lookup_only(ev, context).or_else(|| lookup_only(ev, Context::Global))
}

/// The command bound to `ev` in `context` itself.
pub fn lookup_only(ev: &KeyEvent, context: Context) -> Option<&'static str> {
    let mods = ev.modifiers - KeyModifiers::SHIFT;
    let matches = |k: &Key| k.0 == ev.code && (k.1 - KeyModifiers::SHIFT == mods);
    KEYMAP
        .iter()
        .find(|b| b.context == context && b.keys.iter().any(matches))
        .map(|b| b.command)
}

/// The first key bound to `command` as an event (a command the `:` line runs by sending
/// its key to a pane that reads keys, as the replay does).
pub fn first_event(command: &str) -> Option<KeyEvent> {
    let b = KEYMAP.iter().find(|b| b.command == command)?;
    let k = b.keys.first()?;
    Some(KeyEvent::new(k.0, k.1))
}

/// Display form of a key: `q`, `Tab`, `Space`, `Left`.
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

/// The keys bound to `command`, joined (`h/Left`); empty when it has none.
pub fn keys_of(command: &str) -> String {
    KEYMAP
        .iter()
        .filter(|b| b.command == command)
        .flat_map(|b| b.keys.iter().map(key_label))
        .collect::<Vec<_>>()
        .join("/")
}

/// The first key bound to `command`.
pub fn first_key(command: &str) -> Option<String> {
    KEYMAP
        .iter()
        .find(|b| b.command == command)
        .and_then(|b| b.keys.first())
        .map(key_label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_is_bound_twice_in_one_context() {
        for (i, a) in KEYMAP.iter().enumerate() {
            for b in &KEYMAP[i + 1..] {
                let overlap = a.keys.iter().any(|k| b.keys.contains(k));
                // A pane's keys share the key space with the global ones; an open list's
                // or a replay's win over them on purpose.
                let pane = |c: Context| matches!(c, Context::Graph | Context::List);
                let clash = a.context == b.context
                    || a.context == Context::Global && pane(b.context)
                    || b.context == Context::Global && pane(a.context);
                assert!(
                    !(overlap && clash),
                    "{} and {} share a key",
                    a.command,
                    b.command
                );
            }
        }
    }

    #[test]
    fn context_bindings_win_over_global() {
        let j = KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE);
        assert_eq!(lookup(&j, Context::Graph), Some("pan-down"));
        assert_eq!(lookup(&j, Context::List), Some("down"));
        let plus = KeyEvent::new(KeyCode::Char('+'), KeyModifiers::SHIFT);
        assert_eq!(lookup(&plus, Context::Graph), Some("threshold-up"));
    }
}
