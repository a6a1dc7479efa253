//! Where an unclosed flow collection opened. A `[` or `{` left open is noticed by the
//! parser lines later (an unclosed `[` on line 288 surfaces as `290:3: "-" is only valid
//! inside a block`), so a parse error also names the innermost flow collection still open
//! before the line it was noticed on, as PyYAML does. The scan is lexical: quoted
//! scalars, comments and block scalars are skipped, brackets counted.

/// `info`, with the flow collection open before line `line` (1-based) if there is one.
pub fn explain(text: &str, line: u32, info: String) -> String {
    match open_before(text, line) {
        Some((b, l, c)) => format!("{info} (the `{b}` opened at {l}:{c} is not closed)"),
        None => info,
    }
}

/// The innermost `[` or `{` still open where line `line` starts: (bracket, line, column).
pub fn open_before(text: &str, line: u32) -> Option<(char, u32, u32)> {
    let mut stack: Vec<(char, u32, u32)> = Vec::new();
    // Indent of the line that started a block scalar, while inside it.
    let mut block: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i as u32 + 1;
        if n >= line {
            break;
        }
        let indent = raw.len() - raw.trim_start().len();
        if let Some(at) = block {
            if raw.trim().is_empty() || indent > at {
                continue;
            }
            block = None;
        }
        if scan_line(raw, n, &mut stack) && stack.is_empty() {
            block = Some(indent);
        }
    }
    stack.last().copied()
}

/// Counts the brackets of one line (outside quotes and comments); whether the line ends
/// by starting a block scalar (`key: |`, `- >-`).
fn scan_line(raw: &str, n: u32, stack: &mut Vec<(char, u32, u32)>) -> bool {
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    let mut content = raw.len();
    let mut chars = raw.char_indices().peekable();
    let mut col = 0u32;
    while let Some((at, c)) = chars.next() {
        col += 1;
        match quote {
            // '' inside single quotes is an escaped quote.
            Some('\'') if c == '\'' && chars.peek().is_some_and(|p| p.1 == '\'') => {
                chars.next();
                col += 1;
            }
            Some('"') if c == '\\' => {
                chars.next();
                col += 1;
            }
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '#' if prev.is_whitespace() => {
                    content = at;
                    break;
                }
                '"' | '\'' if prev.is_whitespace() || "[{,:".contains(prev) => quote = Some(c),
                '[' | '{' => stack.push((c, n, col)),
                ']' | '}' => {
                    stack.pop();
                }
                _ => {}
            },
        }
        prev = c;
    }
    if quote.is_some() {
        return false;
    }
    // The last word is a block scalar indicator: `|` or `>` with optional modifiers.
    let line = raw[..content].trim_end();
    let word = line.rsplit(char::is_whitespace).next().unwrap_or("");
    let indicator = word.starts_with(['|', '>'])
        && word[1..]
            .chars()
            .all(|c| c == '-' || c == '+' || c.is_ascii_digit());
    indicator && line.len() > word.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unclosed_bracket_is_named_where_it_opened() {
        let text = "toolkit:\n  - [a, b,\n     c\n  - [d]\n";
        assert_eq!(open_before(text, 4), Some(('[', 2, 5)));
        assert_eq!(open_before(text, 2), None);
    }

    #[test]
    fn brackets_in_quotes_comments_and_block_scalars_do_not_count() {
        let text = "a: \"[x\"\nb: '{y' # [\nc: |\n  [ not yaml\n  {\nd: [1]\ne: -\n";
        assert_eq!(open_before(text, 7), None);
    }

    #[test]
    fn a_parse_error_names_the_line_of_the_unclosed_bracket() {
        let text = "a: &a 1\nb: &b 2\ntoolkit:\n  - [*a, *b\n  - [*a]\n";
        let err = super::super::parse(text, &super::super::Limits::default())
            .expect_err("does not parse");
        assert_eq!(err.line, 5, "{err}");
        assert!(err.message.contains("opened at 4:5"), "{err}");
    }
}
