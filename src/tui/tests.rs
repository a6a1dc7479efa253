//! Whole-screen snapshots on `TestBackend` and key sequences driven through `update`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color;

use super::app::{ActivePane, App, Overlay, Zoom};
use super::msg::Msg;
use super::theme::Theme;
use super::update::update;
use crate::tui::view;
use toolscope_core::load::load_example;
use toolscope_core::source::EXAMPLE_NAME;

/// The bundled example as it opens: on the navigator's first operator (`analysis`).
pub(super) fn opened(w: u16, h: u16) -> App {
    App::new(
        load_example(),
        EXAMPLE_NAME.into(),
        Theme::default(),
        (w, h),
    )
}

/// The bundled example on its file's first operator, `modelling` (threshold 0.60, hops 2),
/// which the feature tests below were written for; [`opened`] is the first screen.
pub(super) fn app_with(theme: Theme, w: u16, h: u16) -> App {
    let mut app = App::new(load_example(), EXAMPLE_NAME.into(), theme, (w, h));
    app.activate_operator(0);
    app.nav.rebuild(&app.tk);
    if let Some(ix) = app.seeds.first().copied() {
        app.select(ix);
        app.ensure_selection_visible();
    }
    app.mark_stale();
    app.ensure_fresh();
    app.prepare_draw();
    app
}

pub(super) fn app(w: u16, h: u16) -> App {
    app_with(Theme::default(), w, h)
}

/// Sends keys written like `"+<Tab>j<Space>"` (see [`crate::tui::update::keystr`]).
pub(super) fn press(app: &mut App, keys: &str) {
    crate::tui::update::keystr::send(app, keys);
    app.prepare_draw();
}

pub(super) fn render(app: &App) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(app.size.0, app.size.1)).expect("test backend");
    t.draw(|f| view::draw(f, app)).expect("draw");
    t
}

fn text(buf: &Buffer) -> String {
    let mut s = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

pub(super) fn screen(app: &App) -> String {
    text(render(app).backend().buffer())
}

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

#[test]
fn snapshot_default() {
    for (w, h) in SIZES {
        let a = opened(w, h);
        // Issue 45: the first screen's operator is the navigator's first row.
        assert_eq!(a.operator, crate::tui::navigator::first_operator(&a.tk));
        assert_eq!(a.tk.operators[a.operator.unwrap_or(0)].name, "analysis");
        insta::assert_snapshot!(format!("default_{w}x{h}"), screen(&a));
    }
}

#[test]
fn snapshot_threshold_raised() {
    for (w, h) in SIZES {
        let mut a = app(w, h);
        press(&mut a, "+++");
        assert_eq!(a.session.params.threshold, 0.75);
        insta::assert_snapshot!(format!("threshold_{w}x{h}"), screen(&a));
    }
}

#[test]
fn snapshot_hop_added() {
    for (w, h) in SIZES {
        let mut a = app(w, h);
        press(&mut a, "]");
        assert_eq!(a.session.params.hops, 3);
        insta::assert_snapshot!(format!("hops_{w}x{h}"), screen(&a));
    }
}

#[test]
fn snapshot_no_color_has_no_colour_and_keeps_the_marks() {
    for (w, h) in SIZES {
        let a = app_with(
            Theme {
                color: false,
                ascii: false,
            },
            w,
            h,
        );
        let t = render(&a);
        let buf = t.backend().buffer();
        for cell in buf.content() {
            assert_eq!(cell.fg, Color::Reset, "colour in NO_COLOR mode");
            assert_eq!(cell.bg, Color::Reset, "colour in NO_COLOR mode");
        }
        let s = text(buf);
        assert!(s.contains("* content_"));
        assert!(
            s.contains('┏') || s.contains('┃'),
            "recommended boxes are heavy"
        );
        insta::assert_snapshot!(format!("no_color_{w}x{h}"), s);
    }
}

#[test]
fn snapshot_ascii() {
    let a = app_with(
        Theme {
            color: false,
            ascii: true,
        },
        160,
        48,
    );
    let s = screen(&a);
    assert!(s.is_ascii(), "pure ASCII:\n{s}");
    insta::assert_snapshot!("ascii_160x48", s);
}

#[test]
fn snapshot_help() {
    for (w, h) in SIZES {
        let mut a = app(w, h);
        press(&mut a, "?");
        assert_eq!(a.overlay, Some(Overlay::Help));
        let s = screen(&a);
        // The focused pane's section (the graph's) first, after the legend.
        assert!(
            s.contains("Marks and shapes") && s.contains(":focus-view"),
            "{s}"
        );
        insta::assert_snapshot!(format!("help_{w}x{h}"), s);
        press(&mut a, "<Esc>");
        assert_eq!(a.overlay, None);
    }
}

#[test]
fn snapshot_neighbourhood() {
    for (w, h) in SIZES {
        let mut a = app(w, h);
        press(&mut a, ":goto query_design<Enter>N");
        let n = a
            .graph_pane
            .neighbourhood
            .as_ref()
            .expect("neighbourhood open");
        assert_eq!(n.layout.layers.iter().map(Vec::len).sum::<usize>(), 4);
        let s = screen(&a);
        assert!(w < 100 || s.contains("neighbourhood of query_design"));
        insta::assert_snapshot!(format!("neighbourhood_{w}x{h}"), s);
    }
}

#[test]
fn snapshot_too_small() {
    let a = app(40, 10);
    let s = screen(&a);
    assert!(s.contains("too small"));
    insta::assert_snapshot!("too_small_40x10", s);
}

#[test]
fn threshold_keys_step_and_clamp() {
    let mut a = app(160, 48);
    let t0 = a.session.params.threshold;
    press(&mut a, "+");
    assert!((a.session.params.threshold - (t0 + 0.05)).abs() < 1e-9);
    press(&mut a, "<lt><lt>");
    assert!((a.session.params.threshold - (t0 + 0.03)).abs() < 1e-9);
    press(&mut a, &"+".repeat(30));
    assert_eq!(a.session.params.threshold, 1.0);
    press(&mut a, &"-".repeat(30));
    assert_eq!(a.session.params.threshold, 0.0);
}

#[test]
fn raising_the_threshold_shrinks_counts_on_screen() {
    let mut a = app(160, 48);
    let before = a.counts();
    assert!(screen(&a).contains(&format!(
        "actions {}/{}",
        before.actions.0, before.actions.1
    )));
    press(&mut a, "+++++");
    let after = a.counts();
    assert!(
        after.actions.0 < before.actions.0,
        "{before:?} -> {after:?}"
    );
    assert!(screen(&a).contains(&format!("actions {}/{}", after.actions.0, after.actions.1)));
}

#[test]
fn seed_toggle_changes_highlight() {
    let mut a = app(160, 48);
    press(&mut a, ":goto query_intention<Enter>");
    let q = a.tk.action("query_intention").expect("action");
    assert!(!a.rec.contains(q));
    press(&mut a, "<Space>");
    assert!(a.is_seed(q) && a.rec.contains(q) && a.seeds_edited);
    let s = screen(&a);
    assert!(s.contains("* query_intention"), "seed marked in the graph");
    assert!(s.contains("(seeds edited)"));
    press(&mut a, "<Space>");
    assert!(!a.is_seed(q));
}

#[test]
fn operator_command_accepts_spaces_and_cycles() {
    let mut a = app(160, 48);
    press(&mut a, ":operator query<Enter>");
    let op = &a.tk.operators[a.operator.expect("active")];
    assert_eq!(op.name, "query");
    assert_eq!(
        (a.session.params.threshold, a.session.params.hops),
        (0.7, 3)
    );
    press(&mut a, ":operator no such op<Enter>");
    let status = a.status.clone().expect("error shown");
    assert!(status.text.contains("no operator named `no such op`"));
    let before = a.operator;
    press(&mut a, "o");
    assert_ne!(a.operator, before);
}

#[test]
fn chat2graph_operator_with_spaces() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("toolkits/chat2graph-mini.yml");
    let loaded = toolscope_core::load::load_paths(&[path], None).expect("loads");
    let name = loaded
        .toolkit
        .operators
        .iter()
        .map(|o| o.name.clone())
        .find(|n| n.contains(' '))
        .expect("an operator name with a space");
    let mut a = App::new(loaded, "mini".into(), Theme::default(), (160, 48));
    press(&mut a, &format!(":operator {name}<Enter>"));
    assert_eq!(a.tk.operators[a.operator.expect("active")].name, name);
}

#[test]
fn commands_set_parameters_and_report_errors() {
    let mut a = app(160, 48);
    press(&mut a, ":threshold 0.25<Enter>:hops 4<Enter>");
    assert_eq!(
        (a.session.params.threshold, a.session.params.hops),
        (0.25, 4)
    );
    press(&mut a, ":threshold 2<Enter>");
    assert_eq!(a.session.params.threshold, 0.25);
    assert!(
        a.status
            .as_ref()
            .is_some_and(|s| s.text.contains("outside"))
    );
    press(&mut a, ":goto nowhere<Enter>");
    assert!(
        a.status
            .as_ref()
            .is_some_and(|s| s.text.contains("nowhere"))
    );
    press(&mut a, ":q<Enter>");
    assert!(a.quit);
}

#[test]
fn filter_narrows_navigator_and_selects() {
    let mut a = app(160, 48);
    press(&mut a, "/cypher");
    let s = screen(&a);
    assert!(s.contains("CypherExecutor"));
    let nav: String = s
        .lines()
        .map(|l| l.chars().take(30).collect::<String>())
        .collect();
    assert!(!nav.contains("DataImport"));
    press(&mut a, "<Enter>");
    let sel = a.selected.expect("selection");
    assert_eq!(a.tk.name(sel), "CypherExecutor");
    press(&mut a, "<Esc>");
    assert!(a.nav.filter.is_empty());
}

#[test]
fn navigator_moves_selection_and_parent_child_walk() {
    let mut a = app(160, 48);
    press(&mut a, "<Tab><Tab>");
    assert_eq!(a.active_pane, ActivePane::Navigator);
    let first = a.selected;
    press(&mut a, "j");
    assert_ne!(a.selected, first);
    press(&mut a, ":goto query_design<Enter>c");
    assert_eq!(a.tk.name(a.selected.expect("child")), "query_execution");
    press(&mut a, "P");
    assert_eq!(a.tk.name(a.selected.expect("parent")), "query_design");
}

#[test]
fn pan_and_zoom_change_the_view_not_the_layout() {
    let mut a = app(160, 48);
    let key = a.layout().key;
    let v = a.graph_pane.viewport;
    press(&mut a, "lj");
    assert_eq!(
        (a.graph_pane.viewport.x, a.graph_pane.viewport.y),
        (v.x + 8, v.y + 3)
    );
    press(&mut a, "z");
    assert_eq!(a.graph_pane.zoom, Zoom::Compact);
    press(&mut a, "s+]");
    assert_eq!(a.layout().key, key);
}

#[test]
fn scores_are_shown_on_demand() {
    let graph = |s: String| {
        s.lines()
            .map(|l| l.chars().skip(31).take(88).collect::<String>())
            .collect::<String>()
    };
    let mut a = app(160, 48);
    assert!(!graph(screen(&a)).contains("0.90"));
    press(&mut a, "s");
    assert!(
        graph(screen(&a)).contains("0.90"),
        "score label in the graph pane"
    );
}

#[test]
fn hostile_names_are_escaped_everywhere() {
    let yaml = "actions:\n  - name: \"evil\\e[2Jname\"\n    desc: \"bell\\a and \\e]0;title\\a\"\noperators:\n  - name: op\n    actions: [\"evil\\e[2Jname\"]\n";
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("evil.yaml");
    std::fs::write(&p, yaml).expect("write");
    let loaded = toolscope_core::load::load_paths(&[p], None).expect("loads");
    let a = App::new(loaded, "evil".into(), Theme::default(), (160, 48));
    let s = screen(&a);
    assert!(!s.contains('\x1b') && !s.contains('\x07'));
    assert!(s.contains("evil^[[2Jname"));
}

fn mouse(app: &mut App, kind: crossterm::event::MouseEventKind, column: u16, row: u16) {
    let ev = crossterm::event::MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    };
    update(app, Msg::Mouse(ev));
}

#[test]
fn mouse_selects_nodes_and_drags_the_view() {
    use crossterm::event::{MouseButton, MouseEventKind};
    let mut a = app(160, 48);
    // query_intention is outside the focus view: switch to the whole graph.
    press(&mut a, "f");
    let s = screen(&a);
    // The graph's box of query_intention (the navigator lists the name too, left of x=31).
    let (row, col) = s
        .lines()
        .enumerate()
        .find_map(|(y, l)| {
            let chars: Vec<char> = l.chars().collect();
            let name: Vec<char> = "query_intention".chars().collect();
            (31..chars.len().saturating_sub(name.len()))
                .find(|&x| chars[x..x + name.len()] == name[..])
                .map(|x| (y, x as u16))
        })
        .expect("query_intention drawn in the graph");
    mouse(
        &mut a,
        MouseEventKind::Down(MouseButton::Left),
        col,
        row as u16,
    );
    assert_eq!(a.tk.name(a.selected.expect("clicked")), "query_intention");
    assert_eq!(a.active_pane, ActivePane::Graph);
    let v = a.graph_pane.viewport;
    mouse(&mut a, MouseEventKind::Down(MouseButton::Left), 100, 40);
    mouse(&mut a, MouseEventKind::Drag(MouseButton::Left), 90, 35);
    mouse(&mut a, MouseEventKind::Up(MouseButton::Left), 90, 35);
    assert_eq!(
        (a.graph_pane.viewport.x, a.graph_pane.viewport.y),
        (v.x + 10, v.y + 5)
    );
    mouse(&mut a, MouseEventKind::ScrollDown, 100, 20);
    assert_eq!(a.graph_pane.viewport.y, v.y + 8);
}

#[test]
fn resize_to_too_small_and_back() {
    let mut a = app(160, 48);
    update(&mut a, Msg::Resize(30, 8));
    assert!(screen(&a).contains("too small"));
    update(&mut a, Msg::Resize(120, 40));
    assert!(screen(&a).contains("Navigator"));
}

#[test]
fn empty_toolkit_draws_and_takes_keys() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("empty.yaml");
    std::fs::write(&p, "name: empty\n").expect("write");
    let loaded = toolscope_core::load::load_paths(&[p], None).expect("loads");
    let mut a = App::new(loaded, "empty".into(), Theme::default(), (80, 24));
    press(
        &mut a,
        "+-[]<Space>xoOszN{}.pc<Tab>jk<Enter>/x<Esc>:goto a<Enter>",
    );
    let s = screen(&a);
    assert!(s.contains("actions 0/0"));
}

mod random_input {
    use super::*;
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    use proptest::prelude::*;

    fn msg() -> impl Strategy<Value = Msg> {
        let keys = "+-<>[] xoOszN{}.pchjklgG?:/qQ\u{1b}abc_1"
            .chars()
            .collect::<Vec<_>>();
        prop_oneof![
            proptest::sample::select(keys).prop_map(|c| {
                let code = match c {
                    '\u{1b}' => KeyCode::Esc,
                    'Q' => KeyCode::Enter,
                    '_' => KeyCode::Tab,
                    '1' => KeyCode::Backspace,
                    c => KeyCode::Char(c),
                };
                Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
            }),
            (0u16..200, 0u16..60).prop_map(|(x, y)| Msg::Mouse(MouseEvent {
                kind: MouseEventKind::Down(MouseButton::Left),
                column: x,
                row: y,
                modifiers: KeyModifiers::NONE,
            })),
            (0u16..200, 0u16..60).prop_map(|(x, y)| Msg::Mouse(MouseEvent {
                kind: MouseEventKind::Drag(MouseButton::Left),
                column: x,
                row: y,
                modifiers: KeyModifiers::NONE,
            })),
            (1u16..200, 1u16..60).prop_map(|(w, h)| Msg::Resize(w, h)),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn any_input_sequence_keeps_state_valid_and_draws(msgs in proptest::collection::vec(msg(), 1..60)) {
            let mut a = app(120, 40);
            for m in msgs {
                update(&mut a, m);
                if a.quit {
                    break;
                }
                prop_assert!((0.0..=1.0).contains(&a.session.params.threshold));
                if let Some(ix) = a.selected {
                    prop_assert!(a.tk.graph.contains_node(ix));
                }
                let _ = screen(&a);
            }
        }
    }
}

#[test]
fn load_diagnostics_show_in_the_status_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("warn.yaml");
    let yaml = "actions:\n  - name: a\n    next: [{name: b, score: nope}]\n  - name: b\n";
    std::fs::write(&p, yaml).expect("write");
    let loaded = toolscope_core::load::load_paths(&[p], None).expect("loads");
    assert!(!loaded.diagnostics.is_empty());
    let a = App::new(loaded, "warn".into(), Theme::default(), (160, 48));
    assert!(screen(&a).contains("while loading; see `toolscope lint`"));
}

#[test]
fn wide_names_keep_boxes_aligned() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("wide.yaml");
    let yaml = "actions:\n  - name: 查询意图\n    next: [ab]\n  - name: ab\noperators:\n  - name: op\n    actions: [查询意图]\n";
    std::fs::write(&p, yaml).expect("write");
    let loaded = toolscope_core::load::load_paths(&[p], None).expect("loads");
    let a = App::new(loaded, "wide".into(), Theme::default(), (160, 48));
    let t = render(&a);
    let buf = t.backend().buffer();
    let (x, y) = (0..buf.area.height)
        .flat_map(|y| (31..119).map(move |x| (x, y)))
        .find(|&(x, y)| buf[(x, y)].symbol() == "查")
        .expect("wide name drawn in the graph");
    // `┃* 查询意图 ┃`: the box is the name's width (8 cells) plus 5.
    let left = x - 3;
    assert_eq!(buf[(left, y)].symbol(), "┃");
    assert_eq!(
        buf[(left + 12, y)].symbol(),
        "┃",
        "right border after 8 cells of name"
    );
    assert_eq!(buf[(left, y - 1)].symbol(), "┏");
    assert_eq!(buf[(left + 12, y - 1)].symbol(), "┓");
}

#[test]
fn fit_counts_cells() {
    use crate::tui::graph_pane::draw::fit;
    assert_eq!(fit("abcdef", 4, "…"), "abc…");
    assert_eq!(fit("查询意图", 5, "…"), "查询…");
    assert_eq!(fit("ab", 4, "…"), "ab");
}

#[test]
fn inspector_edge_cursor_walks_edges_and_opens_the_other_end() {
    let mut a = app(160, 48);
    press(&mut a, ":goto query_design<Enter><Tab>");
    assert_eq!(a.active_pane, ActivePane::Inspector);
    let names: Vec<String> = a
        .node_edges()
        .iter()
        .map(|e| a.tk.name(e.1).to_string())
        .collect();
    assert_eq!(
        names,
        ["GrammarReader", "query_execution", "condition_validation"]
    );
    assert_eq!(a.selected_edge(), a.node_edges().first().map(|e| e.0));
    press(&mut a, "jjj");
    assert_eq!(a.inspector.edge_cursor(), 2, "clamped to the last edge");
    let s = screen(&a);
    assert!(s.contains("← 0.75 condition_validation (next)"));
    press(&mut a, "<Enter>");
    assert_eq!(
        a.tk.name(a.selected.expect("opened")),
        "condition_validation"
    );
    assert_eq!(a.inspector.edge_cursor(), 0);
}

#[test]
fn edge_under_the_inspector_cursor_is_shown_in_the_graph() {
    use ratatui::style::Modifier;
    let reversed_in_graph = |a: &App| {
        let t = render(a);
        let buf = t.backend().buffer();
        (31..119)
            .flat_map(|x| (1..44).map(move |y| (x, y)))
            .filter(|&(x, y)| buf[(x, y)].modifier.contains(Modifier::REVERSED))
            .count()
    };
    let mut a = app(160, 48);
    press(&mut a, "f:goto query_design<Enter>");
    let box_only = reversed_in_graph(&a);
    press(&mut a, "<Tab>j");
    assert!(
        reversed_in_graph(&a) > box_only + 3,
        "the edge's route is reversed too"
    );
}

#[test]
fn goto_accepts_a_unique_fragment() {
    let mut a = app(160, 48);
    press(&mut a, ":goto PAGERANK<Enter>");
    assert_eq!(a.tk.name(a.selected.expect("found")), "PageRankExecutor");
    press(&mut a, ":goto query<Enter>");
    let status = a.status.clone().expect("ambiguous");
    assert!(status.text.contains("matches"), "{}", status.text);
}

#[test]
fn inspector_describes_the_operator_under_the_navigator_cursor() {
    let mut a = app(160, 48);
    press(&mut a, "<Tab><Tab>ggj");
    assert_eq!(a.active_pane, ActivePane::Navigator);
    let s = screen(&a);
    assert!(s.contains("operator - Enter makes it active"), "{s}");
    assert!(s.contains("threshold 0.60  hops 2"));
    press(&mut a, "<Enter>");
    assert_eq!(
        a.tk.operators[a.operator.expect("active")].name,
        "modelling"
    );
}

/// The help is one document: the legend first, every section once, scrolled with j/k,
/// PgDn/PgUp, G/End and g/Home, and never past its end.
#[test]
fn help_scrolls_as_one_document_on_a_small_terminal() {
    let mut a = app(80, 24);
    press(&mut a, "?");
    let first = screen(&a);
    assert!(first.contains("Marks and shapes"), "{first}");
    assert!(
        !first.contains(":runs-close"),
        "the last section does not fit at first"
    );
    press(&mut a, "G");
    let end = screen(&a);
    assert!(end.contains(":runs-close"), "{end}");
    assert!(!end.contains("Marks and shapes"));
    let at_end = a.help_scroll;
    press(&mut a, "jjj<End>");
    assert_eq!(a.help_scroll, at_end, "never past the end");
    press(&mut a, "k");
    assert_eq!(a.help_scroll, at_end - 1, "one up from the end");
    press(&mut a, "g");
    assert_eq!(a.help_scroll, 0);
    press(&mut a, "<PgDn>");
    let page = a.help_scroll;
    assert!(page > 10, "a page is most of the screen: {page}");
    press(&mut a, "<PgUp><Home>");
    assert_eq!(a.help_scroll, 0);
    // Every section title appears once in the whole document.
    let mut seen = Vec::new();
    for _ in 0..=at_end {
        for line in screen(&a).lines() {
            let t = line.trim_matches(|c: char| c == '│' || c == ' ');
            if [
                "General",
                "Recommendation",
                "Graph",
                "Lists",
                "Edit",
                "Insight",
            ]
            .contains(&t)
                && !seen.contains(&t.to_string())
            {
                seen.push(t.to_string());
            }
        }
        press(&mut a, "j");
    }
    assert_eq!(seen.len(), 6, "{seen:?}");
    assert_eq!(a.overlay, Some(Overlay::Help));
    press(&mut a, "<Esc>");
    assert_eq!((a.overlay.clone(), a.help_scroll), (None, 0));
}

/// The README's picture: the first screen of `toolscope tests/fixtures/chat2graph-flat.yml`
/// in a 104x20 terminal, in the code block after the README's `<!-- picture` line. A change to the screens fails here;
/// `TOOLSCOPE_BLESS_README=1 cargo test readme_picture` writes the new picture in.
#[test]
fn the_readme_picture_is_what_its_command_shows() {
    use std::path::PathBuf;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let file = "tests/fixtures/chat2graph-flat.yml";
    let opts = crate::tui::Options {
        paths: vec![root.join(file)],
        input_format: None,
        no_color: false,
        ascii: false,
        ..crate::tui::Options::default()
    };
    let (ws, _, broken) = crate::tui::open_workspace(&opts).expect("the fixture opens");
    assert_eq!(broken, None);
    let a = App::with_workspace(ws, file.into(), Theme::default(), (104, 20));
    let shown: Vec<String> = screen(&a)
        .lines()
        .map(|l| l.trim_end().to_string())
        .collect();

    readme_picture("<!-- picture", &shown);
}

/// The README's tour pictures a replayed miss: `:replay 2 1` on the small replay kit.
#[test]
fn the_readme_replay_picture_is_what_its_keys_show() {
    use std::path::PathBuf;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let file = "tests/fixtures/replay/fs-kit.yaml";
    let ws = toolscope_core::workspace::Workspace::open(&[root.join(file)], None)
        .expect("the fixture opens");
    let mut a = App::with_workspace(ws, file.into(), Theme::default(), (100, 22));
    let runs = root.join("tests/fixtures/replay/fs-runs.jsonl");
    crate::tui::update::keystr::send(&mut a, &format!(":traces {}<Enter>", runs.display()));
    crate::tui::update::keystr::send(&mut a, ":replay 2 1<Enter>");
    let shown: Vec<String> = screen(&a)
        .replace(&root.display().to_string(), ".")
        .lines()
        .map(|l| l.trim_end().to_string())
        .collect();
    assert!(shown.iter().any(|l| l.contains("miss")), "{shown:#?}");
    readme_picture("<!-- replay picture", &shown);
}

/// Fails when the README's code block after `marker` differs from `shown`
/// (`TOOLSCOPE_BLESS_README=1` writes `shown` in instead).
fn readme_picture(marker: &str, shown: &[String]) {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme_path = root.join("README.md");
    let readme = std::fs::read_to_string(&readme_path).expect("README.md");
    let marker = readme.find(marker).expect("the README marks its picture");
    let open = marker + readme[marker..].find("```\n").expect("a code block") + 4;
    let close = open + readme[open..].find("```\n").expect("the block ends");
    let pictured: Vec<String> = readme[open..close].lines().map(str::to_string).collect();
    if pictured != shown {
        if std::env::var_os("TOOLSCOPE_BLESS_README").is_some() {
            let mut new = readme[..open].to_string();
            new.push_str(&shown.join("\n"));
            new.push('\n');
            new.push_str(&readme[close..]);
            std::fs::write(&readme_path, new).expect("README.md written");
        } else {
            panic!(
                "the README's picture is not what its command shows now:\n{}\n\
                 (TOOLSCOPE_BLESS_README=1 writes this in)",
                shown.join("\n")
            );
        }
    }
}

/// Issue 45: a node changed by a reload is marked `~` beside its membership mark, never
/// over it (`+~name` while the mark lasts, `+ name` after).
#[test]
fn the_reload_mark_sits_beside_the_membership_mark() {
    let mut a = app(160, 48);
    let ix =
        a.tk.graph
            .node_indices()
            .find(|&ix| a.rec.contains(ix) && !a.is_seed(ix))
            .expect("a recommended node");
    let name = a.tk.name(ix).to_string();
    assert!(screen(&a).contains(&format!("+ {name}")));
    a.marks.nodes.insert(ix);
    let s = screen(&a);
    assert!(s.contains(&format!("+~{name}")), "{s}");
}
