//! The Chat2Graph-shaped configs the focus view's acceptance tests run on: the bundled
//! example, the shipped mini config, the flattened fixture, the GAIA-shaped fixture and
//! Chat2Graph's own published `chat2graph.yml` (unpacked from `../shared`).

use std::path::Path;

use toolscope_core::load::{load_example, load_paths};
use toolscope_core::source::Loaded;

#[path = "../../../tests/suite/common/shared.rs"]
mod shared;

/// Each config by a short name, loaded.
pub fn configs() -> Vec<(String, Loaded)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![("example".to_string(), load_example())];
    let mut paths: Vec<std::path::PathBuf> = [
        "toolkits/chat2graph-mini.yml",
        "tests/fixtures/chat2graph-flat.yml",
        "tests/fixtures/gaia-agents.yml",
    ]
    .iter()
    .map(|p| root.join(p))
    .collect();
    paths.extend(shared::chat2graph_yml());
    for p in paths {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.push((name, load_paths(&[p], None).expect("config loads")));
    }
    out
}
