//! The shapes instrumentation libraries write into OTLP span attributes, read into what a
//! run needs: the tool calls an inference span's output holds, the tool names the model
//! was given, and whether the output asked for tools (SPEC 8, docs/evidence.md's table).
//!
//! Structured forms (`gen_ai.output.messages`, `gen_ai.tool.definitions`,
//! `model_request_parameters`) come as a JSON string or as an OTLP array or key-value
//! list; both are read through [`plain`], which turns an OTLP value into plain JSON.
//! Flattened forms (OpenInference `llm.output_messages.<i>...`, Traceloop
//! `gen_ai.completion.<i>...`) are collected key by key with their indices and sorted
//! numerically (`10` after `9`).

use serde_json::{Map, Value};

/// One tool call read from an inference span's output: its name and, when the library
/// wrote one, the call id that ties it to its `execute_tool` span.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OutputCall {
    pub name: String,
    pub id: Option<String>,
}

/// An OTLP `AnyValue` as plain JSON: `stringValue` a string, `intValue` (a string in OTLP
/// JSON) a number when it parses, arrays and key-value lists as JSON arrays and objects.
pub(crate) fn plain(v: &Value) -> Value {
    let Some(obj) = v.as_object() else {
        return v.clone();
    };
    if let Some(s) = obj.get("stringValue") {
        return s.clone();
    }
    if let Some(b) = obj.get("boolValue") {
        return b.clone();
    }
    if let Some(i) = obj.get("intValue") {
        return match i {
            Value::String(s) => s.parse::<i64>().map_or_else(|_| i.clone(), Value::from),
            _ => i.clone(),
        };
    }
    if let Some(d) = obj.get("doubleValue") {
        return d.clone();
    }
    if let Some(a) = obj.get("arrayValue") {
        let values = a.get("values").and_then(Value::as_array);
        return Value::Array(values.into_iter().flatten().map(plain).collect());
    }
    if let Some(kv) = obj.get("kvlistValue") {
        let mut out = Map::new();
        let values = kv.get("values").and_then(Value::as_array);
        for e in values.into_iter().flatten() {
            if let (Some(k), Some(v)) = (e.get("key").and_then(Value::as_str), e.get("value")) {
                out.insert(k.to_string(), plain(v));
            }
        }
        return Value::Object(out);
    }
    Value::Null
}

/// A structured attribute as JSON: a string holding JSON is parsed (an array's string
/// items too, each one JSON value), anything else taken as [`plain`] gives it.
pub(crate) fn structured(v: &Value) -> Result<Value, String> {
    match plain(v) {
        Value::String(s) => serde_json::from_str(&s).map_err(|e| format!("not JSON: {e}")),
        Value::Array(items) => Ok(Value::Array(
            items
                .into_iter()
                .map(|i| match i {
                    Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
                    other => other,
                })
                .collect(),
        )),
        other => Ok(other),
    }
}

/// The text of an attribute value (`stringValue`, or a number written as text).
pub(crate) fn text(v: &Value) -> Option<String> {
    match plain(v) {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The tool calls of GenAI output messages (`gen_ai.output.messages`), in message and
/// part order: parts `{"type": "tool_call", "name", "id"}`, and the older OpenAI shape
/// `tool_calls: [{"id", "function": {"name"}}]` too.
pub(crate) fn output_message_calls(messages: &Value) -> Vec<OutputCall> {
    let mut out = Vec::new();
    let list = match messages {
        Value::Array(items) => items.as_slice(),
        one @ Value::Object(_) => std::slice::from_ref(one),
        _ => &[],
    };
    for m in list {
        for p in m
            .get("parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if p.get("type").and_then(Value::as_str) == Some("tool_call") {
                out.extend(call_of(p));
            }
        }
        for c in m
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            out.extend(call_of(c));
        }
    }
    out
}

/// `name` (else `function.name`) and `id` of one call or definition as JSON.
fn call_of(c: &Value) -> Option<OutputCall> {
    Some(OutputCall {
        name: json_name(c)?,
        id: c.get("id").and_then(Value::as_str).map(str::to_string),
    })
}

/// `name`, else `function.name`, of a call or a definition as JSON.
pub(crate) fn json_name(d: &Value) -> Option<String> {
    d.get("name")
        .or_else(|| d.get("function")?.get("name"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// The tool names of a `gen_ai.tool.definitions` value: a JSON array of definitions (as a
/// string or an OTLP array of key-value lists or of JSON strings), each entry's `name` or
/// `function.name`; an entry with neither is skipped.
pub(crate) fn definition_names(v: &Value) -> Result<Vec<String>, String> {
    let items = match structured(v)? {
        Value::Array(items) => items,
        _ => return Err("not a JSON array of definitions".into()),
    };
    Ok(items.iter().filter_map(json_name).collect())
}

/// The tool names Pydantic AI 1.x gave the model: `function_tools[].name` of its
/// `model_request_parameters`.
pub(crate) fn request_parameter_names(v: &Value) -> Result<Vec<String>, String> {
    let params = structured(v)?;
    let tools = params.get("function_tools").and_then(Value::as_array);
    Ok(tools.into_iter().flatten().filter_map(json_name).collect())
}

/// Values of flattened attributes `PREFIX<i>.MIDDLE<j>.FIELD` (or `PREFIX<i>.FIELD` when
/// there is no middle), gathered one key at a time and read in index order.
#[derive(Debug, Default)]
pub(crate) struct Indexed {
    entries: Vec<((u32, u32), String, String)>,
}

impl Indexed {
    pub(crate) fn push(&mut self, at: (u32, u32), field: &str, value: String) {
        self.entries.push((at, field.to_string(), value));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Each index's `name_field` (with its `id_field`, when present), numerically sorted.
    pub(crate) fn calls(mut self, name_field: &str, id_field: &str) -> Vec<OutputCall> {
        self.entries.sort_by_key(|e| e.0);
        let mut out: Vec<((u32, u32), OutputCall)> = Vec::new();
        let mut ids: Vec<((u32, u32), String)> = Vec::new();
        for (at, field, value) in self.entries {
            if field == name_field {
                out.push((
                    at,
                    OutputCall {
                        name: value,
                        id: None,
                    },
                ));
            } else if field == id_field {
                ids.push((at, value));
            }
        }
        for (at, id) in ids {
            if let Some((_, c)) = out.iter_mut().find(|(a, _)| *a == at) {
                c.id = Some(id);
            }
        }
        out.into_iter().map(|(_, c)| c).collect()
    }
}

/// Splits `key` as `prefix<i>.middle<j>.rest` (`middle` empty: `prefix<i>.rest`, `j` 0):
/// the two indices and `rest`, or `None` when the key is not of that form.
pub(crate) fn indexed<'k>(
    key: &'k str,
    prefix: &str,
    middle: &str,
) -> Option<((u32, u32), &'k str)> {
    let rest = key.strip_prefix(prefix)?;
    let (i, rest) = rest.split_once('.')?;
    let i: u32 = i.parse().ok()?;
    if middle.is_empty() {
        return Some(((i, 0), rest));
    }
    let rest = rest.strip_prefix(middle)?;
    let (j, rest) = rest.split_once('.')?;
    Some(((i, j.parse().ok()?), rest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn otlp_values_read_as_plain_json() {
        let v = json!({"kvlistValue": {"values": [
            {"key": "n", "value": {"intValue": "12"}},
            {"key": "l", "value": {"arrayValue": {"values": [{"stringValue": "a"}, {"boolValue": true}]}}}
        ]}});
        assert_eq!(plain(&v), json!({"n": 12, "l": ["a", true]}));
        assert_eq!(text(&json!({"intValue": "7"})), Some("7".into()));
    }

    #[test]
    fn output_messages_give_their_tool_calls_in_part_order() {
        let msgs = json!([
            {"role": "assistant", "parts": [
                {"type": "text", "content": "x"},
                {"type": "tool_call", "id": "c1", "name": "B", "arguments": {}},
                {"type": "tool_call", "id": "c2", "name": "A"}
            ]},
            {"role": "assistant", "tool_calls": [{"id": "c3", "type": "function", "function": {"name": "C"}}]}
        ]);
        let got: Vec<(String, Option<String>)> = output_message_calls(&msgs)
            .into_iter()
            .map(|c| (c.name, c.id))
            .collect();
        assert_eq!(
            got,
            vec![
                ("B".into(), Some("c1".into())),
                ("A".into(), Some("c2".into())),
                ("C".into(), Some("c3".into()))
            ]
        );
    }

    #[test]
    fn flattened_keys_sort_numerically() {
        let mut ix = Indexed::default();
        for (k, v) in [
            (
                "llm.output_messages.0.message.tool_calls.10.tool_call.function.name",
                "K",
            ),
            (
                "llm.output_messages.0.message.tool_calls.9.tool_call.function.name",
                "J",
            ),
            (
                "llm.output_messages.0.message.tool_calls.9.tool_call.id",
                "id9",
            ),
            ("llm.output_messages.0.message.role", "assistant"),
        ] {
            if let Some((at, rest)) = indexed(k, "llm.output_messages.", "message.tool_calls.") {
                ix.push(at, rest, v.to_string());
            }
        }
        let calls = ix.calls("tool_call.function.name", "tool_call.id");
        assert_eq!(
            calls[0],
            OutputCall {
                name: "J".into(),
                id: Some("id9".into())
            }
        );
        assert_eq!(
            calls[1],
            OutputCall {
                name: "K".into(),
                id: None
            }
        );
        assert_eq!(
            indexed("gen_ai.completion.x.name", "gen_ai.completion.", ""),
            None
        );
    }

    #[test]
    fn request_parameters_give_the_function_tools() {
        let v = json!({"stringValue": "{\"function_tools\": [{\"name\": \"ls\"}, {\"name\": \"cd\"}], \"output_tools\": [{\"name\": \"final_result\"}]}"});
        assert_eq!(
            request_parameter_names(&v),
            Ok(vec!["ls".to_string(), "cd".into()])
        );
        assert!(request_parameter_names(&json!({"stringValue": "{"})).is_err());
    }
}
