//! Finding constructs in a parsed file and turning changes into splices: the helpers both
//! format patchers share.

use std::cell::RefCell;
use std::ops::Range;

use crate::source::patch::{self, Splice};
use crate::source::yaml::{Doc, NodeId, Style, Value};

use super::EditError;

#[path = "doc_scores.rs"]
mod scores;
pub(crate) use scores::Held;

/// A parsed body (BOM-less text) with navigation and splice builders.
pub struct Nav<'d, 'a> {
    pub text: &'a str,
    pub doc: &'d Doc,
    /// The text is one declaration cut out of a large file (see `window`): its root is a
    /// sequence holding that declaration, whatever list it came from.
    pub window: bool,
    /// Notes for the user gathered while building splices (an alias given its own value).
    pub notes: RefCell<Vec<String>>,
    /// The nodes some alias refers to, gathered on first need: a batch of edits asks for
    /// each of its references, and a walk of the whole document each time was quadratic.
    alias_targets: std::cell::OnceCell<std::collections::HashSet<NodeId>>,
    /// The declarations of each top-level list by name (first and last), built on the
    /// second look-up in a list: a batch of edits looks up an action per edit, and a walk
    /// of the list each time was quadratic.
    decls: RefCell<Decls>,
    /// A Chat2Graph config's `scores:` entries by edge, built on first look-up (see
    /// `doc_scores.rs`): a batch of edits looks up one per score.
    scores: std::cell::OnceCell<scores::Index>,
    /// New `scores:` entries a batch of edits holds back, to append them in one go.
    held: RefCell<Option<Held>>,
}

/// Per top-level list: how often it was searched, and its index once built.
type Decls = std::collections::HashMap<String, (usize, Option<DeclIndex>)>;
type DeclIndex = std::collections::HashMap<String, (NodeId, NodeId)>;

impl<'d, 'a> Nav<'d, 'a> {
    pub fn new(text: &'a str, doc: &'d Doc, window: bool) -> Nav<'d, 'a> {
        Nav {
            text,
            doc,
            window,
            notes: RefCell::new(Vec::new()),
            alias_targets: std::cell::OnceCell::new(),
            decls: RefCell::default(),
            scores: std::cell::OnceCell::new(),
            held: RefCell::new(None),
        }
    }

    /// Refuses to rewrite a value that is anchored and used elsewhere through aliases:
    /// the change would reach every use. (Edit the use instead, or remove the anchor.)
    pub fn check_not_shared(&self, value: NodeId, key: &str) -> Result<(), EditError> {
        let node = self.doc.node(value);
        let key = match key.starts_with("the ") {
            true => key.to_string(),
            false => format!("`{key}`"),
        };
        match &node.anchor {
            Some(a) if self.aliased(value) => Err(EditError::Unsupported(format!(
                "{} here is anchored (&{}) and used elsewhere through aliases; changing it would change every use (line {})",
                key, a.0, node.line
            ))),
            _ => Ok(()),
        }
    }

    /// Records that an alias value was replaced by a value of its own.
    pub fn note_alias_replaced(&self, value: NodeId, key: &str) {
        if let Value::Alias(target) = self.doc.node(value).value {
            let name = self
                .doc
                .node(target)
                .anchor
                .as_ref()
                .map_or("", |a| a.0.as_str());
            self.notes.borrow_mut().push(format!(
                "`{key}` (line {}) was an alias of &{name}; this use now has its own value, the other uses of &{name} are unchanged",
                self.doc.node(value).line
            ));
        }
    }

    pub fn root(&self) -> Option<NodeId> {
        self.doc.root.filter(|r| self.doc.map(*r).is_some())
    }

    /// Items of a top-level list.
    pub fn top_list(&self, key: &str) -> Vec<NodeId> {
        self.root()
            .and_then(|r| self.doc.get(r, key))
            .and_then(|v| self.doc.seq(v))
            .map(<[NodeId]>::to_vec)
            .unwrap_or_default()
    }

    /// The `name` of a mapping item (through aliases).
    pub fn name_of(&self, item: NodeId) -> Option<&str> {
        let v = self.doc.get(item, "name")?;
        self.doc.str(v)
    }

    /// A reference's name: a bare scalar or a mapping's `name`.
    pub fn ref_name(&self, item: NodeId) -> Option<&str> {
        if self.doc.map(item).is_some() {
            self.name_of(item)
        } else {
            self.doc.str(item)
        }
    }

    /// The declaration called `name` in a top-level list: the first or the last one.
    pub fn decl(&self, list: &str, name: &str, last: bool) -> Option<NodeId> {
        if !self.window {
            let mut decls = self.decls.borrow_mut();
            let (searched, index) = decls.entry(list.to_string()).or_default();
            *searched += 1;
            if index.is_none() && *searched > 1 {
                *index = Some(self.decl_index(list));
            }
            if let Some(index) = index {
                return index
                    .get(name)
                    .map(|&(first, l)| if last { l } else { first });
            }
        }
        let items = match self.window {
            true => self
                .doc
                .root
                .and_then(|r| self.doc.seq(r))
                .map(<[NodeId]>::to_vec)
                .unwrap_or_default(),
            false => self.top_list(list),
        };
        let mut found = items
            .into_iter()
            .filter(|i| self.doc.map(*i).is_some() && self.name_of(*i) == Some(name));
        if last {
            found.next_back()
        } else {
            found.next()
        }
    }

    /// The mapping items of a top-level list by name: the first and the last of each.
    fn decl_index(&self, list: &str) -> DeclIndex {
        let mut index = DeclIndex::new();
        for item in self.top_list(list) {
            if self.doc.map(item).is_none() {
                continue;
            }
            if let Some(name) = self.name_of(item) {
                index
                    .entry(name.to_string())
                    .and_modify(|e| e.1 = item)
                    .or_insert((item, item));
            }
        }
        index
    }

    /// The entry written in this mapping itself (not through a merge key), last one wins.
    pub fn own_entry(&self, map: NodeId, key: &str) -> Option<(NodeId, NodeId)> {
        match &self.doc.node(map).value {
            Value::Map(entries) => entries
                .iter()
                .rev()
                .find(|(k, _)| self.doc.str(*k) == Some(key))
                .copied(),
            _ => None,
        }
    }

    /// Whether any alias in the document refers to `id`.
    pub fn aliased(&self, id: NodeId) -> bool {
        self.alias_targets
            .get_or_init(|| {
                self.doc
                    .nodes()
                    .filter_map(|n| match n.value {
                        Value::Alias(t) => Some(t),
                        _ => None,
                    })
                    .collect()
            })
            .contains(&id)
    }

    /// An empty value (`key:` with nothing after it).
    pub fn is_empty_value(&self, id: NodeId) -> bool {
        let n = self.doc.node(id);
        n.span.is_empty() && matches!(n.value, Value::Scalar { .. })
    }

    pub fn is_alias(&self, id: NodeId) -> bool {
        matches!(self.doc.node(id).value, Value::Alias(_))
    }

    /// Indentation of a block mapping's keys.
    pub fn key_indent(&self, map: NodeId) -> String {
        let first_key = match &self.doc.node(map).value {
            Value::Map(entries) => entries.first().map(|(k, _)| *k),
            _ => None,
        };
        let at = first_key.map_or(self.doc.node(map).span.start, |k| {
            self.doc.node(k).span.start
        });
        patch::indent_at(self.text, at)
    }

    /// Sets `key: value` in a mapping: replaces the value it has, or adds the entry after the
    /// last one in the mapping's style.
    pub fn set_entry(&self, map: NodeId, key: &str, value: &str) -> Result<Splice, EditError> {
        if let Some((k, v)) = self.own_entry(map, key) {
            self.check_not_shared(v, key)?;
            self.note_alias_replaced(v, key);
            return self.replace_value(k, v, value);
        }
        self.add_entry(map, key, value)
    }

    /// Replaces a scalar or collection value; an empty value gets text after its colon (see
    /// [`Nav::empty_room`]). A tag written just before the value goes with it: the new
    /// value is written to mean what it reads as (`!!str 0.4` set to 0.5 is the number).
    pub fn replace_value(
        &self,
        key: NodeId,
        value: NodeId,
        with: &str,
    ) -> Result<Splice, EditError> {
        let node = self.doc.node(value);
        if node.span.is_empty() {
            let room = self.empty_room(key, value)?;
            if with.starts_with(['\r', '\n']) {
                // A block under the key: what followed the properties (a comment) stays on
                // the key's line.
                let end = patch::line_end(self.text, room.end);
                let rest = &self.text[room.end..end];
                return Ok(Splice::new(room.start..end, format!("{rest}{with}")));
            }
            return Ok(Splice::new(room, format!(" {with}")));
        }
        let end = patch::content_end(self.text, &node.span).max(node.span.start);
        Ok(self.untagged(Splice::new(node.span.start..end, with)))
    }

    /// `splice`, which replaces a value, made to replace the tag written before it too.
    pub fn untagged(&self, splice: Splice) -> Splice {
        match self.tag_before(splice.at.start) {
            Some((tag, "")) => Splice::new(tag..splice.at.end, splice.with),
            Some((tag, anchor)) => {
                Splice::new(tag..splice.at.end, format!("{anchor} {}", splice.with))
            }
            None => splice,
        }
    }

    /// Where the text of an empty value goes when it is filled: from just after the key's
    /// colon to the end of the value's properties (`&anchor`, `!!null`), which the filled
    /// value drops. A filled value drops what made it empty: a tag (`!!null`, `!!str`)
    /// would contradict it, and an anchor on nothing names nothing, unless an alias names
    /// it, which is refused (the alias would change too). What follows the properties on
    /// their line (a comment) stays.
    pub fn empty_room(&self, key: NodeId, value: NodeId) -> Result<Range<usize>, EditError> {
        let name = self.doc.str(key).unwrap_or("the value");
        self.check_not_shared(value, name)?;
        let from = self.doc.node(key).span.end;
        let colon = self.text[from..].find(':').map_or(from, |i| from + i + 1);
        let end = self.doc.node(value).span.start.max(colon);
        if self.text[colon..end].contains('#') {
            return Err(EditError::Unsupported(format!(
                "a comment stands between `{name}` and its tag (line {}); fill it in your editor",
                self.doc.node(key).line
            )));
        }
        Ok(colon..end)
    }

    /// A tag written just before the value starting at `at`, on its line: the tag's start,
    /// and the anchor written between the tag and the value (`!!str &a 0.4`), if any, to be
    /// written again; `&a !!str 0.4` keeps its anchor in place.
    fn tag_before(&self, at: usize) -> Option<(usize, &str)> {
        let mut end = at;
        let mut anchor = "";
        for _ in 0..2 {
            let before = self.text[..end].trim_end_matches([' ', '\t']);
            if before.len() == end {
                return None;
            }
            let start = match before.ends_with('>') {
                // A verbatim tag (`!<tag:yaml.org,2002:str>`) may hold commas and brackets.
                true => before.rfind("!<")?,
                false => before
                    .rfind([' ', '\t', '\n', '\r', ',', '[', '{'])
                    .map_or(0, |i| i + 1),
            };
            let token = &before[start..];
            if token.starts_with('!') {
                return Some((start, anchor));
            }
            if !token.starts_with('&') || !anchor.is_empty() {
                return None;
            }
            anchor = token;
            end = start;
        }
        None
    }

    /// Replaces an empty flow list (`key: []`, anchor and comment kept) with `with`, which
    /// starts with a line break (a block list under the key).
    pub fn replace_empty_flow(
        &self,
        key: NodeId,
        value: NodeId,
        with: &str,
    ) -> Result<Splice, EditError> {
        let node = self.doc.node(value);
        let key_end = self.doc.node(key).span.end;
        let from = self.text[key_end..node.span.start]
            .find(':')
            .map(|i| key_end + i + 1)
            .ok_or_else(|| EditError::Unsupported("no colon after the key".into()))?;
        let from = node.anchor.as_ref().map_or(from, |a| a.1.end.max(from));
        let end = patch::content_end(self.text, &node.span).max(node.span.start);
        if !self.text[end..patch::line_end(self.text, end)]
            .trim()
            .is_empty()
        {
            return Err(EditError::Unsupported(
                "something follows the empty list on its line".into(),
            ));
        }
        Ok(Splice::new(from..end, with))
    }

    /// Adds `key: value` as the mapping's last entry.
    pub fn add_entry(&self, map: NodeId, key: &str, value: &str) -> Result<Splice, EditError> {
        let node = self.doc.node(map);
        let Value::Map(entries) = &node.value else {
            return Err(EditError::Unsupported("the target is not a mapping".into()));
        };
        if node.flow {
            return Ok(match entries.last() {
                Some((_, v)) => {
                    let end = patch::content_end(self.text, &self.doc.node(*v).span);
                    Splice::insert(
                        end.max(self.doc.node(*v).span.start),
                        format!(", {key}: {value}"),
                    )
                }
                None => Splice::insert(node.span.start + 1, format!("{key}: {value}")),
            });
        }
        let Some((_, last)) = entries.last() else {
            return Err(EditError::Unsupported(
                "cannot add a key to an empty block mapping".into(),
            ));
        };
        let indent = self.key_indent(map);
        let sep = if value.starts_with(['\r', '\n']) {
            ""
        } else {
            " "
        };
        Ok(self.insert_after(*last, &indent, &format!("{key}:{sep}{value}")))
    }

    /// A new line after node `id`. When the node ends with a keep block scalar (`|+`,
    /// `>+`), whose value includes the blank lines after it, the line goes after those
    /// blank lines so that the scalar keeps its value byte for byte.
    pub fn insert_after(&self, id: NodeId, indent: &str, content: &str) -> Splice {
        let span = &self.doc.node(id).span;
        if !self.ends_with_keep_scalar(id) {
            return patch::insert_line_after(self.text, span, indent, content);
        }
        let nl = patch::newline(self.text);
        let mut at = patch::next_line(self.text, patch::content_end(self.text, span));
        while at < self.text.len() {
            let end = patch::next_line(self.text, at);
            if !self.text[at..end].trim().is_empty() {
                break;
            }
            at = end;
        }
        if at == self.text.len() && !self.text.ends_with('\n') {
            // Appending after a last line without a break: the break is part of the value
            // only if it existed, so write it before the new line.
            return Splice::insert(at, format!("{nl}{indent}{content}"));
        }
        Splice::insert(at, format!("{indent}{content}{nl}"))
    }

    /// Whether the last thing written in node `id` is a block scalar with keep chomping.
    fn ends_with_keep_scalar(&self, id: NodeId) -> bool {
        self.last_block_scalar(id)
            .is_some_and(|b| self.keep_header(b))
    }

    /// The block scalar written last in node `id`, if the node ends with one.
    pub fn last_block_scalar(&self, id: NodeId) -> Option<NodeId> {
        let mut id = id;
        loop {
            match &self.doc.node(id).value {
                Value::Map(entries) if !self.doc.node(id).flow => id = entries.last()?.1,
                Value::Seq(items) if !self.doc.node(id).flow => id = *items.last()?,
                Value::Scalar {
                    style: Style::Literal | Style::Folded,
                    ..
                } => return Some(id),
                _ => return None,
            }
        }
    }

    /// Whether appending text after the end of the file would change the value of the
    /// block scalar the file ends with (kept trailing lines, or a missing final break).
    pub fn end_is_fragile(&self) -> bool {
        let Some(root) = self.root() else {
            return false;
        };
        self.last_block_scalar(root)
            .is_some_and(|b| self.keep_header(b) || !self.text.ends_with('\n'))
    }

    /// Whether a block scalar's header (`|+`, `>2+`, ...) asks to keep trailing lines.
    fn keep_header(&self, id: NodeId) -> bool {
        let start = self.doc.node(id).span.start;
        let Some(h) = self.text[..start].rfind(['|', '>']) else {
            return false;
        };
        self.text[h + 1..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || matches!(c, '+' | '-'))
            .any(|c| c == '+')
    }

    /// Appends an item to a sequence in its style (flow: `, item`; block: a new `- item`
    /// line with the dash where the other dashes are).
    pub fn append_item(&self, seq: NodeId, item: &str) -> Result<Splice, EditError> {
        self.check_not_shared(seq, "the list")?;
        let node = self.doc.node(seq);
        let Value::Seq(items) = &node.value else {
            return Err(EditError::Unsupported("the target is not a list".into()));
        };
        if node.flow {
            return Ok(match items.last() {
                Some(last) => {
                    let s = &self.doc.node(*last).span;
                    Splice::insert(
                        patch::content_end(self.text, s).max(s.start),
                        format!(", {item}"),
                    )
                }
                None => Splice::insert(node.span.start + 1, item.to_string()),
            });
        }
        let (Some(first), Some(last)) = (items.first(), items.last()) else {
            return Err(EditError::Unsupported(
                "cannot add to an empty block list".into(),
            ));
        };
        let dash = patch::dash_before(self.text, self.doc.node(*first).span.start)
            .ok_or_else(|| EditError::Unsupported("list item dash not found".into()))?;
        let indent = patch::indent_at(self.text, dash);
        Ok(self.insert_after(*last, &indent, &format!("- {item}")))
    }

    /// The insertion of ` []` after the key (and the list's anchor) of a block list whose
    /// every item goes; refused when something else stands between the key and the items.
    fn empty_marker(&self, seq: NodeId, first_item: usize) -> Result<Splice, EditError> {
        let refuse = |why: &str| EditError::Unsupported(format!("removing every item: {why}"));
        let key = self
            .doc
            .nodes()
            .find_map(|n| match &n.value {
                Value::Map(entries) => entries.iter().find(|(_, v)| *v == seq).map(|(k, _)| *k),
                _ => None,
            })
            .ok_or_else(|| refuse("the list is not the value of a key"))?;
        let key_end = self.doc.node(key).span.end;
        let colon = self.text[key_end..]
            .find(':')
            .map(|i| key_end + i + 1)
            .ok_or_else(|| refuse("no colon after the key"))?;
        let anchor_end = self.doc.node(seq).anchor.as_ref().map_or(0, |a| a.1.end);
        let at = colon.max(anchor_end);
        let dash = patch::dash_before(self.text, first_item)
            .ok_or_else(|| refuse("list item dash not found"))?;
        let between = self
            .text
            .get(at..patch::line_start(self.text, dash))
            .unwrap_or("x");
        let clean = between.lines().all(|l| {
            let t = l.trim();
            t.is_empty() || t.starts_with('#')
        });
        if !clean || !between.contains('\n') {
            return Err(refuse("unexpected text between the key and the list"));
        }
        Ok(Splice::insert(at, " []"))
    }

    /// Removes items of a sequence: with their commas in a flow list (one range per run of
    /// neighbours), their whole lines in a block list.
    pub fn remove_items(&self, seq: NodeId, remove: &[usize]) -> Result<Vec<Splice>, EditError> {
        self.check_not_shared(seq, "the list")?;
        let node = self.doc.node(seq);
        let Value::Seq(items) = &node.value else {
            return Err(EditError::Unsupported("the target is not a list".into()));
        };
        let start = |i: usize| self.doc.node(items[i]).span.start;
        let end = |i: usize| {
            let s = &self.doc.node(items[i]).span;
            patch::content_end(self.text, s).max(s.start)
        };
        let mut out = Vec::new();
        if node.flow {
            let mut i = 0;
            while i < items.len() {
                if !remove.contains(&i) {
                    i += 1;
                    continue;
                }
                let mut j = i;
                while j + 1 < items.len() && remove.contains(&(j + 1)) {
                    j += 1;
                }
                let at = if i > 0 {
                    end(i - 1)..end(j)
                } else if j + 1 < items.len() {
                    start(i)..start(j + 1)
                } else {
                    start(i)..end(j)
                };
                out.push(Splice::new(at, ""));
                i = j + 1;
            }
            return Ok(out);
        }
        if (0..items.len()).all(|i| remove.contains(&i)) {
            // A block list losing every item would leave `key:` with nothing after it,
            // which readers take as null (Chat2Graph then fails to load the file): the
            // key gets `[]`, the flow form of an empty list.
            out.push(self.empty_marker(seq, self.doc.node(items[0]).span.start)?);
        }
        for &i in remove {
            let dash = patch::dash_before(self.text, start(i))
                .ok_or_else(|| EditError::Unsupported("list item dash not found".into()))?;
            let from = patch::line_start(self.text, dash);
            if !self.text[from..dash].trim().is_empty() {
                return Err(EditError::Unsupported(
                    "removing an item that shares its line with another".into(),
                ));
            }
            let to = patch::next_line(self.text, end(i).max(start(i)));
            out.push(Splice::new(from..to, ""));
        }
        Ok(out)
    }
}
