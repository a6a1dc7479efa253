//! Trace records one at a time, for evaluations whose memory must not grow with the file
//! (`eval --steps` on a million steps).
//!
//! JSONL is read a line at a time; only OTLP, whose spans find their operator across the
//! whole file, is read whole. Bad lines become the same diagnostics as in
//! [`load_traces`](super::load_traces).

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

use super::{Record, TraceFormat, otlp, traces};
use crate::diag::{Code, Diagnostic};

/// Calls `each` with every record of the files, in file order; returns the diagnostics of
/// bad lines. `format` `None` detects each file's format from its first non-blank line.
/// A file that cannot be read is an error.
pub fn visit_traces(
    paths: &[PathBuf],
    format: Option<TraceFormat>,
    operator_attr: &str,
    each: &mut dyn FnMut(Record),
) -> Result<Vec<Diagnostic>, String> {
    let mut diags = Vec::new();
    for p in paths {
        let name = p.display().to_string();
        let file = std::fs::File::open(p).map_err(|e| format!("{name}: {e}"))?;
        let mut reader = BufReader::with_capacity(1 << 16, file);
        let detected = match format {
            Some(f) => f,
            None => detect(&mut reader).map_err(|e| format!("{name}: {e}"))?,
        };
        match detected {
            TraceFormat::Jsonl => {
                jsonl(&name, reader, &mut diags, each).map_err(|e| format!("{name}: {e}"))?
            }
            TraceFormat::Otlp => {
                let mut bytes = Vec::new();
                reader
                    .read_to_end(&mut bytes)
                    .map_err(|e| format!("{name}: {e}"))?;
                let text = super::utf8_lines(&name, &bytes, &mut diags);
                let (records, d) = otlp::parse_otlp(&name, &text, operator_attr);
                records.into_iter().for_each(&mut *each);
                diags.extend(d);
            }
        }
    }
    Ok(diags)
}

/// The format of the first non-blank line, looked at in the reader's buffer (a first
/// line longer than the buffer is taken for JSONL unless its start says otherwise).
fn detect(reader: &mut BufReader<std::fs::File>) -> std::io::Result<TraceFormat> {
    let buf = reader.fill_buf()?;
    let text = String::from_utf8_lossy(buf);
    Ok(super::detect_format(&text))
}

fn jsonl(
    name: &str,
    mut reader: impl BufRead,
    diags: &mut Vec<Diagnostic>,
    each: &mut dyn FnMut(Record),
) -> std::io::Result<()> {
    let mut line = Vec::new();
    let mut line_no: u32 = 0;
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        line_no = line_no.saturating_add(1);
        let text = match std::str::from_utf8(&line) {
            Ok(t) => t,
            Err(e) => {
                let col = u32::try_from(e.valid_up_to() + 1).unwrap_or(1);
                let msg = "the line is not UTF-8".to_string();
                diags.push(traces::diag(name, line_no, col, Code::TraceLine, msg));
                continue;
            }
        };
        if text.trim().is_empty() {
            continue;
        }
        match traces::parse_line(text) {
            Ok(mut r) => {
                r.file = name.to_string();
                r.line = line_no;
                each(r);
            }
            Err((col, msg)) => diags.push(traces::diag(name, line_no, col, Code::TraceLine, msg)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let diags = visit_traces(&paths, None, otlp::AGENT_ATTR, &mut |r| got.push(r)).unwrap();
        assert_eq!(got, want);
        assert_eq!(got.len(), 2);
        let lines = |d: &[Diagnostic]| {
            let mut v: Vec<_> = d.iter().map(|d| (d.line, d.code)).collect();
            v.sort_by_key(|x| x.0);
            v
        };
        assert_eq!(lines(&diags), lines(&want_diags));
        assert_eq!(lines(&diags).len(), 2);
        let missing = visit_traces(&[dir.path().join("none")], None, "", &mut |_| {});
        assert!(missing.is_err());
    }
}
