//! `mcp::cache::json_cost` is an upper bound of what parsing a cache costs: measured with a
//! counting allocator (this test binary's own), on dense and on ordinary shapes, the peak
//! of parsing a cache and building its member tools stays under the estimate, and for an
//! ordinary cache the estimate is not wildly above it (so real caches are not refused).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: the layout is the caller's, passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        if new > layout.size() {
            let now = LIVE.fetch_add(new - layout.size(), Ordering::Relaxed) + new - layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new, Ordering::Relaxed);
        }
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

use toolscope_core::mcp::cache::{json_cost, known_members};
use toolscope_core::source::Limits;

const KIT: &str = "groups:\n  - name: srv\n    mcp_transport_config: {transport_type: STDIO, command: srv}\nactions:\n  - name: a\n    tools: [srv]\n";

fn cache(tools_json: &str) -> String {
    format!(
        "{{\"toolscope_mcp_cache\": 1, \"servers\": [{{\"name\": \"srv\", \"transport\": \"stdio\", \"command\": \"srv\", \"discovered_at\": \"x\", \"tools\": {tools_json}}}]}}"
    )
}

/// The peak of reading the cache `side` as a load does (`known_members`, with all the
/// room it wants), its result held; and the number of tools it gave.
fn measured(side: &str) -> (usize, usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let kit = dir.path().join("kit.yaml");
    std::fs::write(&kit, KIT).expect("write");
    std::fs::write(dir.path().join("kit.yaml.mcp.json"), side).expect("write");
    let doc = toolscope_core::source::yaml::parse(KIT, &Limits::default()).expect("parses");
    let decls = toolscope_core::load::mcp_servers(&doc, toolscope_core::source::Format::Native);
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let known = known_members(&kit, "kit", &decls, usize::MAX);
    let peak = PEAK.load(Ordering::Relaxed) - before;
    let tools = known.members.values().map(Vec::len).sum();
    assert_eq!(known.cost, json_cost(side));
    (peak, tools)
}

fn schema_tools(n: usize, schema: &str) -> String {
    let tools: Vec<String> = (0..n)
        .map(|i| format!("{{\"name\": \"t{i}\", \"description\": \"Does thing {i}.\", \"input_schema\": {schema}}}"))
        .collect();
    format!("[{}]", tools.join(","))
}

#[test]
fn the_estimate_bounds_what_parsing_costs() {
    let ordinary = r#"{"type": "object", "properties": {"path": {"type": "string", "description": "Where"}, "depth": {"type": ["integer", "null"]}}, "required": ["path"]}"#;
    let shapes: Vec<(&str, String)> = vec![
        ("ordinary tools", schema_tools(20_000, ordinary)),
        ("empty schemas", schema_tools(50_000, "{}")),
        (
            "zeros",
            schema_tools(1, &format!("[{}]", vec!["0"; 300_000].join(","))),
        ),
        (
            "small objects",
            schema_tools(1, &format!("[{}]", vec!["{\"a\":[0]}"; 50_000].join(","))),
        ),
        (
            "empty objects",
            schema_tools(1, &format!("[{}]", vec!["{}"; 200_000].join(","))),
        ),
        (
            "many keys",
            schema_tools(
                1,
                &format!(
                    "{{{}}}",
                    (0..100_000)
                        .map(|i| format!("\"k{i}\":0"))
                        .collect::<Vec<_>>()
                        .join(",")
                ),
            ),
        ),
        (
            "strings",
            schema_tools(
                1,
                &format!("[{}]", vec!["\"abcdefghij\""; 200_000].join(",")),
            ),
        ),
        (
            "nested arrays",
            schema_tools(1, &format!("[{}]", vec!["[0]"; 100_000].join(","))),
        ),
        (
            "escapes",
            schema_tools(
                1,
                &format!("[{}]", vec!["\"\\u0041\\\"\""; 100_000].join(",")),
            ),
        ),
    ];
    for (what, tools) in shapes {
        let side = cache(&tools);
        let estimate = json_cost(&side);
        let (peak, nodes) = measured(&side);
        assert!(nodes > 0, "{what}: the cache was read");
        eprintln!(
            "{what}: {} bytes, peak {peak}, estimate {estimate} ({:.1}x)",
            side.len(),
            estimate as f64 / peak as f64
        );
        assert!(
            estimate >= peak,
            "{what}: estimate {estimate} under the peak {peak}"
        );
        if what == "ordinary tools" {
            assert!(
                2 * estimate <= 3 * peak,
                "{what}: estimate {estimate}, peak {peak}"
            );
        }
    }
}
