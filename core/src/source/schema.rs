//! A tool's `input_schema` (the JSON Schema of its arguments) read from a YAML subtree.
//!
//! The native format may keep a tool's whole JSON Schema (`toolscope init` writes the
//! definitions' schemas as JSON, which is YAML flow). It is read into a JSON value with
//! limits on depth and size, counted over aliases too, so a hostile file (an alias bomb, a
//! schema nested a million deep) costs at most the limit and gets a diagnostic.

use serde_json::{Map, Number, Value};

use super::yaml::{Doc, NodeId, Scalar};

/// The deepest nesting read.
pub const MAX_DEPTH: usize = 64;
/// The most YAML nodes one schema may expand to (aliases counted each time).
pub const MAX_NODES: usize = 100_000;

/// The JSON value of the subtree at `id`, or why it cannot be one.
pub fn to_json(doc: &Doc, id: NodeId) -> Result<Value, String> {
    let mut budget = MAX_NODES;
    value(doc, id, 0, &mut budget)
}

fn value(doc: &Doc, id: NodeId, depth: usize, budget: &mut usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH}"));
    }
    *budget = budget
        .checked_sub(1)
        .ok_or_else(|| format!("larger than {MAX_NODES} nodes"))?;
    let id = doc.resolve(id);
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
        Some(Scalar::Float(f)) => match Number::from_f64(f) {
            Some(n) => Value::Number(n),
            None => return Err("a number JSON cannot hold (inf or nan)".into()),
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
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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

    #[test]
    fn deep_and_aliased_schemas_are_refused() {
        let deep = format!("s: {}1{}\n", "[".repeat(100), "]".repeat(100));
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
