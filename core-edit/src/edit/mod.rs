//! Edits as values (helix-style transactions), the bottom of the editing stack: one
//! [`Edit`] says what changes, applies to the in-memory [`Toolkit`] and, through the format
//! patchers (`formats`, above this module), to the YAML text as a few byte splices; [`Edit::inverse`] gives the graph side of undo (the text side of undo is
//! the inverse of the splices, exact to the byte).
//!
//! Edits name nodes by kind and name, never by index, so pending edits can be reapplied
//! onto a file reloaded from disk.
//!
//! How edits are written (SPEC 3.3, and choices where it is silent):
//! - Text is spliced at parser positions (`source::patch`), not regenerated: bytes outside
//!   the edited construct never change, and new lines copy their neighbours' indentation,
//!   dash column, flow/block style and line ending.
//! - Through an alias the anchored definition is edited and [`Patch::notes`] says so. A bare
//!   name or alias list item whose score changes becomes `{name: X, score: S}` (that item
//!   only, comments after it kept). Setting a value it already has writes nothing.
//! - New references are a bare name at score 1.0, else `{name: X, score: S}`; a missing
//!   `tools:`/`next:` key is added as a block list (a flow list in a flow mapping).
//! - Descriptions keep their quoting style when it can hold the text. A block scalar stays a
//!   block scalar: `|` with the chomping the new text needs (`>` becomes `|`, which keeps
//!   line breaks exactly); multi-line text replacing a one-line value in a block mapping
//!   becomes a `|` block. Text a literal block cannot hold exactly is double-quoted.
//! - Strings are plain only when no YAML 1.1 or 1.2 reader can misread them; floats always
//!   have a decimal point.
//! - Chat2Graph configs: scores go to the last matching `scores:` entry, or a new entry (the
//!   list is created once at the end of the file, after a blank line); threshold and hops go
//!   to the operator's own mapping (the anchored definition). `Call` edges can be added and
//!   removed, tools added with callers and removed (their references and scores go; the
//!   `tools:` entry stays); adding or removing actions and `Next` edges is refused with a
//!   reason, since those come from the `toolkit:` chains.
//! - Removing a node in a native file removes its declaration, the cascade's declarations
//!   and every reference to them (whole lines in block lists, with their comma in flow
//!   lists). A lone [`Edit::RemoveNode`] leaves the seed lists alone (a note says so);
//!   what a user's removal means is [`Transaction::removal`], which also takes the removed
//!   actions out of the seed lists: the registry's `remove` (`set`, the TUI's `:remove` and
//!   `D`) builds that.
//! - Several edits that belong together (a removal with its cascade and seeds, a batch of
//!   scores, an undo put back after a save) form one [`Transaction`]: one step of undo, one
//!   entry of the pending log, verified once. Every edit, inverses included, has a text
//!   form, so pending edits can always be reapplied onto a file changed on disk.

pub mod doc;
pub mod graph;
pub mod ops;
mod transaction;
pub mod unchanged;
pub mod window;

use std::fmt;

use crate::model::{EdgeKind, Node, NodeKind, Origin, Toolkit};
use crate::source::patch::Splice;

pub use graph::{edge_kind, removal};
pub use transaction::{Transaction, Undo};

/// One change to a toolkit (serializable, for the TUI's recovery file).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Edit {
    /// Score of the edge `from -> to` (`to` of kind `to_kind`).
    SetScore {
        from: String,
        to: String,
        to_kind: NodeKind,
        score: f64,
    },
    SetThreshold {
        operator: String,
        value: f64,
    },
    SetHops {
        operator: String,
        value: u32,
    },
    /// A node's description.
    SetDesc {
        kind: NodeKind,
        name: String,
        text: String,
    },
    /// A tool's or group's `enabled` flag (the tool filters stage drops disabled tools).
    SetEnabled {
        kind: NodeKind,
        name: String,
        enabled: bool,
    },
    /// A `Next` (to an action) or `Call` (to a tool or group) edge.
    AddEdge {
        from: String,
        to: String,
        to_kind: NodeKind,
        score: f64,
    },
    RemoveEdge {
        from: String,
        to: String,
        to_kind: NodeKind,
    },
    AddAction {
        name: String,
        desc: String,
    },
    /// A tool with the actions that call it and their scores. `module_path` is where its
    /// class is (Chat2Graph imports class `name` from it; a Chat2Graph file needs one).
    AddTool {
        name: String,
        desc: String,
        callers: Vec<(String, f64)>,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        module_path: String,
    },
    /// A node with Chat2Graph's one-way cascade (see `Toolkit::cascade`).
    RemoveNode {
        kind: NodeKind,
        name: String,
    },
    /// A node declared with all its properties and no edges: what undoing a removal puts
    /// back (its edges, group members and seeds follow as their own edits).
    AddNode(Box<Node>),
    /// A tool listed as a member of a group (`Has` edge).
    AddMember {
        group: String,
        tool: String,
    },
    RemoveMember {
        group: String,
        tool: String,
    },
    /// An action named in an operator's seed list, at position `at` (or last).
    AddSeed {
        operator: String,
        action: String,
        at: usize,
    },
    /// The first mention of an action in an operator's seed list.
    RemoveSeed {
        operator: String,
        action: String,
    },
    /// Removes an operator's own `threshold` or `hops` key, so the default applies: the
    /// undo of setting a value the file did not write.
    ResetParam {
        operator: String,
        param: OperatorParam,
    },
}

/// An operator parameter a file may leave to its default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OperatorParam {
    Threshold,
    Hops,
}

impl OperatorParam {
    pub fn key(self) -> &'static str {
        match self {
            OperatorParam::Threshold => "threshold",
            OperatorParam::Hops => "hops",
        }
    }
}

/// Nodes and edges taken out by a removal.
#[derive(Debug, Clone, PartialEq)]
pub struct Removed {
    pub nodes: Vec<Node>,
    pub edges: Vec<RemovedEdge>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RemovedEdge {
    pub from: (NodeKind, String),
    pub to: (NodeKind, String),
    pub kind: EdgeKind,
    pub score: f64,
    pub origin: Option<Origin>,
}

/// Why an edit cannot be made.
#[derive(Debug, Clone, PartialEq)]
pub enum EditError {
    /// A node, edge or operator the edit names does not exist.
    NotFound(String),
    /// A value out of range or an edit that makes no sense (e.g. an edge that exists).
    Invalid(String),
    /// The file's shape or format cannot hold this edit losslessly.
    Unsupported(String),
    /// The file no longer parses.
    Parse(String),
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::NotFound(m) => write!(f, "not found: {m}"),
            EditError::Invalid(m) => write!(f, "invalid edit: {m}"),
            EditError::Unsupported(m) => write!(f, "cannot write this edit: {m}"),
            EditError::Parse(m) => write!(f, "the file does not parse: {m}"),
        }
    }
}

impl std::error::Error for EditError {}

/// The text side of an edit: splices on the file body and notes for the user.
#[derive(Debug, Clone, Default)]
pub struct Patch {
    pub splices: Vec<Splice>,
    /// For example that the edit went through an alias into an anchored definition.
    pub notes: Vec<String>,
}

impl From<Vec<Splice>> for Patch {
    fn from(splices: Vec<Splice>) -> Patch {
        Patch {
            splices,
            notes: Vec::new(),
        }
    }
}

impl Edit {
    /// A short description for status lines and undo menus.
    pub fn describe(&self) -> String {
        match self {
            Edit::SetScore {
                from, to, score, ..
            } => format!("score {from} -> {to} = {score}"),
            Edit::SetThreshold { operator, value } => format!("threshold of {operator} = {value}"),
            Edit::SetHops { operator, value } => format!("hops of {operator} = {value}"),
            Edit::SetDesc { kind, name, .. } => format!("description of {} {name}", kind.as_str()),
            Edit::SetEnabled {
                kind,
                name,
                enabled,
            } => format!(
                "{} {} {name}",
                if *enabled { "enable" } else { "disable" },
                kind.as_str()
            ),
            Edit::AddEdge {
                from, to, score, ..
            } => format!("add edge {from} -> {to} ({score})"),
            Edit::RemoveEdge { from, to, .. } => format!("remove edge {from} -> {to}"),
            Edit::AddAction { name, .. } => format!("add action {name}"),
            Edit::AddTool { name, .. } => format!("add tool {name}"),
            Edit::RemoveNode { kind, name } => format!("remove {} {name}", kind.as_str()),
            Edit::AddNode(n) => format!("add {} {}", n.kind.as_str(), n.name),
            Edit::AddMember { group, tool } => format!("add {tool} to group {group}"),
            Edit::RemoveMember { group, tool } => format!("remove {tool} from group {group}"),
            Edit::AddSeed {
                operator, action, ..
            } => format!("seed {action} in {operator}"),
            Edit::RemoveSeed { operator, action } => format!("unseed {action} from {operator}"),
            Edit::ResetParam { operator, param } => {
                format!("{} of {operator} to its default", param.key())
            }
        }
    }

    /// Whether the edit writes tuning (scores, threshold, hops), which Chat2Graph's own
    /// loader ignores (see `source::CHAT2GRAPH_TUNING_NOTE`).
    pub fn is_tuning(&self) -> bool {
        match self {
            Edit::SetScore { .. } | Edit::SetThreshold { .. } | Edit::SetHops { .. } => true,
            Edit::AddEdge { score, .. } => *score != 1.0,
            Edit::AddTool { callers, .. } => callers.iter().any(|(_, s)| *s != 1.0),
            _ => false,
        }
    }

    /// Applies the graph side to `tk`.
    pub fn apply_graph(&self, tk: &mut Toolkit) -> Result<(), EditError> {
        graph::apply(tk, self, graph::Values::Checked)
    }

    /// Applies the graph side of an undo to `tk`: as [`Edit::apply_graph`], but a value
    /// the file held is put back even where a new one would be refused (out of range).
    pub fn restore_graph(&self, tk: &mut Toolkit) -> Result<(), EditError> {
        graph::apply(tk, self, graph::Values::AsTheFileHeld)
    }

    /// The edits that undo this one, in order, computed on `tk` before applying: one edit
    /// for most, a removal's cascade put back for `RemoveNode`. Each is writable.
    pub fn inverse(&self, tk: &Toolkit) -> Result<Vec<Edit>, EditError> {
        graph::inverse(tk, self)
    }
}

/// Checks a score or threshold: a finite number in [0, 1].
pub fn check_unit(what: &str, v: f64) -> Result<(), EditError> {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(EditError::Invalid(format!(
            "{what} must be a number in [0, 1], not {v}"
        )))
    }
}
