//! Trace records one at a time, for evaluations whose memory must not grow with the file
//! (`eval --steps` on a million steps): the bounded reader (`read::visit`) with a consumer
//! that keeps nothing, and a fast reader for the common JSONL record shape that the
//! bounded reader tries before the general one (`traces::jsonl_line`).

use super::otlp::OperatorNaming;
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
    naming: &OperatorNaming,
    each: &mut dyn FnMut(Record) -> usize,
) -> Result<Vec<Diagnostic>, String> {
    visit_within(paths, format, naming, &TraceLimits::default(), each)
}

/// [`visit_traces`] within `limits`.
pub fn visit_within(
    paths: &[std::path::PathBuf],
    format: Option<TraceFormat>,
    naming: &OperatorNaming,
    limits: &TraceLimits,
    each: &mut dyn FnMut(Record) -> usize,
) -> Result<Vec<Diagnostic>, String> {
    visit(paths, format, naming, limits, each)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::otlp;

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
        let (want, want_diags) =
            super::super::load_traces(&paths, None, &otlp::OperatorNaming::default()).unwrap();
        let mut got = Vec::new();
        let diags = visit_traces(&paths, None, &otlp::OperatorNaming::default(), &mut |r| {
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
        let missing = visit_traces(
            &[dir.path().join("none")],
            None,
            &otlp::OperatorNaming::default(),
            &mut |_| 0,
        );
        assert!(missing.is_err());
    }
}
