//! Runs from OTLP spans (SPEC 8): one record per agent invocation, its calls from wherever
//! the library put them, what the model was given, and a diagnostic for each thing that
//! could not be read.
//!
//! - **Records.** A span that names an agent (the operator attribute), and is no inference
//!   or tool span, starts a record when its nearest such ancestor names another agent or
//!   there is none; spans under it belong to it down to the next record. In a trace that
//!   names no agent, the spans marked as agents (`invoke_agent`, OpenInference AGENT) do
//!   the same, and a trace with GenAI spans and no agent span at all is one record. Such
//!   records have no operator: `--default-operator` names them, else they are left out
//!   (said once per file, with their number). A record's `id` is its trace id, `TRACE/SPAN` when the
//!   trace holds more than one record.
//! - **Calls.** From tool spans and from the tool calls in the record's inference spans'
//!   output. A tool span whose `gen_ai.tool.call.id` is an output call's id is that call;
//!   one without (or with no output call of its id) is the first output call of its name
//!   not yet taken in the inference span that started last before it. Calls are ordered
//!   by time: an output call at its inference span's start, in message and part order, a
//!   tool span read alone at its own start; an item without a start time takes the time
//!   of the one before it in the file (of its record), so it keeps its place; ties keep
//!   their file order.
//! - **What was given.** The union of the tool names the record's spans list, in
//!   first-seen order; `None` when none lists any.
//!
//! Every step is linear in the spans (memoised ancestor walks that stop on a cycle; the
//! matching by name uses queues per name), so 100 MB of spans read in about a second.

use std::collections::{HashMap, HashSet, VecDeque};

use super::lines::{Diags, diag};
use super::otlp_shapes::OutputCall;
use super::{Record, Target};
use crate::diag::Code;

/// The attribute naming the operator first by default (the GenAI conventions').
pub const AGENT_ATTR: &str = "gen_ai.agent.name";

/// The operator attributes read by default, first found wins: the GenAI conventions',
/// OpenInference's, Pydantic AI 1.x's.
pub const AGENT_ATTRS: [&str; 3] = [AGENT_ATTR, "agent.name", "agent_name"];

/// How OTLP runs are named: the operator attribute (`None`: [`AGENT_ATTRS`]) and the
/// operator given to runs that name none (`--default-operator`; `None`: such runs are
/// left out, said once per file).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OperatorNaming {
    pub operator_attr: Option<String>,
    pub default_operator: Option<String>,
}

impl OperatorNaming {
    /// The naming of `--operator-attr` and `--default-operator` (empty means not given).
    pub fn new(operator_attr: Option<&str>, default_operator: Option<&str>) -> OperatorNaming {
        let given = |s: Option<&str>| s.filter(|s| !s.is_empty()).map(str::to_string);
        OperatorNaming {
            operator_attr: given(operator_attr),
            default_operator: given(default_operator),
        }
    }

    /// The attributes read for the operator, in order.
    pub(crate) fn attrs(&self) -> Vec<&str> {
        match &self.operator_attr {
            Some(a) => vec![a.as_str()],
            None => AGENT_ATTRS.to_vec(),
        }
    }
}

/// What a span is, for making runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `invoke_agent`, or an OpenInference AGENT span.
    Agent,
    /// A model call: `chat`, `text_completion`, `generate_content`, an OpenInference LLM
    /// span, a Traceloop `llm.request.type` of `chat` or `completion`.
    Inference,
    /// A tool execution: `execute_tool`, an OpenInference TOOL span, Pydantic AI 1.x's
    /// `running tool`.
    Tool,
    Other,
}

/// One span, reduced to what the runs need.
#[derive(Debug)]
pub(crate) struct Span {
    pub line: u32,
    pub trace: String,
    pub id: String,
    pub parent: String,
    pub kind: Kind,
    /// The agent the operator attribute names.
    pub operator: Option<String>,
    /// A tool span's tool name and `gen_ai.tool.call.id`.
    pub tool: Option<OutputCall>,
    /// The tool calls its output holds, in message and part order.
    pub output: Vec<OutputCall>,
    /// `startTimeUnixNano` (`None` when missing or not a number).
    pub start: Option<u64>,
    /// The tool names the model was given, if the span says.
    pub defs: Option<Vec<String>>,
    /// Its finish reasons include `tool_calls`: the model asked for tools.
    pub asked_tools: bool,
    /// It holds something shaped like a tool call that none of the forms read.
    pub unread: bool,
    /// It carries GenAI, OpenInference or Traceloop attributes.
    pub genai: bool,
    /// A string attribute whose key names an agent but is not read as the operator (the
    /// first such key), for the diagnostic that suggests `--operator-attr`.
    pub agent_key: Option<String>,
}

/// The records of `spans` and the diagnostics (those of the lines, then the file's).
pub(crate) fn runs(
    file: &str,
    naming: &OperatorNaming,
    spans: &[Span],
    mut diags: Diags,
) -> (Vec<Record>, Diags) {
    let parent = parents(spans);
    let runs_span = |s: &Span| !matches!(s.kind, Kind::Inference | Kind::Tool);
    // Agent spans without a name start runs only in traces that name no agent (OpenAI
    // Agents marks its workflow root as an agent above the named one).
    let named: HashSet<&str> = spans
        .iter()
        .filter(|s| runs_span(s) && s.operator.is_some())
        .map(|s| s.trace.as_str())
        .collect();
    let agent = |s: &Span| {
        runs_span(s)
            && (s.operator.is_some()
                || (s.kind == Kind::Agent && !named.contains(s.trace.as_str())))
    };
    let agent_above = nearest_at_or_above(&parent, |i| agent(&spans[i]));
    let starts: Vec<bool> = (0..spans.len())
        .map(|i| {
            let s = &spans[i];
            agent(s)
                && match parent[i].and_then(|p| agent_above[p]) {
                    None => true,
                    Some(a) => s.operator.is_some() && s.operator != spans[a].operator,
                }
        })
        .collect();
    let start_above = nearest_at_or_above(&parent, |i| starts[i]);
    let mut runs = Runs::new(file, naming);
    let mut traced: HashMap<&str, bool> = HashMap::new();
    for (i, s) in spans.iter().enumerate() {
        if starts[i] {
            traced.insert(s.trace.as_str(), true);
        }
    }
    // Records in file order of the spans that start them, then each span's record.
    let mut record_of: HashMap<usize, usize> = HashMap::new();
    for (i, s) in spans.iter().enumerate() {
        if starts[i] {
            record_of.insert(i, runs.open(s, Some(s.id.as_str())));
        } else if start_above[i].is_none() && s.genai && !traced.contains_key(s.trace.as_str()) {
            runs.of_trace(s);
        }
    }
    let owner: Vec<Option<usize>> = spans
        .iter()
        .enumerate()
        .map(|(i, s)| match start_above[i] {
            Some(r) => record_of.get(&r).copied(),
            None if traced.contains_key(s.trace.as_str()) => {
                if s.tool.is_some() || !s.output.is_empty() {
                    runs.outside.note(s.line);
                }
                None
            }
            None => runs.trace_record.get(&s.trace).copied(),
        })
        .collect();
    let mut items: Vec<Vec<Item>> = vec![Vec::new(); runs.records.len()];
    for (i, s) in spans.iter().enumerate() {
        let Some(r) = owner[i] else { continue };
        if let Some(names) = &s.defs {
            let available = runs.records[r].available.get_or_insert_with(Vec::new);
            for n in names {
                if !available.contains(n) {
                    available.push(n.clone());
                }
            }
        }
        for c in &s.output {
            items[r].push(Item::new(i, s.start, c, true));
        }
        if let Some(c) = &s.tool {
            items[r].push(Item::new(i, s.start, c, false));
        }
    }
    for (r, its) in items.iter().enumerate() {
        let calls = calls_in_order(its);
        runs.records[r].called = calls.clone();
        runs.records[r].calls = Some(calls);
    }
    for (i, s) in spans.iter().enumerate() {
        let tools_read = owner[i].is_some_and(|r| items[r].iter().any(|it| !it.output));
        if s.asked_tools && s.output.is_empty() && !tools_read {
            runs.no_content.note(s.line);
        }
        if s.unread {
            runs.unread.note(s.line);
        }
    }
    let agent_key = spans.iter().find_map(|s| s.agent_key.as_deref());
    runs.finish(&mut diags, agent_key);
    (runs.kept(), diags)
}

/// One call candidate of a record: an output call of an inference span, or a tool span.
#[derive(Debug, Clone)]
struct Item {
    span: usize,
    start: Option<u64>,
    name: String,
    id: Option<String>,
    output: bool,
}

impl Item {
    fn new(span: usize, start: Option<u64>, c: &OutputCall, output: bool) -> Item {
        Item {
            span,
            start,
            name: c.name.clone(),
            id: c.id.clone(),
            output,
        }
    }
}

/// A record's calls: each tool span that is an output call dropped for it (by id, else by
/// name in the inference span before it), the rest in time order (see the module's
/// comment).
fn calls_in_order(items: &[Item]) -> Vec<String> {
    let mut taken = vec![false; items.len()];
    let mut by_id: HashMap<&str, usize> = HashMap::new();
    // By inference span and name, and by name alone for untimed tool spans.
    let mut by_span_name: HashMap<(usize, &str), VecDeque<usize>> = HashMap::new();
    let mut by_name: HashMap<&str, VecDeque<usize>> = HashMap::new();
    let mut inferences: Vec<(u64, usize)> = Vec::new();
    for (k, it) in items.iter().enumerate().filter(|(_, it)| it.output) {
        if let Some(id) = &it.id {
            by_id.entry(id.as_str()).or_insert(k);
        }
        by_span_name
            .entry((it.span, &it.name))
            .or_default()
            .push_back(k);
        by_name.entry(&it.name).or_default().push_back(k);
        if let Some(t) = it.start
            && inferences.last() != Some(&(t, it.span))
        {
            inferences.push((t, it.span));
        }
    }
    inferences.sort_unstable();
    inferences.dedup();
    let mut dropped = vec![false; items.len()];
    for (k, it) in items.iter().enumerate().filter(|(_, it)| !it.output) {
        if let Some(&o) = it.id.as_deref().and_then(|id| by_id.get(id))
            && !taken[o]
        {
            taken[o] = true;
            dropped[k] = true;
            continue;
        }
        let queue = match it.start {
            Some(t) => {
                let before = inferences.partition_point(|&(s, _)| s <= t);
                before
                    .checked_sub(1)
                    .and_then(|b| by_span_name.get_mut(&(inferences[b].1, it.name.as_str())))
            }
            None => by_name.get_mut(it.name.as_str()),
        };
        let Some(queue) = queue else { continue };
        while queue.front().is_some_and(|&o| taken[o]) {
            queue.pop_front();
        }
        if let Some(&o) = queue.front()
            && (it.id.is_none() || items[o].id.is_none())
        {
            queue.pop_front();
            taken[o] = true;
            dropped[k] = true;
        }
    }
    let mut last = 0;
    let mut timed: Vec<(u64, usize)> = Vec::new();
    for (k, it) in items.iter().enumerate() {
        if dropped[k] {
            continue;
        }
        last = it.start.unwrap_or(last);
        timed.push((last, k));
    }
    timed.sort_by_key(|&(t, _)| t);
    timed
        .into_iter()
        .map(|(_, k)| items[k].name.clone())
        .collect()
}

/// A condition counted over a file, reported once at its first line.
#[derive(Debug, Default)]
struct Tally {
    count: u64,
    first: u32,
}

impl Tally {
    fn note(&mut self, line: u32) {
        if self.count == 0 {
            self.first = line;
        }
        self.count += 1;
    }
}

/// The records being made, with the file's counted conditions.
struct Runs<'a> {
    file: &'a str,
    naming: &'a OperatorNaming,
    records: Vec<Record>,
    /// Each record's trace and the span that started it (`None`: a whole trace).
    at: Vec<(String, Option<String>)>,
    /// The record of each trace that names no agent.
    trace_record: HashMap<String, usize>,
    /// Whether each record has an operator (its own or `--default-operator`): those
    /// without are left out at the end.
    named: Vec<bool>,
    unnamed: Tally,
    outside: Tally,
    no_content: Tally,
    unread: Tally,
}

impl<'a> Runs<'a> {
    fn new(file: &'a str, naming: &'a OperatorNaming) -> Runs<'a> {
        Runs {
            file,
            naming,
            records: Vec::new(),
            at: Vec::new(),
            trace_record: HashMap::new(),
            named: Vec::new(),
            unnamed: Tally::default(),
            outside: Tally::default(),
            no_content: Tally::default(),
            unread: Tally::default(),
        }
    }

    /// A new record started by `s` (an agent span, or the first GenAI span of a trace
    /// naming no agent when `span` is `None`).
    fn open(&mut self, s: &Span, span: Option<&str>) -> usize {
        let operator = s
            .operator
            .clone()
            .or_else(|| self.naming.default_operator.clone());
        if operator.is_none() {
            self.unnamed.note(s.line);
        }
        self.named.push(operator.is_some());
        self.records.push(Record {
            file: self.file.to_string(),
            line: s.line,
            id: None,
            target: Target::Operator(operator.unwrap_or_default()),
            threshold: None,
            hops: None,
            called: Vec::new(),
            ok: None,
            calls: Some(Vec::new()),
            available: None,
        });
        self.at.push((s.trace.clone(), span.map(str::to_string)));
        self.records.len() - 1
    }

    /// The record of the trace of `s`, which names no agent, made at its first GenAI
    /// span.
    fn of_trace(&mut self, s: &Span) {
        if !self.trace_record.contains_key(&s.trace) {
            let r = self.open(s, None);
            self.trace_record.insert(s.trace.clone(), r);
        }
    }

    /// The file's counted conditions as one diagnostic each.
    fn finish(&mut self, diags: &mut Diags, agent_key: Option<&str>) {
        let attrs = match &self.naming.operator_attr {
            Some(a) => format!("`{a}`"),
            None => AGENT_ATTRS.map(|a| format!("`{a}`")).join(", "),
        };
        let hint = match agent_key {
            Some(k) => format!("--operator-attr {k} or --default-operator NAME"),
            None => "--default-operator NAME".to_string(),
        };
        let found = [
            (
                &self.unnamed,
                Code::OtlpNoOperator,
                format!(
                    "run(s) name no agent (no span of theirs has {attrs}); left out: give {hint} to read them"
                ),
            ),
            (
                &self.outside,
                Code::OtlpNoOperator,
                "tool call(s) in spans under no agent run of their trace; ignored".to_string(),
            ),
            (
                &self.no_content,
                Code::OtlpNoContent,
                "inference span(s) ended asking for tools but hold no message content, so their calls cannot be read: record with message content captured (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, or the library's own setting)".to_string(),
            ),
            (
                &self.unread,
                Code::OtlpUnreadCalls,
                "span(s) hold tool calls in a form toolscope does not read; their calls are missing from the runs".to_string(),
            ),
        ];
        for (tally, code, message) in found {
            if tally.count > 0 {
                let message = format!("{} {message}", tally.count);
                diags.push(diag(self.file, tally.first, 1, code, message));
            }
        }
    }

    /// The records with an operator, with their ids: the trace id, `TRACE/SPAN` when the
    /// trace holds more than one record.
    fn kept(self) -> Vec<Record> {
        let kept: Vec<(Record, (String, Option<String>))> = self
            .records
            .into_iter()
            .zip(self.at)
            .zip(self.named)
            .filter_map(|(r, named)| named.then_some(r))
            .collect();
        let mut per_trace: HashMap<&str, u32> = HashMap::new();
        for (_, (trace, _)) in &kept {
            *per_trace.entry(trace.as_str()).or_insert(0) += 1;
        }
        let several: HashSet<String> = per_trace
            .into_iter()
            .filter(|&(_, n)| n > 1)
            .map(|(t, _)| t.to_string())
            .collect();
        kept.into_iter()
            .map(|(mut r, (trace, span))| {
                r.id = Some(match span {
                    Some(span) if several.contains(&trace) => format!("{trace}/{span}"),
                    _ => trace,
                });
                r
            })
            .collect()
    }
}

/// Each span's parent by position (the first span of an id in its trace wins).
fn parents(spans: &[Span]) -> Vec<Option<usize>> {
    let mut by_id: HashMap<(&str, &str), usize> = HashMap::new();
    for (i, s) in spans.iter().enumerate() {
        by_id.entry((s.trace.as_str(), s.id.as_str())).or_insert(i);
    }
    spans
        .iter()
        .map(|s| by_id.get(&(s.trace.as_str(), s.parent.as_str())).copied())
        .collect()
}

/// For each span, the nearest span at or above it (itself included) for which `is` holds.
/// Each span is resolved once (memoised walks), so long parent chains stay linear, and a
/// parent cycle in hostile input resolves to none instead of looping.
fn nearest_at_or_above(parent: &[Option<usize>], is: impl Fn(usize) -> bool) -> Vec<Option<usize>> {
    const TODO: u8 = 0;
    const ACTIVE: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![TODO; parent.len()];
    let mut out: Vec<Option<usize>> = vec![None; parent.len()];
    let mut path = Vec::new();
    for start in 0..parent.len() {
        let mut cur = Some(start);
        let mut found = None;
        while let Some(i) = cur {
            if state[i] == DONE {
                found = out[i];
                break;
            }
            if state[i] == ACTIVE {
                break; // a cycle: nothing above
            }
            if is(i) {
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
        if is(start) {
            state[start] = DONE;
            out[start] = Some(start);
        }
    }
    out
}
