//! Reading a command line as the shell would: words, pipeline stages, redirections, and
//! which stages run `toolscope`.

use clap::CommandFactory;

/// How a word a command reads ends when it names a file or folder.
pub const INPUT_ENDINGS: &[&str] = &[".yaml", ".yml", ".json", ".jsonl", "/"];

#[derive(Debug, PartialEq)]
enum Word {
    Text(String),
    /// `|`, `&&`, `;`, `>`, `2>`, `<` ...
    Op(String),
}

/// Shell words as sh splits these examples: quotes and backslashes removed, operators
/// words of their own.
fn words(code: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut started = false;
    let mut chars = code.chars().peekable();
    let flush = |out: &mut Vec<Word>, word: &mut String, started: &mut bool| {
        if *started {
            out.push(Word::Text(std::mem::take(word)));
            *started = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                started = true;
                word.extend(chars.by_ref().take_while(|d| *d != '\''));
            }
            '"' => {
                started = true;
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        _ => word.push(d),
                    }
                }
            }
            '\\' => {
                started = true;
                word.extend(chars.next());
            }
            '|' | '&' | ';' | '<' | '>' => {
                let mut op = String::new();
                if c == '>'
                    && started
                    && !word.is_empty()
                    && word.bytes().all(|b| b.is_ascii_digit())
                {
                    op = std::mem::take(&mut word);
                    started = false;
                }
                flush(&mut out, &mut word, &mut started);
                op.push(c);
                while let Some(&d) = chars.peek().filter(|d| "|&<>".contains(**d)) {
                    op.push(d);
                    chars.next();
                }
                out.push(Word::Op(op));
            }
            c if c.is_whitespace() => flush(&mut out, &mut word, &mut started),
            _ => {
                started = true;
                word.push(c);
            }
        }
    }
    flush(&mut out, &mut word, &mut started);
    out
}

/// One `toolscope` in a command line: its arguments, the files it reads and the absolute
/// paths it names (read or written).
#[derive(Debug, PartialEq)]
pub struct Invocation {
    pub args: Vec<String>,
    pub reads: Vec<String>,
    pub absolute: Vec<String>,
}

/// The `toolscope` invocations of a command line (none: not a toolscope command).
pub fn invocations(code: &str) -> Vec<Invocation> {
    let mut out = Vec::new();
    for stage in words(code).split(|w| matches!(w, Word::Op(op) if !op.contains(['<', '>']))) {
        let mut texts = Vec::new();
        let mut reads = Vec::new();
        let mut targets = Vec::new();
        let mut redirect: Option<&str> = None;
        for word in stage {
            match (word, redirect.take()) {
                (Word::Op(op), _) => redirect = Some(op),
                (Word::Text(file), Some(op)) if op.contains('<') => reads.push(file.clone()),
                (Word::Text(file), Some(_)) => targets.push(file.clone()),
                (Word::Text(text), None) => texts.push(text.clone()),
            }
        }
        let program = texts.iter().position(|t| !is_assignment(t));
        let Some(at) = program.filter(|at| texts[*at] == "toolscope") else {
            continue;
        };
        let args = texts.split_off(at + 1);
        let absolute = (args.iter().chain(&reads).chain(&targets))
            .filter(|p| p.starts_with('/') && *p != "/dev/null")
            .cloned()
            .collect();
        let mut output_next = false;
        for arg in &args {
            let is_output = std::mem::replace(&mut output_next, arg == "-o" || arg == "--output");
            if !is_output && INPUT_ENDINGS.iter().any(|e| arg.ends_with(e)) {
                reads.push(arg.clone());
            }
        }
        out.push(Invocation {
            args,
            reads,
            absolute,
        });
    }
    out
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// Whether the arguments open the TUI: no subcommand (the first word not starting with `-`
/// names none), or `tui`.
pub fn is_tui(args: &[String]) -> bool {
    let cli = toolscope::cli::Cli::command();
    match args.iter().find(|a| !a.starts_with('-')) {
        None => true,
        Some(first) if first == "tui" => true,
        Some(first) => cli.find_subcommand(first).is_none(),
    }
}

/// The exit code a comment asks for (`exit N ...`), 0 without one.
pub fn expected_exit(comment: Option<&str>) -> Result<i32, String> {
    let Some(rest) = comment.and_then(|c| c.strip_prefix("exit ")) else {
        return Ok(0);
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits
        .parse()
        .map_err(|_| format!("`# exit {rest}`: write `# exit N`"))
}
