//! The bottom of the trace readers: lines read within bounds, and the diagnostics they
//! give. The readers form a chain: `lines` (this module) under the record parsers
//! (`traces` for JSONL, `otlp` for OTLP spans), under `read` (files to records), under
//! `stream` and the evaluations (`eval`, `steps`). Nothing here names a record.

use std::fs::File;
use std::io::{BufRead, Read};
use std::path::Path;

use crate::diag::{Code, Diagnostic, Severity};

/// The most diagnostics kept from one load; the rest are counted (see [`Diags`]).
pub const MAX_DIAGNOSTICS: usize = 1000;

/// Diagnostics with a bound: the first [`MAX_DIAGNOSTICS`] kept, the rest counted and
/// summed up in one last diagnostic at the first one left out.
#[derive(Debug, Default)]
pub struct Diags {
    kept: Vec<Diagnostic>,
    more: u64,
    first_more: Option<Diagnostic>,
}

impl Diags {
    pub fn push(&mut self, d: Diagnostic) {
        if self.kept.len() < MAX_DIAGNOSTICS {
            self.kept.push(d);
        } else {
            self.more += 1;
            self.first_more.get_or_insert(d);
        }
    }

    pub fn extend(&mut self, ds: impl IntoIterator<Item = Diagnostic>) {
        for d in ds {
            self.push(d);
        }
    }

    /// Adds another bounded set: its kept ones one by one, its count of those left out.
    pub fn merge(&mut self, other: Diags) {
        self.extend(other.kept);
        if let Some(d) = other.first_more {
            self.more += other.more - 1;
            self.push(d);
        }
    }

    /// The diagnostics kept so far (without the summary).
    pub fn kept(&self) -> &[Diagnostic] {
        &self.kept
    }

    /// The kept diagnostics, then one summing up those left out.
    pub fn finish(mut self) -> Vec<Diagnostic> {
        if let Some(mut d) = self.first_more.take() {
            d.message = format!(
                "{} more diagnostic(s) from here on not shown (the first {MAX_DIAGNOSTICS} are); this one: {}",
                self.more, d.message
            );
            self.kept.push(d);
        }
        self.kept
    }
}

/// Bounds on what trace files may cost.
#[derive(Debug, Clone, Copy)]
pub struct TraceLimits {
    /// The largest trace file read.
    pub file_bytes: u64,
    /// The longest JSONL line: one record (an operator and its calls; 1 MiB holds about
    /// 100,000 calls).
    pub jsonl_line: usize,
    /// The longest OTLP line: one exporter batch of spans.
    pub otlp_line: usize,
    /// What the records and OTLP spans of all the files may hold together.
    pub memory: usize,
}

impl Default for TraceLimits {
    fn default() -> TraceLimits {
        TraceLimits {
            file_bytes: 256 << 20,
            jsonl_line: 1 << 20,
            otlp_line: 16 << 20,
            memory: 1 << 30,
        }
    }
}

impl TraceLimits {
    pub(crate) fn line(&self, format: Option<super::TraceFormat>) -> usize {
        match format {
            Some(super::TraceFormat::Jsonl) => self.jsonl_line,
            Some(super::TraceFormat::Otlp) | None => self.otlp_line.max(self.jsonl_line),
        }
    }
}

/// A diagnostic about a trace file.
pub(crate) fn diag(file: &str, line: u32, column: u32, code: Code, message: String) -> Diagnostic {
    let severity = match code {
        Code::TraceUnknownTarget
        | Code::OtlpNoOperator
        | Code::OtlpNoContent
        | Code::OtlpUnreadCalls => Severity::Warning,
        _ => Severity::Error,
    };
    Diagnostic {
        file: file.to_string(),
        line,
        column: column.max(1),
        severity,
        code,
        message,
    }
}

pub(crate) fn too_long(file: &str, line: u32, len: usize, limit: usize) -> Diagnostic {
    diag(
        file,
        line,
        1,
        Code::TraceLine,
        format!("the line is {len} bytes or more, over the limit of {limit} for a line; skipped"),
    )
}

/// The UTF-8 byte-order mark some editors put at the start of a file.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One line read by [`next_line`].
pub(crate) enum Line {
    /// The line is in the buffer (without its line break).
    Text,
    /// Longer than the limit: skipped, not kept; at least this many bytes.
    TooLong(usize),
    End,
}

/// Reads the next line into `buf`, keeping at most `limit` bytes of it.
pub(crate) fn next_line(
    r: &mut impl BufRead,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Line> {
    buf.clear();
    let n = r.by_ref().take(limit as u64 + 1).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(Line::End);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        return Ok(Line::Text);
    }
    if buf.len() <= limit {
        return Ok(Line::Text); // the last line, without a line break
    }
    let mut skipped = buf.len();
    buf.clear();
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        match memchr::memchr(b'\n', chunk) {
            Some(i) => {
                r.consume(i + 1);
                skipped += i;
                break;
            }
            None => {
                let len = chunk.len();
                r.consume(len);
                skipped += len;
            }
        }
    }
    Ok(Line::TooLong(skipped))
}

/// Opens `path` when it is a regular file of at most `max` bytes (see `crate::bounded`).
pub(crate) fn open_regular(path: &Path, max: u64) -> Result<File, String> {
    crate::bounded::open(path, max, crate::bounded::Links::Follow)
        .map(|(file, _)| file)
        .map_err(|e| format!("{}: {e}", path.display()))
}
