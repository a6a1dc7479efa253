//! The registry of edit operations a user names: each row is an edit's name, its
//! arguments and its doc, and builds the [`Edit`] from what the user gave. The CLI's
//! `toolscope set PATH OP ...` and the TUI's `:OP ...` both read these rows, so an edit
//! takes the same arguments in both; a front end only supplies what it knows from context
//! (the TUI's selection or active operator) and the text of a description.

use std::collections::BTreeMap;

use super::{Edit, Transaction};
use crate::model::{NodeKind, Toolkit};
use crate::recommend::MAX_HOPS;

/// What an argument holds, and so how it is checked and completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// An existing action.
    Action,
    /// An existing action, tool or group.
    Node,
    /// An existing operator.
    Operator,
    /// A name for something new.
    NewName,
    /// A number in [0, 1].
    Score,
    /// A whole number from 0 to [`MAX_HOPS`].
    Hops,
    /// `true` or `false`.
    Bool,
    /// `action`, `tool` or `group`: which node a name means when kinds share it.
    Kind,
    /// Free text.
    Text,
}

/// Where a front end may take a missing leading argument from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// The selected node (the TUI's selection).
    Selection,
    /// The selected node, when it is an action.
    SelectedAction,
    /// The active operator.
    Operator,
}

/// One argument of an operation: positional, or an option (`--name VALUE`).
#[derive(Debug)]
pub struct OpArg {
    /// As the usage shows it: `FROM` for a positional, `kind` for `--kind`.
    pub name: &'static str,
    pub kind: ArgKind,
    pub required: bool,
    /// An option (`--name VALUE`) rather than a positional.
    pub option: bool,
    /// An option that may be given several times.
    pub repeat: bool,
    pub default: Option<&'static str>,
    pub context: Option<Context>,
    pub doc: &'static str,
}

/// The operator an operator edit changes (`threshold`, `hops`), by any name the loader
/// accepts for it.
const OPERATOR: OpArg = pos(
    "OPERATOR",
    ArgKind::Operator,
    "operator name (Chat2Graph: `<expert>/<n>`, `leader`, or the anchor name)",
)
.from(Context::Operator);

const fn pos(name: &'static str, kind: ArgKind, doc: &'static str) -> OpArg {
    OpArg {
        name,
        kind,
        required: true,
        option: false,
        repeat: false,
        default: None,
        context: None,
        doc,
    }
}

const fn opt(name: &'static str, kind: ArgKind, doc: &'static str) -> OpArg {
    OpArg {
        name,
        kind,
        required: false,
        option: true,
        repeat: false,
        default: None,
        context: None,
        doc,
    }
}

impl OpArg {
    const fn from(mut self, context: Context) -> OpArg {
        self.context = Some(context);
        self
    }

    const fn optional(mut self) -> OpArg {
        self.required = false;
        self
    }

    const fn or(mut self, default: &'static str) -> OpArg {
        self.default = Some(default);
        self
    }

    const fn repeated(mut self) -> OpArg {
        self.repeat = true;
        self
    }

    /// Refuses a value this argument cannot hold.
    pub fn check(&self, value: &str) -> Result<(), String> {
        match self.kind {
            ArgKind::Score => parse_score(value).map(|_| ()),
            ArgKind::Hops => parse_hops(value).map(|_| ()),
            ArgKind::Bool => parse_bool(value).map(|_| ()),
            ArgKind::Kind => parse_kind(value).map(|_| ()),
            ArgKind::NewName if value.trim().is_empty() => Err("a name cannot be empty".into()),
            _ => Ok(()),
        }
    }
}

/// A number in [0, 1] (a score, a threshold, a share): the one parser of such a value,
/// for `set`, the `:` line, the TUI's score dialog and the CLI's `--threshold`. The range
/// is [`super::check_unit`]'s, which the graph side of an edit applies.
pub fn parse_score(s: &str) -> Result<f64, String> {
    let t: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number"))?;
    super::check_unit("", t)
        .map(|()| t)
        .map_err(|_| format!("{s} is outside [0, 1]"))
}

/// A whole number from 0 to [`MAX_HOPS`].
pub fn parse_hops(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(h) if h <= MAX_HOPS => Ok(h),
        _ => Err(format!("`{s}` is not a hop count from 0 to {MAX_HOPS}")),
    }
}

fn parse_bool(s: &str) -> Result<bool, String> {
    match s.trim() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("`{s}` is not true or false")),
    }
}

fn parse_kind(s: &str) -> Result<NodeKind, String> {
    match s.trim() {
        "action" => Ok(NodeKind::Action),
        "tool" => Ok(NodeKind::Tool),
        "group" => Ok(NodeKind::Group),
        _ => Err(format!("`{s}` is not action, tool or group")),
    }
}

/// Why an operation's arguments make no edit; `usage` when the user must name something
/// more precisely (an ambiguous operator), which a CLI reports as a usage error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpError {
    pub message: String,
    pub usage: bool,
}

impl From<String> for OpError {
    fn from(message: String) -> OpError {
        OpError {
            message,
            usage: false,
        }
    }
}

impl From<&str> for OpError {
    fn from(message: &str) -> OpError {
        OpError::from(message.to_string())
    }
}

impl From<crate::model::OperatorLookup> for OpError {
    fn from(e: crate::model::OperatorLookup) -> OpError {
        let usage = matches!(e, crate::model::OperatorLookup::Ambiguous { .. });
        OpError {
            message: e.to_string(),
            usage,
        }
    }
}

impl std::fmt::Display for OpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What the user gave: values by argument name (an option given twice has two).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Given {
    values: BTreeMap<&'static str, Vec<String>>,
    /// Whose commands a refusal names (the CLI's unless the TUI says otherwise).
    front_end: crate::model::mcp::FrontEnd,
}

impl Given {
    /// A refusal names `front`'s commands (`:mcp discover` in the TUI).
    pub fn set_front_end(&mut self, front: crate::model::mcp::FrontEnd) {
        self.front_end = front;
    }

    pub fn set(&mut self, name: &'static str, value: String) {
        self.values.entry(name).or_default().push(value);
    }

    pub fn has(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// A node argument as the graph names it: an MCP member written `SERVER/TOOL` (see
    /// `model::mcp`) is the tool it means.
    fn node(&self, tk: &Toolkit, name: &str) -> Result<String, String> {
        let text = self.text(name)?;
        if tk.find_any(text) {
            return Ok(text.to_string());
        }
        Ok(tk
            .member_named(text)
            .map_or_else(|| text.to_string(), |m| tk.name(m).to_string()))
    }

    fn text(&self, name: &str) -> Result<&str, String> {
        self.values
            .get(name)
            .and_then(|v| v.first())
            .map(String::as_str)
            .ok_or_else(|| format!("{name} is missing"))
    }

    /// The first value given for `name`.
    pub fn first(&self, name: &str) -> Option<&str> {
        self.maybe(name)
    }

    fn maybe(&self, name: &str) -> Option<&str> {
        self.values
            .get(name)
            .and_then(|v| v.first())
            .map(String::as_str)
    }

    fn all(&self, name: &str) -> &[String] {
        self.values.get(name).map_or(&[], Vec::as_slice)
    }

    fn kind(&self) -> Result<Option<NodeKind>, String> {
        self.maybe("kind").map(parse_kind).transpose()
    }
}

/// One edit operation.
#[derive(Debug)]
pub struct EditOp {
    pub name: &'static str,
    /// Short names (`t` for `threshold`), the same in `set` and after `:`.
    pub aliases: &'static [&'static str],
    pub doc: &'static str,
    pub params: &'static [OpArg],
    /// What the front end supplies besides the arguments (the new description).
    pub input: Option<&'static str>,
    build: fn(&Given, &Toolkit) -> Result<Transaction, OpError>,
}

impl EditOp {
    /// The change the given values make on `tk` (one edit, or a removal with the seeds it
    /// takes), or why not. What an operation means is decided here, once, for every front
    /// end.
    pub fn build(&self, given: &Given, tk: &Toolkit) -> Result<Transaction, OpError> {
        for p in self.params {
            match (given.all(p.name), p.default) {
                ([], None) if p.required => return Err(format!("{} is missing", p.name).into()),
                (values, _) => {
                    for v in values {
                        p.check(v).map_err(|e| format!("{}: {e}", p.name))?;
                    }
                }
            }
        }
        let mut filled = given.clone();
        for p in self.params {
            if let (false, Some(d)) = (given.has(p.name), p.default) {
                filled.set(p.name, d.to_string());
            }
        }
        (self.build)(&filled, tk)
    }

    /// The usage line: `FROM TO VALUE`, options as `[--kind KIND]`.
    pub fn usage(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        for p in self.params {
            let word = match (p.option, p.required) {
                (true, _) => format!("[--{} {}]", p.name, p.name.to_uppercase()),
                (false, true) => p.name.to_string(),
                (false, false) => format!("[{}]", p.name),
            };
            out.push(word);
        }
        out.join(" ")
    }

    /// The positional arguments, in order.
    pub fn positionals(&self) -> impl Iterator<Item = &'static OpArg> {
        self.params.iter().filter(|p| !p.option)
    }
}

/// The description of the node `name`: the text the front end read (stdin, the editor).
pub const DESC_INPUT: &str = "text";

/// Every edit operation, in the order `set --help` lists them.
pub static EDIT_OPS: &[EditOp] = &[
    EditOp {
        name: "score",
        aliases: &[],
        doc: "Set the score of the edge FROM -> TO (a number in [0, 1])",
        params: &[
            pos("FROM", ArgKind::Action, "the action the edge leaves")
                .from(Context::SelectedAction),
            pos("TO", ArgKind::Node, "the action, tool or group it reaches"),
            pos("VALUE", ArgKind::Score, "the new score"),
        ],
        input: None,
        build: |g, tk| {
            let (from, to) = (g.text("FROM")?, g.node(tk, "TO")?);
            let value = g.text("VALUE")?;
            let to_kind = edge_kind(tk, from, &to).map_err(|e| {
                // A tool of an MCP server: say why it is no edge and what to do.
                match tk.mcp_no_edge(from, &to, value, g.front_end) {
                    Some(why) => format!("no edge {from} -> {to}: {why}"),
                    None => e,
                }
            })?;
            Ok(Edit::SetScore {
                from: from.into(),
                to,
                to_kind,
                score: parse_score(value)?,
            }
            .into())
        },
    },
    EditOp {
        name: "threshold",
        aliases: &["t"],
        doc: "Set an operator's threshold (a number in [0, 1])",
        params: &[
            OPERATOR,
            pos("VALUE", ArgKind::Score, "the new threshold"),
        ],
        input: None,
        build: |g, tk| {
            Ok(Edit::SetThreshold {
                operator: operator(tk, g.text("OPERATOR")?)?,
                value: parse_score(g.text("VALUE")?)?,
            }.into())
        },
    },
    EditOp {
        name: "hops",
        aliases: &["h"],
        doc: "Set an operator's hop count",
        params: &[
            OPERATOR,
            pos("VALUE", ArgKind::Hops, "the new hop count"),
        ],
        input: None,
        build: |g, tk| {
            Ok(Edit::SetHops {
                operator: operator(tk, g.text("OPERATOR")?)?,
                value: parse_hops(g.text("VALUE")?)?,
            }.into())
        },
    },
    EditOp {
        name: "desc",
        aliases: &[],
        doc: "Replace a node's description",
        params: &[
            pos("NODE", ArgKind::Node, "the action, tool or group").from(Context::Selection),
            opt(
                "kind",
                ArgKind::Kind,
                "the node's kind, when the name is used by more than one kind",
            ),
        ],
        input: Some(DESC_INPUT),
        build: |g, tk| {
            let node = g.node(tk, "NODE")?;
            let node = node.as_str();
            Ok(Edit::SetDesc {
                kind: node_kind(tk, node, g.kind()?)?,
                name: node.into(),
                text: g.text(DESC_INPUT)?.into(),
            }.into())
        },
    },
    EditOp {
        name: "link",
        aliases: &[],
        doc: "Add the edge FROM -> TO (`next` to an action, `tools` to a tool or group)",
        params: &[
            pos("FROM", ArgKind::Action, "the action the edge leaves")
                .from(Context::SelectedAction),
            pos("TO", ArgKind::Node, "the action, tool or group it reaches"),
            pos("SCORE", ArgKind::Score, "the edge's score")
                .optional()
                .or("1.0"),
            opt(
                "kind",
                ArgKind::Kind,
                "TO's kind, when the name is used by more than one kind",
            ),
        ],
        input: None,
        build: |g, tk| {
            let (from, to) = (g.text("FROM")?, g.node(tk, "TO")?);
            let to = to.as_str();
            tk.action(from)
                .ok_or_else(|| format!("no action `{from}`"))?;
            Ok(Edit::AddEdge {
                from: from.into(),
                to: to.into(),
                to_kind: node_kind(tk, to, g.kind()?)?,
                score: parse_score(g.text("SCORE")?)?,
            }.into())
        },
    },
    EditOp {
        name: "unlink",
        aliases: &[],
        doc: "Remove the edge FROM -> TO",
        params: &[
            pos("FROM", ArgKind::Action, "the action the edge leaves")
                .from(Context::SelectedAction),
            pos("TO", ArgKind::Node, "the action, tool or group it reaches"),
        ],
        input: None,
        build: |g, tk| {
            let (from, to) = (g.text("FROM")?, g.node(tk, "TO")?);
            let to = to.as_str();
            Ok(Edit::RemoveEdge {
                from: from.into(),
                to: to.into(),
                to_kind: edge_kind(tk, from, to)?,
            }.into())
        },
    },
    EditOp {
        name: "remove",
        aliases: &[],
        doc: "Remove a node with its cascade, every reference to them, and the removed actions from every operator's seed list",
        params: &[
            pos("NODE", ArgKind::Node, "the action, tool or group").from(Context::Selection),
            opt(
                "kind",
                ArgKind::Kind,
                "the node's kind, when the name is used by more than one kind",
            ),
        ],
        input: None,
        // The seeds go too: an operator seeding an action that no longer exists is an
        // error, and every front end removes the same way.
        build: |g, tk| {
            let node = g.node(tk, "NODE")?;
            let node = node.as_str();
            let kind = node_kind(tk, node, g.kind()?)?;
            Transaction::removal(tk, kind, node).map_err(|e| OpError::from(e.to_string()))
        },
    },
    EditOp {
        name: "add-action",
        aliases: &[],
        doc: "Add an action",
        params: &[
            pos("NAME", ArgKind::NewName, "the new action's name"),
            opt("desc", ArgKind::Text, "its description").or(""),
        ],
        input: None,
        build: |g, _| {
            Ok(Edit::AddAction {
                name: g.text("NAME")?.into(),
                desc: g.text("desc")?.into(),
            }.into())
        },
    },
    EditOp {
        name: "add-tool",
        aliases: &[],
        doc: "Add a tool called by the given actions",
        params: &[
            pos("NAME", ArgKind::NewName, "the new tool's name"),
            opt(
                "caller",
                ArgKind::Action,
                "an action that calls the tool (repeatable)",
            )
            .repeated()
            .from(Context::SelectedAction),
            opt("score", ArgKind::Score, "the score of each caller's edge").or("1.0"),
            opt("desc", ArgKind::Text, "its description").or(""),
            opt("module-path", ArgKind::Text, "the Python module its class is in (a Chat2Graph config needs it: Chat2Graph imports the class named NAME from this module)").or(""),
        ],
        input: None,
        build: |g, tk| {
            let score = parse_score(g.text("score")?)?;
            // A caller named twice is one caller: twice, the file would get the tool's
            // reference twice (a duplicate `tools:` key, or `*x, *x`).
            let mut callers: Vec<(String, f64)> = Vec::new();
            for c in g.all("caller") {
                if !callers.iter().any(|(x, _)| same_action(tk, x, c)) {
                    callers.push((c.clone(), score));
                }
            }
            Ok(Edit::AddTool {
                name: g.text("NAME")?.into(),
                desc: g.text("desc")?.into(),
                callers,
                module_path: g.text("module-path")?.into(),
            }.into())
        },
    },
    EditOp {
        name: "enabled",
        aliases: &[],
        doc: "Enable or disable a tool or group (the filters stage drops disabled tools)",
        params: &[
            pos("TOOL", ArgKind::Node, "the tool or group").from(Context::Selection),
            pos("VALUE", ArgKind::Bool, "`true` or `false`"),
            opt(
                "kind",
                ArgKind::Kind,
                "the node's kind, when the name is used by a tool and a group",
            ),
        ],
        input: None,
        build: |g, tk| {
            let tool = g.node(tk, "TOOL")?;
            let tool = tool.as_str();
            let kind = node_kind(tk, tool, g.kind()?)?;
            if kind == NodeKind::Action {
                return Err(format!(
                    "`{tool}` is an action; only tools and groups are enabled or disabled"
                )
                .into());
            }
            Ok(Edit::SetEnabled {
                kind,
                name: tool.into(),
                enabled: parse_bool(g.text("VALUE")?)?,
            }.into())
        },
    },
];

/// The operation called `name`.
pub fn find(name: &str) -> Option<&'static EditOp> {
    EDIT_OPS
        .iter()
        .find(|o| o.name == name || o.aliases.contains(&name))
}

/// The graph's name of the one operator `name` means.
fn operator(tk: &Toolkit, name: &str) -> Result<String, OpError> {
    Ok(tk.one_operator(name)?.name.clone())
}

/// The kind of the node an existing edge FROM -> TO reaches.
fn edge_kind(tk: &Toolkit, from: &str, to: &str) -> Result<NodeKind, String> {
    tk.action(from)
        .ok_or_else(|| format!("no action `{from}`"))?;
    super::edge_kind(tk, from, to).map_err(|e| match e {
        super::EditError::NotFound(m) => m,
        other => other.to_string(),
    })
}

fn node_kind(tk: &Toolkit, name: &str, given: Option<NodeKind>) -> Result<NodeKind, String> {
    let kinds: Vec<NodeKind> = tk.named(name).map(|ix| tk.kind(ix)).collect();
    match (given, kinds.as_slice()) {
        (Some(k), _) if kinds.contains(&k) => Ok(k),
        (Some(k), _) => Err(format!("no {} `{name}`", k.as_str())),
        (None, [k]) => Ok(*k),
        (None, []) => Err(format!("no node `{name}`")),
        (None, _) => Err(format!(
            "`{name}` names more than one kind of node; pass --kind"
        )),
    }
}

/// Whether two names given for actions name the same one (as the lookup resolves them),
/// or are the same text.
fn same_action(tk: &Toolkit, a: &str, b: &str) -> bool {
    a == b || matches!((tk.action(a), tk.action(b)), (Some(x), Some(y)) if x == y)
}

/// Splits a command line into words: blanks separate them, and `"..."` or `'...'` keep a
/// name with spaces whole (a backslash escapes the next character inside double quotes).
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut word = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() {
                break;
            }
            chars.next();
            match c {
                '"' | '\'' => loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some('\\') if c == '"' => word.extend(chars.next()),
                        Some(other) => word.push(other),
                        None => return Err(format!("unclosed {c}")),
                    }
                },
                other => word.push(other),
            }
        }
        words.push(word);
    }
    Ok(words)
}

/// Reads `words` (after the operation's name) as the operation's arguments: positionals
/// in order, `--name VALUE` options anywhere. With one positional and no option, the whole
/// line is that one value (so `:remove my tool` needs no quotes). A missing leading
/// positional is taken from `context` when the operation allows it.
pub fn parse_args(
    op: &EditOp,
    line: &str,
    context: impl Fn(Context) -> Option<String>,
) -> Result<Given, String> {
    let mut given = Given::default();
    let positionals: Vec<&OpArg> = op.positionals().collect();
    // A line that starts with a quote is read as words, quotes and all, so `:add-action
    // "new one"` names `new one` as `--desc x` after it or `toolscope set` would.
    let quoted = line.trim_start().starts_with(['"', '\'']);
    let single = positionals.len() == 1
        && !quoted
        && !line.trim_start().starts_with("--")
        && !line.contains(" --");
    let words = match single {
        true if !line.trim().is_empty() => vec![line.trim().to_string()],
        true => Vec::new(),
        false => split_words(line)?,
    };
    let mut bare = Vec::new();
    let mut it = words.into_iter();
    while let Some(w) = it.next() {
        match w.strip_prefix("--") {
            Some(name) => {
                let p = op
                    .params
                    .iter()
                    .find(|p| p.option && p.name == name)
                    .ok_or_else(|| format!("{} takes no --{name}", op.name))?;
                let v = it.next().ok_or_else(|| format!("--{name} needs a value"))?;
                given.set(p.name, v);
            }
            None => bare.push(w),
        }
    }
    let required = positionals.iter().filter(|p| p.required).count();
    let mut slots = positionals.iter();
    if bare.len() < required
        && let Some(first) = positionals.first()
        && let Some(value) = first.context.and_then(&context)
    {
        given.set(first.name, value);
        slots.next();
    }
    for w in bare {
        let p = slots
            .next()
            .ok_or_else(|| format!("too many arguments: {} {}", op.name, op.usage()))?;
        given.set(p.name, w);
    }
    for p in op.params.iter().filter(|p| p.option) {
        if !given.has(p.name)
            && let Some(value) = p.context.and_then(&context)
        {
            given.set(p.name, value);
        }
    }
    Ok(given)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIT: &str = "\
actions:
  - name: plan it
    next: [act]
    tools: [{name: Search, score: 0.4}]
  - name: act
tools: [{name: Search}]
operators:
  - {name: op, actions: [plan it], threshold: 0.5, hops: 1}
";

    fn tk() -> Toolkit {
        let limits = crate::source::Limits::default();
        crate::testing::load_text(std::path::Path::new("kit.yaml"), KIT.into(), None, &limits)
            .expect("loads")
            .toolkit
    }

    fn none(_: Context) -> Option<String> {
        None
    }
    /// A name `command_word` quotes (toolscope-base's `model::mcp`) reads back as one word.
    #[test]
    fn a_command_word_reads_back_as_one_word() {
        for w in [
            "BrowserTool",
            "browser using action",
            "say \"hi\"",
            "a\\b",
            "it's",
            "",
        ] {
            let line = format!(":score {} x", crate::model::mcp::command_word(w));
            let words = split_words(&line).unwrap();
            assert_eq!(words, [":score", w, "x"], "{line}");
        }
        assert_eq!(
            crate::model::mcp::command_word("BrowserTool"),
            "BrowserTool"
        );
    }

    /// Issue 35 item 15: `:add-action "new one"` named the action with its quotes.
    #[test]
    fn a_quoted_single_argument_loses_its_quotes() {
        let op = find("add-action").expect("add-action");
        for line in [r#""new one""#, r#"  'new one' "#, r#""new one" --desc x"#] {
            let g = parse_args(op, line, none).expect("parses");
            assert_eq!(g.text("NAME").expect("name"), "new one", "{line}");
        }
        // Unquoted, the whole line is the name, quotes inside it kept.
        let g = parse_args(op, r#"it's "new""#, none).expect("parses");
        assert_eq!(g.text("NAME").expect("name"), r#"it's "new""#);
        assert!(parse_args(op, r#""a" b"#, none).is_err());
    }

    /// Issue 35 item 13: a caller given twice is one caller.
    #[test]
    fn a_caller_given_twice_is_one_caller() {
        let op = find("add-tool").expect("add-tool");
        let g = parse_args(
            op,
            r#"Mail --caller act --caller act --caller "plan it""#,
            none,
        )
        .expect("parses");
        let txn = op.build(&g, &tk()).expect("builds");
        match txn.edits.as_slice() {
            [Edit::AddTool { callers, .. }] => {
                let names: Vec<&str> = callers.iter().map(|(c, _)| c.as_str()).collect();
                assert_eq!(names, ["act", "plan it"]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn words_keep_quoted_names_whole() {
        assert_eq!(
            split_words(r#"link "plan it" 'Sea rch' 0.5"#).expect("splits"),
            vec!["link", "plan it", "Sea rch", "0.5"]
        );
        assert_eq!(
            split_words(r#""a \" b""#).expect("splits"),
            vec![r#"a " b"#]
        );
        assert!(split_words("\"open").is_err());
    }

    #[test]
    fn the_same_arguments_build_the_same_edit_with_or_without_context() {
        let tk = tk();
        let op = find("score").expect("score");
        let full = parse_args(op, r#""plan it" Search 0.7"#, none).expect("parses");
        let from_selection = parse_args(op, "Search 0.7", |c| {
            (c == Context::SelectedAction).then(|| "plan it".to_string())
        })
        .expect("parses");
        assert_eq!(full, from_selection);
        let txn = op.build(&full, &tk).expect("builds");
        assert_eq!(
            txn,
            Transaction::from(Edit::SetScore {
                from: "plan it".into(),
                to: "Search".into(),
                to_kind: NodeKind::Tool,
                score: 0.7
            })
        );
    }

    #[test]
    fn values_are_checked_where_they_are_read() {
        let tk = tk();
        let op = find("hops").expect("hops");
        let g = parse_args(op, "op 1001", none).expect("parses");
        let e = op.build(&g, &tk).expect_err("too many hops");
        assert!(e.message.contains("from 0 to 1000"), "{e}");
        let op = find("link").expect("link");
        let g = parse_args(op, r#""plan it" act"#, none).expect("parses");
        let txn = op.build(&g, &tk).expect("builds");
        let [Edit::AddEdge { score, .. }] = txn.edits.as_slice() else {
            panic!("not a link: {txn:?}");
        };
        assert_eq!(*score, 1.0, "the default score");
        let g = parse_args(op, r#""plan it" act 2"#, none).expect("parses");
        assert!(op.build(&g, &tk).is_err(), "a score above 1");
    }

    #[test]
    fn one_positional_takes_the_whole_line_and_options_are_read_anywhere() {
        let op = find("add-action").expect("add-action");
        let g = parse_args(op, "write the answer", none).expect("parses");
        assert_eq!(g.maybe("NAME"), Some("write the answer"));
        let op = find("add-tool").expect("add-tool");
        let g = parse_args(op, r#"Mail --caller "plan it" --caller act"#, none).expect("parses");
        assert_eq!(g.all("caller"), ["plan it", "act"]);
        assert!(parse_args(op, "Mail --nope x", none).is_err());
        assert!(parse_args(find("unlink").expect("unlink"), "a b c", none).is_err());
    }

    #[test]
    fn removing_an_action_takes_it_out_of_every_seed_list() {
        let tk = tk();
        let op = find("remove").expect("remove");
        let g = parse_args(op, "plan it", none).expect("parses");
        let txn = op.build(&g, &tk).expect("builds");
        assert_eq!(
            txn.edits,
            // The seed first, so the removal finds no operator naming the action.
            [
                Edit::RemoveSeed {
                    operator: "op".into(),
                    action: "plan it".into()
                },
                Edit::RemoveNode {
                    kind: NodeKind::Action,
                    name: "plan it".into()
                }
            ]
        );
        // A tool is no seed: its removal is the one edit.
        let g = parse_args(op, "Search", none).expect("parses");
        assert_eq!(op.build(&g, &tk).expect("builds").edits.len(), 1);
    }

    #[test]
    fn an_unknown_operator_is_refused_with_the_choices() {
        let tk = tk();
        let op = find("threshold").expect("threshold");
        let g = parse_args(op, "nope 0.5", none).expect("parses");
        let e = op.build(&g, &tk).expect_err("unknown");
        assert!(e.message.contains("operators: op") && !e.usage, "{e:?}");
    }
}
