//! Chat2Graph's agentic config (SPEC 3.2), read into the graph `AgenticService.load` builds:
//! only chained actions are vertices; the chains are flattened into one, so `Next` joins
//! neighbours across chain boundaries too; tools are the ones chained actions call; MCP
//! entries are groups; operators come from `experts[].workflow` and `leader.actions`; a
//! top-level `scores:` list overrides the 1.0 default of matching edges.

use std::collections::{HashMap, HashSet};

use petgraph::stable_graph::NodeIndex;

use crate::diag::{Code, Severity};
use crate::model::{Node, NodeKind, Operator};

use crate::formats::ctx::Ctx;
use crate::source::yaml::{NodeId, Scalar};

/// A `tools:` entry: a local tool, or an MCP server with optionally listed member tools.
struct ToolEntry {
    item: NodeId,
    group: bool,
    members: Vec<(String, NodeId)>,
    /// Members known from the MCP cache, used when none are listed. Each one's schema moves
    /// into its tool node when the first caller makes it.
    cached: std::cell::RefCell<Vec<crate::mcp::cache::CachedTool>>,
    /// Whether the MCP cache has an entry for this server (when none are listed): then
    /// its members are the cached ones, even none. Chat2Graph offers what the server lists,
    /// so a server listing no tools offers nothing; only a server whose tools are unknown
    /// stands for them as one tool.
    discovered: bool,
}

struct ActionEntry {
    item: NodeId,
    tools: Vec<(String, NodeId)>,
}

pub fn load(ctx: &mut Ctx<'_>) {
    if let Some(root) = ctx.doc.root {
        ctx.duplicate_keys(root);
    }
    let mut tools = tool_entries(ctx);
    qualify_shared_members(&mut tools);
    let actions = action_entries(ctx, &tools);
    let chain = flattened_chain(ctx, &actions);
    build_graph(ctx, &tools, &actions, &chain);
    count_chain_places(ctx, &chain);
    operators(ctx);
    scores(ctx);
    report_ignored_tuning(ctx);
    report_unchained(ctx, &actions);
    report_uncalled(ctx, &tools);
}

fn root_list(ctx: &mut Ctx<'_>, key: &str) -> Vec<NodeId> {
    match ctx.doc.root {
        Some(root) if ctx.doc.map(root).is_some() => c2g_list(ctx, root, key),
        _ => Vec::new(),
    }
}

/// A list Chat2Graph iterates with `dict.get(key, [])`: a key written with no value gives
/// `None` there and the load fails, so a null value is an error (TS070), not an empty list.
/// `scores:` is toolscope's own and may stay empty.
fn c2g_list(ctx: &mut Ctx<'_>, parent: NodeId, key: &str) -> Vec<NodeId> {
    if key != "scores"
        && let Some(v) = ctx.doc.get(parent, key)
        && matches!(ctx.doc.scalar(v), Some(Scalar::Null))
    {
        ctx.diag(
            v,
            Severity::Error,
            Code::NullList,
            format!("`{key}:` has no value (null); Chat2Graph fails to load this file ('NoneType' object is not iterable); write `{key}: []`"),
        );
        return Vec::new();
    }
    ctx.list(parent, key)
}

fn tool_entries(ctx: &mut Ctx<'_>) -> HashMap<String, ToolEntry> {
    let mut out: HashMap<String, ToolEntry> = HashMap::new();
    for item in root_list(ctx, "tools") {
        if ctx.doc.map(item).is_none() {
            ctx.diag(
                item,
                Severity::Error,
                Code::Shape,
                "a tool entry must be a mapping".into(),
            );
            continue;
        }
        ctx.check_text_fields(item);
        let name = ctx.text(item, "name").unwrap_or_default();
        let ty = ctx
            .text(item, "type")
            .unwrap_or_else(|| "LOCAL_TOOL".into());
        let group = match ty.as_str() {
            "LOCAL_TOOL" => false,
            "MCP" => true,
            other => {
                ctx.diag(
                    item,
                    Severity::Warning,
                    Code::UnsupportedToolType,
                    format!(
                        "tool `{name}` has type `{other}`, neither LOCAL_TOOL nor MCP; skipped"
                    ),
                );
                continue;
            }
        };
        let mut members = Vec::new();
        if group {
            for m in ctx.list(item, "tools") {
                if let Some(r) = ctx.reference(m, false) {
                    members.push((r.name.to_string(), r.item));
                }
            }
        }
        if out.contains_key(&name) {
            ctx.diag(
                item,
                Severity::Warning,
                Code::DuplicateName,
                format!("tool `{name}` is declared twice; the last one counts, as in Chat2Graph"),
            );
        }
        let (cached, discovered) = match (group && members.is_empty(), out.get_mut(&name)) {
            // A second entry of the name (the last counts): the members the first took.
            (true, Some(earlier)) => (earlier.cached.take(), earlier.discovered),
            (true, None) => match ctx.cached_members(&name) {
                Some(tools) => (tools, true),
                None => (Vec::new(), false),
            },
            (false, _) => (Vec::new(), false),
        };
        out.insert(
            name,
            ToolEntry {
                item,
                group,
                members,
                cached: std::cell::RefCell::new(cached),
                discovered,
            },
        );
    }
    out
}

/// Members of one name on two servers (Playwright's and browser-use's `browser_navigate`)
/// are two tools: Chat2Graph offers the model a function of each. Each is named
/// `SERVER/TOOL` (`model::mcp`), and lint says the model sees two functions with one name.
fn qualify_shared_members(tools: &mut HashMap<String, ToolEntry>) {
    if tools.values().filter(|e| e.group).nth(1).is_none() {
        return;
    }
    let mut servers: HashMap<String, Vec<&String>> = HashMap::new();
    for (name, entry) in tools.iter().filter(|(_, e)| e.group) {
        let listed = entry.members.iter().map(|(m, _)| m.clone());
        let cached: Vec<String> = entry
            .cached
            .borrow()
            .iter()
            .map(|t| t.name.clone())
            .collect();
        let mut seen = HashSet::new();
        for m in listed.chain(cached) {
            if seen.insert(m.clone()) {
                servers.entry(m).or_default().push(name);
            }
        }
    }
    let mut shared: Vec<(String, Vec<String>)> = servers
        .into_iter()
        .filter(|(_, s)| s.len() > 1)
        .map(|(m, s)| {
            let mut s: Vec<String> = s.into_iter().cloned().collect();
            s.sort_by_key(|n| tools[n].item);
            (m, s)
        })
        .collect();
    shared.sort();
    for (member, names) in &shared {
        for server in names {
            let q = crate::model::mcp::qualify(server, member);
            if let Some(entry) = tools.get_mut(server) {
                for (m, _) in entry.members.iter_mut().filter(|(m, _)| m == member) {
                    *m = q.clone();
                }
                for t in entry
                    .cached
                    .borrow_mut()
                    .iter_mut()
                    .filter(|t| &t.name == member)
                {
                    t.name = q.clone();
                }
            }
        }
    }
}

/// How often each chained action appears in the chains, where more than once: Chat2Graph
/// builds the action's tools anew for each place, and offers each copy
/// (`Toolkit::copies_sent`). Recorded for every Chat2Graph config, so that a tool two
/// actions call counts twice too.
fn count_chain_places(ctx: &mut Ctx<'_>, chain: &[(String, NodeId, usize)]) {
    let mut places: HashMap<String, u32> = HashMap::new();
    for (name, _, _) in chain {
        *places.entry(name.clone()).or_default() += 1;
    }
    places.retain(|_, n| *n > 1);
    ctx.toolkit.chain_places = Some(places);
}

fn action_entries(
    ctx: &mut Ctx<'_>,
    tools: &HashMap<String, ToolEntry>,
) -> HashMap<String, ActionEntry> {
    let mut out = HashMap::new();
    for item in root_list(ctx, "actions") {
        if ctx.doc.map(item).is_none() {
            continue; // Chat2Graph skips non-mapping entries.
        }
        ctx.check_text_fields(item);
        let name = ctx.text(item, "name").unwrap_or_default();
        let mut refs = Vec::new();
        for t in c2g_list(ctx, item, "tools") {
            let doc = ctx.doc;
            if doc.map(t).is_none() {
                if let Some(bare) = doc.str(t) {
                    ctx.diag(
                        t,
                        Severity::Warning,
                        Code::BareToolRef,
                        format!("action `{name}` lists tool `{bare}` as a bare name; Chat2Graph reads only mappings here and drops it silently (write `{{name: {bare}}}` or an alias)"),
                    );
                }
                continue;
            }
            let Some(tool) = ctx.text(t, "name") else {
                continue;
            };
            if tools.contains_key(&tool) {
                refs.push((tool, t));
            } else {
                ctx.diag(
                    t,
                    Severity::Warning,
                    Code::UnknownTool,
                    format!("action `{name}` refers to unknown tool `{tool}`; dropped, as Chat2Graph drops it"),
                );
            }
        }
        if out.contains_key(&name) {
            ctx.diag(
                item,
                Severity::Warning,
                Code::DuplicateName,
                format!("action `{name}` is declared twice; the last one counts, as in Chat2Graph"),
            );
        }
        out.insert(name, ActionEntry { item, tools: refs });
    }
    out
}

/// The chains flattened in order: (action name, chain item, chain number).
fn flattened_chain(
    ctx: &mut Ctx<'_>,
    actions: &HashMap<String, ActionEntry>,
) -> Vec<(String, NodeId, usize)> {
    let mut out = Vec::new();
    for (n, chain) in root_list(ctx, "toolkit").into_iter().enumerate() {
        let Some(items) = ctx.doc.seq(chain).map(<[NodeId]>::to_vec) else {
            ctx.diag(
                chain,
                Severity::Error,
                Code::Shape,
                "a `toolkit` chain must be a list".into(),
            );
            continue;
        };
        for item in items {
            let name = match ctx.doc.map(item) {
                Some(_) => ctx.text(item, "name"),
                None => None,
            };
            let Some(name) = name else {
                ctx.diag(
                    item,
                    Severity::Error,
                    Code::Shape,
                    "a chain item must be an action mapping with `name` (Chat2Graph asserts this)"
                        .into(),
                );
                continue;
            };
            if !actions.contains_key(&name) {
                ctx.diag(
                    item,
                    Severity::Error,
                    Code::UnknownAction,
                    format!("chain item `{name}` is no action under `actions`; dropped"),
                );
                continue;
            }
            out.push((name, item, n));
        }
    }
    out
}

fn build_graph(
    ctx: &mut Ctx<'_>,
    tools: &HashMap<String, ToolEntry>,
    actions: &HashMap<String, ActionEntry>,
    chain: &[(String, NodeId, usize)],
) {
    // Vertices in chain order.
    for (name, _, _) in chain {
        if ctx.toolkit.action(name).is_some() {
            continue;
        }
        let entry = &actions[name];
        let mut node = Node::new(NodeKind::Action, name.clone());
        node.desc = ctx.text(entry.item, "desc").unwrap_or_default();
        node.origin = Some(ctx.origin(ctx.doc.resolve(entry.item)));
        if ctx.charge_node(entry.item, &node) {
            ctx.toolkit.add_node(node);
        }
    }
    // Next edges along the flattened chain.
    for pair in chain.windows(2) {
        let (from, _, c1) = &pair[0];
        let (to, item, c2) = &pair[1];
        let (Some(a), Some(b)) = (ctx.toolkit.action(from), ctx.toolkit.action(to)) else {
            continue;
        };
        if ctx.toolkit.edge(a, b).is_none() {
            let origin = Some(ctx.origin(*item));
            if !ctx.charge_edge(*item) {
                return;
            }
            ctx.toolkit.add_edge(a, b, 1.0, origin);
            if c1 != c2 {
                ctx.diag(
                    *item,
                    Severity::Info,
                    Code::CrossChainEdge,
                    format!("Chat2Graph joins chains: `{from}` (end of chain {}) -> `{to}` (start of chain {})", c1 + 1, c2 + 1),
                );
            }
        }
    }
    // Call edges from each chained action.
    let mut done = std::collections::HashSet::new();
    let mut made = Made::default();
    for (name, _, _) in chain {
        if !done.insert(name.clone()) {
            continue;
        }
        let Some(a) = ctx.toolkit.action(name) else {
            continue;
        };
        made.calls.clear();
        for (tool, item) in &actions[name].tools {
            call_edges(ctx, a, tool, &tools[tool], *item, &mut made);
        }
    }
}

/// Edges made so far, so that an existing one is told apart in constant time: looking an
/// edge up walks both ends' edge lists, which grow with every caller of a large group (a
/// group used through an alias by thousands of actions made the load quadratic).
#[derive(Default)]
struct Made {
    /// The targets of the action whose Call edges are being made (all made together).
    calls: HashSet<NodeIndex>,
    /// The groups whose Has edges are made (by their first caller).
    groups: HashSet<NodeIndex>,
}

fn call_edges(
    ctx: &mut Ctx<'_>,
    a: NodeIndex,
    tool: &str,
    entry: &ToolEntry,
    item: NodeId,
    made: &mut Made,
) {
    let origin = Some(ctx.origin(item));
    let kind = if entry.group {
        NodeKind::Group
    } else {
        NodeKind::Tool
    };
    let t = match ctx.toolkit.find(kind, tool) {
        Some(t) => t,
        None => {
            let mut node = Node::new(kind, tool.to_string());
            node.desc = ctx.text(entry.item, "desc").unwrap_or_default();
            let default = if entry.group { "MCP" } else { "LOCAL_TOOL" };
            node.meta = Some(Box::new(ctx.tool_meta(entry.item, default)));
            node.origin = Some(ctx.origin(ctx.doc.resolve(entry.item)));
            // Counted; past the budget the load fails, so the node may still be added.
            ctx.charge_node(entry.item, &node);
            ctx.toolkit.add_node(node)
        }
    };
    let first = made.groups.insert(t);
    let mut members = HashSet::new();
    if entry.group && entry.members.is_empty() && entry.discovered {
        if entry.cached.borrow().is_empty() {
            if first {
                no_tools_listed(ctx, tool, entry.item);
            }
            return;
        }
        let group_origin = ctx.origin(ctx.doc.resolve(entry.item));
        for tool in entry.cached.borrow_mut().iter_mut() {
            if !ctx.edge_allowed(item) {
                return;
            }
            let m = ctx.cached_member(tool, group_origin);
            if first && members.insert(m) {
                ctx.toolkit.add_new_edge(t, m, 1.0, Some(group_origin));
            }
            if made.calls.insert(m) {
                ctx.toolkit.add_new_edge(a, m, 1.0, origin);
            }
        }
        return;
    }
    if !entry.group || entry.members.is_empty() {
        if made.calls.insert(t) && ctx.charge_edge(item) {
            ctx.toolkit.add_new_edge(a, t, 1.0, origin);
        }
        return;
    }
    for (member, m_item) in &entry.members {
        let m = match ctx.toolkit.find(NodeKind::Tool, member) {
            Some(m) => m,
            None => {
                let mut node = Node::new(NodeKind::Tool, member.clone());
                let mut meta = crate::model::ToolMeta {
                    ty: "MCP".into(),
                    ..Default::default()
                };
                if ctx.doc.map(*m_item).is_some() {
                    node.desc = ctx.text(*m_item, "desc").unwrap_or_default();
                    meta = ctx.tool_meta(*m_item, "MCP");
                }
                node.meta = Some(Box::new(meta));
                node.origin = Some(ctx.origin(ctx.doc.resolve(*m_item)));
                ctx.charge_node(*m_item, &node);
                ctx.toolkit.add_node(node)
            }
        };
        if !ctx.edge_allowed(item) {
            return;
        }
        if first && members.insert(m) {
            let has_origin = Some(ctx.origin(*m_item));
            ctx.toolkit.add_new_edge(t, m, 1.0, has_origin);
        }
        if made.calls.insert(m) {
            ctx.toolkit.add_new_edge(a, m, 1.0, origin);
        }
    }
}

/// A chained action calls an MCP server whose cache lists no tools: Chat2Graph adds the
/// tools the server lists and nothing else, so the action is offered nothing from it, and
/// neither the server nor a score on it reaches the model. Said once per server.
fn no_tools_listed(ctx: &mut Ctx<'_>, server: &str, item: NodeId) {
    let file = crate::model::mcp::shell_word(&ctx.file);
    ctx.diag(
        item,
        Severity::Warning,
        Code::McpServerNoTools,
        format!(
            "the MCP cache lists no tools for the server `{server}`: Chat2Graph offers nothing from it, so toolscope offers nothing either; if the server lists tools now, run `toolscope mcp discover {file}`"
        ),
    );
}

/// Operators: each `experts[].workflow` operator as `<expert>/<n>`, and `leader`.
fn operators(ctx: &mut Ctx<'_>) {
    for expert in root_list(ctx, "experts") {
        if ctx.doc.map(expert).is_none() {
            ctx.diag(
                expert,
                Severity::Error,
                Code::Shape,
                "an expert must be a mapping".into(),
            );
            continue;
        }
        let profile = ctx.doc.get(expert, "profile");
        let expert_name = profile
            .and_then(|p| ctx.text(p, "name"))
            .unwrap_or_default();
        let mut n = 0;
        for chain in c2g_list(ctx, expert, "workflow") {
            let Some(ops) = ctx.doc.seq(chain).map(<[NodeId]>::to_vec) else {
                ctx.diag(
                    chain,
                    Severity::Error,
                    Code::Shape,
                    "a workflow entry must be a list of operators".into(),
                );
                continue;
            };
            for op in ops {
                if ctx.doc.map(op).is_none() {
                    ctx.diag(
                        op,
                        Severity::Error,
                        Code::Shape,
                        "an operator must be a mapping".into(),
                    );
                    continue;
                }
                n += 1;
                add_operator(ctx, format!("{expert_name}/{n}"), op);
            }
        }
    }
    if let Some(leader) = ctx.top("leader")
        && ctx.doc.map(leader).is_some()
    {
        add_operator(ctx, "leader".into(), leader);
    }
}

fn add_operator(ctx: &mut Ctx<'_>, name: String, op: NodeId) {
    let mut actions = Vec::new();
    for a in c2g_list(ctx, op, "actions") {
        let action = match ctx.doc.map(a) {
            Some(_) => ctx.text(a, "name"),
            None => None,
        };
        let Some(action) = action else {
            continue; // Chat2Graph reads only mappings with `name` here.
        };
        if ctx.toolkit.action(&action).is_none() {
            ctx.diag(
                a,
                Severity::Error,
                Code::OperatorUnknownAction,
                format!("operator `{name}` names `{action}`, which is in no toolkit chain (Chat2Graph fails here)"),
            );
        }
        // An aliased list is copied into every operator that uses it: counted.
        if !ctx.charge(a, crate::formats::ctx::listed_name_bytes(action.len())) {
            return;
        }
        actions.push(action);
    }
    let (threshold, hops) = ctx.tuning(op);
    let mut operator = Operator::new(name, actions);
    operator.threshold = threshold;
    operator.hops = hops;
    operator.anchor = ctx.doc.anchor_name(op).map(str::to_string);
    operator.origin = Some(ctx.origin(ctx.doc.resolve(op)));
    ctx.toolkit.operators.push(operator);
}

/// The `scores:` list: `{from, to, score}` entries overriding edge scores. An entry naming
/// an MCP server whose tools are known scores each of its tools that the action calls and
/// that has no entry of its own (in any order), as the integration applies it.
fn scores(ctx: &mut Ctx<'_>) {
    let mut own = HashSet::new();
    let mut on_servers = Vec::new();
    for item in root_list(ctx, "scores") {
        if ctx.doc.map(item).is_none() {
            ctx.diag(
                item,
                Severity::Error,
                Code::Shape,
                "a `scores` entry must be a mapping {from, to, score}".into(),
            );
            continue;
        }
        let (Some(from), Some(to)) = (ctx.text(item, "from"), ctx.text(item, "to")) else {
            ctx.diag(
                item,
                Severity::Error,
                Code::Shape,
                "a `scores` entry needs `from` and `to`".into(),
            );
            continue;
        };
        let Some(v) = ctx.doc.get(item, "score") else {
            ctx.diag(
                item,
                Severity::Error,
                Code::Shape,
                "a `scores` entry needs `score`".into(),
            );
            continue;
        };
        let score = ctx.score(v, || format!("{from} -> {to}"));
        let a = ctx.toolkit.action(&from);
        let edge = a.and_then(|a| ctx.toolkit.named(&to).find_map(|b| ctx.toolkit.edge(a, b)));
        let server = a.and_then(|a| {
            let g = ctx.toolkit.find(NodeKind::Group, &to)?;
            let calls = server_calls(&ctx.toolkit, a, g);
            (!calls.is_empty()).then_some(calls)
        });
        match (edge, server) {
            (Some(e), _) => {
                own.insert(e);
                ctx.toolkit.graph[e].score = score;
                ctx.toolkit.graph[e].origin = Some(ctx.origin(item));
            }
            (None, Some(calls)) => on_servers.push((item, from, to, score, calls)),
            (None, None) => match ctx.toolkit.mcp_no_edge(
                &from,
                &to,
                &score.to_string(),
                crate::model::mcp::FrontEnd::Cli,
            ) {
                Some(why) => ctx.diag(
                    item,
                    Severity::Warning,
                    Code::McpMemberUnknown,
                    format!("`scores` entry {from} -> {to}: {why}"),
                ),
                None => ctx.diag(
                    item,
                    Severity::Warning,
                    Code::ScoreEntryNoEdge,
                    format!("`scores` names an edge that does not exist: {from} -> {to}"),
                ),
            },
        }
    }
    for (item, from, to, score, calls) in on_servers {
        let origin = Some(ctx.origin(item));
        let mut scored = Vec::new();
        for (e, m) in calls {
            if !own.contains(&e) {
                ctx.toolkit.graph[e].score = score;
                ctx.toolkit.graph[e].origin = origin;
                scored.push(ctx.toolkit.name(m).to_string());
            }
        }
        let n = scored.len();
        ctx.diag(
            item,
            Severity::Info,
            Code::ScoreOnServer,
            match n {
                0 => format!("`{from} -> {to}` scores no tool: every tool of the MCP server `{to}` has a score of its own from `{from}`"),
                _ => format!(
                    "`{from} -> {to}` scores the {n} tool{} of the MCP server `{to}` that have no score of their own from `{from}`: {}",
                    if n == 1 { "" } else { "s" },
                    scored.join(", ")
                ),
            },
        );
    }
}

/// The `Call` edges from action `a` to the known tools of group `g`, with the tools.
fn server_calls(
    tk: &crate::model::Toolkit,
    a: NodeIndex,
    g: NodeIndex,
) -> Vec<(petgraph::stable_graph::EdgeIndex, NodeIndex)> {
    let mut calls: Vec<_> = tk
        .out_edges(g)
        .filter(|(e, _)| tk.graph[*e].kind == crate::model::EdgeKind::Has)
        .filter_map(|(_, m)| Some((tk.edge(a, m)?, m)))
        .collect();
    calls.sort();
    calls
}

/// Chat2Graph builds each `OperatorConfig` from `instruction`, `output_schema` and `actions`
/// only and has no reader for `scores:`: tuning saved here has no effect there unless the
/// adapter in `integrations/chat2graph/` applies it. Said once per file, at the first place.
fn report_ignored_tuning(ctx: &mut Ctx<'_>) {
    let mut ops = Vec::new();
    for expert in root_list_quiet(ctx, "experts") {
        let chains = ctx.doc.get(expert, "workflow").and_then(|w| ctx.doc.seq(w));
        for chain in chains.unwrap_or_default() {
            ops.extend(ctx.doc.seq(*chain).unwrap_or_default().iter().copied());
        }
    }
    ops.extend(ctx.doc.root.and_then(|r| ctx.doc.get(r, "leader")));
    let tuned: Vec<NodeId> = ops
        .into_iter()
        .filter(|op| {
            ctx.doc.map(*op).is_some()
                && (ctx.doc.get(*op, "threshold").is_some() || ctx.doc.get(*op, "hops").is_some())
        })
        .collect();
    let scores = ctx
        .doc
        .root
        .and_then(|r| ctx.doc.entry(r, "scores"))
        .filter(|(_, v)| ctx.doc.seq(*v).is_some_and(|s| !s.is_empty()));
    let at = match (tuned.first(), scores) {
        (Some(op), _) => *op,
        (None, Some((k, _))) => k,
        (None, None) => return,
    };
    let mut what = Vec::new();
    if !tuned.is_empty() {
        what.push(format!("`threshold`/`hops` in {} operator(s)", tuned.len()));
    }
    if scores.is_some() {
        what.push("the `scores:` list".to_string());
    }
    ctx.diag(
        at,
        Severity::Info,
        Code::TuningIgnored,
        format!("Chat2Graph's loader ignores {}; toolscope_chat2graph.install() applies them (docs/chat2graph.md)", what.join(" and ")),
    );
}

fn root_list_quiet(ctx: &Ctx<'_>, key: &str) -> Vec<NodeId> {
    ctx.doc
        .root
        .and_then(|r| ctx.doc.get(r, key))
        .and_then(|v| ctx.doc.seq(v))
        .map(<[NodeId]>::to_vec)
        .unwrap_or_default()
}

fn report_unchained(ctx: &mut Ctx<'_>, actions: &HashMap<String, ActionEntry>) {
    let mut unchained: Vec<(&String, NodeId)> = actions
        .iter()
        .filter(|(name, _)| ctx.toolkit.action(name).is_none())
        .map(|(name, e)| (name, e.item))
        .collect();
    unchained.sort_by_key(|(_, item)| *item);
    for (name, item) in unchained {
        ctx.diag(
            item,
            Severity::Warning,
            Code::ActionNotInChain,
            format!("action `{name}` is in no `toolkit` chain, so it is not part of the graph"),
        );
    }
}

/// Tools no chained action calls: Chat2Graph drops them from the graph, so say so.
fn report_uncalled(ctx: &mut Ctx<'_>, tools: &HashMap<String, ToolEntry>) {
    let mut uncalled: Vec<(&String, NodeId)> = tools
        .iter()
        .filter(|(name, e)| {
            let kind = if e.group {
                NodeKind::Group
            } else {
                NodeKind::Tool
            };
            ctx.toolkit.find(kind, name).is_none()
        })
        .map(|(name, e)| (name, e.item))
        .collect();
    uncalled.sort_by_key(|(_, item)| *item);
    for (name, item) in uncalled {
        ctx.diag(
            item,
            Severity::Warning,
            Code::ToolNeverCalled,
            format!("no chained action calls tool `{name}`, so it is not part of the graph"),
        );
    }
}
