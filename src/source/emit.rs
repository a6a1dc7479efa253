//! Writing YAML scalars so that both YAML 1.2 readers and YAML 1.1 readers (PyYAML, which
//! Chat2Graph uses) read back exactly the string or number meant.

/// A score or threshold as a YAML float: always with a decimal point (`1.0`, `0.75`).
pub fn float(v: f64) -> String {
    if v.is_nan() {
        return ".nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 {
            ".inf".into()
        } else {
            "-.inf".into()
        };
    }
    let s = format!("{v}");
    if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    }
}

/// Words YAML 1.1 reads as booleans or null.
const RESERVED: &[&str] = &[
    "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false",
    "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL", "~",
];

/// Whether a string can be written as a plain scalar and read back as the same string.
pub fn plain_ok(s: &str) -> bool {
    if s.is_empty() || RESERVED.contains(&s) || s != s.trim() {
        return false;
    }
    if matches!(
        crate::source::yaml::plain_scalar(s),
        crate::source::yaml::Scalar::Int(_) | crate::source::yaml::Scalar::Float(_)
    ) || looks_like_number(s)
    {
        return false;
    }
    let first = s.chars().next().unwrap_or(' ');
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        return false;
    }
    !s.contains(": ")
        && !s.contains(" #")
        && !s.ends_with(':')
        && !s.chars().any(|c| c.is_control() || "[]{},".contains(c))
}

/// YAML 1.1 also reads `1_000`, `0x1F`, `1:30` (sexagesimal) and `.5` as numbers.
fn looks_like_number(s: &str) -> bool {
    let body = s.trim_start_matches(['+', '-']);
    body.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && body
            .chars()
            .all(|c| c.is_ascii_hexdigit() || "._:xXoObB+-".contains(c))
}

/// A string as a plain scalar when safe, otherwise double-quoted with escapes.
pub fn string(s: &str) -> String {
    if plain_ok(s) {
        s.to_string()
    } else {
        double_quoted(s)
    }
}

/// A double-quoted YAML string (non-ASCII kept as is, control characters escaped).
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
            c if c.is_control() || c == '\u{feff}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
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
