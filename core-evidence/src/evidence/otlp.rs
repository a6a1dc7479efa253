//! OpenTelemetry traces as the collector's file exporter writes them: OTLP JSON, one
//! `{"resourceSpans": [...]}` object a line.
//!
//! The GenAI semantic conventions mark a tool call as a span whose `gen_ai.operation.name`
//! is `execute_tool`, with the tool in `gen_ai.tool.name`. Each such span belongs to the
//! nearest *ancestor* span carrying the operator attribute (`gen_ai.agent.name` by
//! default): that ancestor is one record, an operator invocation. Operator spans without
//! tool calls are records with no calls. Parents are looked up across all lines of a file
//! (exporters split one trace over several batches). A record's calls are in the order of
//! their spans' `startTimeUnixNano`; ties keep their file order, and a span without a
//! usable start time keeps its place in the file: it goes right after the span before it
//! (the first span of a record, untimed, stays first).
//!
//! What the model was given (SPEC 8): `gen_ai.tool.definitions` on the spans under an
//! invocation (the inference spans) is the record's `available`, the union of their
//! names in first-seen order; each entry's `name` or `function.name`, the attribute a JSON
//! string or a structured array. No span carrying it leaves `available` unknown.
//!
//! A line is read all or nothing: a line reported bad adds no span.

use std::collections::HashMap;

use serde_json::Value;

use super::read::Diags;
use super::traces::diag;
use super::{Record, Target};
use crate::diag::{Code, Diagnostic};

/// The attribute naming the operator by default.
pub const AGENT_ATTR: &str = "gen_ai.agent.name";

/// One span, reduced to what the attribution needs.
struct Span {
    line: u32,
    trace: String,
    parent: String,
    operator: Option<String>,
    tool: Option<String>,
    /// `startTimeUnixNano` (`None` when missing or not a number).
    start: Option<u64>,
    /// The tool names of its `gen_ai.tool.definitions`, if it has the attribute.
    defs: Option<Vec<String>>,
}

/// The attribute listing the tool definitions given to the model.
pub const TOOL_DEFINITIONS: &str = "gen_ai.tool.definitions";

/// Parses OTLP JSON lines into records (in the order of their operator spans) and
/// diagnostics for bad lines and tool calls with no operator.
pub fn parse_otlp(file: &str, text: &str, operator_attr: &str) -> (Vec<Record>, Vec<Diagnostic>) {
    let mut lines = OtlpLines::new(file, operator_attr);
    for (i, line) in text.lines().enumerate() {
        lines.line(u32::try_from(i + 1).unwrap_or(u32::MAX), line);
    }
    let (records, diags) = lines.finish();
    (records, diags.finish())
}

/// OTLP lines fed one at a time (the bounded reader streams them, `evidence::read`): the
/// spans are kept, since a parent may come in a later line, and attributed at the end.
pub(crate) struct OtlpLines<'a> {
    file: &'a str,
    operator_attr: &'a str,
    spans: Vec<(String, Span)>,
    diags: Diags,
}

impl<'a> OtlpLines<'a> {
    pub(crate) fn new(file: &'a str, operator_attr: &'a str) -> OtlpLines<'a> {
        OtlpLines {
            file,
            operator_attr,
            spans: Vec::new(),
            diags: Diags::default(),
        }
    }

    /// Reads one line (blank lines are skipped); returns the bytes its spans hold.
    pub(crate) fn line(&mut self, line_no: u32, line: &str) -> usize {
        if line.trim().is_empty() {
            return 0;
        }
        let before = self.spans.len();
        if let Err(msg) = read_line(line, line_no, self.operator_attr, &mut self.spans) {
            // All or nothing: the spans read before the bad one go too.
            self.spans.truncate(before);
            let d = diag(self.file, line_no, 1, Code::OtlpShape, msg);
            self.diags.push(d);
        }
        self.spans[before..].iter().map(span_bytes).sum()
    }

    /// The records and the diagnostics of every line read.
    pub(crate) fn finish(self) -> (Vec<Record>, Diags) {
        attribute(self.file, self.operator_attr, &self.spans, self.diags)
    }
}

/// What a span holds, for the reader's memory budget.
fn span_bytes((id, s): &(String, Span)) -> usize {
    let opt = |t: &Option<String>| t.as_ref().map_or(0, String::len);
    let defs = s.defs.as_ref().map_or(0, |d| {
        d.iter()
            .map(|n| std::mem::size_of::<String>() + n.len())
            .sum()
    });
    std::mem::size_of::<(String, Span)>()
        + id.len()
        + s.trace.len()
        + s.parent.len()
        + opt(&s.operator)
        + opt(&s.tool)
        + defs
}

/// Each tool call span to its nearest operator span: the records, in the order of their
/// operator spans.
fn attribute(
    file: &str,
    operator_attr: &str,
    spans: &[(String, Span)],
    mut diags: Diags,
) -> (Vec<Record>, Diags) {
    // (trace, span id) -> position in `spans`; the first span with an id wins.
    let mut by_id: HashMap<(&str, &str), usize> = HashMap::new();
    for (i, (id, s)) in spans.iter().enumerate() {
        by_id.entry((s.trace.as_str(), id.as_str())).or_insert(i);
    }
    let mut record_of: HashMap<usize, usize> = HashMap::new();
    let mut records: Vec<Record> = Vec::new();
    for (i, (_, s)) in spans.iter().enumerate() {
        if let Some(op) = &s.operator {
            record_of.insert(i, records.len());
            records.push(Record {
                file: file.to_string(),
                line: s.line,
                id: None,
                target: Target::Operator(op.clone()),
                threshold: None,
                hops: None,
                called: Vec::new(),
                ok: None,
                calls: Some(Vec::new()),
                available: None,
            });
        }
    }
    let parent: Vec<Option<usize>> = spans
        .iter()
        .map(|(_, s)| by_id.get(&(s.trace.as_str(), s.parent.as_str())).copied())
        .collect();
    let at_or_above = operator_at_or_above(spans, &parent);
    for (i, (_, s)) in spans.iter().enumerate() {
        let Some(names) = &s.defs else { continue };
        let Some(op_ix) = at_or_above[i] else {
            continue;
        };
        let available = records[record_of[&op_ix]]
            .available
            .get_or_insert_with(Vec::new);
        for n in names {
            if !available.contains(n) {
                available.push(n.clone());
            }
        }
    }
    let owner = |i: usize| parent[i].and_then(|p| at_or_above[p]);
    for i in in_call_order(spans, owner) {
        let s = &spans[i].1;
        let Some(tool) = &s.tool else { continue };
        match owner(i) {
            Some(op_ix) => {
                let r = &mut records[record_of[&op_ix]];
                r.called.push(tool.clone());
                r.calls.get_or_insert_with(Vec::new).push(tool.clone());
            }
            None => diags.push(diag(
                file,
                s.line,
                1,
                Code::OtlpNoOperator,
                format!("tool call `{tool}` has no ancestor span with `{operator_attr}`; ignored"),
            )),
        }
    }
    (records, diags)
}

/// The tool spans in call order: by start time, a span without one taking the time of the
/// tool span before it in the file with the same `owner` (its record), so it keeps its
/// place; ties in file order (the sort is stable).
fn in_call_order(spans: &[(String, Span)], owner: impl Fn(usize) -> Option<usize>) -> Vec<usize> {
    let mut last: HashMap<Option<usize>, u64> = HashMap::new();
    let mut tools: Vec<(u64, usize)> = Vec::new();
    for (i, (_, s)) in spans.iter().enumerate() {
        if s.tool.is_some() {
            let at = last.entry(owner(i)).or_insert(0);
            *at = s.start.unwrap_or(*at);
            tools.push((*at, i));
        }
    }
    tools.sort_by_key(|&(t, _)| t);
    tools.into_iter().map(|(_, i)| i).collect()
}

/// For each span, the nearest span at or above it (itself included) with an operator.
/// Each span is resolved once (memoised walks), so long parent chains stay linear, and a
/// parent cycle in hostile input resolves to no operator instead of looping.
fn operator_at_or_above(spans: &[(String, Span)], parent: &[Option<usize>]) -> Vec<Option<usize>> {
    const TODO: u8 = 0;
    const ACTIVE: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![TODO; spans.len()];
    let mut out: Vec<Option<usize>> = vec![None; spans.len()];
    let mut path = Vec::new();
    for start in 0..spans.len() {
        let mut cur = Some(start);
        let mut found = None;
        while let Some(i) = cur {
            if state[i] == DONE {
                found = out[i];
                break;
            }
            if state[i] == ACTIVE {
                break; // a cycle: no operator above
            }
            if spans[i].1.operator.is_some() {
                found = Some(i);
                break;
            }
            state[i] = ACTIVE;
            path.push(i);
            cur = parent[i];
        }
        for i in path.drain(..) {
            state[i] = DONE;
            out[i] = found;
        }
        if spans[start].1.operator.is_some() {
            state[start] = DONE;
            out[start] = Some(start);
        }
    }
    out
}

fn read_line(
    line: &str,
    line_no: u32,
    operator_attr: &str,
    out: &mut Vec<(String, Span)>,
) -> Result<(), String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let Some(resources) = v.get("resourceSpans").and_then(Value::as_array) else {
        return Err("expected an object with a `resourceSpans` array".into());
    };
    for rs in resources {
        let scopes = rs.get("scopeSpans").and_then(Value::as_array);
        for ss in scopes.into_iter().flatten() {
            let spans = ss.get("spans").and_then(Value::as_array);
            for span in spans.into_iter().flatten() {
                out.push(read_span(span, line_no, operator_attr)?);
            }
        }
    }
    Ok(())
}

fn read_span(span: &Value, line: u32, operator_attr: &str) -> Result<(String, Span), String> {
    let text = |k: &str| {
        span.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let id = text("spanId");
    if id.is_empty() {
        return Err("a span without `spanId`".into());
    }
    let attrs = span.get("attributes").and_then(Value::as_array);
    let value = |key: &str| -> Option<&Value> {
        attrs?
            .iter()
            .find(|a| a.get("key").and_then(Value::as_str) == Some(key))?
            .get("value")
    };
    let attr = |key: &str| -> Option<String> {
        value(key)
            .and_then(|v| v.get("stringValue")?.as_str())
            .map(str::to_string)
    };
    let defs = value(TOOL_DEFINITIONS)
        .map(|v| definition_names(v).map_err(|e| format!("span `{id}`: {TOOL_DEFINITIONS}: {e}")))
        .transpose()?;
    let is_tool = attr("gen_ai.operation.name").as_deref() == Some("execute_tool");
    Ok((
        id,
        Span {
            line,
            trace: text("traceId"),
            parent: text("parentSpanId"),
            operator: attr(operator_attr),
            tool: if is_tool {
                attr("gen_ai.tool.name")
            } else {
                None
            },
            start: start_time(span),
            defs,
        },
    ))
}

/// The tool names of a `gen_ai.tool.definitions` value: a string holding a JSON array of
/// definitions, or an OTLP array whose values are definitions (key-value lists, or strings
/// holding one JSON definition each). Each definition's `name`, else its
/// `function.name`; one with neither is skipped.
fn definition_names(v: &Value) -> Result<Vec<String>, String> {
    if let Some(text) = v.get("stringValue").and_then(Value::as_str) {
        let parsed: Value =
            serde_json::from_str(text).map_err(|e| format!("not a JSON array: {e}"))?;
        let Value::Array(items) = parsed else {
            return Err("not a JSON array of definitions".into());
        };
        return Ok(items.iter().filter_map(json_name).collect());
    }
    let Some(values) = v
        .get("arrayValue")
        .map(|a| a.get("values").and_then(Value::as_array))
    else {
        return Err("neither a string nor an array".into());
    };
    let mut out = Vec::new();
    for item in values.into_iter().flatten() {
        let name = if let Some(text) = item.get("stringValue").and_then(Value::as_str) {
            serde_json::from_str::<Value>(text)
                .ok()
                .as_ref()
                .and_then(json_name)
        } else {
            item.get("kvlistValue").and_then(kv_name)
        };
        out.extend(name);
    }
    Ok(out)
}

/// `name`, else `function.name`, of a definition as JSON.
fn json_name(d: &Value) -> Option<String> {
    d.get("name")
        .or_else(|| d.get("function")?.get("name"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// `name`, else `function.name`, of a definition as an OTLP key-value list.
fn kv_name(list: &Value) -> Option<String> {
    let entry = |list: &Value, key: &str| -> Option<Value> {
        list.get("values")?
            .as_array()?
            .iter()
            .find(|e| e.get("key").and_then(Value::as_str) == Some(key))?
            .get("value")
            .cloned()
    };
    if let Some(n) =
        entry(list, "name").and_then(|v| v.get("stringValue")?.as_str().map(str::to_string))
    {
        return Some(n);
    }
    let f = entry(list, "function")?;
    let inner = f.get("kvlistValue")?;
    entry(inner, "name").and_then(|v| v.get("stringValue")?.as_str().map(str::to_string))
}

/// `startTimeUnixNano`: OTLP JSON writes the 64-bit number as a string; a plain number
/// is read too. `None` when missing or not a number.
fn start_time(span: &Value) -> Option<u64> {
    match span.get("startTimeUnixNano")? {
        Value::String(s) => s.parse().ok(),
        v => v.as_u64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(id: &str, parent: &str, attrs: &[(&str, &str)]) -> String {
        let attrs: Vec<String> = attrs
            .iter()
            .map(|(k, v)| format!("{{\"key\":\"{k}\",\"value\":{{\"stringValue\":\"{v}\"}}}}"))
            .collect();
        format!(
            "{{\"traceId\":\"t1\",\"spanId\":\"{id}\",\"parentSpanId\":\"{parent}\",\"name\":\"s\",\"attributes\":[{}]}}",
            attrs.join(",")
        )
    }

    fn line(spans: &[String]) -> String {
        format!(
            "{{\"resourceSpans\":[{{\"resource\":{{}},\"scopeSpans\":[{{\"scope\":{{}},\"spans\":[{}]}}]}}]}}\n",
            spans.join(",")
        )
    }

    #[test]
    fn tool_spans_go_to_the_nearest_operator_ancestor() {
        let tool = |id: &str, parent: &str, name: &str| {
            span(
                id,
                parent,
                &[
                    ("gen_ai.operation.name", "execute_tool"),
                    ("gen_ai.tool.name", name),
                ],
            )
        };
        let text = line(&[
            span("root", "", &[("gen_ai.agent.name", "leader")]),
            span("op1", "root", &[("gen_ai.agent.name", "Q/1")]),
            span("llm", "op1", &[("gen_ai.operation.name", "chat")]),
            tool("c1", "llm", "SchemaGetter"),
        ]) + "garbage\n"
            + &line(&[
                tool("c2", "op1", "CypherExecutor"),
                tool("c3", "root", "Planner"),
            ])
            + &line(&[tool("orphan", "missing", "X")]);
        let (recs, diags) = parse_otlp("t.json", &text, AGENT_ATTR);
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].target, Target::Operator("leader".into()));
        assert_eq!(recs[0].called, vec!["Planner"]);
        assert_eq!(recs[1].target, Target::Operator("Q/1".into()));
        assert_eq!(recs[1].called, vec!["SchemaGetter", "CypherExecutor"]);
        let got: Vec<(u32, Code)> = diags.iter().map(|d| (d.line, d.code)).collect();
        assert_eq!(got, vec![(2, Code::OtlpShape), (4, Code::OtlpNoOperator)]);
    }

    #[test]
    fn calls_are_ordered_by_start_time_ties_in_file_order() {
        let tool = |id: &str, name: &str, start: Option<&str>| {
            let s = span(
                id,
                "op",
                &[
                    ("gen_ai.operation.name", "execute_tool"),
                    ("gen_ai.tool.name", name),
                ],
            );
            match start {
                Some(t) => s.replacen('{', &format!("{{\"startTimeUnixNano\":{t},"), 1),
                None => s,
            }
        };
        let text = line(&[
            span("op", "", &[("gen_ai.agent.name", "Q")]),
            tool("c", "C", Some("\"300\"")),
            tool("a", "A", Some("\"100\"")),
            tool("b1", "B1", Some("200")),
            tool("b2", "B2", Some("\"200\"")),
        ]) + &line(&[tool("z", "Z", None)]);
        let (recs, diags) = parse_otlp("t.json", &text, AGENT_ATTR);
        assert!(diags.is_empty(), "{diags:?}");
        // Z has no start time: it goes right after B2, the tool span before it in the file
        // (the module's rule, docs/evidence.md); B1 and B2 tie and keep their file order.
        let order = vec!["A", "B1", "B2", "Z", "C"];
        assert_eq!(
            recs[0].calls.as_deref(),
            Some(&order.iter().map(|s| s.to_string()).collect::<Vec<_>>()[..])
        );
        assert_eq!(recs[0].called, order);
    }

    fn timed_tool(id: &str, name: &str, start: Option<u64>) -> String {
        let s = span(
            id,
            "op",
            &[
                ("gen_ai.operation.name", "execute_tool"),
                ("gen_ai.tool.name", name),
            ],
        );
        match start {
            Some(t) => s.replacen('{', &format!("{{\"startTimeUnixNano\":\"{t}\","), 1),
            None => s,
        }
    }

    /// Issue 35 item 16: an untimed span sorted before every timed one (as time 0).
    #[test]
    fn an_untimed_span_keeps_its_place_in_the_file() {
        let text = line(&[
            span("op", "", &[("gen_ai.agent.name", "Q")]),
            span("op2", "", &[("gen_ai.agent.name", "R")]),
            timed_tool("a", "A", Some(100)),
            timed_tool("b", "B", Some(200)),
            timed_tool("u", "U", None),
            timed_tool("c", "C", Some(150)),
            timed_tool("d", "D", Some(300)),
        ]) + &line(&[
            // Another record's late span does not move Q's untimed ones.
            span(
                "r1",
                "op2",
                &[
                    ("gen_ai.operation.name", "execute_tool"),
                    ("gen_ai.tool.name", "R1"),
                ],
            )
            .replacen('{', "{\"startTimeUnixNano\":\"900\",", 1),
            timed_tool("v", "V", None),
        ]);
        let (recs, diags) = parse_otlp("t.json", &text, AGENT_ATTR);
        assert!(diags.is_empty(), "{diags:?}");
        // A 100, C 150, B 200, U after B, D 300, V after D (its file predecessor in Q).
        assert_eq!(recs[0].called, vec!["A", "C", "B", "U", "D", "V"]);
        let untimed = line(&[
            span("op", "", &[("gen_ai.agent.name", "Q")]),
            timed_tool("x", "X", None),
            timed_tool("y", "Y", None),
            timed_tool("z", "Z", Some(5)),
        ]);
        let (recs, _) = parse_otlp("t.json", &untimed, AGENT_ATTR);
        assert_eq!(recs[0].called, vec!["X", "Y", "Z"]);
    }

    /// Issue 35 item 16: a line reported bad added the spans before its bad one.
    #[test]
    fn a_bad_line_counts_not_at_all() {
        let bad = line(&[
            span("op", "", &[("gen_ai.agent.name", "Q")]),
            timed_tool("a", "A", Some(1)),
            "{\"traceId\":\"t1\",\"name\":\"no id\"}".to_string(),
        ]);
        let good = line(&[span("op2", "", &[("gen_ai.agent.name", "R")])]);
        let (recs, diags) = parse_otlp("t.json", &(bad + &good), AGENT_ATTR);
        let ops: Vec<&Target> = recs.iter().map(|r| &r.target).collect();
        assert_eq!(ops, vec![&Target::Operator("R".into())]);
        assert_eq!(diags.len(), 1);
        assert_eq!((diags[0].line, diags[0].code), (1, Code::OtlpShape));
    }

    fn with_defs(s: String, value: &str) -> String {
        s.replacen(
            "\"attributes\":[",
            &format!("\"attributes\":[{{\"key\":\"gen_ai.tool.definitions\",\"value\":{value}}},"),
            1,
        )
        .replace(",]", "]")
    }

    /// Issue 31 item 6: `gen_ai.tool.definitions` as the record's `available`.
    #[test]
    fn tool_definitions_on_inference_spans_are_available() {
        // The JSON string form: a wrapped and a bare definition.
        let string_form = serde_json::to_string(&serde_json::json!({"stringValue":
            serde_json::json!([
                {"type": "function", "function": {"name": "ls", "parameters": {}}},
                {"type": "function", "name": "cd"},
                {"type": "function"}
            ]).to_string()}))
        .unwrap();
        // The structured form: key-value lists, one wrapped, and a JSON string entry.
        let kv = |k: &str, v: &str| format!("{{\"key\":\"{k}\",\"value\":{v}}}");
        let sv = |s: &str| format!("{{\"stringValue\":\"{s}\"}}");
        let array_form = format!(
            "{{\"arrayValue\":{{\"values\":[{{\"kvlistValue\":{{\"values\":[{},{}]}}}},{{\"kvlistValue\":{{\"values\":[{}]}}}},{}]}}}}",
            kv("type", &sv("function")),
            kv("name", &sv("cd")),
            kv(
                "function",
                &format!(
                    "{{\"kvlistValue\":{{\"values\":[{}]}}}}",
                    kv("name", &sv("pwd"))
                )
            ),
            sv("{\\\"name\\\": \\\"mv\\\"}"),
        );
        let text = line(&[
            span("op", "", &[("gen_ai.agent.name", "Q")]),
            with_defs(
                span("llm1", "op", &[("gen_ai.operation.name", "chat")]),
                &string_form,
            ),
            with_defs(
                span("llm2", "op", &[("gen_ai.operation.name", "chat")]),
                &array_form,
            ),
            timed_tool("a", "ls", Some(1)),
            span("op2", "", &[("gen_ai.agent.name", "R")]),
            with_defs(
                span("llm3", "op2", &[("gen_ai.operation.name", "chat")]),
                "{\"stringValue\":\"[]\"}",
            ),
            span("op3", "", &[("gen_ai.agent.name", "S")]),
        ]);
        let (recs, diags) = parse_otlp("t.json", &text, AGENT_ATTR);
        assert!(diags.is_empty(), "{diags:?}");
        let avail = |i: usize| recs[i].available.clone();
        assert_eq!(
            avail(0),
            Some(vec![
                "ls".to_string(),
                "cd".into(),
                "pwd".into(),
                "mv".into()
            ])
        );
        assert_eq!(avail(1), Some(vec![]), "an empty list is nothing available");
        assert_eq!(avail(2), None, "no definitions: not known");
        let broken = line(&[
            span("op", "", &[("gen_ai.agent.name", "Q")]),
            with_defs(span("llm", "op", &[]), "{\"stringValue\":\"not json\"}"),
        ]);
        let (recs, diags) = parse_otlp("t.json", &broken, AGENT_ATTR);
        assert!(recs.is_empty());
        assert!(
            diags[0].message.contains("gen_ai.tool.definitions"),
            "{}",
            diags[0]
        );
    }

    #[test]
    fn a_long_chain_stays_linear() {
        // 20k nested spans, each with a tool call child: quadratic walks would take minutes.
        let n = 20_000;
        let mut spans = vec![span("s0", "", &[("gen_ai.agent.name", "op")])];
        for i in 1..n {
            spans.push(span(&format!("s{i}"), &format!("s{}", i - 1), &[]));
            spans.push(span(
                &format!("t{i}"),
                &format!("s{i}"),
                &[
                    ("gen_ai.operation.name", "execute_tool"),
                    ("gen_ai.tool.name", "T"),
                ],
            ));
        }
        let (recs, diags) = parse_otlp("t.json", &line(&spans), AGENT_ATTR);
        assert!(diags.is_empty());
        assert_eq!(recs.len(), 1);
        assert_eq!(recs[0].called.len(), n - 1);
    }

    #[test]
    fn a_parent_cycle_ends() {
        let text = line(&[
            span("a", "b", &[]),
            span("b", "a", &[]),
            span(
                "c",
                "a",
                &[
                    ("gen_ai.operation.name", "execute_tool"),
                    ("gen_ai.tool.name", "T"),
                ],
            ),
        ]);
        let (recs, diags) = parse_otlp("t.json", &text, "custom.op");
        assert!(recs.is_empty());
        assert_eq!(diags.len(), 1);
    }
}
