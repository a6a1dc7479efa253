//! Key strings for tests, as helix's test helpers write them: characters, and named keys in
//! angle brackets (`<Esc>`, `<Enter>`, `<BS>`, `<Tab>`, `<Space>`, `<Up>`, `<Down>`, `<lt>`
//! for `<`), with `<C-x>` for Ctrl-x. The one parser every TUI test uses.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::update;
use crate::tui::app::App;
use crate::tui::msg::Msg;

/// The key events a key string stands for. Panics on an unknown name (a test typo).
pub fn parse(s: &str) -> Vec<KeyEvent> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if c == '<'
            && let Some(end) = rest.find('>')
            && end > 1
        {
            out.push(named(&rest[1..end]));
            rest = &rest[end + 1..];
            continue;
        }
        let mods = if c.is_ascii_uppercase() {
            KeyModifiers::SHIFT
        } else {
            KeyModifiers::NONE
        };
        out.push(KeyEvent::new(KeyCode::Char(c), mods));
        rest = &rest[c.len_utf8()..];
    }
    out
}

fn named(name: &str) -> KeyEvent {
    if let Some(c) = name.strip_prefix("C-").and_then(|k| k.chars().next()) {
        return KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
    }
    let code = match name {
        "Esc" => KeyCode::Esc,
        "Enter" => KeyCode::Enter,
        "BS" => KeyCode::Backspace,
        "Tab" => KeyCode::Tab,
        "Space" => KeyCode::Char(' '),
        "Down" => KeyCode::Down,
        "Up" => KeyCode::Up,
        "Left" => KeyCode::Left,
        "Right" => KeyCode::Right,
        "PgDn" => KeyCode::PageDown,
        "PgUp" => KeyCode::PageUp,
        "Home" => KeyCode::Home,
        "End" => KeyCode::End,
        "lt" => KeyCode::Char('<'),
        other => panic!("unknown key <{other}>"),
    };
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// Sends a key string to the app, one message per key.
pub fn send(app: &mut App, s: &str) {
    for k in parse(s) {
        update(app, Msg::Key(k));
    }
}

#[test]
fn parses_characters_names_and_control_keys() {
    let k = parse("aB<Esc><C-c><lt>");
    assert_eq!(k.len(), 5);
    assert_eq!(k[1].modifiers, KeyModifiers::SHIFT);
    assert_eq!(k[2].code, KeyCode::Esc);
    assert_eq!(
        (k[3].code, k[3].modifiers),
        (KeyCode::Char('c'), KeyModifiers::CONTROL)
    );
    assert_eq!(k[4].code, KeyCode::Char('<'));
}
