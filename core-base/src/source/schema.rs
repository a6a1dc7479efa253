//! A tool's `input_schema` (the JSON Schema of its arguments) read from a YAML subtree.
//!
//! The native format may keep a tool's whole JSON Schema (`toolscope init` writes the
//! definitions' schemas as JSON, which is YAML flow). It is read into a JSON value with
//! limits on depth and size, counted over aliases too, so a hostile file (an alias bomb, a
//! schema nested a million deep) costs at most the limit and gets a diagnostic.
//!
//! These limits are the one set every reader and writer of schemas shares (the loader
//! here, `init`'s definitions, the MCP sidecar cache, the native writer behind `init` and
//! `convert --to native`): a writer first [`fit`]s a schema to them, so what toolscope
//! writes, toolscope reads. A schema of [`MAX_DEPTH`] levels sits a few levels inside a
//! toolkit file or a sidecar cache, within both the YAML and the JSON readers' nesting
//! limit of 128.

use serde_json::{Map, Number, Value};

use super::yaml::{Doc, NodeId, Scalar};

/// The most levels of arrays and objects one schema may nest (the schema itself is the
/// first level; an empty `{}` counts as one).
pub const MAX_DEPTH: usize = 100;
/// The most values one schema may hold (YAML nodes, aliases counted each time they are
/// used; mapping keys not counted).
pub const MAX_NODES: usize = 100_000;

/// Cuts `schema` to the limits: arrays and objects at the deepest level kept become `{}`
/// (any value), and a schema that still holds more than [`MAX_NODES`] values becomes `{}`
/// whole. Returns what was done, for a message, or `None` when it fit.
pub fn fit(schema: &mut Value) -> Option<String> {
    let d = depth(schema);
    let mut why = None;
    if d > MAX_DEPTH {
        cut(schema, MAX_DEPTH - 1);
        why = Some(format!(
            "nests {d} levels; kept to {MAX_DEPTH} (deeper parts are written as {{}})"
        ));
    }
    let n = count(schema);
    if n > MAX_NODES {
        *schema = Value::Object(Map::new());
        why = Some(format!(
            "holds {n} values, over the limit of {MAX_NODES}; written as {{}}"
        ));
    }
    why
}

/// Whether `schema` is within the limits (what [`fit`] leaves alone).
pub fn fits(schema: &Value) -> bool {
    depth(schema) <= MAX_DEPTH && count(schema) <= MAX_NODES
}

/// Levels of arrays and objects on the deepest path (a scalar: 0).
pub fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// The values `v` holds, itself included (as [`to_json`] counts them).
fn count(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(count).sum(),
        Value::Object(o) => o.values().map(count).sum(),
        _ => 0,
    }
}

fn cut(v: &mut Value, left: usize) {
    match v {
        Value::Array(_) | Value::Object(_) if left == 0 => *v = Value::Object(Map::new()),
        Value::Array(a) => a.iter_mut().for_each(|x| cut(x, left - 1)),
        Value::Object(o) => o.values_mut().for_each(|x| cut(x, left - 1)),
        _ => {}
    }
}

/// The JSON value of the subtree at `id`, or why it cannot be one.
pub fn to_json(doc: &Doc, id: NodeId) -> Result<Value, String> {
    let mut budget = MAX_NODES;
    value(doc, id, 0, &mut budget)
}

fn value(doc: &Doc, id: NodeId, depth: usize, budget: &mut usize) -> Result<Value, String> {
    *budget = budget
        .checked_sub(1)
        .ok_or_else(|| format!("larger than {MAX_NODES} nodes"))?;
    let id = doc.resolve(id);
    // `depth` levels are above this node: as an array or object it is level `depth + 1`.
    if depth >= MAX_DEPTH && (doc.seq(id).is_some() || doc.map(id).is_some()) {
        return Err(format!("nested deeper than {MAX_DEPTH} levels"));
    }
    if let Some(items) = doc.seq(id) {
        return items
            .iter()
            .map(|&i| value(doc, i, depth + 1, budget))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array);
    }
    if let Some(entries) = doc.map(id) {
        let mut m = Map::new();
        for &(k, v) in entries {
            let Some(key) = doc.str(doc.resolve(k)) else {
                return Err("a mapping key must be text".into());
            };
            m.insert(key.to_string(), value(doc, v, depth + 1, budget)?);
        }
        return Ok(Value::Object(m));
    }
    Ok(match doc.scalar(id) {
        None | Some(Scalar::Null) => Value::Null,
        Some(Scalar::Bool(b)) => Value::Bool(b),
        Some(Scalar::Int(i)) => Value::Number(i.into()),
        // An integer past i64 (JSON Schema bounds such as u64::MAX) stays an integer.
        Some(Scalar::Float(f)) => match doc.str(id).and_then(|t| t.parse::<u64>().ok()) {
            Some(u) => Value::Number(u.into()),
            None => match Number::from_f64(f) {
                Some(n) => Value::Number(n),
                None => return Err("a number JSON cannot hold (inf or nan)".into()),
            },
        },
        Some(Scalar::Str(s)) => Value::String(s.to_string()),
    })
}

/// A JSON value as one line of YAML flow: JSON's own syntax, with spaces after `:` and `,`
/// and strings double-quoted with the escapes YAML shares with JSON (and every character a
/// YAML reader refuses escaped too).
pub fn to_flow(v: &Value) -> String {
    let mut out = String::new();
    flow(v, &mut out);
    out
}

fn flow(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&super::emit::double_quoted(k));
                out.push_str(": ");
                flow(x, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                flow(x, out);
            }
            out.push(']');
        }
        Value::String(s) => out.push_str(&super::emit::double_quoted(s)),
        // Integers as they are (exact); other numbers as YAML floats every reader reads as
        // floats (`1.0e+308`: serde_json's `1e308` is a string to PyYAML).
        Value::Number(n) if n.is_f64() => match n.as_f64() {
            Some(f) => out.push_str(&super::emit::float(f)),
            None => out.push_str(&n.to_string()),
        },
        other => out.push_str(&other.to_string()),
    }
}

/// Whether a JSON text holds an integer no 64-bit number holds (`18446744073709551616`),
/// which a JSON value keeps only as a float.
pub fn has_wide_integer(json: &str) -> bool {
    tokens(json).is_some_and(|t| t.iter().any(|t| matches!(t, Token::Number(n) if wide(n))))
}

fn wide(n: &str) -> bool {
    !n.contains(['.', 'e', 'E']) && n.parse::<i64>().is_err() && n.parse::<u64>().is_err()
}

/// [`to_flow`] of a schema's JSON text, with its integers written digit for digit (a
/// value would round those beyond 64 bits to floats); `None` when the text is not JSON.
pub fn to_flow_exact(json: &str) -> Option<String> {
    let mut out = String::with_capacity(json.len());
    for t in tokens(json)? {
        match t {
            Token::Punct(c @ (',' | ':')) => {
                out.push(c);
                out.push(' ');
            }
            Token::Punct(c) => out.push(c),
            Token::String(s) => out.push_str(&super::emit::double_quoted(&s)),
            Token::Number(n) if n.contains(['.', 'e', 'E']) => {
                let v: Value = serde_json::from_str(n).ok()?;
                flow(&v, &mut out);
            }
            Token::Number(n) => out.push_str(n),
            Token::Word(w) => out.push_str(w),
        }
    }
    Some(out)
}

enum Token<'a> {
    Punct(char),
    String(String),
    Number(&'a str),
    Word(&'a str),
}

/// The tokens of a JSON text (checked JSON first, so the scan need not validate).
fn tokens(json: &str) -> Option<Vec<Token<'_>>> {
    serde_json::from_str::<serde::de::IgnoredAny>(json).ok()?;
    let b = json.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            c @ (b'{' | b'}' | b'[' | b']' | b',' | b':') => {
                out.push(Token::Punct(char::from(c)));
                i += 1;
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let text = json.get(i..=j)?;
                out.push(Token::String(serde_json::from_str(text).ok()?));
                i = j + 1;
            }
            _ => {
                let end = json[i..]
                    .find([' ', '\t', '\n', '\r', ',', ':', ']', '}'])
                    .map_or(json.len(), |k| i + k);
                let word = &json[i..end];
                out.push(match word.as_bytes()[0] {
                    b'-' | b'0'..=b'9' => Token::Number(word),
                    _ => Token::Word(word),
                });
                i = end;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Integers beyond 64 bits keep their digits; everything else is written as
    /// [`to_flow`] writes the value (issue 46 item 4).
    #[test]
    fn exact_flow_keeps_wide_integers_and_matches_to_flow() {
        let text = r#"{"a": 18446744073709551616, "b": [-99999999999999999999, 1.5, 1e308, 7, true, null], "c\u00e9\n": "x\"y"}"#;
        assert!(has_wide_integer(text));
        let exact = to_flow_exact(text).expect("JSON");
        let value: Value = serde_json::from_str(text).expect("JSON");
        let rounded = to_flow(&value);
        assert_eq!(
            exact
                .replace("18446744073709551616", "")
                .replace("-99999999999999999999", ""),
            rounded
                .replace("1.8446744073709552e+19", "")
                .replace("-1.0e+20", ""),
            "{exact}\n{rounded}"
        );
        assert!(exact.contains("18446744073709551616") && exact.contains("-99999999999999999999"));
        assert!(!has_wide_integer(
            r#"{"a": 18446744073709551615, "b": "18446744073709551616"}"#
        ));
        assert_eq!(to_flow_exact("{"), None);
    }

    fn read(text: &str) -> Result<Value, String> {
        let doc =
            crate::source::yaml::parse(text, &Default::default()).map_err(|e| format!("{e:?}"))?;
        let root = doc.root.ok_or("empty")?;
        to_json(&doc, doc.get(root, "s").ok_or("no s")?)
    }

    #[test]
    fn flow_reads_back_the_same_value() {
        let v = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "a \"quoted\" path:\n\tC:\\x \u{7f}\u{85}\u{2028} é"},
                "n": {"type": ["integer", "null"], "default": -3, "minimum": 0.5},
                "flags": {"type": "array", "items": {"enum": [true, false, null, "yes", "1"]}}
            },
            "required": ["path"],
            "empty": {}, "none": []
        });
        let text = format!("s: {}\n", to_flow(&v));
        assert_eq!(read(&text).unwrap(), v, "{text}");
    }

    /// Issue 35 items 14 and 18: what a writer fits to the limits reads back, the same.
    #[test]
    fn a_fitted_schema_reads_back_and_floats_stay_floats() {
        fn nest(n: usize) -> Value {
            (0..n).fold(json!(1), |v, _| json!({ "a": v }))
        }
        for n in [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 127] {
            let mut v = nest(n);
            let was = v.clone();
            let note = fit(&mut v);
            assert_eq!(note.is_some(), n > MAX_DEPTH, "{n}");
            assert!(depth(&v) <= MAX_DEPTH);
            let text = format!("s: {}\n", to_flow(&v));
            let back = read(&text).unwrap_or_else(|e| panic!("{n} levels: {e}"));
            assert_eq!(back, v);
            if n <= MAX_DEPTH {
                assert_eq!(back, was);
            }
        }
        let mut wide = json!({"enum": (0..MAX_NODES).collect::<Vec<_>>()});
        assert!(fit(&mut wide).unwrap().contains("values"));
        assert_eq!(wide, json!({}));
        let mut fits = json!({"enum": (0..MAX_NODES - 2).collect::<Vec<_>>()});
        assert_eq!(fit(&mut fits), None);
        assert!(read(&format!("s: {}\n", to_flow(&fits))).is_ok());
        let v: Value = serde_json::from_str(
            r#"{"max": 1e308, "min": -1.5e-300, "big": 18446744073709551615, "neg": -9223372036854775808, "f": 1.0, "x": 0.1}"#,
        )
        .unwrap();
        let flow = to_flow(&v);
        assert!(
            flow.contains("1.0e+308") && flow.contains("-1.5e-300"),
            "{flow}"
        );
        assert!(
            flow.contains("18446744073709551615") && flow.contains("-9223372036854775808"),
            "{flow}"
        );
        assert_eq!(read(&format!("s: {flow}\n")).unwrap(), v);
    }

    #[test]
    fn deep_and_aliased_schemas_are_refused() {
        let deep = format!("s: {}1{}\n", "[".repeat(101), "]".repeat(101));
        assert!(read(&deep).unwrap_err().contains("deeper"));
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..8 {
            bomb += &format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n",
                p = i - 1
            );
        }
        bomb += "s: *a7\n";
        assert!(read(&bomb).unwrap_err().contains("larger"));
        assert!(read("s: {a: .inf}\n").is_err());
    }
}
