//! A one-line text field as hands expect it: a cursor, the readline keys (Ctrl-A/E,
//! Home/End, Ctrl-U/K/W, Left/Right, Delete) and a selection of the whole text. A field
//! that opens on a value (a score, a module path) opens with it selected, so typing
//! replaces it and Backspace clears it; a refused Enter selects the text again. Paste
//! (bracketed, one event) inserts the text with line breaks made spaces. Used by the
//! `:` line, the filter and the editing dialogs' one-line fields.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

use toolscope_core::text::sanitize;

/// A one-line field: its text, the cursor (a byte offset at a character boundary) and
/// whether the whole text is selected.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Field {
    text: String,
    cursor: usize,
    selected: bool,
}

impl Field {
    /// A field holding `text`, the cursor at its end.
    pub fn new(text: impl Into<String>) -> Field {
        let text = text.into();
        Field {
            cursor: text.len(),
            text,
            selected: false,
        }
    }

    /// A field holding `text`, all of it selected (typing replaces it).
    pub fn selected(text: impl Into<String>) -> Field {
        let mut f = Field::new(text);
        f.selected = !f.text.is_empty();
        f
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_selected(&self) -> bool {
        self.selected
    }

    /// Selects the whole text (after a refused Enter: the next key replaces it).
    pub fn select_all(&mut self) {
        self.selected = !self.text.is_empty();
        self.cursor = self.text.len();
    }

    /// Replaces the text (completion), the cursor at its end.
    pub fn set(&mut self, text: impl Into<String>) {
        *self = Field::new(text);
    }

    /// Handles one key; `true` when the key was the field's (Enter, Esc and Tab are not).
    pub fn key(&mut self, k: &KeyEvent) -> bool {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        let alt = k.modifiers.contains(KeyModifiers::ALT);
        match k.code {
            KeyCode::Char('a') if ctrl => self.move_to(0),
            KeyCode::Char('e') if ctrl => self.move_to(self.text.len()),
            KeyCode::Char('u') if ctrl => self.cut(0, self.cursor),
            KeyCode::Char('k') if ctrl => self.cut(self.cursor, self.text.len()),
            KeyCode::Char('w') if ctrl => self.cut(self.word_start(), self.cursor),
            KeyCode::Char('b') if ctrl => self.move_to(self.prev(self.cursor)),
            KeyCode::Char('f') if ctrl => self.move_to(self.next(self.cursor)),
            KeyCode::Char('h') if ctrl => self.cut(self.prev(self.cursor), self.cursor),
            KeyCode::Char(c) if !ctrl && !alt => self.insert(&c.to_string()),
            KeyCode::Backspace => self.cut(self.prev(self.cursor), self.cursor),
            KeyCode::Delete => self.cut(self.cursor, self.next(self.cursor)),
            KeyCode::Left if self.selected => self.move_to(0),
            KeyCode::Left => self.move_to(self.prev(self.cursor)),
            KeyCode::Right => self.move_to(self.next(self.cursor)),
            KeyCode::Home => self.move_to(0),
            KeyCode::End => self.move_to(self.text.len()),
            _ => return false,
        }
        true
    }

    /// Inserts pasted text at the cursor (over the selection); line breaks and tabs become
    /// spaces, other control characters are dropped.
    pub fn paste(&mut self, s: &str) {
        let clean: String = s
            .chars()
            .filter_map(|c| match c {
                '\n' | '\r' | '\t' => Some(' '),
                c if c.is_control() => None,
                c => Some(c),
            })
            .collect();
        self.insert(clean.trim_end());
    }

    fn insert(&mut self, s: &str) {
        if self.selected {
            self.text.clear();
            self.cursor = 0;
            self.selected = false;
        }
        self.text.insert_str(self.cursor, s);
        self.cursor += s.len();
    }

    /// Removes `from..to` (the whole text when it is selected).
    fn cut(&mut self, from: usize, to: usize) {
        if self.selected {
            *self = Field::default();
            return;
        }
        self.text.replace_range(from..to, "");
        self.cursor = from;
    }

    fn move_to(&mut self, at: usize) {
        self.selected = false;
        self.cursor = at;
    }

    fn prev(&self, at: usize) -> usize {
        self.text[..at].char_indices().last().map_or(0, |(i, _)| i)
    }

    fn next(&self, at: usize) -> usize {
        self.text[at..]
            .chars()
            .next()
            .map_or(at, |c| at + c.len_utf8())
    }

    /// Where Ctrl-W cuts from: back over spaces, then over the word before them.
    fn word_start(&self) -> usize {
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end();
        trimmed
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
            .map_or(0, |(i, c)| i + c.len_utf8())
    }

    /// The field as spans: the selection shown reversed, else the cursor as a reversed
    /// cell (a space at the end).
    pub fn spans(&self) -> Vec<Span<'static>> {
        let rev = Style::new().add_modifier(Modifier::REVERSED);
        let s = |t: &str| sanitize(t).into_owned();
        if self.selected {
            return vec![Span::styled(s(&self.text), rev), Span::raw(" ")];
        }
        let (before, after) = self.text.split_at(self.cursor);
        let mut chars = after.chars();
        let under = chars.next().map_or(" ".to_string(), |c| c.to_string());
        vec![
            Span::raw(s(before)),
            Span::styled(s(&under), rev),
            Span::raw(s(chars.as_str())),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(f: &mut Field, keys: &str) {
        for k in crate::tui::update::keystr::parse(keys) {
            f.key(&k);
        }
    }

    #[test]
    fn a_selected_value_is_replaced_by_typing_and_cleared_by_backspace() {
        let mut f = Field::selected("0.9");
        press(&mut f, "0.55");
        assert_eq!(f.text(), "0.55");
        let mut f = Field::selected("0.9");
        press(&mut f, "<BS>");
        assert_eq!(f.text(), "");
        // An arrow keeps the value and ends the selection.
        let mut f = Field::selected("0.9");
        press(&mut f, "<End>5");
        assert_eq!(f.text(), "0.95");
    }

    #[test]
    fn readline_keys_move_and_cut() {
        let mut f = Field::new("score plan act");
        press(&mut f, "<C-w>");
        assert_eq!(f.text(), "score plan ");
        press(&mut f, "<C-a>x<C-e>y");
        assert_eq!(f.text(), "xscore plan y");
        press(&mut f, "<Home><Right><C-k>");
        assert_eq!(f.text(), "x");
        press(&mut f, "<C-u>");
        assert_eq!(f.text(), "");
        let mut f = Field::new("abc");
        press(&mut f, "<Left><BS>");
        assert_eq!(f.text(), "ac");
    }

    #[test]
    fn paste_inserts_one_line_over_the_selection() {
        let mut f = Field::selected("old");
        f.paste("new\nline\u{1b}\n");
        assert_eq!(f.text(), "new line");
    }

    #[test]
    fn wide_characters_keep_the_cursor_on_boundaries() {
        let mut f = Field::new("héé");
        press(&mut f, "<Left><BS><C-w>");
        assert_eq!(f.text(), "é");
    }
}
