//! The MCP sidecar cache: what `toolscope mcp discover` found on each server of a toolkit
//! file, kept next to it so that later runs, the TUI, CI and colleagues see the same member
//! tools offline.
//!
//! For `dir/chat2graph.yml` the cache is `dir/chat2graph.yml.mcp.json` (the name does not end
//! in `.yml`/`.yaml`, so opening the folder never loads it as a toolkit). It is pretty JSON
//! with a fixed key order, servers sorted by name and tools sorted by name, so that a
//! re-discovery that finds the same tools changes only the `discovered_at` lines:
//!
//! ```json
//! {
//!   "toolscope_mcp_cache": 1,
//!   "servers": [
//!     {
//!       "name": "FileTool",
//!       "transport": "stdio",
//!       "command": "npx",
//!       "args": ["@modelcontextprotocol/server-filesystem", "."],
//!       "discovered_at": "2026-11-23T07:00:00Z",
//!       "tools": [{"name": "list_directory", "description": "...", "input_schema": {}}]
//!     }
//!   ]
//! }
//! ```
//!
//! A server is recorded with its [`Identity`] (transport, command and arguments, or URL)
//! and never with `env` or header values, which may hold secrets. When loading, a cached
//! server is used only while the file still declares the same identity; otherwise the
//! cache is stale and a diagnostic says so. An unreadable cache is a diagnostic too, never
//! an error that stops the load. `--no-mcp-cache` turns the whole mechanism off
//! ([`set_enabled`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::decl::{Identity, ServerDecl};
use crate::diag::{Code, Diagnostic, Severity};
use crate::model::ToolInput;

/// Appended to the toolkit file's name to name its cache.
pub const SUFFIX: &str = ".mcp.json";
/// Version of the cache format, the value of the `toolscope_mcp_cache` key.
pub const VERSION: u32 = 1;
/// A cache larger than this is refused (a diagnostic), as toolkit files are.
const MAX_BYTES: u64 = 64 * 1024 * 1024;

static ENABLED: AtomicBool = AtomicBool::new(true);

/// Turns loading of caches on or off for this process (`--no-mcp-cache`).
pub fn set_enabled(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

/// Whether loads read caches.
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// The whole cache file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cache {
    pub toolscope_mcp_cache: u32,
    pub servers: Vec<ServerEntry>,
}

/// One discovered server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerEntry {
    pub name: String,
    #[serde(flatten)]
    pub identity: Identity,
    /// When the tools were listed, UTC, RFC 3339 (`2026-11-23T07:00:00Z`).
    pub discovered_at: String,
    /// The server's own name and version from the handshake, when it sent them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<ServerInfo>,
    pub tools: Vec<CachedTool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
}

/// One tool as the server listed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedTool {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The JSON Schema of the tool's arguments, as the server sent it.
    #[serde(default = "empty_object")]
    pub input_schema: Value,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

impl Default for Cache {
    fn default() -> Self {
        Cache {
            toolscope_mcp_cache: VERSION,
            servers: Vec::new(),
        }
    }
}

impl Cache {
    /// Adds or replaces a server's entry, keeping the file's sorted order.
    pub fn upsert(&mut self, mut entry: ServerEntry) {
        entry.tools.sort_by(|a, b| a.name.cmp(&b.name));
        self.servers.retain(|s| s.name != entry.name);
        self.servers.push(entry);
        self.servers.sort_by(|a, b| a.name.cmp(&b.name));
    }

    /// The deterministic text of the file.
    pub fn to_text(&self) -> String {
        // Serializing plain data with string keys cannot fail.
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Reads a cache's text: each server and each tool on its own, so one that cannot be
    /// read (malformed, or nested past the JSON reader's depth limit) costs only itself.
    /// Returns the cache and why entries were skipped; an error when the file itself is
    /// not a cache.
    pub fn parse(text: &str) -> Result<(Cache, Vec<String>), String> {
        let at = |e: serde_json::Error| format!("{}:{}: {e}", e.line(), e.column());
        let outer: CacheText<'_> = serde_json::from_str(text).map_err(at)?;
        if outer.toolscope_mcp_cache != VERSION {
            return Err(format!(
                "cache format {} is not the supported {VERSION}; run `toolscope mcp discover` again",
                outer.toolscope_mcp_cache
            ));
        }
        let mut cache = Cache::default();
        let mut skipped = Vec::new();
        for (i, raw) in outer.servers.iter().enumerate() {
            let server: ServerText<'_> = match serde_json::from_str(raw.get()) {
                Ok(s) => s,
                Err(e) => {
                    skipped.push(format!("server #{} skipped: {e}", i + 1));
                    continue;
                }
            };
            let mut tools = Vec::with_capacity(server.tools.len());
            for (j, raw) in server.tools.iter().enumerate() {
                match serde_json::from_str::<CachedTool>(raw.get()) {
                    Ok(t) => tools.push(t),
                    Err(e) => skipped.push(format!(
                        "server `{}`, tool #{} skipped: {e}",
                        server.name,
                        j + 1
                    )),
                }
            }
            cache.servers.push(ServerEntry {
                name: server.name,
                identity: server.identity,
                discovered_at: server.discovered_at,
                server_info: server.server_info,
                tools,
            });
        }
        Ok((cache, skipped))
    }
}

/// The cache as read: servers kept as text until each is read on its own.
#[derive(Deserialize)]
struct CacheText<'a> {
    toolscope_mcp_cache: u32,
    #[serde(borrow)]
    servers: Vec<&'a serde_json::value::RawValue>,
}

/// One server as read: its tools kept as text until each is read on its own.
#[derive(Deserialize)]
struct ServerText<'a> {
    name: String,
    #[serde(flatten)]
    identity: Identity,
    discovered_at: String,
    #[serde(default)]
    server_info: Option<ServerInfo>,
    #[serde(borrow)]
    tools: Vec<&'a serde_json::value::RawValue>,
}

/// How deep a tool's input schema is kept when written: deeper parts become `{}` (any
/// value). The cache nests a schema five levels deep and the JSON reader stops at 128, so a
/// schema a server sent at the depth limit of its answer would not read back.
/// The one limit every schema reader and writer shares (`source::schema`).
pub const MAX_SCHEMA_DEPTH: usize = crate::source::schema::MAX_DEPTH;

/// `schema` with everything below [`MAX_SCHEMA_DEPTH`] levels replaced by `{}`; how deep it
/// was when it was cut.
pub fn cut_schema(schema: &mut Value) -> Option<usize> {
    fn depth(v: &Value) -> usize {
        match v {
            Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
            Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
            _ => 0,
        }
    }
    fn cut(v: &mut Value, left: usize) {
        match v {
            Value::Array(_) | Value::Object(_) if left == 0 => *v = empty_object(),
            Value::Array(a) => a.iter_mut().for_each(|x| cut(x, left - 1)),
            Value::Object(o) => o.values_mut().for_each(|x| cut(x, left - 1)),
            _ => {}
        }
    }
    let d = depth(schema);
    if d <= MAX_SCHEMA_DEPTH {
        return None;
    }
    cut(schema, MAX_SCHEMA_DEPTH - 1);
    Some(d)
}

/// The cache file of a toolkit file: its name with [`SUFFIX`] appended.
pub fn sidecar_path(config: &Path) -> PathBuf {
    let mut name = config.file_name().unwrap_or_default().to_os_string();
    name.push(SUFFIX);
    config.with_file_name(name)
}

/// The toolkit file a cache belongs to, when `path` is named like a cache.
pub fn config_of(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let config = name.strip_suffix(SUFFIX).filter(|c| !c.is_empty())?;
    Some(path.with_file_name(config))
}

/// Reads a cache file: `Ok(None)` when there is none. Only a regular file of at most
/// 64 MiB is read (see `crate::bounded`).
pub fn read(path: &Path) -> Result<Option<(Cache, Vec<String>)>, String> {
    match crate::bounded::read(path, MAX_BYTES, crate::bounded::Links::Follow) {
        Ok(bytes) => {
            let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
            Cache::parse(&text).map(Some)
        }
        Err(crate::bounded::Refused::Missing) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// The size of `config`'s cache when loads read it (enabled, a regular file within the
/// size limit), else 0: the load's memory budget counts it as input.
pub fn sidecar_bytes(config: &Path) -> usize {
    if !enabled() {
        return 0;
    }
    match crate::bounded::open(
        &sidecar_path(config),
        MAX_BYTES,
        crate::bounded::Links::Follow,
    ) {
        Ok((_, size)) => usize::try_from(size).unwrap_or(usize::MAX),
        Err(_) => 0,
    }
}

/// [`read`] within `room` bytes of memory: a file larger than the room is not read, and
/// one whose [`json_cost`] exceeds it is not parsed. Returns the cache and its cost.
fn read_within(path: &Path, room: usize) -> Result<Option<(Cache, Vec<String>, usize)>, String> {
    let max = MAX_BYTES.min(room as u64 / 2);
    let bytes = match crate::bounded::read(path, max, crate::bounded::Links::Follow) {
        Ok(b) => b,
        Err(crate::bounded::Refused::Missing) => return Ok(None),
        Err(crate::bounded::Refused::TooLarge { size, .. }) if size <= MAX_BYTES => {
            return Err(over_budget(size as usize * 2, room));
        }
        Err(e) => return Err(e.to_string()),
    };
    let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
    let cost = json_cost(&text);
    if cost > room {
        return Err(over_budget(cost, room));
    }
    Cache::parse(&text).map(|(c, skipped)| Some((c, skipped, cost)))
}

fn over_budget(cost: usize, room: usize) -> String {
    format!(
        "reading it could take {} MB, more than the {} MB left of this load's memory budget (12 times the sizes of the file and its cache plus 100 MB, at most 2 GB)",
        cost.div_ceil(1 << 20),
        room >> 20
    )
}

/// Member tools known from the cache, by group name, and the problems found on the way.
#[derive(Debug, Default)]
pub struct Known {
    pub members: HashMap<String, Vec<CachedTool>>,
    pub diagnostics: Vec<Diagnostic>,
    /// What the cache may take in memory once parsed and its tools built into the toolkit
    /// (see [`json_cost`]): the load counts it in its memory budget.
    pub cost: usize,
    /// The servers whose members are used, for lint's checks of the cache (its age).
    pub servers: Vec<crate::model::CachedServer>,
}

/// A cache older than this many days is reported by lint (TS097): servers change their
/// tools, and Chat2Graph offers what the server lists when it loads.
pub const MAX_AGE_DAYS: u64 = 30;

/// Days from a recorded `discovered_at` (`2026-11-23T07:43:41Z`) to `now` (seconds since
/// the epoch); `None` when the date cannot be read or is in the future.
pub fn age_days(discovered_at: &str, now: u64) -> Option<u64> {
    let date = discovered_at.get(..10)?;
    let mut parts = date.split('-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: u32 = parts.next()?.parse().ok()?;
    let d: u32 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let days = days_from_civil(y, m, d);
    let today = (now / 86_400) as i64;
    u64::try_from(today - days).ok()
}

/// Days from 1970-01-01 to a proleptic Gregorian date (the inverse of `civil_from_days`).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// What a cache's text may take once parsed (its [`Cache`], tools and `serde_json` values;
/// the schemas then move into the tool nodes, not copied), counted from the text before
/// parsing: one pass that sizes every array and object as serde_json and indexmap allocate
/// them (a vector's capacity, an index table's buckets and entries), plus the text and its
/// strings. An upper bound measured against a counting allocator (`core/tests/json_cost.rs`)
/// on dense shapes, where parsing costs up to 60 times the text, and on ordinary caches,
/// which cost about ten times theirs.
pub fn json_cost(text: &str) -> usize {
    let mut scan = Scan::default();
    for b in text.bytes() {
        scan.byte(b);
    }
    // The text is held while it is parsed; its strings are copied out (at most its bytes).
    let heap = scan.containers.saturating_add(scan.largest / 2);
    heap.saturating_add(text.len().saturating_mul(2))
        .saturating_add(std::mem::size_of::<Cache>())
}

/// What one element of an array opened at `depth` (open containers around it) takes: the
/// cache's `servers` (depth 1) and `tools` (depth 3) hold its structs, anything else JSON
/// values.
fn element_bytes(depth: usize) -> usize {
    let value = std::mem::size_of::<Value>();
    match depth {
        1 => value.max(std::mem::size_of::<ServerEntry>()),
        3 => value.max(std::mem::size_of::<CachedTool>()),
        _ => value,
    }
}

/// A vector of `n` elements of `size` bytes grown by pushes: its capacity (4, then
/// doubling) in bytes.
fn vec_bytes(n: usize, size: usize) -> usize {
    match n {
        0 => 0,
        n => n.max(4).next_power_of_two().saturating_mul(size),
    }
}

/// An indexmap of `n` entries (a JSON object, or a cache's struct): its index table
/// (buckets of a `usize` and a control byte, plus a group) and its entries vector, as big
/// as the table's capacity.
fn map_bytes(n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    let buckets = if n < 4 {
        4
    } else {
        (n.saturating_mul(8) / 7).next_power_of_two()
    };
    let entry = 8 + std::mem::size_of::<String>() + std::mem::size_of::<Value>();
    buckets
        .saturating_mul(9)
        .saturating_add(16)
        .saturating_add(buckets.saturating_mul(entry))
}

/// The state of [`json_cost`]'s pass.
#[derive(Default)]
struct Scan {
    /// Open containers: whether an object, its element count so far, and its depth.
    open: Vec<(bool, usize, usize)>,
    in_string: bool,
    escaped: bool,
    /// Bytes of the containers closed so far, and the largest of them.
    containers: usize,
    largest: usize,
}

impl Scan {
    fn byte(&mut self, b: u8) {
        if self.in_string {
            match (self.escaped, b) {
                (true, _) => self.escaped = false,
                (false, b'\\') => self.escaped = true,
                (false, b'"') => self.in_string = false,
                _ => {}
            }
            return;
        }
        if !b.is_ascii_whitespace() && !matches!(b, b']' | b'}') {
            // Something inside the innermost container: an array holds at least one element.
            if let Some((false, n, _)) = self.open.last_mut() {
                *n = (*n).max(1);
            }
        }
        match b {
            b'"' => self.in_string = true,
            b'[' => self.open.push((false, 0, self.open.len())),
            b'{' => self.open.push((true, 0, self.open.len())),
            b',' => {
                if let Some((false, n, _)) = self.open.last_mut() {
                    *n += 1;
                }
            }
            b':' => {
                if let Some((true, n, _)) = self.open.last_mut() {
                    *n += 1;
                }
            }
            b']' | b'}' => {
                if let Some((object, n, depth)) = self.open.pop() {
                    let bytes = match object {
                        true => map_bytes(n),
                        false => vec_bytes(n, element_bytes(depth)),
                    };
                    self.containers = self.containers.saturating_add(bytes);
                    self.largest = self.largest.max(bytes);
                }
            }
            _ => {}
        }
    }
}

/// Reads the cache of `config` (when caches are enabled) and matches it against the
/// servers the file declares. `room` is what the load's memory budget has left: a cache
/// whose [`json_cost`] does not fit is not parsed (a TS090 warning), and one that is read
/// reports its cost in [`Known::cost`].
pub fn known_members(config: &Path, file_label: &str, decls: &[ServerDecl], room: usize) -> Known {
    let mut known = Known::default();
    if !enabled() {
        return known;
    }
    let path = sidecar_path(config);
    let cache = match read_within(&path, room) {
        Ok(Some((c, skipped, cost))) => {
            known.cost = cost;
            for why in skipped {
                known.diagnostics.push(Diagnostic {
                    file: path.display().to_string(),
                    line: 1,
                    column: 1,
                    severity: Severity::Warning,
                    code: Code::McpCacheUnreadable,
                    message: format!("MCP cache entry ignored: {why}"),
                });
            }
            c
        }
        Ok(None) => return known,
        Err(message) => {
            known.diagnostics.push(Diagnostic {
                file: path.display().to_string(),
                line: 1,
                column: 1,
                severity: Severity::Warning,
                code: Code::McpCacheUnreadable,
                message: format!("MCP cache ignored: {message}"),
            });
            return known;
        }
    };
    for entry in cache.servers {
        let Some(decl) = decls.iter().find(|d| d.name == entry.name) else {
            known.diagnostics.push(Diagnostic {
                file: path.display().to_string(),
                line: 1,
                column: 1,
                severity: Severity::Info,
                code: Code::McpCacheOrphan,
                message: format!(
                    "MCP cache lists server `{}`, which {file_label} no longer declares",
                    entry.name
                ),
            });
            continue;
        };
        let current = decl.transport.as_ref().map(|t| t.identity());
        if current.as_ref() != Some(&entry.identity) {
            known.diagnostics.push(Diagnostic {
                file: file_label.to_string(),
                line: decl.line,
                column: decl.col,
                severity: Severity::Warning,
                code: Code::McpCacheStale,
                message: format!(
                    "MCP cache for `{}` was made for another server ({}, where {file_label} now declares {}); its tools are ignored: run `toolscope mcp discover {file_label}`",
                    entry.name,
                    describe_identity(&entry.identity),
                    current.as_ref().map_or_else(|| "no transport".to_string(), describe_identity)
                ),
            });
            continue;
        }
        known.servers.push(crate::model::CachedServer {
            name: entry.name.clone(),
            discovered_at: entry.discovered_at,
            tools: entry.tools.iter().map(|t| t.name.clone()).collect(),
            origin: crate::model::Origin {
                file: 0,
                line: decl.line,
                col: decl.col,
            },
        });
        known.members.insert(entry.name, entry.tools);
    }
    known
}

/// `stdio: npx a b` or `sse: http://..`, for messages.
pub fn describe_identity(id: &Identity) -> String {
    match (&id.command, &id.url) {
        (Some(c), _) => {
            let mut s = format!("{}: {c}", id.transport);
            for a in &id.args {
                s.push(' ');
                s.push_str(a);
            }
            s
        }
        (None, Some(u)) => format!("{}: {u}", id.transport),
        (None, None) => id.transport.clone(),
    }
}

/// A tool's inputs read from its JSON Schema: one [`ToolInput`] per property, in schema order.
pub fn params(schema: &Value) -> Vec<ToolInput> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, p)| ToolInput {
            name: name.clone(),
            ty: schema_type(p),
            required: required.contains(&name.as_str()),
            desc: p
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        })
        .collect()
}

fn schema_type(p: &Value) -> String {
    match p.get("type") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ => String::new(),
    }
}

/// `secs` since the Unix epoch as RFC 3339 UTC, to the second.
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The proleptic Gregorian date of a day count from 1970-01-01 (the well-known era-based
/// conversion: 400-year eras of 146097 days, years starting in March).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(name: &str, tools: &[&str]) -> ServerEntry {
        ServerEntry {
            name: name.into(),
            identity: Identity {
                transport: "stdio".into(),
                command: Some("npx".into()),
                args: vec!["srv".into()],
                url: None,
            },
            discovered_at: rfc3339(0),
            server_info: None,
            tools: tools
                .iter()
                .map(|t| CachedTool {
                    name: t.to_string(),
                    description: format!("does {t}"),
                    input_schema: json!({"type": "object", "properties": {"path": {"type": "string", "description": "where"}, "n": {"type": ["integer", "null"]}}, "required": ["path"]}),
                })
                .collect(),
        }
    }

    #[test]
    fn text_is_sorted_and_round_trips() {
        let mut c = Cache::default();
        c.upsert(entry("zeta", &["b", "a"]));
        c.upsert(entry("alpha", &["x"]));
        c.upsert(entry("zeta", &["c", "a"]));
        let text = c.to_text();
        assert!(text.find("\"alpha\"").unwrap() < text.find("\"zeta\"").unwrap());
        assert!(!text.contains("\"b\""), "replaced entry is gone");
        assert!(text.contains("\"discovered_at\": \"1970-01-01T00:00:00Z\""));
        let (back, skipped) = Cache::parse(&text).unwrap();
        assert!(skipped.is_empty());
        assert_eq!(back, c);
        assert_eq!(back.servers[1].tools[0].name, "a");
        assert_eq!(back.to_text(), text);
    }

    #[test]
    fn params_come_from_the_schema() {
        let p = params(&entry("s", &["t"]).tools[0].input_schema);
        assert_eq!(p.len(), 2);
        assert_eq!(
            (p[0].name.as_str(), p[0].required, p[0].desc.as_str()),
            ("path", true, "where")
        );
        assert_eq!((p[1].ty.as_str(), p[1].required), ("integer|null", false));
        assert!(params(&json!("not a schema")).is_empty());
    }

    #[test]
    fn ages_are_whole_days_from_the_recorded_date() {
        let now = 1_795_000_000; // 2026-11-18T11:06:40Z
        assert_eq!(age_days("2026-11-18T00:00:00Z", now), Some(0));
        assert_eq!(age_days("2026-10-19T23:59:59Z", now), Some(30));
        assert_eq!(
            age_days("2000-02-29T00:00:00Z", 951_782_400 + 86_400),
            Some(1)
        );
        assert_eq!(age_days("2027-01-01T00:00:00Z", now), None, "in the future");
        for bad in ["t", "", "2026-13-01", "20x6-01-01"] {
            assert_eq!(age_days(bad, now), None, "{bad}");
        }
    }

    #[test]
    fn dates_are_utc_rfc3339() {
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_000_000), "2026-11-18T11:06:40Z");
        assert_eq!(rfc3339(4_107_542_399), "2100-02-28T23:59:59Z");
    }

    #[test]
    fn bad_caches_are_errors_not_panics() {
        assert!(Cache::parse("").is_err());
        assert!(Cache::parse("{\"toolscope_mcp_cache\": 2, \"servers\": []}").is_err());
        let (c, skipped) =
            Cache::parse("{\"toolscope_mcp_cache\": 1, \"servers\": [{\"name\": 3}]}").unwrap();
        assert!(c.servers.is_empty() && skipped.len() == 1, "{skipped:?}");
        let side = sidecar_path(Path::new("a/b.yml"));
        assert!(side.ends_with("b.yml.mcp.json"));
        assert_eq!(config_of(&side), Some(PathBuf::from("a/b.yml")));
        assert_eq!(config_of(Path::new("a/.mcp.json")), None);
        assert_eq!(config_of(Path::new("a/b.yml")), None);
    }
}
