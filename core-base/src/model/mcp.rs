//! MCP members in the graph: the qualified name `SERVER/TOOL` of a server's tool, the
//! servers whose members came from the sidecar cache, and how many functions Chat2Graph
//! sends for a recommended tool.
//!
//! **Qualified names.** A member may always be written `SERVER/TOOL`; inside SERVER or
//! TOOL a `/` is written `\/` and a `\` is written `\\`. Two servers listing a tool of one
//! name (Playwright's and browser-use's `browser_navigate`) give two tools, each named by
//! its qualified name, since the bare name would be ambiguous; a member whose bare name is
//! unique keeps it, and its qualified name still finds it.

use petgraph::stable_graph::NodeIndex;

use super::{EdgeKind, NodeKind, Origin, Toolkit};

/// An MCP server whose members were read from the sidecar cache.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedServer {
    /// The server's (group's) name.
    pub name: String,
    /// When `mcp discover` listed its tools, as recorded (RFC 3339 UTC).
    pub discovered_at: String,
    /// The tools the cache lists, by the server's names for them.
    pub tools: Vec<String>,
    /// The server's entry in its file.
    pub origin: Origin,
}

/// `SERVER/TOOL` with `/` and `\` inside either part escaped.
pub fn qualify(server: &str, tool: &str) -> String {
    format!("{}/{}", escape(server), escape(tool))
}

fn escape(part: &str) -> String {
    let mut s = String::with_capacity(part.len());
    for c in part.chars() {
        if matches!(c, '/' | '\\') {
            s.push('\\');
        }
        s.push(c);
    }
    s
}

/// The server and tool of a qualified name: split at the first `/` that is not escaped,
/// both parts unescaped. `None` without such a `/` or with an empty part.
pub fn split_qualified(name: &str) -> Option<(String, String)> {
    let mut server = String::new();
    let mut chars = name.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => server.push(chars.next().unwrap_or('\\')),
            '/' => {
                let rest: String = chars.collect();
                let mut tool = String::new();
                let mut it = rest.chars();
                while let Some(c) = it.next() {
                    match c {
                        '\\' => tool.push(it.next().unwrap_or('\\')),
                        c => tool.push(c),
                    }
                }
                return (!server.is_empty() && !tool.is_empty()).then_some((server, tool));
            }
            c => server.push(c),
        }
    }
    None
}

impl Toolkit {
    /// Whether some node is called exactly `name`.
    pub fn find_any(&self, name: &str) -> bool {
        self.names().get(name).is_some()
    }

    /// The groups that have `tool` as a member (`Has` edges into it).
    pub fn servers_of(&self, tool: NodeIndex) -> Vec<NodeIndex> {
        self.in_edges(tool)
            .filter(|(e, _)| self.graph[*e].kind == EdgeKind::Has)
            .map(|(_, g)| g)
            .collect()
    }

    /// The member a qualified name `SERVER/TOOL` means: a tool of group SERVER named TOOL
    /// (or named by its qualified name, when TOOL is ambiguous).
    pub fn member_named(&self, name: &str) -> Option<NodeIndex> {
        let (server, tool) = split_qualified(name)?;
        let g = self.find(NodeKind::Group, &server)?;
        let qualified = qualify(&server, &tool);
        self.out_edges(g)
            .filter(|(e, _)| self.graph[*e].kind == EdgeKind::Has)
            .map(|(_, m)| m)
            .find(|&m| self.name(m) == tool || self.name(m) == qualified)
    }

    /// The tools of every server whose member is called `tool` (bare): the qualified tools
    /// a bare name stands for when two servers list it.
    pub fn members_called(&self, tool: &str) -> Vec<NodeIndex> {
        self.nodes_of(NodeKind::Group)
            .filter_map(|g| self.member_named(&qualify(self.name(g), tool)))
            .collect()
    }

    /// How many functions Chat2Graph sends for tool `tool` when `actions` (sorted) are
    /// recommended at `threshold`: one per place in the `toolkit:` chains of each
    /// recommended action whose `Call` edge to it scores at least the threshold, since
    /// Chat2Graph builds an action's tools anew for each place (two actions calling one
    /// tool send it twice). 1 for a recommended tool of any other toolkit.
    pub fn copies_sent(&self, tool: NodeIndex, actions: &[NodeIndex], threshold: f64) -> u32 {
        let Some(places) = &self.chain_places else {
            return 1;
        };
        let n: u32 = self
            .in_edges(tool)
            .filter(|(e, a)| {
                self.graph[*e].kind == EdgeKind::Call
                    && self.graph[*e].score >= threshold
                    && actions.binary_search(a).is_ok()
            })
            .map(|(_, a)| places.get(self.name(a)).copied().unwrap_or(1))
            .sum();
        n.max(1)
    }

    /// Whether the model may be sent a tool more than once: a Chat2Graph config, whose
    /// counts go by [`Toolkit::copies_sent`] (`None` for other toolkits, one each).
    pub fn sends_copies(&self) -> bool {
        self.chain_places.is_some()
    }

    /// For a Chat2Graph config, the functions each `Call` edge out of an action sends when
    /// both are recommended, by the action's node index: its places in the `toolkit:`
    /// chains (1 for an action in one place or none), as [`Toolkit::copies_sent`] counts
    /// them; `None` for other toolkits. A lookup table for evaluations that count
    /// copies at many thresholds.
    pub fn places_by_index(&self) -> Option<Vec<u32>> {
        let places = self.chain_places.as_ref()?;
        let mut out = vec![1; petgraph::visit::NodeIndexable::node_bound(&self.graph)];
        for (name, &n) in places {
            if let Some(a) = self.action(name) {
                out[a.index()] = n;
            }
        }
        Some(out)
    }
}

/// The front end a message is for: the commands it names are that front end's own
/// (`toolscope mcp discover FILE` on the command line, `:mcp discover` in the TUI, where
/// the files are the open ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FrontEnd {
    #[default]
    Cli,
    Tui,
}

impl FrontEnd {
    /// The discovery command's name.
    fn discover_name(self) -> &'static str {
        match self {
            FrontEnd::Cli => "toolscope mcp discover",
            FrontEnd::Tui => ":mcp discover",
        }
    }

    /// The command that lists the MCP servers' tools of `file`.
    fn discover(self, file: &str) -> String {
        match self {
            FrontEnd::Cli => format!("{} {}", self.discover_name(), shell_word(file)),
            FrontEnd::Tui => self.discover_name().to_string(),
        }
    }

    /// The command that scores `from -> to` in `file`.
    fn score(self, file: &str, from: &str, to: &str, score: &str) -> String {
        match self {
            FrontEnd::Cli => format!(
                "toolscope set {} score {} {} {score}",
                shell_word(file),
                shell_word(from),
                shell_word(to)
            ),
            FrontEnd::Tui => format!(":score {} {} {score}", command_word(from), command_word(to)),
        }
    }
}

impl Toolkit {
    /// Why `from -> to` is no edge when an MCP server is the reason, or `None`: `to` is a
    /// bare name several servers share; no tool of the servers `from` calls as the cache
    /// lists them; or `from` calls servers whose tools are unknown (no cache). Names the
    /// ways forward in `front`'s commands, with `score` in the one that scores the server.
    /// The one message of `set` and lint (the CLI's words) and the TUI's `:score`.
    pub fn mcp_no_edge(
        &self,
        from: &str,
        to: &str,
        score: &str,
        front: FrontEnd,
    ) -> Option<String> {
        let a = self.action(from)?;
        if let Some(why) = self.listed_no_tools(to, front) {
            return Some(why);
        }
        if self.named(to).next().is_some() {
            return None;
        }
        let shared = self.members_called(to);
        if shared.len() > 1 {
            let names: Vec<String> = shared
                .iter()
                .map(|&m| format!("`{}`", self.name(m)))
                .collect();
            return Some(format!(
                "`{to}` is a tool of {} MCP servers; name one: {}",
                shared.len(),
                names.join(" or ")
            ));
        }
        let mut known = Vec::new();
        let mut unknown = Vec::new();
        // In the order the calls were made (the file's), not petgraph's (newest first).
        let mut calls: Vec<_> = self
            .out_edges(a)
            .filter(|(e, _)| self.graph[*e].kind == EdgeKind::Call)
            .collect();
        calls.sort();
        for (_, t) in calls {
            if self.kind(t) == NodeKind::Group {
                unknown.push(t);
            }
            for g in self.servers_of(t) {
                if !known.contains(&g) {
                    known.push(g);
                }
            }
        }
        let list = |gs: &[NodeIndex]| {
            gs.iter()
                .map(|&g| format!("`{}`", self.name(g)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let file_of = |g: NodeIndex| self.file_name(self.node(g).origin);
        if let Some(&g) = unknown.first() {
            let (file, server) = (file_of(g), self.name(g));
            return Some(format!(
                "`{to}` is no tool toolscope knows, and `{from}` calls the MCP server {}, whose tools are unknown (no `{}` cache): list them with `{}`, or score the server, which scores each of its tools: `{}`",
                list(&unknown),
                front.discover_name(),
                front.discover(&file),
                front.score(&file, from, server, score),
            ));
        }
        let &g = known.first()?;
        let file = file_of(g);
        Some(format!(
            "`{to}` is no tool of the MCP server {} that `{from}` calls, as toolscope knows them (the entry's `tools:` or the cache); if the server lists it now, the cache is out of date: run `{}`",
            list(&known),
            front.discover(&file)
        ))
    }
}

impl Toolkit {
    /// Why no edge reaches `server` when it is an MCP server without members whose cache
    /// lists no tools: Chat2Graph offers what a server lists, here nothing, so no action
    /// calls it (TS098) and a score on it scores nothing.
    fn listed_no_tools(&self, server: &str, front: FrontEnd) -> Option<String> {
        let g = self.find(NodeKind::Group, server)?;
        let has_members = self
            .out_edges(g)
            .any(|(e, _)| self.graph[e].kind == EdgeKind::Has);
        let cached = self.mcp_cached.iter().find(|s| s.name == server)?;
        if has_members || !cached.tools.is_empty() {
            return None;
        }
        Some(format!(
            "the MCP cache lists no tools for the server `{server}` (listed {}), so it offers nothing and a score on it scores nothing; if the server lists tools now, run `{}`",
            cached.discovered_at,
            front.discover(&self.file_name(Some(cached.origin)))
        ))
    }
}

/// `word` as one shell word: as is when it holds only safe characters, else single-quoted.
pub fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./:@%+=,".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// `word` as one word of a TUI `:` command line (`edit::ops::split_words` reads it
/// back): as is when it holds no blank or quote, else double-quoted with `"` and `\`
/// escaped.
pub fn command_word(word: &str) -> String {
    let plain = |c: char| !c.is_whitespace() && !"\"'\\".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_string();
    }
    let mut out = String::from("\"");
    for c in word.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Node;

    #[test]
    fn qualified_names_escape_the_separator_and_read_back() {
        assert_eq!(
            qualify("playwright", "browser_navigate"),
            "playwright/browser_navigate"
        );
        assert_eq!(qualify("a/b", "c\\d"), "a\\/b/c\\\\d");
        for (s, t) in [
            ("a/b", "c\\d"),
            ("x", "y/z"),
            ("PDF/DOCX", "read"),
            ("s", "t"),
        ] {
            assert_eq!(split_qualified(&qualify(s, t)), Some((s.into(), t.into())));
        }
        assert_eq!(split_qualified("plain"), None);
        assert_eq!(split_qualified("a\\/b"), None);
        assert_eq!(split_qualified("/t"), None);
        assert_eq!(split_qualified("s/"), None);
        assert_eq!(split_qualified("s/a/b"), Some(("s".into(), "a/b".into())));
    }

    #[test]
    fn a_member_is_found_by_its_qualified_name() {
        let mut tk = Toolkit::new();
        let g = tk.add_node(Node::new(NodeKind::Group, "srv/1"));
        let h = tk.add_node(Node::new(NodeKind::Group, "other"));
        let m = tk.add_node(Node::new(NodeKind::Tool, "read"));
        let q = tk.add_node(Node::new(NodeKind::Tool, "other/nav"));
        tk.add_edge(g, m, 1.0, None);
        tk.add_edge(h, q, 1.0, None);
        assert_eq!(tk.member_named("srv\\/1/read"), Some(m));
        assert_eq!(
            tk.member_named("srv/1/read"),
            None,
            "the `/` in the server is escaped"
        );
        assert_eq!(tk.member_named("other/nav"), Some(q));
        assert_eq!(tk.member_named("other/read"), None);
        assert_eq!(tk.members_called("nav"), vec![q]);
        assert_eq!(tk.servers_of(m), vec![g]);
    }
}
