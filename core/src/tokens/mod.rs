//! Token cost of an offer: an estimate from a real offline tokenizer.
//!
//! What is counted: per tool, the text of its entry in `describe --style json` (the
//! function-calling schema built from the YAML: name, description, inputs), pretty-printed
//! on its own. Frameworks send other text as well (Chat2Graph sends each tool's Python
//! docstring, which toolscope cannot see), so every figure is an estimate.
//!
//! Counting needs no start-up work: `build.rs` turns each encoding's vocabulary into a
//! sorted rank table compiled into the binary, read in place ([`bpe`]); only the split
//! pattern is compiled on first use (about 3 ms). The counts equal `tiktoken`'s
//! `encode_ordinary` (a test compares them with `tiktoken-rs` on a corpus). The pure core
//! (`evidence`) sees token costs through the [`TokenCost`]
//! trait.

use std::cell::{OnceCell, RefCell};

use petgraph::stable_graph::NodeIndex;
use petgraph::visit::NodeIndexable;

use crate::evidence::TokenCost;
use crate::export::describe::schemas;
use crate::model::Toolkit;

mod bpe;

/// The encodings offered.
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

    /// The rank table `build.rs` wrote.
    fn table(self) -> &'static [u8] {
        match self {
            Encoding::O200kBase => include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.bpe")),
            Encoding::Cl100kBase => include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.bpe")),
        }
    }

    /// The split pattern, as `tiktoken` defines it for the encoding.
    fn pattern(self) -> &'static str {
        match self {
            Encoding::O200kBase => concat!(
                r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
                r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
                r"|\p{N}{1,3}",
                r"| ?[^\s\p{L}\p{N}]+[\r\n/]*",
                r"|\s*[\r\n]+",
                r"|\s+(?!\S)",
                r"|\s+",
            ),
            Encoding::Cl100kBase => concat!(
                r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+",
                r"| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s",
            ),
        }
    }
}

/// The split pattern and the rank table of an encoding.
struct Bpe {
    split: fancy_regex::Regex,
    table: bpe::Table,
}

/// A tokenizer made ready on first use.
pub struct Tokenizer {
    encoding: Encoding,
    bpe: OnceCell<Option<Bpe>>,
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

    /// Whether the split pattern has been compiled (for tests of the lazy loading).
    pub fn is_loaded(&self) -> bool {
        self.bpe.get().is_some()
    }

    /// Tokens of `text`. The pattern and the table are compiled into the binary, so
    /// neither can fail in practice; if one ever did (or the pattern engine gave up on a
    /// hostile text), the rest counts one token per four bytes rather than aborting a
    /// report.
    pub fn count(&self, text: &str) -> u64 {
        let bpe = self.bpe.get_or_init(|| {
            Some(Bpe {
                split: fancy_regex::Regex::new(self.encoding.pattern()).ok()?,
                table: bpe::Table::new(self.encoding.table())?,
            })
        });
        let Some(bpe) = bpe else {
            return text.len().div_ceil(4) as u64;
        };
        let mut n = 0u64;
        let mut at = 0;
        for m in bpe.split.find_iter(text) {
            match m {
                Ok(m) => {
                    n += bpe.table.count_piece(m.as_str().as_bytes()) as u64;
                    at = m.end();
                }
                Err(_) => return n + (text.len() - at).div_ceil(4) as u64,
            }
        }
        n
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

    /// Total tokens of the functions the model is sent for `tools` of `rec` at
    /// `threshold`: a tool Chat2Graph sends several times counts each time
    /// (`recommend::extra_copies`).
    pub fn total_sent(
        &self,
        rec: &crate::recommend::Recommendation,
        tools: &[NodeIndex],
        threshold: f64,
    ) -> u64 {
        let extra: u64 = crate::recommend::extra_copies(self.tk, rec, tools, threshold)
            .iter()
            .map(|&(t, n)| self.tool_tokens(t) * u64::from(n - 1))
            .sum();
        self.total(tools) + extra
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

    /// The counts `tiktoken` gives (`tiktoken-rs`, which toolscope used before the
    /// prebuilt tables).
    fn reference(encoding: Encoding) -> &'static tiktoken_rs::CoreBPE {
        static O200K: std::sync::LazyLock<tiktoken_rs::CoreBPE> =
            std::sync::LazyLock::new(|| tiktoken_rs::o200k_base().expect("tiktoken-rs builds"));
        static CL100K: std::sync::LazyLock<tiktoken_rs::CoreBPE> =
            std::sync::LazyLock::new(|| tiktoken_rs::cl100k_base().expect("tiktoken-rs builds"));
        match encoding {
            Encoding::O200kBase => &O200K,
            Encoding::Cl100kBase => &CL100K,
        }
    }

    /// Every tool entry of the bundled toolkits and the docs' examples, tricky text, and
    /// long runs: the same counts as `tiktoken` in both encodings.
    #[test]
    fn counts_equal_tiktoken_on_a_corpus() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut corpus: Vec<String> = Vec::new();
        for dir in ["toolkits", "tests/fixtures"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
                continue;
            };
            for e in entries.flatten() {
                let path = e.path();
                let yaml = path.extension().is_some_and(|x| x == "yaml" || x == "yml");
                if !yaml {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                corpus.push(text.clone());
                if let Ok(loaded) = crate::load::load_paths(&[path], None) {
                    let tk = &loaded.toolkit;
                    for ix in tk.nodes_of(crate::model::NodeKind::Tool) {
                        corpus.push(tool_entry(tk, ix));
                    }
                }
            }
        }
        assert!(
            corpus.len() > 30,
            "the corpus is too small: {}",
            corpus.len()
        );
        corpus.extend(
            [
                "",
                " ",
                "\n\n\n",
                "  leading and trailing  ",
                "don't you'LL we'VE",
                "Привет мир, 你好世界, مرحبا, ここは日本語",
                "emoji 🦀🦀 and ZWJ 👩‍👩‍👧",
                "1234567890 12.5e-3",
                "tabs\tand\r\nwindows lines\r\n",
                "<|endoftext|> stays ordinary text",
                "CamelCaseWords and snake_case_words and SHOUTING",
                "a/b/c.d?e=f&g#h",
                "{\"type\": \"function\", \"function\": {\"name\": \"x\"}}",
            ]
            .map(str::to_string),
        );
        corpus.push(" ".repeat(5000));
        corpus.push("ab".repeat(3000));
        corpus.push("\u{0301}".repeat(500));
        for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let ours = Tokenizer::new(enc);
            let theirs = reference(enc);
            for text in &corpus {
                let want = theirs.encode_ordinary(text).len() as u64;
                assert_eq!(
                    ours.count(text),
                    want,
                    "{}: {:?}",
                    enc.as_str(),
                    &text[..text.len().min(80)]
                );
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        #[test]
        fn counts_equal_tiktoken_on_random_text(text in "(\\PC|[ \t\r\n'0-9]){0,60}") {
            for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
                let want = reference(enc).encode_ordinary(&text).len() as u64;
                proptest::prop_assert_eq!(Tokenizer::new(enc).count(&text), want);
            }
        }
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
