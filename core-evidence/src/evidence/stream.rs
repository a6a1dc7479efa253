//! Trace records one at a time, for evaluations whose memory must not grow with the file
//! (`eval --steps` on a million steps): the bounded reader (`read::visit`) with a consumer
//! that keeps nothing, and a fast reader for the common JSONL record shape that the
//! bounded reader tries before the general one (`traces::jsonl_line`).

use super::read::{TraceLimits, visit};
use super::{Record, TraceFormat};
use crate::diag::Diagnostic;

/// Calls `each` with every record of the files, in file order, within the bounds of every
/// trace file ([`TraceLimits`]); returns the diagnostics of bad lines. `each` returns how
/// many bytes it kept of the record (step contexts, per-step entries): they count against
/// the trace memory limit, past which the reading stops with an error naming the line.
/// `format` `None` detects each file's format from its first non-blank line. A file that
/// cannot be read is an error.
pub fn visit_traces(
    paths: &[std::path::PathBuf],
    format: Option<TraceFormat>,
    operator_attr: &str,
    each: &mut dyn FnMut(Record) -> usize,
) -> Result<Vec<Diagnostic>, String> {
    visit_within(paths, format, operator_attr, &TraceLimits::default(), each)
}

/// [`visit_traces`] within `limits`.
pub fn visit_within(
    paths: &[std::path::PathBuf],
    format: Option<TraceFormat>,
    operator_attr: &str,
    limits: &TraceLimits,
    each: &mut dyn FnMut(Record) -> usize,
) -> Result<Vec<Diagnostic>, String> {
    visit(paths, format, operator_attr, limits, each)
}

/// A JSONL record in the common shape, read into typed fields with borrowed strings (no
/// JSON tree, no map per line): about half the time of the general reader on a million
/// steps. Anything it does not take exactly as [`super::traces::parse_line`] would (a field of
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{otlp, traces};

    #[test]
    fn streams_the_same_records_and_diagnostics_as_load_traces() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        let mut bytes = b"{\"operator\": \"Q\", \"calls\": [\"A\", \"B\"]}\n\nnot json\n".to_vec();
        bytes.extend_from_slice(
            b"{\"operator\": \"\xff\"}\n{\"seeds\": [\"a\"], \"called\": [\"X\"]}",
        );
        std::fs::write(&p, &bytes).unwrap();
        let paths = vec![p];
        let (want, want_diags) = super::super::load_traces(&paths, None, otlp::AGENT_ATTR).unwrap();
        let mut got = Vec::new();
        let diags = visit_traces(&paths, None, otlp::AGENT_ATTR, &mut |r| {
            got.push(r);
            0
        })
        .unwrap();
        assert_eq!(got, want);
        assert_eq!(got.len(), 2);
        let lines = |d: &[Diagnostic]| {
            let mut v: Vec<_> = d.iter().map(|d| (d.line, d.code)).collect();
            v.sort_by_key(|x| x.0);
            v
        };
        assert_eq!(lines(&diags), lines(&want_diags));
        assert_eq!(lines(&diags).len(), 2);
        let missing = visit_traces(&[dir.path().join("none")], None, "", &mut |_| 0);
        assert!(missing.is_err());
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
                proptest::prop_assert_eq!(Ok(fast), traces::parse_line(&line), "{}", line);
            }
        }
    }
}
