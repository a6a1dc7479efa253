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

/// Whether `c` must never reach a terminal raw: the one rule every surface (panes, status
/// line, CLI text, SVG, dot, Mermaid, JSON) escapes by. C0 and C1 controls and DEL; the
/// characters that change direction (the bidi marks, embeddings, overrides and isolates,
/// U+061C ARABIC LETTER MARK); the line and paragraph separators (U+2028, U+2029), which
/// some terminals break lines at; and the invisible ones a terminal draws at a width of
/// its own choosing (U+200B-U+200D zero widths, U+2060-U+2064 joiners and invisible
/// operators, U+180E, U+FEFF), so that two names that look the same never draw the same
/// and what is measured is what is drawn.
pub fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2069}'
                | '\u{feff}'
        )
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
    fn invisible_and_direction_characters_are_escaped_visibly() {
        for c in [
            '\u{2028}', '\u{2029}', '\u{061c}', '\u{200b}', '\u{200c}', '\u{200d}', '\u{feff}',
            '\u{2066}', '\u{202e}', '\u{85}', '\u{1b}',
        ] {
            let shown = sanitize(&format!("a{c}b")).into_owned();
            assert!(!shown.contains(c), "{:x}: {shown}", c as u32);
            assert!(shown.is_ascii(), "{:x}: {shown}", c as u32);
        }
        assert!(matches!(sanitize("plain é ✓ 名"), Cow::Borrowed(_)));
    }

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
