//! The JSONL trace format: one record a line.
//!
//! `{"operator": "Query Expert/1", "called": ["SchemaGetter", "CypherExecutor"]}`, or
//! `"seeds": [...]` instead of `"operator"`; optional `"threshold"` (a number in [0, 1]),
//! `"hops"` (a whole number from 0 to 1000), `"id"` (string or number) and `"ok"` (bool);
//! optional `"calls"` (the calls in order, repeats kept; stands for `called` when that is
//! missing) and `"available"` (the tool or group names the run had).
//! Unknown fields are ignored. Blank lines are skipped. A bad line becomes a TS081
//! diagnostic with its line number and the other lines still count.

use serde_json::{Map, Value};

use super::lines::diag;
use super::{Record, Target};
use crate::diag::{Code, Diagnostic};

/// Parses JSONL text into records and diagnostics for the bad lines.
pub fn parse_jsonl(file: &str, text: &str) -> (Vec<Record>, Vec<Diagnostic>) {
    let mut records = Vec::new();
    let mut diags = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        match jsonl_line(file, line_no, line) {
            Some(Ok(r)) => records.push(r),
            Some(Err(d)) => diags.push(d),
            None => {}
        }
    }
    (records, diags)
}

/// One JSONL line: its record, a diagnostic, or `None` for a blank line. (The bounded
/// reader, `evidence::read`, streams a file through this.)
pub(crate) fn jsonl_line(
    file: &str,
    line_no: u32,
    line: &str,
) -> Option<Result<Record, Diagnostic>> {
    if line.trim().is_empty() {
        return None;
    }
    let read = fast_line(line).map_or_else(|| parse_line(line), Ok);
    Some(match read {
        Ok(mut r) => {
            r.file = file.to_string();
            r.line = line_no;
            Ok(r)
        }
        Err((col, msg)) => Err(diag(file, line_no, col, Code::TraceLine, msg)),
    })
}

/// A JSONL record in the common shape, read into typed fields with borrowed strings (no
/// JSON tree, no map per line): about half the time of the general reader on a million
/// steps. Anything it does not take exactly as [`parse_line`] would (a field of
/// another type, a value out of range, a key written twice, `operator` and `seeds`
/// together) gives `None`, and the general reader decides, with its messages.
pub(crate) fn fast_line(line: &str) -> Option<Record> {
    use std::borrow::Cow;
    #[derive(serde::Deserialize)]
    struct Line<'a> {
        #[serde(borrow, default)]
        operator: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        seeds: Option<Vec<Cow<'a, str>>>,
        #[serde(borrow, default)]
        called: Option<Vec<Cow<'a, str>>>,
        #[serde(borrow, default)]
        calls: Option<Vec<Cow<'a, str>>>,
        #[serde(borrow, default)]
        available: Option<Vec<Cow<'a, str>>>,
        #[serde(default)]
        threshold: Option<f64>,
        #[serde(default)]
        hops: Option<u64>,
        #[serde(default)]
        id: Option<serde_json::Value>,
        #[serde(default)]
        ok: Option<bool>,
    }
    // serde reads `"operator": null` as a missing key, the general reader as a key given:
    // a line with a null anywhere is left to it.
    if line.contains("null") {
        return None;
    }
    let l: Line = serde_json::from_str(line).ok()?;
    let owned = |v: Vec<Cow<'_, str>>| v.into_iter().map(Cow::into_owned).collect::<Vec<_>>();
    let target = match (l.operator, l.seeds) {
        (Some(op), None) => super::Target::Operator(op.into_owned()),
        (None, Some(seeds)) => super::Target::Seeds(owned(seeds)),
        _ => return None,
    };
    if l.threshold.is_some_and(|t| !(0.0..=1.0).contains(&t))
        || l.hops
            .is_some_and(|h| h > u64::from(crate::recommend::MAX_HOPS))
    {
        return None;
    }
    let id = match l.id {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(s)) => Some(s),
        Some(serde_json::Value::Number(n)) => Some(n.to_string()),
        Some(_) => return None,
    };
    let calls = l.calls.map(owned);
    let called = match (l.called, &calls) {
        (Some(c), _) => owned(c),
        (None, Some(c)) => c.clone(),
        (None, None) => Vec::new(),
    };
    Some(Record {
        file: String::new(),
        line: 0,
        id,
        target,
        threshold: l.threshold,
        hops: l.hops.map(|h| h as u32),
        called,
        ok: l.ok,
        calls,
        available: l.available.map(owned),
    })
}

pub(crate) type LineError = (u32, String);

pub(crate) fn parse_line(line: &str) -> Result<Record, LineError> {
    let v: Value = serde_json::from_str(line).map_err(|e| {
        let col = u32::try_from(e.column()).unwrap_or(1);
        (col, format!("not a JSON record: {e}"))
    })?;
    let Value::Object(obj) = v else {
        return Err((1, "a record must be a JSON object".into()));
    };
    let target = match (obj.get("operator"), obj.get("seeds")) {
        (Some(_), Some(_)) => return Err((1, "give `operator` or `seeds`, not both".into())),
        (Some(Value::String(s)), None) => Target::Operator(s.clone()),
        (Some(_), None) => return Err((1, "`operator` must be a string".into())),
        (None, Some(s)) => Target::Seeds(strings(s, "seeds")?),
        (None, None) => return Err((1, "a record needs `operator` or `seeds`".into())),
    };
    let calls = optional_strings(&obj, "calls")?;
    let called = match (obj.get("called"), &calls) {
        (None | Some(Value::Null), Some(calls)) => calls.clone(),
        (None | Some(Value::Null), None) => Vec::new(),
        (Some(v), _) => strings(v, "called")?,
    };
    Ok(Record {
        file: String::new(),
        line: 0,
        id: id(&obj)?,
        target,
        threshold: threshold(&obj)?,
        hops: hops(&obj)?,
        called,
        ok: match obj.get("ok") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => return Err((1, "`ok` must be true or false".into())),
        },
        calls,
        available: optional_strings(&obj, "available")?,
    })
}

fn optional_strings(
    obj: &Map<String, Value>,
    field: &str,
) -> Result<Option<Vec<String>>, LineError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => strings(v, field).map(Some),
    }
}

fn strings(v: &Value, field: &str) -> Result<Vec<String>, LineError> {
    let err = || (1, format!("`{field}` must be an array of strings"));
    let Value::Array(items) = v else {
        return Err(err());
    };
    items
        .iter()
        .map(|i| i.as_str().map(str::to_string).ok_or_else(err))
        .collect()
}

fn id(obj: &Map<String, Value>) -> Result<Option<String>, LineError> {
    match obj.get("id") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(_) => Err((1, "`id` must be a string or a number".into())),
    }
}

fn threshold(obj: &Map<String, Value>) -> Result<Option<f64>, LineError> {
    match obj.get("threshold") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_f64() {
            Some(t) if (0.0..=1.0).contains(&t) => Ok(Some(t)),
            _ => Err((1, "`threshold` must be a number in [0, 1]".into())),
        },
    }
}

fn hops(obj: &Map<String, Value>) -> Result<Option<u32>, LineError> {
    match obj.get("hops") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(h) if h <= u64::from(crate::recommend::MAX_HOPS) => Ok(Some(h as u32)),
            _ => Err((
                1,
                format!(
                    "`hops` must be a whole number from 0 to {}",
                    crate::recommend::MAX_HOPS
                ),
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_lines_count_and_bad_lines_are_diagnostics() {
        let text = concat!(
            "{\"operator\": \"Q/1\", \"called\": [\"A\", \"B\"], \"extra\": 1}\n",
            "\n",
            "not json\n",
            "{\"seeds\": [\"x\", \"y\"], \"threshold\": 0.3, \"hops\": 2, \"id\": 7, \"ok\": true}\n",
            "{\"operator\": \"Q/1\", \"seeds\": [\"x\"]}\n",
            "{\"operator\": \"Q/1\", \"threshold\": 2}\n",
            "[1]\n",
            "{\"operator\": \"Q/1\", \"called\": \"A\"}\n",
            "{\"operator\": \"Q/1\"}\n",
        );
        let (recs, diags) = parse_jsonl("t.jsonl", text);
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].target, Target::Operator("Q/1".into()));
        assert_eq!(recs[0].called, vec!["A", "B"]);
        assert_eq!(recs[0].line, 1);
        assert_eq!(recs[1].target, Target::Seeds(vec!["x".into(), "y".into()]));
        assert_eq!(
            (recs[1].threshold, recs[1].hops, recs[1].ok),
            (Some(0.3), Some(2), Some(true))
        );
        assert_eq!(recs[1].id.as_deref(), Some("7"));
        assert_eq!(recs[2].line, 9);
        assert!(recs[2].called.is_empty());
        let lines: Vec<u32> = diags.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![3, 5, 6, 7, 8]);
        assert!(diags.iter().all(|d| d.code == Code::TraceLine));
        assert!(
            diags[0].to_string().starts_with("t.jsonl:3:"),
            "{}",
            diags[0]
        );
    }

    #[test]
    fn calls_keep_order_and_repeats_and_stand_for_called() {
        let text = concat!(
            "{\"operator\": \"Q\", \"calls\": [\"B\", \"A\", \"B\"], \"available\": [\"A\", \"G\"]}\n",
            "{\"operator\": \"Q\", \"called\": [\"A\"], \"calls\": [\"A\", \"A\"]}\n",
            "{\"operator\": \"Q\", \"called\": [\"A\"]}\n",
            "{\"operator\": \"Q\", \"calls\": \"A\"}\n",
            "{\"operator\": \"Q\", \"available\": [1]}\n",
        );
        let (recs, diags) = parse_jsonl("t.jsonl", text);
        assert_eq!(recs.len(), 3);
        assert_eq!(
            recs[0].calls.as_deref(),
            Some(&["B".to_string(), "A".into(), "B".into()][..])
        );
        assert_eq!(recs[0].called, vec!["B", "A", "B"]);
        assert_eq!(
            recs[0].available.as_deref(),
            Some(&["A".to_string(), "G".into()][..])
        );
        assert_eq!(recs[1].called, vec!["A"]);
        assert_eq!(recs[1].calls.as_ref().map(Vec::len), Some(2));
        assert_eq!(
            (recs[2].calls.is_none(), recs[2].available.is_none()),
            (true, true)
        );
        let lines: Vec<u32> = diags.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![4, 5]);
    }

    proptest::proptest! {
        /// The fast reader takes a line exactly as the general one, or leaves it to it.
        #[test]
        fn the_fast_reader_agrees_with_the_general_one(
            fields in proptest::collection::vec((0..10usize, 0..8usize), 0..6)
        ) {
            let keys = ["operator", "seeds", "called", "calls", "available", "threshold", "hops", "id", "ok", "other"];
            let values = ["\"op\"", "[\"a\", \"b\\n\"]", "[]", "null", "0.5", "7", "2000", "true"];
            let body: Vec<String> = fields
                .iter()
                .map(|&(k, v)| format!("\"{}\": {}", keys[k], values[v]))
                .collect();
            let line = format!("{{{}}}", body.join(", "));
            if let Some(fast) = fast_line(&line) {
                proptest::prop_assert_eq!(Ok(fast), parse_line(&line), "{}", line);
            }
        }
    }
}
