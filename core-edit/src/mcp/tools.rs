//! A `tools/list` page read leniently: each tool is checked on its own, so one malformed
//! tool is a diagnostic and the others still count.

use serde_json::Value;

use crate::mcp::cache::CachedTool;

/// One page of `tools/list`.
#[derive(Debug, Default, PartialEq)]
pub struct Page {
    pub tools: Vec<CachedTool>,
    /// Why a listed tool was skipped, one message per tool.
    pub problems: Vec<String>,
    pub next_cursor: Option<String>,
}

/// Reads a `tools/list` result (`{"tools": [...], "nextCursor": ...}`).
pub fn page(result: &Value) -> Result<Page, String> {
    let Some(list) = result.get("tools").and_then(Value::as_array) else {
        return Err("the `tools/list` answer has no `tools` list".into());
    };
    let mut out = Page {
        next_cursor: result
            .get("nextCursor")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_string),
        ..Page::default()
    };
    for (i, t) in list.iter().enumerate() {
        match tool(t) {
            Ok((t, cut)) => {
                out.tools.push(t);
                out.problems.extend(cut);
            }
            Err(why) => out.problems.push(format!("tool #{} skipped: {why}", i + 1)),
        }
    }
    Ok(out)
}

/// A listed tool, and what was changed to keep it (a schema cut to a readable depth).
fn tool(t: &Value) -> Result<(CachedTool, Option<String>), String> {
    let name = match t.get("name") {
        Some(Value::String(n)) if !n.trim().is_empty() => n.clone(),
        Some(Value::String(_)) => return Err("its `name` is empty".into()),
        Some(other) => return Err(format!("its `name` is not a string but {}", kind(other))),
        None => return Err("it has no `name`".into()),
    };
    let description = match t.get("description") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(d)) => d.clone(),
        Some(other) => {
            return Err(format!(
                "`{name}`: its `description` is not a string but {}",
                kind(other)
            ));
        }
    };
    let mut input_schema = match t.get("inputSchema") {
        Some(s @ Value::Object(_)) => s.clone(),
        Some(other) => {
            return Err(format!(
                "`{name}`: its `inputSchema` is not an object but {}",
                kind(other)
            ));
        }
        None => return Err(format!("`{name}`: it has no `inputSchema`")),
    };
    let cut = crate::source::schema::fit(&mut input_schema)
        .map(|why| format!("`{name}`: its `inputSchema` {why} so that the cache reads back"));
    Ok((
        CachedTool {
            name,
            description,
            input_schema,
        },
        cut,
    ))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn malformed_tools_are_skipped_with_a_reason() {
        let p = page(&json!({"tools": [
            {"name": "ok", "description": "fine", "inputSchema": {"type": "object"}},
            {"name": 3, "inputSchema": {}},
            {"name": "noschema"},
            {"name": "badschema", "inputSchema": "x"},
            {"name": "", "inputSchema": {}},
            "not a tool"
        ], "nextCursor": "2"}))
        .unwrap();
        assert_eq!(p.tools.len(), 1);
        assert_eq!(p.tools[0].description, "fine");
        assert_eq!(p.problems.len(), 5);
        assert!(p.problems[0].contains("#2") && p.problems[0].contains("not a string"));
        assert!(p.problems[1].contains("noschema"));
        assert_eq!(p.next_cursor.as_deref(), Some("2"));
        assert!(page(&json!({"tools": {}})).is_err());
        assert_eq!(
            page(&json!({"tools": [], "nextCursor": ""}))
                .unwrap()
                .next_cursor,
            None
        );
    }
}
