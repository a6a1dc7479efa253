//! Reading the markdown: fenced shell blocks, their not-run markers and their command
//! lines.

/// Info strings of the blocks whose lines are commands.
pub const LANGUAGES: &[&str] = &["sh", "bash", "shell", "console"];
pub const NOT_RUN: &str = "<!-- not run:";

/// One command line of an example block.
#[derive(Debug, PartialEq)]
pub struct Example {
    /// The (first) line's number in its file, from 1.
    pub line: usize,
    /// The command without its comment, continuation lines joined.
    pub code: String,
    pub comment: Option<String>,
}

#[derive(Debug)]
pub struct Block {
    /// The reason given by a `<!-- not run: ... -->` marker before the block.
    pub not_run: Option<String>,
    pub examples: Vec<Example>,
}

/// The shell blocks of a markdown text, or what is wrong with their markers and fences.
pub fn extract(markdown: &str) -> Result<Vec<Block>, Vec<String>> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut blocks = Vec::new();
    let mut errors = Vec::new();
    // A marker waiting for its block: (line, reason).
    let mut marker: Option<(usize, String)> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if let Some(rest) = line.trim().strip_prefix(NOT_RUN) {
            let reason = rest.trim_end_matches("-->").trim();
            if reason.is_empty() || !rest.trim_end().ends_with("-->") {
                errors.push(format!("line {i}: a marker is `{NOT_RUN} REASON -->`"));
            }
            if let Some((at, _)) = marker.replace((i, reason.to_string())) {
                errors.push(format!("line {at}: a not-run marker before no code block"));
            }
            continue;
        }
        let Some(open) = fence(line) else {
            if !line.trim().is_empty()
                && let Some((at, _)) = marker.take()
            {
                errors.push(format!("line {at}: a not-run marker before no code block"));
            }
            continue;
        };
        let body = body(&lines, &mut i, &open).unwrap_or_else(|body| {
            errors.push(format!(
                "line {}: a code block that is never closed",
                i - body.len()
            ));
            body
        });
        let marked = marker.take();
        let language = open.info.split_whitespace().next().unwrap_or("");
        if !LANGUAGES.contains(&language) {
            if let Some((at, _)) = marked {
                errors.push(format!(
                    "line {at}: a not-run marker before a `{language}` block"
                ));
            }
            continue;
        }
        let examples = commands(&body, language == "console");
        if examples.is_empty() {
            if let Some((at, _)) = marked {
                errors.push(format!(
                    "line {at}: a not-run marker before a block with no command"
                ));
            }
            continue;
        }
        blocks.push(Block {
            not_run: marked.map(|(_, reason)| reason),
            examples,
        });
    }
    if let Some((at, _)) = marker {
        errors.push(format!("line {at}: a not-run marker before no code block"));
    }
    if errors.is_empty() {
        Ok(blocks)
    } else {
        Err(errors)
    }
}

/// Lines with their numbers (from 1).
type Lines<'a> = Vec<(usize, &'a str)>;

/// The numbered lines of the block `open` starts, up to its closing fence (`i` the index
/// after the opening line, left after the closing one); Err with the lines when it is
/// never closed.
fn body<'a>(lines: &[&'a str], i: &mut usize, open: &Fence) -> Result<Lines<'a>, Lines<'a>> {
    let mut body = Lines::new();
    while let Some(next) = lines.get(*i) {
        *i += 1;
        if fence(next).is_some_and(|f| f.closes(open)) {
            return Ok(body);
        }
        body.push((*i, strip_indent(next, open.indent)));
    }
    Err(body)
}

/// A fence line: its indentation, mark (` or ~), length and info string.
pub struct Fence<'a> {
    indent: usize,
    pub mark: char,
    pub len: usize,
    pub info: &'a str,
}

impl Fence<'_> {
    fn closes(&self, open: &Fence) -> bool {
        self.mark == open.mark && self.len >= open.len && self.info.is_empty()
    }
}

/// A line opening or closing a fenced block (indented fences inside list items included).
pub fn fence(line: &str) -> Option<Fence<'_>> {
    let rest = line.trim_start_matches(' ');
    let mark = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = rest.chars().take_while(|c| *c == mark).count();
    (len >= 3).then(|| Fence {
        indent: line.len() - rest.len(),
        mark,
        len,
        info: rest[len..].trim(),
    })
}

/// A block line without the indentation of its fence (a list item's block).
fn strip_indent(line: &str, indent: usize) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    &line[spaces.min(indent)..]
}

/// The command lines of a block's body (numbered lines).
fn commands(body: &[(usize, &str)], console: bool) -> Vec<Example> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let (line, raw) = body[i];
        i += 1;
        let mut text = raw.trim();
        if console {
            match text.strip_prefix("$ ") {
                Some(command) => text = command,
                None => continue,
            }
        }
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let mut joined = text.to_string();
        while joined.ends_with('\\') && i < body.len() {
            // As the shell reads it: backslash-newline disappears, the next line follows.
            joined.pop();
            joined.push_str(body[i].1);
            i += 1;
        }
        let (code, comment) = split_comment(&joined);
        out.push(Example {
            line,
            code: code.trim().to_string(),
            comment,
        });
    }
    out
}

/// The code and the comment of a shell line: `#` starts a comment at the start of a word,
/// outside quotes.
fn split_comment(line: &str) -> (&str, Option<String>) {
    let mut quote = None;
    let mut escaped = false;
    let mut previous = ' ';
    for (at, c) in line.char_indices() {
        match (quote, c) {
            _ if escaped => escaped = false,
            (Some('\''), '\'') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => escaped = true,
            (Some('"'), '"') => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, '#') if previous.is_whitespace() => {
                return (&line[..at], Some(line[at + 1..].trim().to_string()));
            }
            _ => {}
        }
        previous = c;
    }
    (line, None)
}
