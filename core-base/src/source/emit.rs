//! Writing YAML scalars so that both YAML 1.2 readers and YAML 1.1 readers (PyYAML, which
//! Chat2Graph uses) read back exactly the string or number meant.

use super::yaml::{Scalar, plain_scalar};

/// A float as YAML writes it: the shortest text that reads back as the same number, in a
/// form YAML 1.1 readers (PyYAML) also read as a float. YAML 1.1 needs a decimal point and,
/// with an exponent, its sign, so `1.0`, `0.75`, `1.0e-05`, `5.0e-324`, never `1e-5` (a
/// string to PyYAML) nor a 330-digit decimal. Positional between 1e-4 and 1e16, as Python
/// prints floats; scientific outside.
pub fn float(x: f64) -> String {
    if x.is_nan() {
        return ".nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    // `{:e}` is the shortest round-trip mantissa with its decimal exponent: `5e-324`.
    let sci = format!("{x:e}");
    let (mantissa, power) = sci.split_once('e').unwrap_or((&sci, "0"));
    if (-4..16).contains(&power.parse::<i32>().unwrap_or(0)) {
        let t = format!("{x}");
        return if t.contains('.') { t } else { t + ".0" };
    }
    let mantissa = if mantissa.contains('.') {
        mantissa.to_string()
    } else {
        format!("{mantissa}.0")
    };
    let (sign, digits) = match power.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', power),
    };
    format!("{mantissa}e{sign}{digits:0>2}")
}

/// Characters a YAML 1.1 reader (PyYAML, which Chat2Graph uses) takes for line breaks
/// inside plain, quoted and block scalars, where YAML 1.2 (toolscope's reader) sees text:
/// NEL, the line separator and the paragraph separator. Written raw, they cut a block
/// scalar or fold a quoted one in Chat2Graph, so every writer puts them in double quotes as
/// escapes (`\u0085`, `\u2028`, `\u2029`), which both readers read as the character.
pub fn yaml11_break(c: char) -> bool {
    matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// Whether YAML lets `c` stand in a file as itself (its printable set: tab, line breaks,
/// everything from space on except DEL, the C1 controls but NEL, the surrogates and
/// U+FFFE/U+FFFF). Any other character fails the whole file in both readers, so writers
/// escape it.
fn yaml_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}')
        || c >= '\u{10000}'
}

/// Whether a writer must write `c` as an escape inside double quotes: what YAML cannot
/// hold raw, what a YAML 1.1 reader breaks lines at, the BOM, and what must not reach a
/// terminal raw when the file is shown.
fn escaped(c: char) -> bool {
    crate::text::unsafe_char(c) || c == '\u{feff}' || yaml11_break(c) || !yaml_printable(c)
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
            c if escaped(c) => {
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
        && !s.chars().any(|c| c != '\n' && escaped(c))
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

    /// PyYAML's (YAML 1.1) float pattern, without the sexagesimal and `.inf` forms.
    fn pyyaml_float(t: &str) -> bool {
        let t = t.strip_prefix(['-', '+']).unwrap_or(t);
        let (num, exp) = match t.split_once(['e', 'E']) {
            Some((n, e)) => (n, Some(e)),
            None => (t, None),
        };
        let Some((int, frac)) = num.split_once('.') else {
            return false;
        };
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit() || b == b'_');
        let exp_ok = exp.is_none_or(|e| {
            e.len() > 1 && e.starts_with(['-', '+']) && e[1..].bytes().all(|b| b.is_ascii_digit())
        });
        digits(int) && digits(frac) && (!int.is_empty() || !frac.is_empty()) && exp_ok
    }

    #[test]
    fn floats_are_shortest_and_read_by_yaml_1_1() {
        let cases = [
            (5e-324, "5.0e-324"),
            (1e-5, "1.0e-05"),
            (0.0001, "0.0001"),
            (1.5e300, "1.5e+300"),
            (1e16, "1.0e+16"),
            (123456789012345.0, "123456789012345.0"),
            (-2.5e-7, "-2.5e-07"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (0.1 + 0.2, "0.30000000000000004"),
        ];
        for (x, want) in cases {
            let t = float(x);
            assert_eq!(t, want);
            assert!(pyyaml_float(&t), "{t}");
            assert_eq!(t.parse::<f64>().ok(), Some(x), "{t} round-trips");
            let text = format!("k: {t}\n");
            let doc = parse(&text, &Limits::default()).expect("parses");
            let v = doc.get(doc.root.unwrap(), "k").unwrap();
            assert_eq!(doc.scalar(v), Some(Scalar::Float(x)));
        }
        assert_eq!(float(f64::INFINITY), ".inf");
        assert_eq!(float(f64::NEG_INFINITY), "-.inf");
        assert_eq!(float(f64::NAN), ".nan");
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

    /// YAML 1.1's extra line breaks never go into a block scalar; in double quotes they
    /// are escapes (see `tests/suite/pyyaml_writers.rs` for the check with PyYAML itself).
    #[test]
    fn yaml_1_1_line_breaks_are_escaped() {
        for c in ['\u{85}', '\u{2028}', '\u{2029}'] {
            let s = format!("one{c}two\nthree\n");
            assert!(!block_ok(&s), "{s:?}");
            assert!(
                super::super::patch::block(&s, "  ", "\n").is_none(),
                "{s:?}"
            );
            let q = string(&s);
            assert!(
                !q.contains(c) && q.contains(&format!("\\u{:04x}", c as u32)),
                "{q}"
            );
            reads_back(&s);
        }
    }

    /// Found by the `init_roundtrip` fuzz target: a tool named with U+FFFF was written
    /// raw, and the file then failed to parse. Every character outside YAML's printable
    /// set is written as an escape and reads back as itself.
    #[test]
    fn characters_yaml_cannot_hold_raw_are_escaped() {
        for c in [
            '\u{7f}', '\u{80}', '\u{9f}', '\u{fffe}', '\u{ffff}', '\u{1}',
        ] {
            let s = format!("tool{c}name");
            let q = string(&s);
            assert!(!q.contains(c), "{q}");
            assert!(!block_ok(&format!("{s}\nline\n")), "{s:?}");
            reads_back(&s);
        }
        // Printable text outside ASCII stays as it is.
        assert_eq!(string("ü\u{10000}\u{fffd}x"), "\"ü\u{10000}\u{fffd}x\"");
    }
}
