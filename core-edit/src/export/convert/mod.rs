//! `toolscope convert --to native`: the loaded toolkit written in the native format,
//! carrying every field of the source entries the native format defines (a group's
//! `enabled`, `exclusive` and `mcp_transport_config` included) and naming, with its
//! position, each one it does not: a Chat2Graph config's agents, reasoner and operator
//! instructions, an entry that is not part of the graph, a key no native entry has. The
//! front end refuses a conversion that loses anything unless the user accepts the loss.

pub mod tree;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::model::{NodeKind, Toolkit};
use crate::source::yaml::{Doc, NodeId};
use crate::source::{Format, Limits, Loaded};

/// The native text and what it could not hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    pub text: String,
    pub lost: Vec<Lost>,
}

/// A field or entry of a source file the native text does not hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Lost {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub what: String,
}

impl std::fmt::Display for Lost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file, self.line, self.col, self.what)
    }
}

// The one table of what is carried: the keys each kind of source entry may have that the
// native format holds. Every other key is named as lost.
/// A tool's properties (tools and groups, both formats).
const TOOL: &[&str] = &[
    "name",
    "desc",
    "type",
    "module_path",
    "when_to_use",
    "example",
    "inputs",
    "returns",
    "enabled",
    "exclusive",
    "takes_control",
];
/// What a group (a native group, a Chat2Graph `type: MCP` tool) has besides [`TOOL`].
const GROUP: &[&str] = &["tools", "mcp_transport_config"];
const PARAM: &[&str] = &["name", "type", "required", "desc"];
const RETURNS: &[&str] = &["type", "desc"];
const NATIVE_ROOT: &[&str] = &["name", "tools", "groups", "actions", "operators"];
const NATIVE_ACTION: &[&str] = &["name", "desc", "tools", "next"];
const NATIVE_OPERATOR: &[&str] = &["name", "actions", "threshold", "hops"];
/// Chat2Graph's top level: the toolkit's parts (`toolkit` chains become `next` edges,
/// `experts` and `leader` operators, `scores` edge scores). `operators` holds the
/// definitions the workflows use.
const C2G_ROOT: &[&str] = &[
    "tools",
    "actions",
    "toolkit",
    "operators",
    "experts",
    "leader",
    "scores",
];
const C2G_ACTION: &[&str] = &["name", "desc", "tools"];
const C2G_OPERATOR: &[&str] = &["actions", "threshold", "hops"];
/// An expert's profile gives its operators' names; its other keys are lost.
const C2G_EXPERT: &[&str] = &["profile", "workflow"];
const C2G_PROFILE: &[&str] = &["name"];

/// Converts `loaded` to the native format (see the module's comment).
pub fn to_native(loaded: &Loaded) -> Conversion {
    let mut audit = Audit {
        tk: &loaded.toolkit,
        lost: Vec::new(),
        transports: HashMap::new(),
    };
    for f in &loaded.files {
        // The file loaded a moment ago; a parse failure now means it changed: nothing is
        // carried from it, and that is said.
        match crate::source::yaml::parse(&f.text, &Limits::default()) {
            Ok(doc) => audit.file(&doc, &f.path, f.format),
            Err(e) => audit.lost.push(Lost {
                file: f.path.display().to_string(),
                line: e.line,
                col: e.col,
                what: format!("not read again for the conversion: {}", e.message),
            }),
        }
    }
    let text = super::native::to_native_with(&loaded.toolkit, &audit.transports);
    Conversion {
        text,
        lost: audit.lost,
    }
}

struct Audit<'a> {
    tk: &'a Toolkit,
    lost: Vec<Lost>,
    /// Each group's `mcp_transport_config`, written as block lines.
    transports: HashMap<String, String>,
}

/// One file's document, with its path for the positions.
struct File<'a> {
    doc: &'a Doc,
    path: &'a Path,
}

impl Audit<'_> {
    fn file(&mut self, doc: &Doc, path: &Path, format: Format) {
        let Some(root) = doc.root.filter(|r| doc.map(*r).is_some()) else {
            return;
        };
        let f = File { doc, path };
        match format {
            Format::Native => self.native(&f, root),
            Format::Chat2Graph => self.chat2graph(&f, root),
        }
    }

    fn lose(&mut self, f: &File<'_>, at: NodeId, what: String) {
        let (line, col) = f.doc.position(at);
        self.lost.push(Lost {
            file: f.path.display().to_string(),
            line,
            col,
            what,
        });
    }

    /// Names each key of the mapping `map` that no list of `carried` holds.
    fn keys(&mut self, f: &File<'_>, map: NodeId, carried: &[&[&str]], whose: &str) {
        for (k, _) in tree::entries(f.doc, map) {
            let key = f.doc.str(k).unwrap_or("(a complex key)");
            if !carried.iter().any(|list| list.contains(&key)) {
                let what = format!("{whose}: `{key}` has no place in the native format");
                self.lose(f, k, what);
            }
        }
    }

    fn items(f: &File<'_>, map: NodeId, key: &str) -> Vec<NodeId> {
        f.doc
            .get(map, key)
            .and_then(|l| f.doc.seq(l))
            .map(<[NodeId]>::to_vec)
            .unwrap_or_default()
    }

    fn name(f: &File<'_>, item: NodeId) -> String {
        f.doc
            .get(item, "name")
            .and_then(|n| f.doc.str(n))
            .unwrap_or_default()
            .to_string()
    }

    /// A tool or group entry: its keys, its inputs' and returns' keys, its transport.
    fn tool(&mut self, f: &File<'_>, item: NodeId, group: bool) {
        let name = Self::name(f, item);
        let whose = format!("{} `{name}`", if group { "group" } else { "tool" });
        let carried: &[&[&str]] = if group { &[TOOL, GROUP] } else { &[TOOL] };
        self.keys(f, item, carried, &whose);
        for p in Self::items(f, item, "inputs") {
            if f.doc.map(p).is_some() {
                self.keys(f, p, &[PARAM], &format!("{whose}, an input"));
            }
        }
        if let Some(r) = f
            .doc
            .get(item, "returns")
            .filter(|r| f.doc.map(*r).is_some())
        {
            self.keys(f, r, &[RETURNS], &format!("{whose}, returns"));
        }
        let Some(block) = f.doc.get(item, "mcp_transport_config").filter(|_| group) else {
            return;
        };
        match tree::block_mapping(f.doc, block, 6) {
            Ok(lines) => {
                self.transports.insert(name, lines);
            }
            Err(e) => {
                let what = format!("{whose}: `mcp_transport_config` is not carried: {e}");
                self.lose(f, block, what);
            }
        }
    }

    fn native(&mut self, f: &File<'_>, root: NodeId) {
        self.keys(f, root, &[NATIVE_ROOT], "the top level");
        for item in Self::items(f, root, "tools") {
            if f.doc.map(item).is_some() {
                self.tool(f, item, false);
            }
        }
        for item in Self::items(f, root, "groups") {
            if f.doc.map(item).is_some() {
                self.tool(f, item, true);
            }
        }
        for (key, carried) in [("actions", NATIVE_ACTION), ("operators", NATIVE_OPERATOR)] {
            for item in Self::items(f, root, key) {
                if f.doc.map(item).is_some() {
                    let whose = format!("{} `{}`", &key[..key.len() - 1], Self::name(f, item));
                    self.keys(f, item, &[carried], &whose);
                }
            }
        }
    }

    fn chat2graph(&mut self, f: &File<'_>, root: NodeId) {
        self.keys(f, root, &[C2G_ROOT], "the top level");
        for item in Self::items(f, root, "tools") {
            if f.doc.map(item).is_none() {
                continue;
            }
            let name = Self::name(f, item);
            let group = self.tk.find(NodeKind::Group, &name).is_some();
            if !group && self.tk.find(NodeKind::Tool, &name).is_none() {
                let what = format!(
                    "tool `{name}`: no action of a `toolkit` chain calls it, so it is not in the graph"
                );
                self.lose(f, item, what);
                continue;
            }
            self.tool(f, item, group);
        }
        for item in Self::items(f, root, "actions") {
            if f.doc.map(item).is_none() {
                continue;
            }
            let name = Self::name(f, item);
            if self.tk.action(&name).is_none() {
                let what =
                    format!("action `{name}`: in no `toolkit` chain, so it is not in the graph");
                self.lose(f, item, what);
                continue;
            }
            self.keys(f, item, &[C2G_ACTION], &format!("action `{name}`"));
        }
        self.c2g_operators(f, root);
    }

    /// The experts, their workflows' operators and the leader; an operator definition no
    /// workflow uses is lost whole.
    fn c2g_operators(&mut self, f: &File<'_>, root: NodeId) {
        let mut used = HashSet::new();
        for expert in Self::items(f, root, "experts") {
            if f.doc.map(expert).is_none() {
                continue;
            }
            let profile = f
                .doc
                .get(expert, "profile")
                .filter(|p| f.doc.map(*p).is_some());
            let name = profile.map(|p| Self::name(f, p)).unwrap_or_default();
            let whose = format!("expert `{name}`");
            self.keys(f, expert, &[C2G_EXPERT], &whose);
            if let Some(p) = profile {
                self.keys(f, p, &[C2G_PROFILE], &format!("{whose}, profile"));
            }
            let mut n = 0;
            for chain in Self::items(f, expert, "workflow") {
                for op in f.doc.seq(chain).unwrap_or_default() {
                    if f.doc.map(*op).is_none() {
                        continue;
                    }
                    n += 1;
                    if used.insert(f.doc.resolve(*op)) {
                        let whose = format!("operator `{name}/{n}`");
                        self.keys(f, *op, &[C2G_OPERATOR], &whose);
                    }
                }
            }
        }
        if let Some(leader) = f
            .doc
            .get(root, "leader")
            .filter(|l| f.doc.map(*l).is_some())
        {
            used.insert(f.doc.resolve(leader));
            self.keys(f, leader, &[C2G_OPERATOR], "operator `leader`");
        }
        for op in Self::items(f, root, "operators") {
            if f.doc.map(op).is_some() && !used.contains(&f.doc.resolve(op)) {
                let what = "an operator no expert's workflow uses: not in the graph".to_string();
                self.lose(f, op, what);
            }
        }
    }
}
