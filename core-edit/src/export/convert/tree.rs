//! A mapping of the source document written out again as block YAML (what `convert`
//! carries verbatim in meaning: a group's `mcp_transport_config`). Aliases and `<<` merge
//! keys are expanded, so the block stands alone; scalars keep their type (a quoted `"3"`
//! stays a string, `30` a number) and strings are written with `emit::string`, which both
//! YAML 1.1 and 1.2 readers read back the same. Nested lists and mappings inside a list are
//! written in flow style.

use std::fmt::Write;

use crate::source::emit::{float, string};
use crate::source::yaml::{Doc, NodeId, Scalar, Style};

/// The most nodes one block may expand to (aliases counted at each use): a transport block
/// is a few dozen; past this the block is not carried and the conversion names it.
const MAX_NODES: usize = 10_000;
/// Deeper than any real transport block; bounds the recursion.
const MAX_DEPTH: usize = 64;

/// Why a block could not be written.
#[derive(Debug, Clone, PartialEq)]
pub enum TreeError {
    /// Expanded, it would exceed [`MAX_NODES`] nodes or [`MAX_DEPTH`] levels.
    TooLarge,
    /// A key that is not a scalar (YAML allows `[a, b]: x`).
    ComplexKey,
    /// Not a mapping.
    NotAMapping,
}

impl std::fmt::Display for TreeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TreeError::TooLarge => "it expands past 10,000 nodes or 64 levels",
            TreeError::ComplexKey => "it has a key that is not a scalar",
            TreeError::NotAMapping => "it is not a mapping",
        })
    }
}

/// The mapping `map` as block lines indented by `indent` spaces, each ending in `\n`.
pub fn block_mapping(doc: &Doc, map: NodeId, indent: usize) -> Result<String, TreeError> {
    let mut w = Writer {
        doc,
        out: String::new(),
        nodes: 0,
    };
    if doc.map(map).is_none() {
        return Err(TreeError::NotAMapping);
    }
    w.mapping(map, indent, 0)?;
    Ok(w.out)
}

/// A mapping's entries as they read: later keys override earlier ones, and keys merged in
/// with `<<` (one level, as `Doc::get` reads them) come first, overridden by written keys.
pub fn entries(doc: &Doc, map: NodeId) -> Vec<(NodeId, NodeId)> {
    let mut out: Vec<(NodeId, NodeId)> = Vec::new();
    let put = |k: NodeId, v: NodeId, out: &mut Vec<(NodeId, NodeId)>| {
        let text = doc.str(k);
        match out
            .iter_mut()
            .find(|(k2, _)| text.is_some() && doc.str(*k2) == text)
        {
            Some(slot) => *slot = (k, v),
            None => out.push((k, v)),
        }
    };
    let Some(all) = doc.map(map) else {
        return out;
    };
    let merge = |k: NodeId| doc.style(k) == Some(Style::Plain) && doc.str(k) == Some("<<");
    for &(_, v) in all.iter().filter(|(k, _)| merge(*k)) {
        let sources: Vec<NodeId> = match doc.seq(v) {
            Some(items) => items.to_vec(),
            None => vec![v],
        };
        for src in sources {
            for &(k2, v2) in doc.map(src).unwrap_or_default() {
                put(k2, v2, &mut out);
            }
        }
    }
    for &(k, v) in all.iter().filter(|(k, _)| !merge(*k)) {
        put(k, v, &mut out);
    }
    out
}

struct Writer<'d> {
    doc: &'d Doc,
    out: String,
    nodes: usize,
}

impl Writer<'_> {
    fn count(&mut self, depth: usize) -> Result<(), TreeError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES || depth > MAX_DEPTH {
            return Err(TreeError::TooLarge);
        }
        Ok(())
    }

    fn key(&self, k: NodeId) -> Result<String, TreeError> {
        self.doc.str(k).map(string).ok_or(TreeError::ComplexKey)
    }

    fn mapping(&mut self, map: NodeId, indent: usize, depth: usize) -> Result<(), TreeError> {
        let pad = " ".repeat(indent);
        for (k, v) in entries(self.doc, map) {
            self.count(depth)?;
            let key = self.key(k)?;
            match self.doc.map(v) {
                Some(inner) if !inner.is_empty() => {
                    let _ = writeln!(self.out, "{pad}{key}:");
                    self.mapping(v, indent + 2, depth + 1)?;
                }
                _ => {
                    let value = self.flow(v, depth + 1)?;
                    let _ = writeln!(self.out, "{pad}{key}: {value}");
                }
            }
        }
        Ok(())
    }

    /// A value in flow style: scalars as [`scalar`] writes them, `[...]` and `{...}`.
    fn flow(&mut self, v: NodeId, depth: usize) -> Result<String, TreeError> {
        self.count(depth)?;
        if let Some(items) = self.doc.seq(v) {
            let mut parts = Vec::with_capacity(items.len());
            for &i in items {
                parts.push(self.flow(i, depth + 1)?);
            }
            return Ok(format!("[{}]", parts.join(", ")));
        }
        if self.doc.map(v).is_some() {
            let mut parts = Vec::new();
            for (k, val) in entries(self.doc, v) {
                let key = self.key(k)?;
                parts.push(format!("{key}: {}", self.flow(val, depth + 1)?));
            }
            return Ok(format!("{{{}}}", parts.join(", ")));
        }
        Ok(scalar(self.doc, v))
    }
}

/// A scalar with its type kept: strings through `emit::string` (quoted when a reader
/// could take them for something else), the rest in their canonical spelling.
fn scalar(doc: &Doc, v: NodeId) -> String {
    match doc.scalar(v) {
        Some(Scalar::Str(s)) => string(s),
        Some(Scalar::Int(i)) => i.to_string(),
        Some(Scalar::Float(f)) => float(f),
        Some(Scalar::Bool(b)) => b.to_string(),
        Some(Scalar::Null) | None => "null".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Limits;
    use crate::source::yaml::parse;

    fn roundtrip(text: &str) -> (String, String) {
        let doc = parse(text, &Limits::default()).expect("parses");
        let root = doc.root.expect("root");
        let block = doc.get(root, "b").expect("b");
        let written = block_mapping(&doc, block, 2).expect("written");
        let again = format!("b:\n{written}");
        let doc2 = parse(&again, &Limits::default()).expect("reads back");
        let b2 = doc2.get(doc2.root.expect("root"), "b").expect("b");
        let (a, b) = (canonical(&doc, block), canonical(&doc2, b2));
        (a, b)
    }

    /// The value as a canonical string, for comparison.
    fn canonical(doc: &Doc, v: NodeId) -> String {
        if let Some(items) = doc.seq(v) {
            let parts: Vec<String> = items.iter().map(|i| canonical(doc, *i)).collect();
            return format!("[{}]", parts.join(","));
        }
        if doc.map(v).is_some() {
            let parts: Vec<String> = entries(doc, v)
                .iter()
                .map(|(k, v)| format!("{:?}={}", doc.str(*k), canonical(doc, *v)))
                .collect();
            return format!("{{{}}}", parts.join(","));
        }
        format!("{:?}", doc.scalar(v))
    }

    #[test]
    fn blocks_read_back_the_same() {
        for text in [
            "b: {transport_type: STDIO, command: npx, args: [\"-y\", \"a: b\", '#x', yes, \"yes\"]}",
            "b:\n  env: {A: \"3\", B: 3, C: null, D: 1.5e-7}\n  nested: {x: [ {y: [1, [2]]} ]}",
            "base: &base {command: srv, timeout: 10}\nb:\n  <<: *base\n  timeout: 20\n  args: []\n  env: {}",
            "b: {s: \"line\\nbreak\\u2028sep\", t: \"\", u: ' lead', w: \"tab\\there\"}",
        ] {
            let (a, b) = roundtrip(text);
            assert_eq!(a, b, "{text}");
        }
    }

    #[test]
    fn an_alias_bomb_is_refused_not_expanded() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..8 {
            let p = i - 1;
            let _ = writeln!(
                text,
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]"
            );
        }
        text.push_str("b: {args: *a7}\n");
        let doc = parse(&text, &Limits::default()).expect("parses");
        let b = doc.get(doc.root.expect("root"), "b").expect("b");
        assert_eq!(block_mapping(&doc, b, 2), Err(TreeError::TooLarge));
    }
}
