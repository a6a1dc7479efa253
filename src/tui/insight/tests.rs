//! The insight features in the TUI: snapshots of the explanation, the sweep chart, the
//! diff panel and the prompt preview, and key sequences through `update`.

use ratatui::style::Modifier;

use crate::tui::app::Overlay;
use crate::tui::insight::sweep_chart;
use crate::tui::tests::{app, app_with, press, render, screen};
use crate::tui::theme::Theme;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

#[test]
fn snapshot_explanation_of_a_blocked_node() {
    for (w, h) in SIZES {
        let mut a = app(w, h);
        press(&mut a, ":goto schema_understanding<Enter>");
        let ex = a.insight.explanation.as_ref().expect("explained");
        assert!(!ex.is_recommended());
        insta::assert_snapshot!(format!("explain_blocked_{w}x{h}"), screen(&a));
    }
}

#[test]
fn snapshot_explanation_needs_hops_and_recommended() {
    let mut a = app(160, 48);
    press(&mut a, ":goto data_extraction<Enter>");
    assert_eq!(
        a.insight.explanation.as_ref().and_then(|e| e.fewest_hops),
        Some(3)
    );
    insta::assert_snapshot!("explain_needs_hops_160x48", screen(&a));
    press(&mut a, ":goto DocumentReader<Enter>");
    assert!(
        a.insight
            .explanation
            .as_ref()
            .is_some_and(|e| e.is_recommended())
    );
    insta::assert_snapshot!("explain_recommended_160x48", screen(&a));
}

#[test]
fn explanation_follows_selection_and_threshold() {
    let mut a = app(160, 48);
    press(&mut a, ":goto concept_identification<Enter>");
    let s = screen(&a);
    assert!(s.contains("Why"), "{s}");
    assert!(s.contains("critical threshold"), "{s}");
    let before = a.insight.explanation.clone();
    press(&mut a, "-----");
    assert_ne!(
        a.insight.explanation, before,
        "threshold change re-explains"
    );
}

/// The bottom three lines (parameter, status with the sweep chart, hints).
fn bar(a: &crate::tui::app::App) -> String {
    let s = screen(a);
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len() - 3..].join("\n")
}

#[test]
fn snapshot_sweep_chart() {
    let mut a = app(160, 48);
    insta::assert_snapshot!("sweep_bar_160", bar(&a));
    press(&mut a, "+++");
    insta::assert_snapshot!("sweep_bar_160_raised", bar(&a));
    let ascii = app_with(
        Theme {
            color: false,
            ascii: true,
        },
        120,
        30,
    );
    insta::assert_snapshot!("sweep_bar_ascii_120", bar(&ascii));
}

#[test]
fn sweep_chart_marks_the_current_threshold_without_colour() {
    let a = app_with(
        Theme {
            color: false,
            ascii: false,
        },
        160,
        48,
    );
    let t = render(&a);
    let buf = t.backend().buffer();
    let y = 46;
    let marked: Vec<u16> = (0..160)
        .filter(|&x| buf[(x, y)].modifier.contains(Modifier::REVERSED))
        .collect();
    assert_eq!(marked.len(), 1, "one column marked");
    let cols = sweep_chart::columns(160);
    let chart_start = 160 - (cols as u16 + 10);
    let col = usize::from(marked[0] - chart_start - 8);
    assert_eq!(
        col,
        sweep_chart::current_column(a.session.params.threshold, cols)
    );
}

#[test]
fn sweep_levels_follow_the_counts() {
    let a = app(160, 48);
    let s = a.insight.sweep.as_ref().expect("sweep");
    let levels = sweep_chart::levels(s, 41);
    assert!(levels.windows(2).all(|w| w[0] >= w[1]), "non-increasing");
    assert_eq!(levels[0], 8, "threshold 0 recommends the most");
    assert!(levels.iter().all(|&l| l >= 1), "the seed is always there");
    assert_eq!(sweep_chart::columns_within(160, 200), 41);
    assert_eq!(sweep_chart::columns_within(160, 40), 21);
    assert_eq!(sweep_chart::columns_within(160, 20), 0);
}

#[test]
fn a_long_status_narrows_the_chart_and_stays_readable() {
    let mut a = app(80, 24);
    press(&mut a, ":nonsense-command-with-a-long-name<Enter>");
    let s = screen(&a);
    let status = s.lines().rev().nth(1).unwrap_or_default();
    assert!(status.contains("unknown command"), "{status}");
    assert!(!status.contains("sweep"), "no room for the chart: {status}");
}

#[test]
fn snapshot_diff_panel_after_lowering_the_threshold() {
    for (w, h) in SIZES {
        let mut a = app(w, h);
        press(&mut a, "b");
        assert!(a.diff_panel);
        assert!(a.insight.diff.as_ref().is_some_and(|d| d.is_empty()));
        press(&mut a, "--]");
        let d = a.insight.diff.as_ref().expect("diff");
        assert!(!d.entered.is_empty());
        assert!(!a.insight.marks.nodes.is_empty());
        let s = screen(&a);
        assert!(s.contains('▲'), "entered nodes are marked");
        insta::assert_snapshot!(format!("diff_panel_{w}x{h}"), s);
    }
}

#[test]
fn diff_marks_read_in_ascii() {
    let mut a = app_with(
        Theme {
            color: false,
            ascii: true,
        },
        160,
        48,
    );
    press(&mut a, "b---");
    let s = screen(&a);
    assert!(s.contains("> "), "{s}");
    press(&mut a, "b++++++");
    let s = screen(&a);
    assert!(a.insight.diff.as_ref().is_some_and(|d| !d.left.is_empty()));
    assert!(s.contains("Left ("), "{s}");
}

#[test]
fn diff_panel_toggles_and_baseline_clears() {
    let mut a = app(160, 48);
    press(&mut a, "B");
    assert!(!a.diff_panel, "no baseline, no panel");
    press(&mut a, "bB");
    assert!(!a.diff_panel);
    press(&mut a, "B");
    assert!(a.diff_panel);
    press(&mut a, ":baseline off<Enter>");
    assert!(a.insight.pinned.is_none() && a.insight.diff.is_none() && !a.diff_panel);
    assert!(a.insight.marks.nodes.is_empty());
}

#[test]
fn baseline_file_shows_structural_and_recommendation_changes() {
    let dir = std::env::temp_dir().join(format!("toolscope-baseline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("old.yaml");
    let text = toolscope_core::source::EXAMPLE.replace("DocumentReader", "OldReader");
    std::fs::write(&file, text).expect("write");
    let mut a = app(160, 48);
    press(&mut a, &format!(":baseline {}<Enter>", file.display()));
    let p = a.insight.pinned.as_ref().expect("pinned");
    let f = p.file.as_ref().expect("a file baseline");
    assert!(!f.structural.is_empty());
    let d = a.insight.diff.as_ref().expect("diff");
    assert!(d.entered.iter().any(|k| k.name == "DocumentReader"));
    assert!(d.left.iter().any(|k| k.name == "OldReader"));
    let s = screen(&a);
    assert!(s.contains("Structure"), "{s}");
    press(&mut a, ":baseline /no/such/file.yaml<Enter>");
    assert!(
        a.status
            .as_ref()
            .is_some_and(|s| s.level == crate::tui::app::Level::Error)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 33: the preview says how many tokens the offer costs, the figure `toolscope
/// recommend` prints for the same file and settings, and it follows the offer.
#[test]
fn the_prompt_preview_shows_the_offers_token_estimate() {
    use toolscope_core::tokens::{Encoding, Tokenizer, ToolTokens};
    let mut a = app(160, 48);
    let mut seen = Vec::new();
    let mut tools = Vec::new();
    for keys in ["", "----------]]]"] {
        press(&mut a, keys);
        let tokenizer = Tokenizer::new(Encoding::default());
        let expected = ToolTokens::new(&a.tk, &tokenizer).total_sent(
            &a.rec,
            &a.rec.tools,
            a.session.params.threshold,
        );
        press(&mut a, "p");
        assert_eq!(a.insight.preview_tokens, expected);
        let s = screen(&a);
        assert!(s.contains(&format!("~{expected} tokens")), "{s}");
        press(&mut a, "<Esc>");
        seen.push(expected);
        tools.push(a.rec.tools.len());
    }
    assert!(tools[1] > tools[0], "the offer grew: {tools:?}");
    assert!(
        seen[0] > 0 && seen[1] > seen[0],
        "a lower threshold and a hop more add tools: {seen:?}"
    );
}

#[test]
fn snapshot_prompt_preview_and_scrolling() {
    for (w, h) in SIZES {
        let mut a = app(w, h);
        press(&mut a, "p");
        assert_eq!(a.overlay, Some(Overlay::Preview { scroll: 0 }));
        assert!(a.insight.preview.iter().any(|l| l.starts_with("## ")));
        insta::assert_snapshot!(format!("prompt_preview_{w}x{h}"), screen(&a));
        press(&mut a, "jj");
        assert_eq!(a.overlay, Some(Overlay::Preview { scroll: 2 }));
        press(&mut a, "G");
        let last = a.insight.preview.len() as u16 - 1;
        assert_eq!(a.overlay, Some(Overlay::Preview { scroll: last }));
        press(&mut a, "<Esc>");
        assert_eq!(a.overlay, None);
    }
}

#[test]
fn filters_stage_choices_and_enabled_toggle() {
    let mut a = app(160, 48);
    let before = a.rec.tools.len();
    assert!(before >= 2, "the modelling operator recommends tools");
    press(&mut a, "F");
    assert!(a.insight.filters_on);
    assert!(screen(&a).contains("offered"));
    let first = a.rec.tools[0];
    let name = a.tk.name(first).to_string();
    press(&mut a, &format!(":goto {name}<Enter>C"));
    assert!(a.insight.is_chosen(&name));
    assert_eq!(
        a.insight.offered,
        vec![first],
        "only the chosen tool is offered"
    );
    press(&mut a, "C");
    assert!(!a.insight.is_chosen(&name));
    press(&mut a, "T");
    assert!(!a.tk.node(first).enabled());
    assert!(
        !a.insight.offered.contains(&first),
        "disabled tools are dropped"
    );
    assert!(
        a.rec.tools.contains(&first),
        "the recommendation itself is unchanged"
    );
    assert!(screen(&a).contains("disabled"));
    press(&mut a, "T");
    assert!(a.tk.node(first).enabled());
    press(&mut a, ":goto content_understanding<Enter>C");
    assert!(
        a.status
            .as_ref()
            .is_some_and(|s| s.text.contains("select a tool"))
    );
}

#[test]
fn export_command_writes_every_format() {
    let dir = std::env::temp_dir().join(format!("toolscope-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut a = app(160, 48);
    for fmt in ["dot", "mermaid", "json", "svg"] {
        let file = dir.join(format!("out.{fmt}"));
        press(&mut a, &format!(":export {fmt} {}<Enter>", file.display()));
        let text = std::fs::read_to_string(&file).expect("written");
        assert!(text.contains("content_understanding"), "{fmt}");
    }
    let svg = std::fs::read_to_string(dir.join("out.svg")).expect("svg");
    assert!(svg.contains("node action seed"));
    press(&mut a, ":export png x<Enter>");
    assert!(
        a.status
            .as_ref()
            .is_some_and(|s| s.text.contains("unknown export format"))
    );
    press(&mut a, ":export svg<Enter>");
    assert!(a.status.as_ref().is_some_and(|s| s.text.contains("usage")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn score_edits_elsewhere_refresh_the_critical_values() {
    let mut a = app(160, 48);
    press(&mut a, ":goto schema_understanding<Enter>");
    let before = a.insight.sweep.clone();
    let (u, v) = (
        a.tk.action("content_understanding").expect("seed"),
        a.tk.action("schema_understanding").expect("target"),
    );
    let fp = crate::tui::insight::fingerprint(&a.tk);
    assert!(std::sync::Arc::make_mut(&mut a.tk).set_score(u, v, 0.95));
    assert_ne!(crate::tui::insight::fingerprint(&a.tk), fp);
    // An edit made by other code only calls recompute; the insight notices by itself.
    a.mark_stale();
    a.ensure_fresh();
    assert_ne!(a.insight.sweep, before);
    assert!(
        a.insight
            .explanation
            .as_ref()
            .is_some_and(|e| e.is_recommended())
    );
}

#[test]
fn threshold_alone_keeps_the_critical_values() {
    let mut a = app(160, 48);
    let sweep = a.insight.sweep.clone();
    press(&mut a, "+");
    assert_eq!(a.insight.sweep, sweep);
    let hops = a
        .insight
        .insight
        .as_ref()
        .map(|i| i.hops_needed.threshold());
    assert_eq!(
        hops,
        Some(a.session.params.threshold),
        "fewest hops follow the threshold"
    );
    press(&mut a, "]");
    assert_ne!(
        a.insight.sweep.as_ref().map(|s| s.hops),
        sweep.as_ref().map(|s| s.hops)
    );
}

#[test]
fn enabled_toggle_is_an_edit_saved_to_the_file() {
    use crate::tui::update::editing::tests::{TINY, fixture, keys, open};
    use toolscope_core::model::NodeKind;
    let f = fixture(TINY);
    let mut a = open(&f.path);
    let fetch = a.tk.find(NodeKind::Tool, "Fetch").expect("Fetch");
    a.select(fetch);
    keys(&mut a, "T");
    assert!(!a.tk.node(fetch).enabled());
    assert!(a.is_modified(), "an unsaved edit");
    keys(&mut a, "w");
    let text = std::fs::read_to_string(&f.path).expect("read");
    assert!(text.contains("    enabled: false\n"), "{text}");
    keys(&mut a, "u");
    let fetch = a.tk.find(NodeKind::Tool, "Fetch").expect("Fetch");
    assert!(a.tk.node(fetch).enabled(), "undo enables it again");
}
