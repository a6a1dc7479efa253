//! The boundaries the compiler cannot keep on its own.
//!
//! The core is its own crate (`core/`), so it cannot name the front ends; what it depends
//! on is read from `Cargo.lock` (the terminal and command-line crates must not be in its
//! tree). The CLI and the TUI share the binary crate: neither may name the other (`main`
//! chooses one). Inside the TUI, files of different features (folders such as
//! `graph_pane/`, `editing/`) must not import each other in a circle.

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

#[test]
fn the_core_depends_on_no_terminal_or_command_line_crate() {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).expect("Cargo.lock");
    let graph = lock_graph(&lock);
    let core = reachable(&graph, "toolscope-core");
    assert!(core.len() > 20, "the core's tree was not found: {core:?}");
    let bad: Vec<&&str> = FRONT_END_CRATES
        .iter()
        .filter(|c| core.contains(**c))
        .collect();
    assert!(bad.is_empty(), "the core's tree holds {bad:?}");
    // The check can fail: the binary's tree holds them all.
    let binary = reachable(&graph, "toolscope");
    assert!(FRONT_END_CRATES.iter().all(|c| binary.contains(*c)));
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

/// The code of a file: comments left out, and inline `#[cfg(test)] mod tests` cut off.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
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

#[test]
fn the_scan_sees_a_violation() {
    assert!(code("use crate::cli::mcp;").contains("crate::cli"));
    assert!(!code("// crate::cli::mcp").contains("crate::cli"));
    assert!(!code("fn a() {}\n#[cfg(test)]\nmod tests { use crate::cli; }").contains("cli"));
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
                let rest = &text[i + prefix.len()..];
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .unwrap_or(rest.len());
                let mut path = base.clone();
                path.extend(rest[..end].split("::").filter(|s| !s.is_empty()));
                if let Some(m) = resolve(modules, &path)
                    && m != *module
                    && !m.is_empty()
                {
                    deps.insert(m);
                }
            }
        }
        graph.insert(module.clone(), deps);
    }
    graph
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
