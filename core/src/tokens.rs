//! Token cost of an offer: an estimate from a real offline tokenizer.
//!
//! What is counted: per tool, the text of its entry in `describe --style json` (the
//! function-calling schema built from the YAML: name, description, inputs), pretty-printed
//! on its own. Frameworks send other text as well (Chat2Graph sends each tool's Python
//! docstring, which toolscope cannot see), so every figure is an estimate.
//!
//! This module is the only one that depends on `tiktoken-rs`; the pure core (`evidence`)
//! sees token costs through the [`TokenCost`](crate::evidence::TokenCost) trait. The
//! encoding is built on first use (about 0.2 s), so commands that show no counts never
//! pay for it.

use std::cell::{OnceCell, RefCell};

use petgraph::stable_graph::NodeIndex;
use petgraph::visit::NodeIndexable;
use tiktoken_rs::CoreBPE;

use crate::evidence::TokenCost;
use crate::export::describe::schemas;
use crate::model::Toolkit;

/// The encodings offered (both ship inside `tiktoken-rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// GPT-4o and later.
    #[default]
    O200kBase,
    /// GPT-4 and GPT-3.5.
    Cl100kBase,
}

impl Encoding {
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }
}

/// A tokenizer built on first use.
pub struct Tokenizer {
    encoding: Encoding,
    bpe: OnceCell<Option<CoreBPE>>,
}

impl Tokenizer {
    pub fn new(encoding: Encoding) -> Tokenizer {
        Tokenizer {
            encoding,
            bpe: OnceCell::new(),
        }
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Whether the encoding has been built (for tests of the lazy loading).
    pub fn is_loaded(&self) -> bool {
        self.bpe.get().is_some()
    }

    /// Tokens of `text`. The encodings are compiled into the binary, so building one
    /// cannot fail in practice; if it ever did, the count falls back to one token per
    /// four bytes rather than aborting a report.
    pub fn count(&self, text: &str) -> u64 {
        let bpe = self.bpe.get_or_init(|| match self.encoding {
            Encoding::O200kBase => tiktoken_rs::o200k_base().ok(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base().ok(),
        });
        match bpe {
            Some(bpe) => bpe.encode_ordinary(text).len() as u64,
            None => text.len().div_ceil(4) as u64,
        }
    }
}

/// The text counted for one tool: its `describe --style json` entry, pretty-printed.
pub fn tool_entry(tk: &Toolkit, ix: NodeIndex) -> String {
    let v = schemas(tk, &[ix]);
    serde_json::to_string_pretty(&v[0]).unwrap_or_default()
}

/// Token cost per tool of one toolkit, each entry counted once and cached.
pub struct ToolTokens<'a> {
    tk: &'a Toolkit,
    tokenizer: &'a Tokenizer,
    cache: RefCell<Vec<Option<u64>>>,
}

impl<'a> ToolTokens<'a> {
    pub fn new(tk: &'a Toolkit, tokenizer: &'a Tokenizer) -> ToolTokens<'a> {
        ToolTokens {
            tk,
            tokenizer,
            cache: RefCell::new(vec![None; tk.graph.node_bound()]),
        }
    }

    /// Total tokens of a set of tools.
    pub fn total(&self, tools: &[NodeIndex]) -> u64 {
        tools.iter().map(|&ix| self.tool_tokens(ix)).sum()
    }
}

impl TokenCost for ToolTokens<'_> {
    fn tool_tokens(&self, ix: NodeIndex) -> u64 {
        if let Some(Some(n)) = self.cache.borrow().get(ix.index()) {
            return *n;
        }
        let n = self.tokenizer.count(&tool_entry(self.tk, ix));
        if let Some(slot) = self.cache.borrow_mut().get_mut(ix.index()) {
            *slot = Some(n);
        }
        n
    }
}

/// The default limit for one tool's own entry, above which lint warns (TS080). A
/// function-calling entry with a few sentences of description and a handful of inputs
/// costs 100 to 250 tokens; 500 leaves room for a thorough one, while a single tool past it
/// usually carries a manual in its description.
pub const TOOL_ENTRY_LIMIT: u64 = 500;

/// Tools whose own entry costs more than `limit`, with their cost. Entries no longer than
/// `limit` bytes cannot exceed it (a token is at least one byte), so the tokenizer is only
/// built when some entry is longer.
pub fn over_limit(tk: &Toolkit, tokenizer: &Tokenizer, limit: u64) -> Vec<(NodeIndex, u64)> {
    let mut out = Vec::new();
    for ix in tk.nodes_of(crate::model::NodeKind::Tool) {
        let entry = tool_entry(tk, ix);
        if entry.len() as u64 <= limit {
            continue;
        }
        let n = tokenizer.count(&entry);
        if n > limit {
            out.push((ix, n));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Node, NodeKind};

    #[test]
    fn counts_are_real_tokens_and_lazy() {
        let t = Tokenizer::new(Encoding::O200kBase);
        assert!(!t.is_loaded());
        // "hello world" is two tokens in both encodings; the byte fallback would say 3.
        assert_eq!(t.count("hello world"), 2);
        assert!(t.is_loaded());
        let c = Tokenizer::new(Encoding::Cl100kBase);
        assert_eq!(c.count("hello world"), 2);
        assert_eq!(c.count(""), 0);
    }

    #[test]
    fn tool_entry_is_the_describe_json_entry() {
        let mut tk = Toolkit::new();
        tk.add_action(Node::new(NodeKind::Action, "a"), &[], &[]);
        tk.add_tool(
            Node::new(NodeKind::Tool, "T").with_desc("Does"),
            &[("a", 0.9)],
        );
        let ix = tk.find(NodeKind::Tool, "T").unwrap();
        let entry = tool_entry(&tk, ix);
        assert!(entry.starts_with("{\n  \"type\": \"function\""), "{entry}");
        assert!(entry.contains("\"name\": \"T\""));
        let tokenizer = Tokenizer::new(Encoding::O200kBase);
        let tt = ToolTokens::new(&tk, &tokenizer);
        let n = tt.tool_tokens(ix);
        assert_eq!(n, tokenizer.count(&entry));
        assert!(n > 10 && n < 100, "{n}");
        assert_eq!(tt.total(&[ix, ix]), 2 * n);
    }

    #[test]
    fn only_long_entries_load_the_tokenizer() {
        let mut tk = Toolkit::new();
        tk.add_action(Node::new(NodeKind::Action, "a"), &[], &[]);
        tk.add_tool(Node::new(NodeKind::Tool, "Short"), &[("a", 0.9)]);
        let tokenizer = Tokenizer::new(Encoding::O200kBase);
        assert!(over_limit(&tk, &tokenizer, TOOL_ENTRY_LIMIT).is_empty());
        assert!(!tokenizer.is_loaded());
        let long = "Reads the whole manual aloud. ".repeat(40);
        tk.add_tool(
            Node::new(NodeKind::Tool, "Long").with_desc(long),
            &[("a", 0.9)],
        );
        let over = over_limit(&tk, &tokenizer, 100);
        assert_eq!(over.len(), 1);
        assert_eq!(tk.name(over[0].0), "Long");
        assert!(over[0].1 > 100 && over[0].1 < 400, "{}", over[0].1);
    }
}
