//! Writing YAML scalars so that both YAML 1.2 readers and YAML 1.1 readers (PyYAML, which
//! Chat2Graph uses) read back exactly the string or number meant.

use super::yaml::{Scalar, plain_scalar};

/// A float as YAML writes it, always with a decimal point: `1.0`, `0.75`.
pub fn float(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

/// Whether a string can be written plain without a YAML 1.1 or 1.2 reader misreading it.
pub fn plain_ok(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    let safe_chars = s
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-' | '.' | '/' | '(' | ')' | '+'));
    let yaml11 = matches!(
        s.to_ascii_lowercase().as_str(),
        "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null" | "~"
    );
    safe_chars
        && (first.is_alphabetic() || first == '_' || first == '(' || first == '/')
        && !s.ends_with(' ')
        && !yaml11
        && matches!(plain_scalar(s), Scalar::Str(_))
}

/// A string as a double-quoted YAML scalar.
pub fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() || c == '\u{feff}' || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A string as a plain scalar when safe, otherwise double-quoted with escapes.
pub fn string(s: &str) -> String {
    if plain_ok(s) {
        s.to_string()
    } else {
        double_quoted(s)
    }
}

/// Whether a multi-line string can be a literal block scalar (`|`) and read back the same.
pub fn block_ok(s: &str) -> bool {
    s.contains('\n')
        && !s.starts_with([' ', '\n'])
        && !s.chars().any(|c| c.is_control() && c != '\n')
        && !s.lines().any(|l| l.ends_with(' '))
        && !s.ends_with("\n\n")
}

/// A literal block scalar for `s`, its lines indented by `indent` spaces. Returns the
/// header (`|` or `|-`) and the body lines joined with `eol`.
pub fn literal_block(s: &str, indent: usize, eol: &str) -> String {
    let header = if s.ends_with('\n') { "|" } else { "|-" };
    let pad = " ".repeat(indent);
    let body: Vec<String> = s
        .trim_end_matches('\n')
        .split('\n')
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect();
    format!("{header}{eol}{}", body.join(eol))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::yaml::{Limits, Scalar, parse};

    fn reads_back(s: &str) {
        let text = format!("k: {}\n", string(s));
        let doc = parse(&text, &Limits::default()).expect("parses");
        let v = doc.get(doc.root.unwrap(), "k").unwrap();
        assert_eq!(doc.scalar(v), Some(Scalar::Str(s)), "{text}");
    }

    #[test]
    fn floats_keep_a_decimal_point() {
        assert_eq!(float(1.0), "1.0");
        assert_eq!(float(0.75), "0.75");
        assert_eq!(float(0.0), "0.0");
    }

    #[test]
    fn strings_read_back_as_strings() {
        for s in [
            "yes",
            "no",
            "on",
            "off",
            "null",
            "~",
            "0.5",
            "12",
            "1:30",
            ".5",
            "a: b",
            "x #y",
            "- item",
            "[x]",
            "é ünïcode",
            "tab\there",
            "quote\"d",
            "",
            " padded ",
            "plain_name",
            "create parallel subtasks (Map) action",
        ] {
            reads_back(s);
        }
        assert_eq!(string("plain_name"), "plain_name");
        assert_eq!(string("yes"), "\"yes\"");
    }
}
