//! The one place text from YAML is made safe to print: control characters (C0, DEL, C1)
//! become caret or `\u{..}` notation and bidirectional overrides are made visible, so no
//! escape sequence from a file ever reaches the terminal raw. The TUI escapes every string
//! it draws; the CLI escapes its text outputs ([`for_terminal`]); JSON, YAML, dot and
//! Mermaid outputs escape in their own syntax.

use std::borrow::Cow;

/// `s` with every unsafe character replaced by a visible escape.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

/// Multi-line text as sanitised lines (tabs become spaces, CRLF counts as one break).
pub fn sanitize_lines(s: &str) -> Vec<String> {
    s.lines()
        .map(|l| sanitize(&l.replace('\t', "    ")).into_owned())
        .collect()
}

/// A whole text output (several lines) with unsafe characters escaped; line breaks and
/// tabs are kept, as the CLI's own layout uses them.
pub fn for_terminal(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c != '\n' && c != '\t' && unsafe_char(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c == '\n' || c == '\t' {
            out.push(c);
        } else {
            push_escaped(&mut out, c);
        }
    }
    Cow::Owned(out)
}

/// The visible escape of one character that [`unsafe_char`] refuses (`^[`, `\u{202e}`),
/// for exporters to write in their own syntax: a name keeps a visible trace of the
/// character instead of losing it or reordering what is shown.
pub fn visible(c: char) -> String {
    let mut out = String::new();
    push_escaped(&mut out, c);
    out
}

/// JSON text (as serde_json writes it, C0 controls already escaped) with DEL, C1 controls
/// and bidi overrides written as `\uXXXX` too. These characters only occur inside JSON
/// strings, where the escape means the same character, so the value is unchanged.
pub fn json_safe(json: &str) -> Cow<'_, str> {
    // Line breaks outside strings are the pretty printer's layout; inside strings serde_json
    // has already escaped them.
    let escape = |c: char| c != '\n' && unsafe_char(c);
    if !json.chars().any(escape) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if escape(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether `c` must never reach a terminal raw: C0 and C1 controls, DEL and the bidi
/// controls that reorder what is shown.
pub fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\u{0}'..='\u{1f}' => {
            out.push('^');
            out.push(char::from(c as u8 ^ 0x40));
        }
        '\u{7f}' => out.push_str("^?"),
        c if unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_output_keeps_layout_but_not_escapes() {
        assert_eq!(for_terminal("a\tb\nc\x1b]0;t\x07\n"), "a\tb\nc^[]0;t^G\n");
        assert!(matches!(for_terminal("plain\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn json_keeps_its_value_but_not_raw_controls() {
        let raw = serde_json::to_string_pretty(&["a\u{7f}b\u{9b}c\u{202e}d\n"]).unwrap();
        let safe = json_safe(&raw);
        assert!(!safe.chars().any(|c| c != '\n' && unsafe_char(c)), "{safe}");
        let back: Vec<String> = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, ["a\u{7f}b\u{9b}c\u{202e}d\n"]);
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(sanitize("schema_design é 漢"), Cow::Borrowed(_)));
    }

    #[test]
    fn escapes_become_visible() {
        assert_eq!(sanitize("a\x1b[31mred"), "a^[[31mred");
        assert_eq!(sanitize("bell\x07\x7f"), "bell^G^?");
        assert_eq!(sanitize("c1\u{9b}2J"), "c1\\u{9b}2J");
        assert_eq!(sanitize("rtl\u{202e}x"), "rtl\\u{202e}x");
        assert_eq!(sanitize("line\nbreak\r"), "line^Jbreak^M");
    }

    #[test]
    fn lines_are_split_and_cleaned() {
        assert_eq!(sanitize_lines("a\tb\r\nc\x1b"), vec!["a    b", "c^["]);
    }
}
