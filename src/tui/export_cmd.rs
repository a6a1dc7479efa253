//! `:export dot|mermaid|json FILE`: the graph with the current recommendation highlighted,
//! through the core exporters. (SVG comes with the insight features.)

use std::path::Path;

use crate::export::{Highlight, dot, json, mermaid};

use super::app::{App, Level};

/// Runs `:export FORMAT FILE`.
pub fn run(app: &mut App, arg: &str) -> Result<(), String> {
    let usage = "usage: :export dot|mermaid|json FILE";
    let (format, file) = arg.split_once(char::is_whitespace).ok_or(usage)?;
    let file = file.trim();
    if file.is_empty() {
        return Err(usage.into());
    }
    let hl = Highlight {
        rec: &app.rec,
        threshold: app.params.threshold,
        seeds: &app.seeds,
    };
    let text = match format {
        "dot" => dot::to_dot(&app.tk, Some(&hl)),
        "mermaid" => mermaid::to_mermaid(&app.tk, Some(&hl)),
        "json" => {
            serde_json::to_string_pretty(&json::toolkit_json(&app.tk)).map_err(|e| e.to_string())?
        }
        other => return Err(format!("cannot export as `{other}`; {usage}")),
    };
    std::fs::write(Path::new(file), text).map_err(|e| format!("{file}: {e}"))?;
    app.set_status(Level::Info, format!("exported {format} to {file}"));
    Ok(())
}
