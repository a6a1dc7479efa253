//! OpenTelemetry traces as the collector's file exporter writes them: OTLP JSON, one
//! `{"resourceSpans": [...]}` object a line.
//!
//! The GenAI semantic conventions mark a tool call as a span whose `gen_ai.operation.name`
//! is `execute_tool`, with the tool in `gen_ai.tool.name`. Each such span belongs to the
//! nearest *ancestor* span carrying the operator attribute (`gen_ai.agent.name` by
//! default): that ancestor is one record, an operator invocation. Operator spans without
//! tool calls are records with no calls. Parents are looked up across all lines of a file
//! (exporters split one trace over several batches). A record's calls are in the order of
//! their spans' `startTimeUnixNano` (ties, and spans without it, in file order).

use std::collections::HashMap;

use serde_json::Value;

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
    /// `startTimeUnixNano` (0 when missing or not a number).
    start: u64,
}

/// Parses OTLP JSON lines into records (in the order of their operator spans) and
/// diagnostics for bad lines and tool calls with no operator.
pub fn parse_otlp(file: &str, text: &str, operator_attr: &str) -> (Vec<Record>, Vec<Diagnostic>) {
    let mut lines = OtlpLines::new(file, operator_attr);
    for (i, line) in text.lines().enumerate() {
        lines.line(u32::try_from(i + 1).unwrap_or(u32::MAX), line);
    }
    lines.finish()
}

/// OTLP lines fed one at a time (the bounded reader streams them, `evidence::read`): the
/// spans are kept, since a parent may come in a later line, and attributed at the end.
pub(crate) struct OtlpLines<'a> {
    file: &'a str,
    operator_attr: &'a str,
    spans: Vec<(String, Span)>,
    diags: Vec<Diagnostic>,
}

impl<'a> OtlpLines<'a> {
    pub(crate) fn new(file: &'a str, operator_attr: &'a str) -> OtlpLines<'a> {
        OtlpLines {
            file,
            operator_attr,
            spans: Vec::new(),
            diags: Vec::new(),
        }
    }

    /// Reads one line (blank lines are skipped); returns the bytes its spans hold.
    pub(crate) fn line(&mut self, line_no: u32, line: &str) -> usize {
        if line.trim().is_empty() {
            return 0;
        }
        let before = self.spans.len();
        if let Err(msg) = read_line(line, line_no, self.operator_attr, &mut self.spans) {
            let d = diag(self.file, line_no, 1, Code::OtlpShape, msg);
            self.diags.push(d);
        }
        self.spans[before..].iter().map(span_bytes).sum()
    }

    /// The records and the diagnostics of every line read.
    pub(crate) fn finish(self) -> (Vec<Record>, Vec<Diagnostic>) {
        attribute(self.file, self.operator_attr, &self.spans, self.diags)
    }
}

/// What a span holds, for the reader's memory budget.
fn span_bytes((id, s): &(String, Span)) -> usize {
    let opt = |t: &Option<String>| t.as_ref().map_or(0, String::len);
    std::mem::size_of::<(String, Span)>()
        + id.len()
        + s.trace.len()
        + s.parent.len()
        + opt(&s.operator)
        + opt(&s.tool)
}

/// Each tool call span to its nearest operator span: the records, in the order of their
/// operator spans.
fn attribute(
    file: &str,
    operator_attr: &str,
    spans: &[(String, Span)],
    mut diags: Vec<Diagnostic>,
) -> (Vec<Record>, Vec<Diagnostic>) {
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
    // Tool spans by start time; the sort is stable, so ties keep their file order.
    let mut tools: Vec<usize> = (0..spans.len())
        .filter(|&i| spans[i].1.tool.is_some())
        .collect();
    tools.sort_by_key(|&i| spans[i].1.start);
    for i in tools {
        let s = &spans[i].1;
        let Some(tool) = &s.tool else { continue };
        match parent[i].and_then(|p| at_or_above[p]) {
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
    let attr = |key: &str| -> Option<String> {
        attrs?
            .iter()
            .find(|a| a.get("key").and_then(Value::as_str) == Some(key))
            .and_then(|a| a.get("value")?.get("stringValue")?.as_str())
            .map(str::to_string)
    };
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
        },
    ))
}

/// `startTimeUnixNano`: OTLP JSON writes the 64-bit number as a string; a plain number
/// is read too.
fn start_time(span: &Value) -> u64 {
    match span.get("startTimeUnixNano") {
        Some(Value::String(s)) => s.parse().unwrap_or(0),
        Some(v) => v.as_u64().unwrap_or(0),
        None => 0,
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
        // No start time sorts first (0); B1 and B2 tie and keep their file order.
        let order = vec!["Z", "A", "B1", "B2", "C"];
        assert_eq!(
            recs[0].calls.as_deref(),
            Some(&order.iter().map(|s| s.to_string()).collect::<Vec<_>>()[..])
        );
        assert_eq!(recs[0].called, order);
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
