//! OpenTelemetry traces as the collector's file exporter writes them: OTLP JSON, one
//! `{"resourceSpans": [...]}` object a line, from whichever instrumentation library wrote
//! them (docs/evidence.md has the table of what is read from which).
//!
//! A span is reduced to what runs need ([`Span`]): its kind (an agent invocation, an
//! inference, a tool execution, or other, from `gen_ai.operation.name`, OpenInference's
//! `openinference.span.kind` or Traceloop's `llm.request.type`), the agent it names (the
//! operator attribute: `--operator-attr`, else `gen_ai.agent.name`, `agent.name`,
//! `agent_name`), the tool it executed, the tool calls its output holds and the tools the
//! model was given (`otlp_shapes` reads each library's form). Spans are kept until the
//! file ends, since a parent may come in a later line (exporters split one trace over
//! several batches); `otlp_runs` then makes the records, one per agent invocation.
//!
//! A line is read all or nothing: a line reported bad adds no span.

use serde_json::Value;

use super::Record;
use super::lines::{Diags, diag};
use super::otlp_shapes::{
    Indexed, OutputCall, definition_names, indexed, json_name, output_message_calls, plain,
    request_parameter_names, structured, text,
};
use crate::diag::{Code, Diagnostic};

pub use super::otlp_runs::{AGENT_ATTR, AGENT_ATTRS, OperatorNaming};
use super::otlp_runs::{Kind, Span};

/// The attribute listing the tool definitions given to the model.
pub const TOOL_DEFINITIONS: &str = "gen_ai.tool.definitions";

/// Parses OTLP JSON lines into records (in the order of their agent spans) and the
/// diagnostics of the file.
pub fn parse_otlp(
    file: &str,
    text: &str,
    naming: &OperatorNaming,
) -> (Vec<Record>, Vec<Diagnostic>) {
    let mut lines = OtlpLines::new(file, naming);
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
    naming: &'a OperatorNaming,
    attrs: Vec<&'a str>,
    spans: Vec<Span>,
    diags: Diags,
}

impl<'a> OtlpLines<'a> {
    pub(crate) fn new(file: &'a str, naming: &'a OperatorNaming) -> OtlpLines<'a> {
        OtlpLines {
            file,
            naming,
            attrs: naming.attrs(),
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
        if let Err(msg) = read_line(line, line_no, &self.attrs, &mut self.spans) {
            // All or nothing: the spans read before the bad one go too.
            self.spans.truncate(before);
            let d = diag(self.file, line_no, 1, Code::OtlpShape, msg);
            self.diags.push(d);
        }
        self.spans[before..].iter().map(span_bytes).sum()
    }

    /// The records and the diagnostics of every line read.
    pub(crate) fn finish(self) -> (Vec<Record>, Diags) {
        super::otlp_runs::runs(self.file, self.naming, &self.spans, self.diags)
    }
}

/// What a span holds, for the reader's memory budget.
fn span_bytes(s: &Span) -> usize {
    let text = |t: &String| std::mem::size_of::<String>() + t.len();
    let call = |c: &OutputCall| {
        std::mem::size_of::<OutputCall>() + c.name.len() + c.id.as_ref().map_or(0, String::len)
    };
    std::mem::size_of::<Span>()
        + s.id.len()
        + s.trace.len()
        + s.parent.len()
        + s.operator.as_ref().map_or(0, String::len)
        + s.tool.as_ref().map_or(0, call)
        + s.output.iter().map(call).sum::<usize>()
        + s.defs.as_ref().map_or(0, |d| d.iter().map(text).sum())
        + s.agent_key.as_ref().map_or(0, String::len)
}

fn read_line(line: &str, line_no: u32, attrs: &[&str], out: &mut Vec<Span>) -> Result<(), String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let Some(resources) = v.get("resourceSpans").and_then(Value::as_array) else {
        return Err("expected an object with a `resourceSpans` array".into());
    };
    for rs in resources {
        let scopes = rs.get("scopeSpans").and_then(Value::as_array);
        for ss in scopes.into_iter().flatten() {
            let spans = ss.get("spans").and_then(Value::as_array);
            for span in spans.into_iter().flatten() {
                out.push(read_span(span, line_no, attrs)?);
            }
        }
    }
    Ok(())
}

/// The attributes of one span as read, before they make a [`Span`].
#[derive(Default)]
struct Seen {
    operation: Option<String>,
    oi_kind: Option<String>,
    request_type: Option<String>,
    /// The operator attributes found, by their place in the list read.
    operators: Vec<Option<String>>,
    tool_name: Option<String>,
    oi_tool_name: Option<String>,
    call_id: Option<String>,
    output: Option<Vec<OutputCall>>,
    oi_output: Indexed,
    traceloop_output: Indexed,
    defs: Option<Vec<String>>,
    oi_defs: Vec<(u32, String)>,
    traceloop_defs: Vec<(u32, String)>,
    asked_tools: bool,
    call_shaped: bool,
    genai: bool,
    agent_key: Option<String>,
}

fn read_span(span: &Value, line: u32, attrs: &[&str]) -> Result<Span, String> {
    let field = |k: &str| {
        span.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let id = field("spanId");
    if id.is_empty() {
        return Err("a span without `spanId`".into());
    }
    let mut seen = Seen {
        operators: vec![None; attrs.len()],
        ..Seen::default()
    };
    let list = span.get("attributes").and_then(Value::as_array);
    for a in list.into_iter().flatten() {
        let (Some(key), Some(value)) = (a.get("key").and_then(Value::as_str), a.get("value"))
        else {
            continue;
        };
        read_attribute(&mut seen, key, value, attrs).map_err(|e| format!("span `{id}`: {e}"))?;
    }
    let name = span.get("name").and_then(Value::as_str).unwrap_or("");
    Ok(seen.into_span(
        line,
        field("traceId"),
        id,
        field("parentSpanId"),
        name,
        start_time(span),
    ))
}

/// Reads one attribute into `seen`; an error for a structured attribute that is not what
/// its convention says (the line is then reported bad).
fn read_attribute(seen: &mut Seen, key: &str, value: &Value, attrs: &[&str]) -> Result<(), String> {
    if key.starts_with("gen_ai.") || key.starts_with("llm.") || key.starts_with("openinference.") {
        seen.genai = true;
    }
    if let Some(i) = attrs.iter().position(|a| *a == key) {
        seen.operators[i] = text(value);
        return Ok(());
    }
    match key {
        "gen_ai.operation.name" => seen.operation = text(value),
        "openinference.span.kind" => seen.oi_kind = text(value),
        "llm.request.type" => seen.request_type = text(value),
        "gen_ai.tool.name" => seen.tool_name = text(value),
        "tool.name" => seen.oi_tool_name = text(value),
        "gen_ai.tool.call.id" | "tool_call.id" => seen.call_id = text(value),
        TOOL_DEFINITIONS => {
            let names = definition_names(value).map_err(|e| format!("{TOOL_DEFINITIONS}: {e}"))?;
            seen.defs.get_or_insert_with(Vec::new).extend(names);
        }
        "model_request_parameters" => {
            // Pydantic AI 1.x; a value that does not parse is some other library's.
            if let Ok(names) = request_parameter_names(value) {
                seen.defs.get_or_insert_with(Vec::new).extend(names);
            }
        }
        "gen_ai.output.messages" => match structured(value) {
            Ok(messages) => seen.output = Some(output_message_calls(&messages)),
            Err(_) => seen.call_shaped |= text(value).is_some_and(|t| t.contains("tool_call")),
        },
        "gen_ai.response.finish_reasons" => seen.asked_tools |= asks_tools(&plain(value)),
        _ => read_flattened(seen, key, value),
    }
    Ok(())
}

/// The flattened forms: OpenInference's and Traceloop's messages and tool lists.
fn read_flattened(seen: &mut Seen, key: &str, value: &Value) {
    if let Some((at, rest)) = indexed(key, "llm.output_messages.", "message.tool_calls.") {
        seen.oi_output
            .push(at, rest, text(value).unwrap_or_default());
    } else if let Some((at, rest)) = indexed(key, "gen_ai.completion.", "tool_calls.") {
        seen.traceloop_output
            .push(at, rest, text(value).unwrap_or_default());
    } else if let Some((_, "finish_reason")) = indexed(key, "gen_ai.completion.", "") {
        seen.asked_tools |= asks_tools(&plain(value));
    } else if let Some(((i, _), "tool.json_schema")) = indexed(key, "llm.tools.", "") {
        let name = structured(value).ok().as_ref().and_then(json_name);
        seen.oi_defs.extend(name.map(|n| (i, n)));
    } else if let Some(((i, _), "name")) = indexed(key, "llm.request.functions.", "") {
        seen.traceloop_defs.extend(text(value).map(|n| (i, n)));
    } else {
        let lower = key.to_ascii_lowercase();
        let history = lower.contains("input") || lower.contains("prompt");
        if !history && (lower.contains("tool_call") || lower.contains("function_call")) {
            seen.call_shaped = true;
        }
        let agent_name = lower.contains("agent") && lower.ends_with("name");
        if seen.agent_key.is_none() && agent_name && text(value).is_some() {
            seen.agent_key = Some(key.to_string());
        }
    }
}

/// A finish reason (or a list of them) asking for tools: `tool_calls`, `tool_call`.
fn asks_tools(v: &Value) -> bool {
    match v {
        Value::String(s) => s.starts_with("tool_call"),
        Value::Array(items) => items.iter().any(asks_tools),
        _ => false,
    }
}

impl Seen {
    fn into_span(
        mut self,
        line: u32,
        trace: String,
        id: String,
        parent: String,
        name: &str,
        start: Option<u64>,
    ) -> Span {
        let op = self.operation.as_deref();
        let oi = self.oi_kind.as_deref();
        let tool_name = self.tool_name.take().or(self.oi_tool_name.take());
        let kind = if op == Some("invoke_agent") || oi == Some("AGENT") {
            Kind::Agent
        } else if matches!(op, Some("chat" | "text_completion" | "generate_content"))
            || oi == Some("LLM")
            || matches!(self.request_type.as_deref(), Some("chat" | "completion"))
        {
            Kind::Inference
        } else if op == Some("execute_tool")
            || oi == Some("TOOL")
            || (name == "running tool" && tool_name.is_some())
        {
            Kind::Tool
        } else {
            Kind::Other
        };
        let mut output = self.output.take().unwrap_or_default();
        if !self.oi_output.is_empty() {
            output.extend(
                std::mem::take(&mut self.oi_output)
                    .calls("tool_call.function.name", "tool_call.id"),
            );
        }
        if !self.traceloop_output.is_empty() {
            output.extend(std::mem::take(&mut self.traceloop_output).calls("name", "id"));
        }
        let mut defs = self.defs.take();
        for mut listed in [
            std::mem::take(&mut self.oi_defs),
            std::mem::take(&mut self.traceloop_defs),
        ] {
            if !listed.is_empty() {
                listed.sort_by_key(|e| e.0);
                defs.get_or_insert_with(Vec::new)
                    .extend(listed.into_iter().map(|(_, n)| n));
            }
        }
        let tool = match kind {
            Kind::Tool => tool_name.map(|name| OutputCall {
                name,
                id: self.call_id.take(),
            }),
            _ => None,
        };
        let unread =
            output.is_empty() && (self.call_shaped || (kind == Kind::Tool && tool.is_none()));
        Span {
            line,
            trace,
            id,
            parent,
            kind,
            operator: self.operators.into_iter().flatten().next(),
            tool,
            output,
            start,
            defs,
            asked_tools: self.asked_tools,
            unread,
            genai: self.genai || kind != Kind::Other,
            agent_key: self.agent_key,
        }
    }
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
    use crate::evidence::Target;

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
        let (recs, diags) = parse_otlp("t.json", &text, &OperatorNaming::default());
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
        let (recs, diags) = parse_otlp("t.json", &text, &OperatorNaming::default());
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
        let (recs, diags) = parse_otlp("t.json", &text, &OperatorNaming::default());
        assert!(diags.is_empty(), "{diags:?}");
        // A 100, C 150, B 200, U after B, D 300, V after D (its file predecessor in Q).
        assert_eq!(recs[0].called, vec!["A", "C", "B", "U", "D", "V"]);
        let untimed = line(&[
            span("op", "", &[("gen_ai.agent.name", "Q")]),
            timed_tool("x", "X", None),
            timed_tool("y", "Y", None),
            timed_tool("z", "Z", Some(5)),
        ]);
        let (recs, _) = parse_otlp("t.json", &untimed, &OperatorNaming::default());
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
        let (recs, diags) = parse_otlp("t.json", &(bad + &good), &OperatorNaming::default());
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
        let (recs, diags) = parse_otlp("t.json", &text, &OperatorNaming::default());
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
        let (recs, diags) = parse_otlp("t.json", &broken, &OperatorNaming::default());
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
        let (recs, diags) = parse_otlp("t.json", &line(&spans), &OperatorNaming::default());
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
        let (recs, diags) = parse_otlp(
            "t.json",
            &text,
            &OperatorNaming::new(Some("custom.op"), None),
        );
        assert!(recs.is_empty());
        assert_eq!(diags.len(), 1);
    }

    /// A span as the Collector's file exporter writes it; attribute values given as plain
    /// JSON (strings, numbers as `intValue` strings, arrays as `arrayValue`).
    fn span_of(
        trace: &str,
        id: &str,
        parent: &str,
        start: u64,
        attrs: &[(&str, serde_json::Value)],
    ) -> serde_json::Value {
        fn any(v: &serde_json::Value) -> serde_json::Value {
            use serde_json::json;
            match v {
                serde_json::Value::String(s) => json!({"stringValue": s}),
                serde_json::Value::Number(n) => json!({"intValue": n.to_string()}),
                serde_json::Value::Array(a) => {
                    json!({"arrayValue": {"values": a.iter().map(any).collect::<Vec<_>>()}})
                }
                other => json!({"stringValue": other.to_string()}),
            }
        }
        let attributes: Vec<serde_json::Value> = attrs
            .iter()
            .map(|(k, v)| serde_json::json!({"key": k, "value": any(v)}))
            .collect();
        serde_json::json!({"traceId": trace, "spanId": id, "parentSpanId": parent, "name": "s",
            "startTimeUnixNano": start.to_string(), "attributes": attributes})
    }

    fn file_of(spans: &[serde_json::Value]) -> String {
        let v = serde_json::json!({"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": spans}]}]});
        v.to_string() + "\n"
    }

    fn sv(s: &str) -> serde_json::Value {
        serde_json::Value::String(s.to_string())
    }

    fn calls(r: &Record) -> Vec<&str> {
        r.calls.iter().flatten().map(String::as_str).collect()
    }

    /// Pydantic AI 2.x: the agent's name on every chat and tool span too, calls in the chat
    /// spans' output and in tool spans (one call each, by id), parallel calls in the
    /// model's order whatever order they ran in; a nested agent of another name is its own
    /// record, and two records of one trace get `TRACE/SPAN` ids.
    #[test]
    fn one_record_per_agent_invocation_calls_once_in_the_models_order() {
        let agent = ("gen_ai.agent.name", sv("A"));
        let out = |parts: serde_json::Value| {
            (
                "gen_ai.output.messages",
                sv(&serde_json::json!([{"role": "assistant", "parts": parts}]).to_string()),
            )
        };
        let defs = (
            "gen_ai.tool.definitions",
            sv(r#"[{"type":"function","name":"X"},{"type":"function","function":{"name":"Y"}}]"#),
        );
        let tool = |id: &str, start: u64, name: &str, call: &str| {
            span_of(
                "t",
                id,
                "run",
                start,
                &[
                    ("gen_ai.operation.name", sv("execute_tool")),
                    agent.clone(),
                    ("gen_ai.tool.name", sv(name)),
                    ("gen_ai.tool.call.id", sv(call)),
                ],
            )
        };
        let text = file_of(&[
            tool("y", 30, "Y", "c2"),
            tool("x", 31, "X", "c1"),
            span_of(
                "t",
                "run",
                "",
                10,
                &[("gen_ai.operation.name", sv("invoke_agent")), agent.clone()],
            ),
            span_of(
                "t",
                "chat1",
                "run",
                20,
                &[
                    ("gen_ai.operation.name", sv("chat")),
                    agent.clone(),
                    defs.clone(),
                    out(
                        serde_json::json!([{"type": "tool_call", "id": "c1", "name": "X"}, {"type": "tool_call", "id": "c2", "name": "Y"}]),
                    ),
                ],
            ),
            span_of(
                "t",
                "chat2",
                "run",
                40,
                &[
                    ("gen_ai.operation.name", sv("chat")),
                    agent.clone(),
                    out(serde_json::json!([{"type": "tool_call", "id": "c3", "name": "B_tool"}])),
                ],
            ),
            span_of(
                "t",
                "sub",
                "chat2",
                50,
                &[
                    ("gen_ai.operation.name", sv("invoke_agent")),
                    ("gen_ai.agent.name", sv("B")),
                ],
            ),
            span_of(
                "t",
                "subtool",
                "sub",
                60,
                &[
                    ("gen_ai.operation.name", sv("execute_tool")),
                    ("gen_ai.tool.name", sv("Z")),
                    ("gen_ai.agent.name", sv("B")),
                ],
            ),
        ]);
        let (recs, diags) = parse_otlp("t.json", &text, &OperatorNaming::default());
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].target, Target::Operator("A".into()));
        assert_eq!(calls(&recs[0]), vec!["X", "Y", "B_tool"]);
        assert_eq!(recs[0].called, vec!["X", "Y", "B_tool"]);
        assert_eq!(recs[0].available, Some(vec!["X".to_string(), "Y".into()]));
        assert_eq!(recs[0].id.as_deref(), Some("t/run"));
        assert_eq!(recs[1].target, Target::Operator("B".into()));
        assert_eq!(calls(&recs[1]), vec!["Z"]);
        assert_eq!(recs[1].id.as_deref(), Some("t/sub"));
        assert_eq!(recs[1].available, None, "not carried: unknown");
    }

    /// OpenInference's and Traceloop 0.54's flattened attributes: calls in index order
    /// (numerically), the tools given from `llm.tools` and `llm.request.functions`;
    /// OpenInference names the agent in `agent.name`, Pydantic AI 1.x in `agent_name`.
    #[test]
    fn flattened_forms_give_calls_and_what_was_given() {
        let oi = file_of(&[
            span_of(
                "t1",
                "a",
                "",
                1,
                &[
                    ("openinference.span.kind", sv("AGENT")),
                    ("agent.name", sv("A")),
                ],
            ),
            span_of(
                "t1",
                "l",
                "a",
                2,
                &[
                    ("openinference.span.kind", sv("LLM")),
                    (
                        "llm.output_messages.0.message.tool_calls.10.tool_call.function.name",
                        sv("K"),
                    ),
                    (
                        "llm.output_messages.0.message.tool_calls.2.tool_call.function.name",
                        sv("C"),
                    ),
                    (
                        "llm.tools.1.tool.json_schema",
                        sv(r#"{"type":"function","function":{"name":"K"}}"#),
                    ),
                    (
                        "llm.tools.0.tool.json_schema",
                        sv(r#"{"type":"function","function":{"name":"C"}}"#),
                    ),
                ],
            ),
            span_of("t2", "b", "", 1, &[("agent_name", sv("P"))]),
            span_of(
                "t2",
                "c",
                "b",
                2,
                &[
                    ("llm.request.type", sv("chat")),
                    ("gen_ai.completion.0.tool_calls.0.name", sv("T1")),
                    ("gen_ai.completion.0.tool_calls.1.name", sv("T2")),
                    ("gen_ai.completion.0.finish_reason", sv("tool_calls")),
                    ("llm.request.functions.0.name", sv("T1")),
                    (
                        "model_request_parameters",
                        sv(r#"{"function_tools":[{"name":"T3"}]}"#),
                    ),
                ],
            ),
            span_of("t2", "r", "b", 3, &[("gen_ai.tool.name", sv("T1"))])
                .to_string()
                .replace("\"name\":\"s\"", "\"name\":\"running tool\"")
                .parse()
                .unwrap(),
        ]);
        let (recs, diags) = parse_otlp("t.json", &oi, &OperatorNaming::default());
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(calls(&recs[0]), vec!["C", "K"]);
        assert_eq!(recs[0].available, Some(vec!["C".to_string(), "K".into()]));
        assert_eq!(recs[0].id.as_deref(), Some("t1"));
        assert_eq!(recs[1].target, Target::Operator("P".into()));
        assert_eq!(
            calls(&recs[1]),
            vec!["T1", "T2"],
            "the running tool span is T1's call"
        );
        assert_eq!(recs[1].available, Some(vec!["T3".to_string(), "T1".into()]));
    }

    /// Tool spans without call ids are matched by name to the inference span before them;
    /// one the output does not list is a call of its own, at its start.
    #[test]
    fn tool_spans_without_ids_match_by_name_within_their_inference() {
        let chat = |id: &str, start: u64, names: &[&str]| {
            let parts: Vec<serde_json::Value> = names
                .iter()
                .map(|n| serde_json::json!({"type": "tool_call", "name": n}))
                .collect();
            span_of(
                "t",
                id,
                "run",
                start,
                &[
                    ("gen_ai.operation.name", sv("chat")),
                    (
                        "gen_ai.output.messages",
                        sv(&serde_json::json!([{"parts": parts}]).to_string()),
                    ),
                ],
            )
        };
        let tool = |id: &str, start: u64, name: &str| {
            span_of(
                "t",
                id,
                "run",
                start,
                &[
                    ("gen_ai.operation.name", sv("execute_tool")),
                    ("gen_ai.tool.name", sv(name)),
                ],
            )
        };
        let text = file_of(&[
            span_of("t", "run", "", 1, &[("gen_ai.agent.name", sv("A"))]),
            chat("c1", 10, &["A", "A"]),
            tool("t1", 11, "A"),
            tool("t2", 12, "A"),
            tool("t3", 13, "B"),
            chat("c2", 20, &["A"]),
            tool("t4", 21, "A"),
        ]);
        let (recs, _) = parse_otlp("t.json", &text, &OperatorNaming::default());
        assert_eq!(calls(&recs[0]), vec!["A", "A", "B", "A"]);
    }

    /// Never silent: content not captured, calls in a form not read, and runs naming no
    /// agent are each one line a file with their count; `--default-operator` reads the
    /// last as its runs, one a trace, the id the trace id.
    #[test]
    fn what_cannot_be_read_is_said_once_with_a_count() {
        let asked = |trace: &str, id: &str| {
            span_of(
                trace,
                id,
                "",
                5,
                &[
                    ("gen_ai.operation.name", sv("chat")),
                    (
                        "gen_ai.response.finish_reasons",
                        serde_json::json!(["tool_calls"]),
                    ),
                ],
            )
        };
        let text = file_of(&[
            asked("t1", "a"),
            asked("t2", "b"),
            span_of(
                "t2",
                "c",
                "b",
                6,
                &[
                    ("gen_ai.operation.name", sv("execute_tool")),
                    ("gen_ai.tool.name", sv("X")),
                ],
            ),
            asked("t3", "d"),
            span_of(
                "t3",
                "e",
                "",
                7,
                &[
                    ("gen_ai.operation.name", sv("chat")),
                    ("vendor.tool_calls.0.fn", sv("Y")),
                ],
            ),
            span_of("t3", "f", "", 8, &[("vendor.agent.name", sv("Q"))]),
        ]);
        let (recs, diags) = parse_otlp("t.json", &text, &OperatorNaming::default());
        assert!(recs.is_empty());
        let got: Vec<(Code, u32, &str)> = diags
            .iter()
            .map(|d| (d.code, d.line, d.message.as_str()))
            .collect();
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(
            (got[0].0, got[0].2.starts_with("3 run(s) name no agent")),
            (Code::OtlpNoOperator, true),
            "{got:?}"
        );
        assert!(
            got[0].2.contains("--operator-attr vendor.agent.name"),
            "{got:?}"
        );
        // t2's call is read from its tool span: only t1's and t3's chats lost theirs.
        assert_eq!(
            (got[1].0, got[1].2.starts_with("2 inference span(s)")),
            (Code::OtlpNoContent, true),
            "{got:?}"
        );
        assert_eq!(
            (got[2].0, got[2].2.starts_with("1 span(s) hold tool calls")),
            (Code::OtlpUnreadCalls, true),
            "{got:?}"
        );
        let naming = OperatorNaming::new(None, Some("D"));
        let (recs, _) = parse_otlp("t.json", &text, &naming);
        let ids: Vec<&str> = recs.iter().filter_map(|r| r.id.as_deref()).collect();
        assert_eq!(ids, vec!["t1", "t2", "t3"]);
        assert!(
            recs.iter()
                .all(|r| r.target == Target::Operator("D".into()))
        );
        assert_eq!(calls(&recs[1]), vec!["X"]);
    }
}
