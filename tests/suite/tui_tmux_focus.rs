//! The focus view in a real terminal (tmux, 100x30): for every operator of the
//! Chat2Graph-shaped fixture, chosen with `o` as a user would, every recommended node's
//! label is inside the graph pane, keeps its first 8 characters and names exactly one node.
//! Without tmux the test fails when `CI` is set and prints a skip notice otherwise.

use std::path::Path;

use toolscope_core::load::load_paths;
use toolscope_core::recommend::{Params, recommend, resolve_seeds};

use crate::common::tmux;
use tmux::Tmux;

/// The graph pane's text: the rows between its borders, the columns inside them.
fn graph_pane(screen: &str) -> Vec<String> {
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let top = &lines[0];
    let title: Vec<char> = "┌ Graph".chars().collect();
    let left = (0..top.len() - title.len())
        .find(|&x| top[x..x + title.len()] == title[..])
        .expect("graph pane title");
    let right = (left + 1..top.len())
        .find(|&x| top[x] == '┐')
        .expect("graph pane corner");
    lines
        .iter()
        .skip(1)
        .take_while(|l| l.get(left) != Some(&'└'))
        .map(|l| l[left + 1..right.min(l.len())].iter().collect())
        .collect()
}

/// The label of `name` in the pane: the name itself, or its first 8+ characters, an
/// ellipsis and possibly the end of the name.
fn find_label(pane: &[String], name: &str) -> Option<String> {
    let head: String = name.chars().take(8).collect();
    for row in pane {
        for (at, _) in row.match_indices(&head) {
            let rest = &row[at..];
            if let Some(after) = rest.strip_prefix(name)
                && after.chars().next().is_none_or(ends_label)
            {
                return Some(name.to_string());
            }
            let Some(cut) = rest.find('…') else {
                continue;
            };
            let front = &rest[..cut];
            if !name.starts_with(front) {
                continue;
            }
            let tail: String = rest[cut + '…'.len_utf8()..]
                .chars()
                .take_while(|c| !matches!(c, ' ' | '┃' | '│' | '╎' | '▲' | '▼'))
                .collect();
            // A one-line tool or group box closes right after the label.
            let tail = if name.ends_with(tail.as_str()) {
                tail.as_str()
            } else {
                tail.trim_end_matches([')', ']'])
            };
            if !name.ends_with(tail) {
                continue;
            }
            return Some(format!("{front}…{tail}"));
        }
    }
    None
}

/// Whether `c` may follow a label: padding, a box side or cap, a diff mark.
fn ends_label(c: char) -> bool {
    matches!(c, ' ' | '┃' | '│' | '╎' | '║' | '▲' | '▼' | ')' | ']')
}

/// Whether a label could stand for `name`.
fn could_be(label: &str, name: &str) -> bool {
    match label.split_once('…') {
        None => label == name,
        Some((front, tail)) => {
            name.starts_with(front) && name.ends_with(tail) && name.len() > front.len()
        }
    }
}

#[test]
fn every_operator_of_a_chat2graph_shaped_file_fits_at_100x30() {
    if !tmux::available() {
        return;
    }
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/chat2graph-flat.yml");
    let tk = load_paths(std::slice::from_ref(&fixture), None)
        .expect("fixture loads")
        .toolkit;
    let names: Vec<String> = tk
        .graph
        .node_indices()
        .map(|ix| tk.name(ix).to_string())
        .collect();
    // The session's private state folder: a recovery file left by another session on the
    // fixture would open its dialog over the graph.
    let tmux = Tmux::new("focus");
    let fixture_s = fixture.display().to_string();
    tmux.start(
        (100, 30),
        None,
        &[env!("CARGO_BIN_EXE_toolscope"), &fixture_s],
    );
    // Keys typed before the TUI reads raw input go through the cooked terminal, which turns
    // Enter into a line feed (read later as Ctrl-J): wait for the first screen.
    tmux.first_screen();
    for op in &tk.operators {
        // Chosen by name, as a user would type it (`o` steps in the navigator's order).
        let command = format!(":operator {}", op.name);
        tmux.run(&["send-keys", "-t", "t", "-l", &command]);
        tmux.run(&["send-keys", "-t", "t", "Enter"]);
        let shown = format!("operator {}", op.name);
        // Not while the typed command line itself is still on screen.
        let screen = tmux.wait(&shown, |s| s.contains(&shown) && !s.contains(&command));
        let pane = graph_pane(&screen);
        let (seeds, _) = resolve_seeds(&tk, &op.actions);
        let rec = recommend(
            &tk,
            &seeds,
            Params {
                threshold: op.threshold,
                hops: op.hops,
            },
        );
        for ix in rec.actions.iter().chain(&rec.tools) {
            let name = tk.name(*ix);
            let label = find_label(&pane, name).unwrap_or_else(|| {
                panic!("{}: `{name}` not in the graph pane:\n{screen}", op.name)
            });
            let matches: Vec<&String> = names.iter().filter(|n| could_be(&label, n)).collect();
            assert_eq!(
                matches.len(),
                1,
                "{}: `{label}` could be {matches:?}\n{screen}",
                op.name
            );
        }
    }
    tmux.run(&["send-keys", "-t", "t", "q"]);
}

use crate::common::shared;

/// Issue 25's acceptance in a real terminal: on every operator of the Chat2Graph-shaped
/// configs (the bundled example, the flattened fixture, the GAIA-shaped fixture and
/// Chat2Graph's own `chat2graph.yml`), at 80x24, 100x30 and 160x48, every recommended
/// node's label is inside the graph pane when the operator is chosen and after each of two
/// `]` presses, with no other key.
#[test]
fn the_whole_recommendation_stays_on_screen_at_every_size_and_hops_step() {
    if !tmux::available() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut configs: Vec<Option<std::path::PathBuf>> = vec![
        None,
        Some(root.join("tests/fixtures/chat2graph-flat.yml")),
        Some(root.join("tests/fixtures/gaia-agents.yml")),
    ];
    configs.extend(shared::chat2graph_yml().map(Some));
    for (c, config) in configs.iter().enumerate() {
        let tk = match config {
            Some(p) => {
                load_paths(std::slice::from_ref(p), None)
                    .expect("loads")
                    .toolkit
            }
            None => toolscope_core::load::load_example().toolkit,
        };
        let names: Vec<String> = tk
            .graph
            .node_indices()
            .map(|ix| tk.name(ix).to_string())
            .collect();
        for size in [(80, 24), (100, 30), (160, 48)] {
            // A socket per session: a server being killed is never reused.
            let tmux = Tmux::new(&format!("fit{c}x{}", size.0));
            let path = config.as_ref().map(|p| p.display().to_string());
            let mut command = vec![env!("CARGO_BIN_EXE_toolscope")];
            command.extend(path.as_deref());
            tmux.start(size, None, &command);
            tmux.first_screen();
            for op in &tk.operators {
                let typed = format!(":operator {}", op.name);
                tmux.run(&["send-keys", "-t", "t", "-l", &typed]);
                tmux.run(&["send-keys", "-t", "t", "Enter"]);
                let (seeds, _) = resolve_seeds(&tk, &op.actions);
                for step in 0..=2u32 {
                    if step > 0 {
                        tmux.send(&["]"]);
                    }
                    let hops = op.hops + step;
                    let what = format!("{} at {size:?}, hops {hops}", op.name);
                    // The parameter bar shows the step (long or short labels).
                    let screen = tmux.wait(&what, |s| {
                        !s.contains(&typed)
                            && s.lines().any(|l| {
                                l.contains(&format!(" hops {hops} ")) && l.contains(&op.name)
                            })
                    });
                    let pane = graph_pane(&screen);
                    let params = Params {
                        threshold: op.threshold,
                        hops,
                    };
                    let rec = recommend(&tk, &seeds, params);
                    for ix in rec.actions.iter().chain(&rec.tools) {
                        let name = tk.name(*ix);
                        let label = find_label(&pane, name).unwrap_or_else(|| {
                            panic!("{what}: `{name}` not in the graph pane:\n{screen}")
                        });
                        let matches = names.iter().filter(|n| could_be(&label, n)).count();
                        assert_eq!(matches, 1, "{what}: `{label}` is ambiguous\n{screen}");
                    }
                }
            }
            tmux.run(&["send-keys", "-t", "t", "q"]);
        }
    }
}

/// Cells of a crossing (`╋`, `┼`) right beside another crossing or a junction, across or
/// along: a knot (`┏╋╋┳━┛`, `▼━━━╋┛┏┻╋━┫`) where no line can be followed by eye.
fn knots(pane: &[String]) -> Vec<String> {
    let grid: Vec<Vec<char>> = pane.iter().map(|r| r.chars().collect()).collect();
    let at = |x: usize, y: usize| grid.get(y).and_then(|r| r.get(x)).copied().unwrap_or(' ');
    let crossing = |c: char| matches!(c, '╋' | '┼');
    let joint = |c: char| crossing(c) || "┳┻┣┫┬┴├┤".contains(c);
    let mut out = Vec::new();
    for (y, row) in grid.iter().enumerate() {
        for (x, &c) in row.iter().enumerate() {
            if !crossing(c) {
                continue;
            }
            let beside = [at(x + 1, y), at(x, y + 1)];
            if beside.iter().any(|&b| joint(b)) || (x > 0 && joint(at(x - 1, y))) {
                out.push(format!("row {y}: {}", pane[y]));
            }
        }
    }
    out
}

/// Issue 33's knot, in a real terminal: `gaia-agents.yml` at 80x24, `WebSurferExpert/1`,
/// hops 2 (two `]` presses) drew `┏╋╋┳━┛` and `▼━━━╋┛┏┻╋━┫` between its columns; now no
/// crossing sits beside another crossing or a junction, and edges left out are counted.
#[test]
fn the_gaia_web_surfer_at_hops_2_draws_no_knot_at_80x24() {
    if !tmux::available() {
        return;
    }
    assert_eq!(
        knots(&["┏╋╋┳━┛".to_string()]).len(),
        2,
        "the check can fail"
    );
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gaia-agents.yml");
    let tmux = Tmux::new("knot");
    let fixture_s = fixture.display().to_string();
    tmux.start(
        (80, 24),
        None,
        &[env!("CARGO_BIN_EXE_toolscope"), &fixture_s],
    );
    tmux.first_screen();
    let typed = ":operator WebSurferExpert/1";
    tmux.run(&["send-keys", "-t", "t", "-l", typed]);
    tmux.run(&["send-keys", "-t", "t", "Enter"]);
    tmux.send(&["]"]);
    tmux.send(&["]"]);
    let screen = tmux.wait("hops 2", |s| {
        s.contains("hops 2") && s.contains("WebSurferExpert/1") && !s.contains(typed)
    });
    let found = knots(&graph_pane(&screen));
    assert!(found.is_empty(), "{found:#?}\n{screen}");
    tmux.run(&["send-keys", "-t", "t", "q"]);
}
