//! Tool definitions people already have, read for `toolscope init`: OpenAI
//! function-calling JSON, an MCP `tools/list` result, or toolscope's own MCP sidecar
//! (`FILE.mcp.json`), told apart by their content.
//!
//! - OpenAI: a JSON array of `{"type": "function", "function": {name, description,
//!   parameters}}` or bare `{name, description, parameters}` objects, a single such object,
//!   or JSONL (one object a line).
//! - MCP: `{"tools": [{name, description, inputSchema}]}`, or the JSON-RPC response
//!   around it (`{"result": {"tools": [...]}}`); an array of such tools works too.
//! - Sidecar: `{"toolscope_mcp_cache": 1, "servers": [...]}`: one source per server.
//!
//! A file (or a sidecar's server) is one source: its tools become one group.
//!
//! Bounded like every input: a regular file only, read no further than [`MAX_BYTES`] even
//! if it grows meanwhile (`crate::bounded`), and its parse cost measured before parsing
//! ([`MAX_PARSE_COST`]; 64 MiB of dense JSON took 2.7 GB as a tree). A byte-order mark
//! at the start is skipped.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;
use serde_json::value::RawValue;

/// The largest definitions file read, as for toolkit files.
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The most memory parsing one definitions file may take, as measured before parsing
/// (`mcp::cache::json_cost`, which errs high): a toolkit load's budget for a file of the
/// same size (12 times it plus 100 MB), and never more than 1 GiB, leaving room for the
/// toolkit `init` builds from it.
pub fn max_parse_cost(bytes: usize) -> usize {
    bytes
        .saturating_mul(12)
        .saturating_add(100 << 20)
        .min(MAX_PARSE_COST)
}

/// The ceiling of [`max_parse_cost`].
pub const MAX_PARSE_COST: usize = 1 << 30;

/// One tool definition.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    pub name: String,
    pub description: String,
    /// The JSON Schema of its arguments (`None` when the definition has none).
    pub schema: Option<Value>,
    /// The schema's text as written, when `schema` cannot hold it exactly (an integer
    /// beyond 64 bits; see `schema::has_wide_integer`): `init` copies it verbatim.
    pub schema_text: Option<crate::model::SchemaText>,
}

/// What a source was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefKind {
    OpenAi,
    Mcp,
    Sidecar,
}

/// The tools of one source.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// The group's name: the file's stem, or the sidecar server's name.
    pub group: String,
    /// Where it came from, for messages: the path (and the server).
    pub origin: String,
    pub kind: DefKind,
    pub tools: Vec<ToolDef>,
}

/// Reads one definitions file into its sources.
pub fn read_file(path: &Path) -> Result<Vec<Source>, String> {
    let shown = path.display().to_string();
    let bytes = crate::bounded::read(path, MAX_BYTES, crate::bounded::Links::Follow)
        .map_err(|e| format!("{shown}: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        format!("{shown}: not UTF-8 (byte {at})")
    })?;
    let cost = crate::mcp::cache::json_cost(&text);
    let budget = max_parse_cost(text.len());
    if cost > budget {
        return Err(format!(
            "{shown}: reading these definitions would take about {} MB, over the limit of {} MB; split the file",
            cost >> 20,
            budget >> 20
        ));
    }
    let stem = path
        .file_name()
        .and_then(|n| n.to_str())
        .map(stem)
        .filter(|s| !s.trim().is_empty())
        .unwrap_or("tools")
        .to_string();
    parse(&stem, &shown, &text)
}

/// Fits every tool's schema to the limits every schema reader shares
/// (`source::schema::fit`), so the toolkit written reads back; a note per schema cut.
pub fn fit_schemas(sources: &mut [Source]) -> Vec<String> {
    let mut notes = Vec::new();
    for s in sources {
        for t in &mut s.tools {
            if let Some(why) = t.schema.as_mut().and_then(crate::source::schema::fit) {
                // The text is no longer the schema kept.
                t.schema_text = None;
                notes.push(format!("{}: `{}`: its schema {why}", s.origin, t.name));
            }
        }
    }
    notes
}

/// A file name without its definition suffixes (`x.mcp.json`, `x.json`, `x.jsonl`).
fn stem(name: &str) -> &str {
    [".mcp.json", ".jsonl", ".json"]
        .iter()
        .find_map(|s| name.strip_suffix(s))
        .unwrap_or(name)
}

/// Parses a definitions text: one JSON value, or JSON lines (a byte-order mark at the
/// start skipped).
pub fn parse(group: &str, origin: &str, text: &str) -> Result<Vec<Source>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match serde_json::from_str::<Value>(text) {
        Ok(v) => {
            let mut sources = whole(group, origin, &v)?;
            if let [src] = sources.as_mut_slice()
                && src.kind != DefKind::Sidecar
                && crate::source::schema::has_wide_integer(text)
            {
                keep_texts(&mut src.tools, raw_items(text));
            }
            Ok(sources)
        }
        Err(whole_err) => {
            let lines: Vec<(usize, &str)> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .collect();
            if lines.len() < 2 {
                return Err(format!("{origin}: not JSON: {whole_err}"));
            }
            let mut tools = Vec::new();
            let mut kind = DefKind::OpenAi;
            for (i, line) in lines {
                let at = format!("{origin}:{}", i + 1);
                let v: Value =
                    serde_json::from_str(line).map_err(|e| format!("{at}: not JSON: {e}"))?;
                let (k, mut t) = one(&v).map_err(|e| format!("{at}: {e}"))?;
                if crate::source::schema::has_wide_integer(line) {
                    keep_texts(std::slice::from_mut(&mut t), raw_items_of_line(line));
                }
                kind = k;
                tools.push(t);
            }
            Ok(vec![source(group, origin, kind, tools)])
        }
    }
}

/// Gives each tool the text of its schema (`raw`: the definitions' texts in the order
/// read) where the schema holds an integer beyond 64 bits.
fn keep_texts(tools: &mut [ToolDef], raw: Option<Vec<&RawValue>>) {
    let Some(raw) = raw.filter(|r| r.len() == tools.len()) else {
        return;
    };
    for (t, item) in tools.iter_mut().zip(raw) {
        let text = raw_schema(item).map(RawValue::get);
        if t.schema.is_some()
            && let Some(text) = text.filter(|s| crate::source::schema::has_wide_integer(s))
        {
            t.schema_text = Some(crate::model::SchemaText(text.into()));
        }
    }
}

/// The definitions of a whole-file JSON text as text, in the order [`whole`] reads them.
fn raw_items(text: &str) -> Option<Vec<&RawValue>> {
    let top: &RawValue = serde_json::from_str(text).ok()?;
    if top.get().trim_start().starts_with('[') {
        return serde_json::from_str(top.get()).ok();
    }
    let obj: HashMap<String, &RawValue> = serde_json::from_str(top.get()).ok()?;
    let tools = obj.get("tools").copied().or_else(|| {
        let result: HashMap<String, &RawValue> =
            serde_json::from_str(obj.get("result")?.get()).ok()?;
        result.get("tools").copied()
    });
    match tools {
        Some(t) => serde_json::from_str(t.get()).ok(),
        None => Some(vec![top]),
    }
}

fn raw_items_of_line(line: &str) -> Option<Vec<&RawValue>> {
    Some(vec![serde_json::from_str(line).ok()?])
}

/// The schema's text in one definition, where [`one`] reads it.
fn raw_schema(item: &RawValue) -> Option<&RawValue> {
    let obj: HashMap<String, &RawValue> = serde_json::from_str(item.get()).ok()?;
    let schema = match obj.get("function") {
        Some(f) => {
            let f: HashMap<String, &RawValue> = serde_json::from_str(f.get()).ok()?;
            f.get("parameters").copied()
        }
        None if obj.contains_key("inputSchema") => obj.get("inputSchema").copied(),
        None => obj.get("parameters").copied(),
    }?;
    schema.get().trim_start().starts_with('{').then_some(schema)
}

fn source(group: &str, origin: &str, kind: DefKind, tools: Vec<ToolDef>) -> Source {
    Source {
        group: group.to_string(),
        origin: origin.to_string(),
        kind,
        tools,
    }
}

/// A whole-file JSON value.
fn whole(group: &str, origin: &str, v: &Value) -> Result<Vec<Source>, String> {
    if v.get("toolscope_mcp_cache").is_some() {
        return sidecar(origin, v);
    }
    let tools = v
        .get("tools")
        .or_else(|| v.get("result").and_then(|r| r.get("tools")));
    let (kind, items): (DefKind, Vec<&Value>) = match (v, tools) {
        (_, Some(Value::Array(t))) => (DefKind::Mcp, t.iter().collect()),
        (_, Some(_)) => return Err(format!("{origin}: `tools` must be an array")),
        (Value::Array(items), None) => (DefKind::OpenAi, items.iter().collect()),
        (Value::Object(_), None) => (DefKind::OpenAi, vec![v]),
        _ => {
            return Err(format!(
                "{origin}: expected tool definitions (a JSON array or object)"
            ));
        }
    };
    let mut out = Vec::with_capacity(items.len());
    let mut kinds = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let (k, t) = one(item).map_err(|e| format!("{origin}: tool {}: {e}", i + 1))?;
        kinds.push(k);
        out.push(t);
    }
    let kind = if kind == DefKind::Mcp || kinds.contains(&DefKind::Mcp) {
        DefKind::Mcp
    } else {
        DefKind::OpenAi
    };
    Ok(vec![source(group, origin, kind, out)])
}

/// One definition: OpenAI (wrapped or bare) or an MCP tool (`inputSchema`).
fn one(v: &Value) -> Result<(DefKind, ToolDef), String> {
    let Value::Object(obj) = v else {
        return Err("a definition must be a JSON object".into());
    };
    if let Some(f) = obj.get("function") {
        if let Some(t) = obj.get("type").and_then(Value::as_str)
            && t != "function"
        {
            return Err(format!("type `{t}` is not a function"));
        }
        return def(f, "parameters").map(|d| (DefKind::OpenAi, d));
    }
    if obj.contains_key("inputSchema") {
        return def(v, "inputSchema").map(|d| (DefKind::Mcp, d));
    }
    def(v, "parameters").map(|d| (DefKind::OpenAi, d))
}

fn def(v: &Value, schema_key: &str) -> Result<ToolDef, String> {
    let name = match v.get("name") {
        Some(Value::String(n)) if !n.trim().is_empty() => n.clone(),
        Some(Value::String(_)) => return Err("its `name` is empty".into()),
        Some(_) => return Err("its `name` is not a string".into()),
        None => return Err("it has no `name`".into()),
    };
    let description = match v.get("description") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(d)) => d.clone(),
        Some(_) => return Err(format!("`{name}`: its `description` is not a string")),
    };
    let schema = match v.get(schema_key) {
        None | Some(Value::Null) => None,
        Some(s @ Value::Object(_)) => Some(s.clone()),
        Some(_) => return Err(format!("`{name}`: its `{schema_key}` is not an object")),
    };
    Ok(ToolDef {
        name,
        description,
        schema,
        schema_text: None,
    })
}

fn sidecar(origin: &str, v: &Value) -> Result<Vec<Source>, String> {
    let cache: crate::mcp::cache::Cache = serde_json::from_value(v.clone())
        .map_err(|e| format!("{origin}: not a toolscope MCP sidecar: {e}"))?;
    let mut out = Vec::with_capacity(cache.servers.len());
    for (i, s) in cache.servers.into_iter().enumerate() {
        // A server without a name gives its group one (an empty name is no name).
        let group = if s.name.trim().is_empty() {
            format!("server {}", i + 1)
        } else {
            s.name.clone()
        };
        let origin = format!("{origin} (server {group})");
        let mut tools = Vec::with_capacity(s.tools.len());
        for (j, t) in s.tools.into_iter().enumerate() {
            if t.name.trim().is_empty() {
                return Err(format!("{origin}: tool {}: its `name` is empty", j + 1));
            }
            tools.push(ToolDef {
                name: t.name,
                description: t.description,
                schema: Some(t.input_schema),
                schema_text: None,
            });
        }
        out.push(Source {
            group,
            origin,
            kind: DefKind::Sidecar,
            tools,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: &[Source]) -> Vec<(String, Vec<String>, DefKind)> {
        s.iter()
            .map(|s| {
                let t = s.tools.iter().map(|t| t.name.clone()).collect();
                (s.group.clone(), t, s.kind)
            })
            .collect()
    }

    #[test]
    fn the_four_shapes_are_told_apart_by_content() {
        let openai = r#"[{"type": "function", "function": {"name": "ls", "description": "List.", "parameters": {"type": "object", "properties": {"a": {"type": "boolean"}}}}}, {"name": "cd", "parameters": {"type": "object"}}]"#;
        let s = parse("fs", "fs.json", openai).unwrap();
        assert_eq!(
            names(&s),
            vec![("fs".into(), vec!["ls".into(), "cd".into()], DefKind::OpenAi)]
        );
        assert_eq!(s[0].tools[0].description, "List.");
        assert!(s[0].tools[0].schema.as_ref().unwrap()["properties"]["a"].is_object());
        let jsonl =
            "{\"name\": \"a\"}\n\n{\"type\": \"function\", \"function\": {\"name\": \"b\"}}\n";
        assert_eq!(parse("g", "g.jsonl", jsonl).unwrap()[0].tools.len(), 2);
        let mcp = r#"{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "x", "description": "X.", "inputSchema": {"type": "object"}}]}}"#;
        let s = parse("srv", "srv.json", mcp).unwrap();
        assert_eq!(s[0].kind, DefKind::Mcp);
        assert_eq!(
            s[0].tools[0].schema,
            Some(serde_json::json!({"type": "object"}))
        );
        let side = r#"{"toolscope_mcp_cache": 1, "servers": [
            {"name": "A", "transport": "stdio", "command": "x", "args": [], "discovered_at": "t", "tools": [{"name": "p", "input_schema": {}}]},
            {"name": "B", "transport": "stdio", "command": "y", "args": [], "discovered_at": "t", "tools": []}]}"#;
        let s = parse("k.yml", "k.yml.mcp.json", side).unwrap();
        assert_eq!(
            names(&s),
            vec![
                ("A".into(), vec!["p".into()], DefKind::Sidecar),
                ("B".into(), vec![], DefKind::Sidecar),
            ]
        );
        assert_eq!(stem("k.yml.mcp.json"), "k.yml");
        assert_eq!(stem("GorillaFileSystem.json"), "GorillaFileSystem");
    }

    #[test]
    fn bad_definitions_say_where() {
        let e = parse(
            "g",
            "g.json",
            r#"[{"name": "a"}, {"description": "no name"}]"#,
        )
        .unwrap_err();
        assert!(e.contains("g.json: tool 2: it has no `name`"), "{e}");
        let e = parse("g", "g.jsonl", "{\"name\": \"a\"}\n{\"name\": 3}\n").unwrap_err();
        assert!(e.starts_with("g.jsonl:2:"), "{e}");
        let e = parse("g", "g.json", "{\"name\": \"a\", \"parameters\": []}").unwrap_err();
        assert!(e.contains("`parameters` is not an object"), "{e}");
        assert!(parse("g", "g.json", "nonsense").is_err());
        assert!(
            parse(
                "g",
                "g.json",
                "[{\"type\": \"web_search\", \"function\": {\"name\": \"a\"}}]"
            )
            .is_err()
        );
    }
}
