//! Reading trace files within bounds (`eval`, `fit`, the TUI's `--traces` and `:traces`).
//!
//! A trace file is opened without blocking and read only when it is a regular file of at
//! most [`TraceLimits::file_bytes`] (a FIFO, a device or a socket is refused unopened for
//! reading). It is streamed line by line, never held whole: a line longer than its
//! format's limit is skipped without being kept (a TS081 diagnostic with its number, the
//! other lines still count), and what the records (and OTLP spans) hold is counted against
//! [`TraceLimits::memory`], past which the load stops with an error naming the line.
//!
//! Diagnostics are bounded too: the first [`MAX_DIAGNOSTICS`] are kept, the rest counted
//! and reported as one diagnostic at the first of them (10 MB of bad lines cost 948 MB as
//! a diagnostic each). A byte-order mark at the start of a file is skipped.
//!
//! Each line goes to its format's parser as a whole (`traces::jsonl_line`,
//! `otlp::OtlpLines`): what a record holds is decided there, so a new key is added there
//! alone (and to [`record_bytes`], which counts it).

use std::io::{BufReader, Read};
use std::path::Path;

use super::lines::{BOM, Line, diag, next_line, open_regular, too_long};
pub use super::lines::{Diags, MAX_DIAGNOSTICS, TraceLimits};
use super::otlp::{OperatorNaming, OtlpLines};
use super::traces::jsonl_line;
use super::{Record, Target, TraceFormat};
use crate::diag::{Code, Diagnostic};

/// Reads trace files within `limits` (see the module's comment): records in file order and
/// diagnostics for bad lines; an error for a file that cannot be read at all or a load
/// past the memory limit.
pub fn load(
    paths: &[std::path::PathBuf],
    format: Option<TraceFormat>,
    naming: &OperatorNaming,
    limits: &TraceLimits,
) -> Result<(Vec<Record>, Vec<Diagnostic>), String> {
    let mut records = Vec::new();
    let diags = visit(paths, format, naming, limits, &mut |r| {
        let bytes = record_bytes(&r);
        records.push(r);
        bytes
    })?;
    Ok((records, diags))
}

/// Reads trace files within `limits` as [`load`] does, handing each record to `each`,
/// which returns how many bytes of it it keeps (what counts against the memory limit: a
/// consumer that keeps only tallies returns 0, so a million steps cost nothing).
pub fn visit(
    paths: &[std::path::PathBuf],
    format: Option<TraceFormat>,
    naming: &OperatorNaming,
    limits: &TraceLimits,
    each: &mut dyn FnMut(Record) -> usize,
) -> Result<Vec<Diagnostic>, String> {
    let mut out = Out {
        each,
        diags: Diags::default(),
        bytes: 0,
        limit: limits.memory,
    };
    for p in paths {
        read_file(p, format, naming, limits, &mut out)?;
    }
    Ok(out.diags.finish())
}

struct Out<'e> {
    each: &'e mut dyn FnMut(Record) -> usize,
    diags: Diags,
    bytes: usize,
    limit: usize,
}

impl Out<'_> {
    fn count(&mut self, bytes: usize, file: &str, line: u32) -> Result<(), String> {
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes > self.limit {
            return Err(format!(
                "{file}:{line}: the trace records read so far hold more than the limit of {} MiB; \
                 read fewer or smaller files",
                self.limit >> 20
            ));
        }
        Ok(())
    }
}

/// The parser of one file's lines.
enum Parser<'a> {
    Jsonl,
    Otlp(OtlpLines<'a>),
}

fn read_file(
    path: &Path,
    format: Option<TraceFormat>,
    naming: &OperatorNaming,
    limits: &TraceLimits,
    out: &mut Out<'_>,
) -> Result<(), String> {
    let name = path.display().to_string();
    let file = open_regular(path, limits.file_bytes)?;
    let mut reader = BufReader::with_capacity(64 << 10, file.take(limits.file_bytes));
    let mut parser = format.map(|f| parser_for(f, &name, naming));
    let mut buf = Vec::new();
    let mut line_no: u32 = 0;
    loop {
        line_no = line_no.saturating_add(1);
        let fmt = parser.as_ref().map(|p| match p {
            Parser::Jsonl => TraceFormat::Jsonl,
            Parser::Otlp(_) => TraceFormat::Otlp,
        });
        let limit = limits.line(fmt);
        let line = next_line(&mut reader, &mut buf, limit).map_err(|e| format!("{name}: {e}"))?;
        if line_no == 1 && buf.starts_with(BOM) {
            buf.drain(..BOM.len());
        }
        let text = match line {
            Line::End => break,
            Line::TooLong(len) => {
                out.diags.push(too_long(&name, line_no, len, limit));
                continue;
            }
            Line::Text => match std::str::from_utf8(&buf) {
                Ok(t) => t,
                Err(e) => {
                    let col = u32::try_from(e.valid_up_to() + 1).unwrap_or(1);
                    let d = diag(
                        &name,
                        line_no,
                        col,
                        Code::TraceLine,
                        "the line is not UTF-8".into(),
                    );
                    out.diags.push(d);
                    continue;
                }
            },
        };
        if text.trim().is_empty() {
            continue;
        }
        let p = parser.get_or_insert_with(|| parser_for(super::detect_format(text), &name, naming));
        if matches!(p, Parser::Jsonl) && text.len() > limits.jsonl_line {
            out.diags
                .push(too_long(&name, line_no, text.len(), limits.jsonl_line));
            continue;
        }
        let bytes = match p {
            Parser::Jsonl => match jsonl_line(&name, line_no, text) {
                Some(Ok(r)) => (out.each)(r),
                Some(Err(d)) => {
                    out.diags.push(d);
                    0
                }
                None => 0,
            },
            Parser::Otlp(lines) => lines.line(line_no, text),
        };
        out.count(bytes, &name, line_no)?;
    }
    if let Some(Parser::Otlp(lines)) = parser {
        let (records, diags) = lines.finish();
        for r in records {
            let bytes = (out.each)(r);
            out.count(bytes, &name, line_no)?;
        }
        out.diags.merge(diags);
    }
    Ok(())
}

fn parser_for<'a>(format: TraceFormat, file: &'a str, naming: &'a OperatorNaming) -> Parser<'a> {
    match format {
        TraceFormat::Jsonl => Parser::Jsonl,
        TraceFormat::Otlp => Parser::Otlp(OtlpLines::new(file, naming)),
    }
}

/// What a record holds, for the memory limit: its own size and its texts'.
pub(crate) fn record_bytes(r: &Record) -> usize {
    let text = |s: &String| std::mem::size_of::<String>() + s.len();
    let target = match &r.target {
        Target::Operator(name) => name.len(),
        Target::Seeds(seeds) => seeds.iter().map(text).sum(),
    };
    std::mem::size_of::<Record>()
        + r.file.len()
        + r.id.as_ref().map_or(0, String::len)
        + target
        + r.called.iter().map(text).sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("t.jsonl");
        std::fs::write(&p, text).expect("write");
        (dir, p)
    }

    fn naming() -> OperatorNaming {
        OperatorNaming::new(Some("a"), None)
    }

    const SMALL: TraceLimits = TraceLimits {
        file_bytes: 1 << 20,
        jsonl_line: 64,
        otlp_line: 256,
        memory: 1 << 20,
    };

    #[test]
    fn a_long_line_is_skipped_and_the_next_keeps_its_number() {
        let long = format!(
            "{{\"operator\": \"op\", \"called\": [{}]}}",
            "\"X\",".repeat(40) + "\"X\""
        );
        let text = format!(
            "{{\"operator\": \"op\"}}\n{long}\r\n\n{{\"operator\": \"op\", \"called\": [\"Y\"]}}"
        );
        let (_d, p) = file(&text);
        let (records, diags) = load(&[p], None, &naming(), &SMALL).expect("reads");
        let lines: Vec<u32> = records.iter().map(|r| r.line).collect();
        assert_eq!(lines, vec![1, 4], "the last line has no line break");
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].line, 2);
        assert!(
            diags[0].message.contains("over the limit of 64"),
            "{}",
            diags[0]
        );
        // The same text through the unbounded parser: the same records.
        let (all, _) = super::super::traces::parse_jsonl("t", &text);
        assert_eq!(all.len(), 3);
    }

    #[test]
    fn records_past_the_memory_limit_stop_the_load_with_the_line() {
        let line = "{\"operator\": \"op\", \"called\": [\"A\", \"B\"]}\n";
        let (_d, p) = file(&line.repeat(200));
        let limits = TraceLimits {
            memory: 8 << 10,
            ..SMALL
        };
        let err =
            load(std::slice::from_ref(&p), None, &naming(), &limits).expect_err("over the limit");
        assert!(err.contains("t.jsonl:") && err.contains("limit"), "{err}");
        assert_eq!(
            load(&[p], None, &naming(), &SMALL).expect("fits").0.len(),
            200
        );
    }

    #[test]
    fn an_otlp_line_past_its_limit_is_skipped() {
        let span = "{\"traceId\":\"t\",\"spanId\":\"s1\",\"attributes\":[{\"key\":\"a\",\"value\":{\"stringValue\":\"op\"}}]}";
        let good = format!("{{\"resourceSpans\":[{{\"scopeSpans\":[{{\"spans\":[{span}]}}]}}]}}");
        let big = format!(
            "{{\"resourceSpans\":[{{\"scopeSpans\":[{{\"spans\":[{}]}}]}}]}}",
            [span; 4].join(",")
        );
        let (_d, p) = file(&format!("{good}\n{big}\n"));
        let (records, diags) = load(&[p], None, &naming(), &SMALL).expect("reads");
        assert_eq!(records.len(), 1);
        assert_eq!((diags.len(), diags[0].line), (1, 2), "{diags:?}");
    }

    #[test]
    fn what_is_not_a_regular_file_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = load(&[dir.path().to_path_buf()], None, &naming(), &SMALL).expect_err("a folder");
        assert!(err.contains("is a directory"), "{err}");
        let err = load(&["/dev/zero".into()], None, &naming(), &SMALL).expect_err("a device");
        assert!(err.contains("not a regular file"), "{err}");
    }
}
