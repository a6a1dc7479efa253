//! The boundaries the compiler cannot keep on its own.
//!
//! The core is four crates, one per band of its layers (`core-base/`, `core-edit/`,
//! `core-evidence/`, `core/`): Cargo refuses an import from a lower crate into a higher one
//! and keeps the core from naming the front ends, so what is checked here is what Cargo
//! cannot say: the core's tree holds no terminal or command-line crate (read from
//! `Cargo.lock`), the crates stack in the documented order, and within one crate a module
//! imports only the layers below its own (docs/architecture.md's table). The CLI and the TUI share the binary crate: neither may name the other (`main`
//! chooses one). Inside the TUI, files of different features (folders such as
//! `graph_pane/`, `insight/`) must not import each other in a circle, and only the shell
//! (`app.rs`, `update/`, the run loop in `mod.rs`) and the drawing (`view/`) name `App`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `Cargo.lock` as package name -> the names it depends on.
fn lock_graph(text: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for block in text.split("[[package]]").skip(1) {
        let mut name = None;
        let mut deps = Vec::new();
        let mut in_deps = false;
        for line in block.lines() {
            let line = line.trim();
            if let Some(n) = line.strip_prefix("name = ") {
                name = Some(n.trim_matches('"').to_string());
            } else if line.starts_with("dependencies = [") {
                in_deps = true;
            } else if in_deps && line.starts_with(']') {
                in_deps = false;
            } else if in_deps {
                // `"name"` or `"name version"`.
                let dep = line.trim_end_matches(',').trim_matches('"');
                deps.push(dep.split(' ').next().unwrap_or(dep).to_string());
            }
        }
        if let Some(n) = name {
            out.entry(n).or_default().extend(deps);
        }
    }
    out
}

fn reachable(graph: &BTreeMap<String, Vec<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_string()];
    while let Some(p) = todo.pop() {
        if seen.insert(p.clone()) {
            todo.extend(graph.get(&p).into_iter().flatten().cloned());
        }
    }
    seen
}

const FRONT_END_CRATES: &[&str] = &["ratatui", "crossterm", "clap", "color-eyre"];

/// The core's crates, bottom to top: each may depend on the ones before it only.
const CORE_CRATES: &[&str] = &[
    "toolscope-base",
    "toolscope-edit",
    "toolscope-evidence",
    "toolscope-core",
];

#[test]
fn the_core_depends_on_no_terminal_or_command_line_crate() {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).expect("Cargo.lock");
    let graph = lock_graph(&lock);
    for (i, krate) in CORE_CRATES.iter().enumerate() {
        let tree = reachable(&graph, krate);
        assert!(tree.len() > 10, "{krate}'s tree was not found: {tree:?}");
        let bad: Vec<&&str> = FRONT_END_CRATES
            .iter()
            .filter(|c| tree.contains(**c))
            .collect();
        assert!(bad.is_empty(), "{krate}'s tree holds {bad:?}");
        // The stack: no core crate reaches one above it (Cargo refuses only a cycle).
        let above: Vec<&&str> = CORE_CRATES[i + 1..]
            .iter()
            .filter(|c| tree.contains(**c))
            .collect();
        assert!(above.is_empty(), "{krate} depends on {above:?}, above it");
    }
    // The check can fail: the binary's tree holds them all, and the top crate the others.
    let binary = reachable(&graph, "toolscope");
    assert!(FRONT_END_CRATES.iter().all(|c| binary.contains(*c)));
    let core = reachable(&graph, "toolscope-core");
    assert!(CORE_CRATES.iter().all(|c| core.contains(*c)), "{core:?}");
}

fn rust_files(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(p)
            .expect("read_dir")
            .map(|e| e.expect("entry").path())
            .collect();
        entries.sort();
        for e in entries {
            rust_files(&e, out);
        }
    } else if p.extension().is_some_and(|e| e == "rs") {
        out.push(p.to_path_buf());
    }
}

/// The code of a file: test modules cut out ([`without_tests`]), then line comments.
fn code(text: &str) -> String {
    let code = without_tests(text).0;
    let lines: Vec<&str> = code
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect();
    lines.join("\n")
}

/// Lines of the files under `dir` naming any of `names`.
fn naming(dir: &str, names: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(&root().join(dir), &mut files);
    assert!(!files.is_empty(), "{dir} has no files");
    let mut found = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        for (i, line) in code(&text).lines().enumerate() {
            if names.iter().any(|n| line.contains(n)) {
                found.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn the_front_ends_never_name_each_other() {
    let tui = naming("src/tui", &["crate::cli", "toolscope::cli"]);
    assert!(tui.is_empty(), "the TUI names the CLI:\n{}", tui.join("\n"));
    let cli = naming("src/cli", &["crate::tui", "toolscope::tui"]);
    assert!(cli.is_empty(), "the CLI names the TUI:\n{}", cli.join("\n"));
}

/// The TUI's files as module paths (`graph_pane::draw`) -> file, tests left out.
fn tui_modules() -> BTreeMap<String, PathBuf> {
    let base = root().join("src/tui");
    let mut files = Vec::new();
    rust_files(&base, &mut files);
    let mut out = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&base).expect("under src/tui");
        let rel = rel.to_string_lossy().trim_end_matches(".rs").to_string();
        if rel.contains("tests") || rel == "keystr" {
            continue;
        }
        let module = rel.trim_end_matches("/mod").trim_end_matches("mod");
        out.insert(module.trim_end_matches('/').replace('/', "::"), f);
    }
    out
}

/// The longest known module a path names (`graph_pane::draw::GraphWidget` -> `graph_pane::draw`).
fn resolve(modules: &BTreeMap<String, PathBuf>, path: &[&str]) -> Option<String> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].join("::"))
        .find(|k| modules.contains_key(k))
}

/// Which TUI modules each module imports (`crate::tui::x`, `super::x`, `super::super::x`).
fn tui_imports(modules: &BTreeMap<String, PathBuf>) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph = BTreeMap::new();
    for (module, file) in modules {
        let text = code(&std::fs::read_to_string(file).expect("read"));
        // `super` names the parent module, whether the file is `a/b.rs` or `a/b/mod.rs`.
        let mut parent: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
        parent.pop();
        let mut deps = BTreeSet::new();
        for (prefix, base) in [
            ("crate::tui::", Vec::new()),
            (
                "super::super::",
                parent[..parent.len().saturating_sub(1)].to_vec(),
            ),
            ("super::", parent.clone()),
        ] {
            for (i, _) in text.match_indices(prefix) {
                if prefix == "super::" && text[..i].ends_with("super::") {
                    continue;
                }
                if text[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
                    && prefix != "crate::tui::"
                {
                    continue;
                }
                for named in named_paths(&text[i + prefix.len()..]) {
                    let mut path = base.clone();
                    path.extend(named.split("::").filter(|s| !s.is_empty()));
                    if let Some(m) = resolve(modules, &path)
                        && m != *module
                        && !m.is_empty()
                    {
                        deps.insert(m);
                    }
                }
            }
        }
        graph.insert(module.clone(), deps);
    }
    graph
}

/// The paths named right after a prefix such as `crate::tui::`: `a::b` in `a::b::C`, or
/// each entry of a group (`{a::X, b}` names `a::X` and `b`; a nested group counts by the
/// path before it).
fn named_paths(rest: &str) -> Vec<String> {
    let is_path = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    let Some(group) = rest.strip_prefix('{') else {
        let end = rest.find(|c: char| !is_path(c)).unwrap_or(rest.len());
        return vec![rest[..end].to_string()];
    };
    let mut out = Vec::new();
    let mut depth = 0;
    // Where the entry being read starts, until a character that ends its path.
    let mut start = Some(0);
    for (i, c) in group.char_indices() {
        let ends = match c {
            '{' => {
                depth += 1;
                depth == 1
            }
            '}' if depth == 0 => true,
            '}' => {
                depth -= 1;
                false
            }
            ',' => depth == 0,
            c => !(is_path(c) || c.is_whitespace()) && depth == 0,
        };
        if ends && let Some(s) = start.take() {
            out.push(group[s..i].trim().to_string());
        }
        if c == ',' && depth == 0 {
            start = Some(i + 1);
        }
        if c == '}' && depth == 0 && ends {
            break;
        }
    }
    out.retain(|p| !p.is_empty());
    out
}

#[test]
fn a_group_names_each_of_its_paths() {
    assert_eq!(named_paths("app::App;"), ["app::App"]);
    assert_eq!(
        named_paths("{app::{App, Level}, msg::Msg, theme};"),
        ["app::", "msg::Msg", "theme"]
    );
}

/// The feature a module belongs to: its first path segment.
fn feature(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

/// Circles (strongly connected components of more than one module) that span features.
fn circles_across_features(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Two modules are in one circle when each reaches the other.
    let mut reach: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for m in graph.keys() {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<&str> = graph[m].iter().map(String::as_str).collect();
        while let Some(x) = todo.pop() {
            if seen.insert(x) {
                todo.extend(graph.get(x).into_iter().flatten().map(String::as_str));
            }
        }
        reach.insert(m.as_str(), seen);
    }
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::new();
    for m in graph.keys() {
        if done.contains(m) {
            continue;
        }
        let circle: Vec<String> = graph
            .keys()
            .filter(|o| {
                *o == m
                    || (reach[m.as_str()].contains(o.as_str())
                        && reach[o.as_str()].contains(m.as_str()))
            })
            .cloned()
            .collect();
        done.extend(circle.iter().cloned());
        let features: BTreeSet<&str> = circle.iter().map(|c| feature(c)).collect();
        if circle.len() > 1 && features.len() > 1 {
            out.push(circle);
        }
    }
    out
}

#[test]
fn no_import_circle_between_tui_features() {
    let modules = tui_modules();
    assert!(modules.contains_key("graph_pane::draw"), "{modules:?}");
    let graph = tui_imports(&modules);
    // The scan finds real imports: the view draws the graph pane.
    assert!(
        graph["view"].contains("graph_pane::draw"),
        "{:?}",
        graph["view"]
    );
    let circles = circles_across_features(&graph);
    assert!(
        circles.is_empty(),
        "import circles across features: {circles:?}"
    );
}

/// The TUI's folders (`insight`, `navigator`, ...) and which folders each names, with the
/// module imports that make each step. The files directly in `src/tui` (`app`, `msg`,
/// `action`, `ctx`, ...) and `update/` (the shell that applies the panes' actions, whose
/// command rows the panes' tables are made of) are no feature folder and are left out.
fn tui_folder_graph(graph: &BTreeMap<String, BTreeSet<String>>) -> CoreGraph {
    let base = root().join("src/tui");
    let folder = |m: &str| {
        let first = feature(m);
        (!first.is_empty() && first != SHELL && base.join(first).is_dir())
            .then(|| first.to_string())
    };
    let mut out = CoreGraph::new();
    for (module, deps) in graph {
        let Some(from) = folder(module) else {
            continue;
        };
        let steps = out.entry(from.clone()).or_default();
        for dep in deps {
            if let Some(to) = folder(dep)
                && to != from
            {
                steps
                    .entry(to)
                    .or_default()
                    .push(format!("{module} names {dep}"));
            }
        }
    }
    out
}

/// The folder of the TUI that applies actions (and holds the command rows, the `:` line
/// and the edits): the shell, with `app.rs`.
const SHELL: &str = "update";

#[test]
fn no_import_circle_between_tui_folders() {
    let graph = tui_folder_graph(&tui_imports(&tui_modules()));
    // The scan finds real imports: the view draws the insight's panels.
    assert!(graph["view"].contains_key("insight"), "{:?}", graph["view"]);
    assert!(!graph.contains_key(SHELL), "{:?}", graph.keys());
    if let Some(circle) = find_circle(&graph) {
        panic!("{}", show_circle("TUI folders", &graph, &circle));
    }
}

#[test]
fn a_circle_between_tui_folders_is_found() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // Three folders of the real tree in a circle, one step through a shell file and one
    // through `update/` (both left out, so they make no step of their own).
    g.insert("insight::commands".into(), ["navigator".to_string()].into());
    g.insert(
        "navigator".into(),
        ["replay::draw".to_string(), "app".to_string()].into(),
    );
    g.insert(
        "replay::draw".into(),
        ["insight".to_string(), "update::apply".to_string()].into(),
    );
    g.insert("app".into(), ["insight".to_string()].into());
    g.insert("update::apply".into(), ["navigator".to_string()].into());
    let folders = tui_folder_graph(&g);
    assert!(!folders.contains_key("app"), "{folders:?}");
    assert!(!folders.contains_key(SHELL), "{folders:?}");
    let circle = find_circle(&folders).expect("a circle");
    let mut seen: Vec<&str> = circle.iter().map(String::as_str).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen, ["insight", "navigator", "replay"]);
    assert!(show_circle("TUI folders", &folders, &circle).contains("navigator names replay::draw"));
}

/// Where a file's code (test modules and comments left out) names the type `App`: the
/// word, not a longer name (`AppState`) or a path segment's part.
fn names_app(code: &str) -> Vec<usize> {
    let b = code.as_bytes();
    code.match_indices("App")
        .map(|(i, _)| i)
        .filter(|&i| {
            let longer = b
                .get(i + 3)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
            !ident_byte(b, i) && !longer
        })
        .collect()
}

#[test]
fn names_app_sees_the_word_only() {
    assert_eq!(names_app("fn f(app: &App) {}"), [11]);
    assert_eq!(names_app("use crate::tui::app::{App, Level};"), [22]);
    assert!(names_app("struct AppState; fn app() {} let MyApp = 1;").is_empty());
    assert_eq!(code("// App\nfn f() {}").trim(), "fn f() {}");
}

/// The TUI modules that may name `App`: the app itself, the run loop that builds it, the
/// shell that applies actions (`update/`) and the drawing (`view/`). A pane takes its own
/// state and the `Ctx` and returns `Action`s; it never sees the app.
fn may_name_app(module: &str) -> bool {
    matches!(module, "app" | "") || matches!(feature(module), "update" | "view")
}

#[test]
fn only_the_shell_and_the_view_name_app() {
    let modules = tui_modules();
    let mut found = Vec::new();
    for (module, file) in &modules {
        if may_name_app(module) {
            continue;
        }
        let text = code(&std::fs::read_to_string(file).expect("read"));
        for at in names_app(&text) {
            let line = text[..at].lines().count().max(1);
            found.push(format!("{}:{line}", file.display()));
        }
    }
    assert!(
        found.is_empty(),
        "TUI files outside app.rs, mod.rs, update/ and view/ name `App` (a pane takes its \
         state and the Ctx and returns Actions):\n{}",
        found.join("\n")
    );
    // The scan reads real files: the shell names the app.
    let shell = code(&std::fs::read_to_string(&modules["update"]).expect("read"));
    assert!(!names_app(&shell).is_empty());
}

/// The command rows in `text` (a line calling `cmd!(`) that take the
/// app: a pane's row names its kind first (`@Navigator |n, ctx, arg| …`), so it is run on
/// the pane's state and the Ctx and says what it wants as Actions; a row without one is a
/// shell handler, `fn(&mut App, &str)`.
fn rows_taking_the_app(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains("cmd!(") && !l.contains('@'))
        .map(|(i, _)| i + 1)
        .collect()
}

#[test]
fn a_panes_command_rows_do_not_take_the_app() {
    let mut found = Vec::new();
    let mut rows = 0;
    for (module, file) in &tui_modules() {
        if may_name_app(module) {
            continue;
        }
        let text = code(&std::fs::read_to_string(file).expect("read"));
        rows += text.lines().filter(|l| l.contains("cmd!(")).count();
        for line in rows_taking_the_app(&text) {
            found.push(format!("{}:{line}", file.display()));
        }
    }
    assert!(
        found.is_empty(),
        "a pane's command row takes the app (name the pane's kind: `@Navigator |n, ctx, arg| …`):\n{}",
        found.join("\n")
    );
    // The scan reads real tables, and sees a row that takes the app.
    assert!(rows > 50, "{rows} rows seen in the panes");
    let shell_row = r#"    cmd!("x", [], None, "", General, "doc", |a, _| run(a)),"#;
    let pane_row = r#"    cmd!("x", [], None, "", General, "doc", @Ctx |c, _| Ok(go(c))),"#;
    assert_eq!(rows_taking_the_app(shell_row), vec![1]);
    assert!(rows_taking_the_app(pane_row).is_empty());
}

#[test]
fn a_circle_across_features_is_found() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.insert("a::x".into(), ["b".to_string()].into());
    g.insert("b".into(), ["a::x".to_string()].into());
    g.insert("c::y".into(), ["c".to_string()].into());
    g.insert("c".into(), ["c::y".to_string()].into());
    let circles = circles_across_features(&g);
    assert_eq!(circles, vec![vec!["a::x".to_string(), "b".to_string()]]);
}

// ---------------------------------------------------------------------------------------
// The core's layers: no import circle between core/src's top-level modules.

/// Where the block opened by the `{` at `open` closes (the byte after its `}`), skipping
/// braces in comments, strings, raw strings and character literals.
fn block_end(text: &str, open: usize) -> usize {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(b.len(), |n| i + n);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
                continue;
            }
            b'r' if !ident_byte(b, i) && matches!(b.get(i + 1), Some(b'"' | b'#')) => {
                let hashes = b[i + 1..].iter().take_while(|c| **c == b'#').count();
                if b.get(i + 1 + hashes) == Some(&b'"') {
                    let close = format!("\"{}", "#".repeat(hashes));
                    let from = i + 2 + hashes;
                    i = text[from..]
                        .find(&close)
                        .map_or(b.len(), |n| from + n + close.len());
                    continue;
                }
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            // A character literal (`'{'`, `'\''`); a lifetime (`'a`) has no closing quote.
            b'\'' if b.get(i + 1) == Some(&b'\\') => {
                i = text[i + 3..].find('\'').map_or(b.len(), |n| i + 3 + n);
            }
            b'\'' if text[i + 1..].chars().nth(1) == Some('\'') => {
                i += 1 + text[i + 1..].chars().next().map_or(1, char::len_utf8);
            }
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

fn ident_byte(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// A file's code with its test modules left out: each `#[cfg(test)] mod NAME { .. }` block
/// (to its closing brace; the code after it is kept), and the names of the test modules it
/// declares in files of their own (`#[cfg(test)] mod NAME;`). Nothing else is cut: a `mod
/// tests;` line at the top of a file leaves the rest of the file in.
fn without_tests(text: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut test_files = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let item = after.trim_start();
        let skipped = after.len() - item.len();
        // `pub mod tests;`, `pub(crate) mod tests { .. }`: the visibility changes nothing.
        let item = ["pub(crate) ", "pub(super) ", "pub "]
            .iter()
            .find_map(|v| item.strip_prefix(v))
            .unwrap_or(item);
        let name_len = item.strip_prefix("mod ").map(|m| {
            m.find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(m.len())
        });
        match name_len {
            Some(n) => {
                let name = &item[4..4 + n];
                let tail = item[4 + n..].trim_start();
                if tail.starts_with(';') {
                    test_files.push(name.to_string());
                    rest = &item[4 + n..];
                } else if tail.starts_with('{') {
                    let open = item.len() - tail.len();
                    rest = &item[block_end(item, open)..];
                } else {
                    out.push_str(&rest[at..at + "#[cfg(test)]".len() + skipped]);
                    rest = item;
                }
            }
            // A test-only item that is not a module (a function, a `use`): its lines stay.
            None => {
                out.push_str(&rest[at..at + "#[cfg(test)]".len()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    (out, test_files)
}

/// The file of child module `name` declared in `file`: `name.rs` or `name/mod.rs` beside a
/// `mod.rs` (or `lib.rs`), else in the folder named after the file.
fn child_file(file: &Path, name: &str) -> Option<PathBuf> {
    let stem = file.file_stem()?.to_string_lossy().to_string();
    let dir = file.parent()?;
    let dir = if stem == "mod" || stem == "lib" {
        dir.to_path_buf()
    } else {
        dir.join(stem)
    };
    [
        dir.join(format!("{name}.rs")),
        dir.join(name).join("mod.rs"),
    ]
    .into_iter()
    .find(|p| p.exists())
}

/// The folders of the core's crates, bottom to top, each with its `src/`.
const CORE_DIRS: &[&str] = &["core-base", "core-edit", "core-evidence", "core"];

/// The core's top-level modules (`edit`, `lint`) -> the code of their files (comments and
/// test modules left out), each with its file (relative to its crate's `src/`) and line.
/// A module's crate is the folder it lives in ([`crate_of`]).
fn core_module_code() -> BTreeMap<String, Vec<(PathBuf, String)>> {
    let mut out: BTreeMap<String, Vec<(PathBuf, String)>> = BTreeMap::new();
    for dir in CORE_DIRS {
        for (top, files) in crate_module_code(&root().join(dir).join("src")) {
            out.entry(top).or_default().extend(files);
        }
    }
    out
}

/// The crate folder (of [`CORE_DIRS`]) a top-level core module lives in.
fn crate_of(module: &str) -> Option<&'static str> {
    CORE_DIRS.iter().copied().find(|dir| {
        let src = root().join(dir).join("src");
        src.join(format!("{module}.rs")).exists() || src.join(module).join("mod.rs").exists()
    })
}

/// One crate's top-level modules -> the code of their files, as [`core_module_code`].
fn crate_module_code(base: &Path) -> BTreeMap<String, Vec<(PathBuf, String)>> {
    let mut files = Vec::new();
    rust_files(base, &mut files);
    let mut texts: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut test_files: BTreeSet<PathBuf> = BTreeSet::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read");
        let (code, tests) = without_tests(&text);
        test_files.extend(tests.iter().filter_map(|t| child_file(f, t)));
        texts.insert(f.clone(), code);
    }
    // A test module's own children are test code too: the files under `x/` of a test
    // module in `x/mod.rs` or in `x.rs`.
    let mut out: BTreeMap<String, Vec<(PathBuf, String)>> = BTreeMap::new();
    for (f, code) in texts {
        let rel = f.strip_prefix(base).expect("under src");
        let in_tests = test_files.iter().any(|t| {
            let children = if t.ends_with("mod.rs") {
                t.parent().map(Path::to_path_buf)
            } else {
                Some(t.with_extension(""))
            };
            f == *t || children.is_some_and(|d| f.starts_with(d))
        });
        let top = rel
            .iter()
            .next()
            .map(|s| s.to_string_lossy().trim_end_matches(".rs").to_string());
        let Some(top) = top.filter(|t| t != "lib") else {
            continue;
        };
        if in_tests {
            continue;
        }
        let code = code
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        out.entry(top).or_default().push((rel.to_path_buf(), code));
    }
    out
}

/// The module path of a file under a crate's src (`edit/ops.rs` -> [edit, ops]).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().to_string())
        .collect();
    if let Some(last) = parts.pop() {
        let last = last.trim_end_matches(".rs");
        if last != "mod" {
            parts.push(last.to_string());
        }
    }
    parts
}

/// The top-level modules a file's code names, each with the line that names it: `crate::x`,
/// `crate::{x, y::z}` (over several lines too), and `super::` paths that climb to the
/// crate root.
fn names_of_top_modules(
    rel: &Path,
    code: &str,
    tops: &BTreeSet<String>,
) -> Vec<(String, usize, String)> {
    let depth = module_path(rel).len();
    let b = code.as_bytes();
    let word = |s: &str| -> String {
        s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("")
            .to_string()
    };
    let mut firsts: Vec<(usize, String)> = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        if ident_byte(b, i) {
            continue;
        }
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The group's own items: after its `{` and each comma outside inner groups.
            let mut depth = 0;
            let mut start = 0;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        firsts.push((i, word(group[start..k].trim())));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        firsts.push((i, word(group[start..k].trim())));
                        start = k + 1;
                    }
                    _ => {}
                }
            }
        } else {
            firsts.push((i, word(rest)));
        }
    }
    for (i, _) in code.match_indices("super::") {
        if ident_byte(b, i) || (i >= 2 && &code[i - 2..i] == "::") {
            continue;
        }
        let mut rest = &code[i..];
        let mut ups = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            ups += 1;
            rest = r;
        }
        if ups == depth {
            firsts.push((i, word(rest)));
        }
    }
    firsts.sort();
    firsts
        .into_iter()
        .filter(|(_, m)| tops.contains(m))
        .map(|(i, m)| {
            let line = code[..i].matches('\n').count();
            let text = code.lines().nth(line).unwrap_or("").trim().to_string();
            (m, line + 1, text)
        })
        .collect()
}

/// The core's module graph: top-level module -> the modules it names -> where.
type CoreGraph = BTreeMap<String, BTreeMap<String, Vec<String>>>;

fn core_graph() -> CoreGraph {
    let modules = core_module_code();
    let tops: BTreeSet<String> = modules.keys().cloned().collect();
    let mut graph = CoreGraph::new();
    for (top, files) in &modules {
        let deps = graph.entry(top.clone()).or_default();
        for (rel, code) in files {
            for (to, line, text) in names_of_top_modules(rel, code, &tops) {
                if to != *top {
                    deps.entry(to)
                        .or_default()
                        .push(format!("{}:{line}: {text}", rel.display()));
                }
            }
        }
    }
    graph
}

/// A circle in `graph` as a path that returns to its start (`[a, b, a]`), if any.
fn find_circle(graph: &CoreGraph) -> Option<Vec<String>> {
    // Depth-first, with the path on a stack: an edge back onto the path closes a circle.
    fn visit(
        graph: &CoreGraph,
        m: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut circle = path[at..].to_vec();
            circle.push(m.to_string());
            return Some(circle);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for to in graph.get(m).into_iter().flat_map(|d| d.keys()) {
            if let Some(c) = visit(graph, to, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(graph, m, &mut Vec::new(), &mut done))
}

/// A circle with the lines that make each of its steps.
fn show_circle(what: &str, graph: &CoreGraph, circle: &[String]) -> String {
    let mut out = format!("import circle between {what}: {}\n", circle.join(" -> "));
    for step in circle.windows(2) {
        out.push_str(&format!("  {} -> {}:\n", step[0], step[1]));
        for at in &graph[&step[0]][&step[1]] {
            out.push_str(&format!("    {at}\n"));
        }
    }
    out
}

#[test]
fn the_core_scan_reads_past_test_declarations_and_sees_groups() {
    // A `mod tests;` declaration at the top cuts nothing: the import after it is seen.
    let text = "#[cfg(test)]\nmod tests;\n\nuse crate::formats::of;\n";
    let (code, files) = without_tests(text);
    assert_eq!(files, ["tests"]);
    assert!(code.contains("crate::formats"), "{code}");
    let (code, files) = without_tests("#[cfg(test)]\npub(crate) mod tests;\nuse crate::edit;\n");
    assert_eq!(
        (files.as_slice(), code.contains("crate::edit")),
        (&["tests".to_string()][..], true)
    );
    // An inline test module is cut to its closing brace, braces in its strings and
    // characters included; the code after it stays.
    let text = "fn a() {}\n#[cfg(test)]\nmod tests {\n    use crate::load;\n    fn b() { let _ = (\"}\", '}', r#\"}\"#); }\n}\nuse crate::edit::Edit;\n";
    let (code, _) = without_tests(text);
    assert!(!code.contains("crate::load"), "{code}");
    assert!(code.contains("crate::edit::Edit"), "{code}");
    // Groups and `super::` paths that climb to the crate root are read.
    let tops: BTreeSet<String> = ["edit", "formats", "model", "source"]
        .map(String::from)
        .into();
    let found: Vec<String> = names_of_top_modules(
        Path::new("formats/native/edit.rs"),
        "use crate::{\n    edit::{Edit, doc},\n    model,\n};\nuse super::super::super::source::patch;\nuse super::super::Nav;\n",
        &tops,
    )
    .into_iter()
    .map(|(m, _, _)| m)
    .collect();
    assert_eq!(found, ["edit", "model", "source"]);
}

/// The names of the `.rs` files in `dir` that `main.rs` does not declare as `mod NAME;`.
fn undeclared_test_files(dir: &Path) -> Vec<String> {
    let main = std::fs::read_to_string(dir.join("main.rs")).expect("read main.rs");
    let declared: BTreeSet<&str> = main
        .lines()
        .filter_map(|l| l.trim().strip_prefix("mod ")?.strip_suffix(';'))
        .collect();
    let mut missing: Vec<String> = std::fs::read_dir(dir)
        .expect("read the suite's folder")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".rs").map(str::to_string))
        .filter(|n| n != "main" && !declared.contains(n.as_str()))
        .collect();
    missing.sort();
    missing
}

/// The integration tests are one binary (`tests/suite/main.rs`): a file in its folder that
/// `main.rs` forgets would never be compiled, and its tests would silently not run.
#[test]
fn every_file_of_the_suite_is_compiled() {
    let missing = undeclared_test_files(&root().join("tests/suite"));
    assert!(
        missing.is_empty(),
        "tests/suite/main.rs does not declare {missing:?}"
    );
}

#[test]
fn a_forgotten_suite_file_is_seen() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("main.rs"), "mod kept;\n").expect("write");
    std::fs::write(dir.path().join("kept.rs"), "").expect("write");
    std::fs::write(dir.path().join("forgotten.rs"), "").expect("write");
    assert_eq!(undeclared_test_files(dir.path()), ["forgotten"]);
}

/// The layers of docs/architecture.md's table ("The core's layers"): module -> (layer,
/// crate), read from the doc itself so the two cannot drift apart.
fn documented_layers() -> BTreeMap<String, (u32, String)> {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).expect("read doc");
    let mut layers = BTreeMap::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // `| 7 | `toolscope-core` | `session` | everything below |` splits into
        // ["", "7", "`toolscope-core`", "`session`", ..].
        let (Some(n), Some(krate), Some(modules)) = (cells.get(1), cells.get(2), cells.get(3))
        else {
            continue;
        };
        let Ok(n) = n.parse::<u32>() else { continue };
        for m in modules.split(',') {
            let krate = krate.trim_matches('`').to_string();
            layers.insert(m.trim().trim_matches('`').to_string(), (n, krate));
        }
    }
    layers
}

/// Imports the table allows within one layer (named in its "may import" column).
const SAME_LAYER: &[(&str, &str)] = &[("lint", "mcp"), ("layout", "recommend")];

/// Within one crate Cargo sees no layers: a module imports only modules of a lower layer
/// of the table (an import into a lower crate is Cargo's to allow, and one into a higher
/// crate does not compile). Each module also lives in the crate the table names.
#[test]
fn every_core_import_within_a_crate_goes_down_the_documented_layers() {
    let layers = documented_layers();
    assert!(layers.len() >= 20, "the doc's table was read: {layers:?}");
    let graph = core_graph();
    // The scan finds real imports within a crate: formats write edits, the applier loads.
    assert!(
        graph["formats"].contains_key("edit"),
        "{:?}",
        graph["formats"]
    );
    assert!(
        graph["workspace"].contains_key("load"),
        "{:?}",
        graph["workspace"]
    );
    let mut bad = Vec::new();
    for (module, deps) in &graph {
        let Some((from, krate)) = layers.get(module) else {
            bad.push(format!("{module} is in no layer of docs/architecture.md"));
            continue;
        };
        let dir = crate_of(module);
        let lives = dir.and_then(|d| CORE_DIRS.iter().position(|x| *x == d));
        if lives.map(|i| CORE_CRATES[i]) != Some(krate.as_str()) {
            bad.push(format!("{module} lives in {dir:?}, the table says {krate}"));
        }
        for (to, lines) in deps {
            if crate_of(to) != dir {
                continue;
            }
            let ok = match layers.get(to) {
                Some((under, _)) => under < from || SAME_LAYER.contains(&(module, to)),
                None => false,
            };
            if !ok {
                bad.push(format!(
                    "{module} (layer {from}) -> {to} (layer {:?}), both in {krate}:\n    {}",
                    layers.get(to).map(|l| l.0),
                    lines.join("\n    ")
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
