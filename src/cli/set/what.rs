//! `toolscope set`'s edits as clap subcommands, made from the core's registry of edit
//! operations (`toolscope_core::edit::ops`): one subcommand per row, its arguments the
//! row's, each value checked by the row. The TUI's `:` line reads the same rows.

use std::io::Read;

use clap::{Arg, ArgAction, ArgMatches, Command};

use toolscope_core::edit::Transaction;
use toolscope_core::edit::ops::{self, EDIT_OPS, EditOp, Given, OpArg, OpError};
use toolscope_core::model::Toolkit;

/// The edit a `set` command line names: its operation and the values given.
#[derive(Debug)]
pub struct What {
    pub op: &'static EditOp,
    pub given: Given,
}

/// The clap argument for one parameter of an operation.
fn arg(p: &'static OpArg) -> Arg {
    let help = match p.default {
        Some(d) if !d.is_empty() => format!("{} [default: {d}]", p.doc),
        _ => p.doc.to_string(),
    };
    let a = Arg::new(p.name)
        .help(help)
        .value_parser(move |s: &str| p.check(s).map(|()| s.to_string()));
    match (p.option, p.repeat) {
        (true, true) => a
            .long(p.name)
            .value_name(p.name.to_uppercase())
            .action(ArgAction::Append),
        (true, false) => a.long(p.name).value_name(p.name.to_uppercase()),
        (false, _) => a
            .value_name(p.name)
            .required(p.required && p.default.is_none()),
    }
}

fn subcommand(op: &'static EditOp) -> Command {
    let about = match op.input {
        Some(_) => format!("{} (the text is read from stdin)", op.doc),
        None => op.doc.to_string(),
    };
    op.params.iter().fold(
        Command::new(op.name)
            .about(about)
            .visible_aliases(op.aliases),
        |c, p| c.arg(arg(p)),
    )
}

impl clap::FromArgMatches for What {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let (name, sub) = m
            .subcommand()
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::MissingSubcommand))?;
        let op = ops::find(name)
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidSubcommand))?;
        let mut given = Given::default();
        for p in op.params {
            for v in sub.get_many::<String>(p.name).into_iter().flatten() {
                given.set(p.name, v.clone());
            }
        }
        Ok(What { op, given })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = What::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Subcommand for What {
    fn augment_subcommands(cmd: Command) -> Command {
        EDIT_OPS
            .iter()
            .fold(cmd, |c, op| c.subcommand(subcommand(op)))
    }

    fn augment_subcommands_for_update(cmd: Command) -> Command {
        What::augment_subcommands(cmd)
    }

    fn has_subcommand(name: &str) -> bool {
        ops::find(name).is_some()
    }
}

/// `set`'s one-line summary (in `toolscope --help` and `set --help`), naming every edit of
/// the registry in its order.
pub fn summary() -> String {
    let names: Vec<&str> = EDIT_OPS.iter().map(|o| o.name).collect();
    format!(
        "Make one lossless edit to a toolkit file: {}",
        names.join(", ")
    )
}

/// The change, with the text an operation reads from stdin.
pub fn build_edit(what: &What, tk: &Toolkit) -> Result<Transaction, OpError> {
    let mut given = what.given.clone();
    if let Some(input) = what.op.input {
        given.set(input, read_stdin()?);
    }
    what.op.build(&given, tk)
}

fn read_stdin() -> Result<String, String> {
    let max = toolscope_core::source::Limits::default().max_scalar_bytes;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(max as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("reading the description from stdin: {e}"))?;
    if bytes.len() > max {
        return Err(format!(
            "the description on stdin is longer than {max} bytes, the limit of one text in a toolkit file; stopped reading there, nothing written"
        ));
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("the description on stdin is not UTF-8: {e}"))?;
    let text = text.replace("\r\n", "\n");
    let single = text.trim_end_matches('\n').lines().count() <= 1;
    Ok(if single {
        text.trim_end_matches('\n').to_string()
    } else {
        text
    })
}

#[cfg(test)]
mod tests {
    use clap::{FromArgMatches, Subcommand};

    use super::*;

    /// The CLI's words for an edit.
    fn cli(words: &[&str]) -> What {
        let cmd = What::augment_subcommands(Command::new("set"));
        let m = cmd
            .try_get_matches_from(std::iter::once("set").chain(words.iter().copied()))
            .expect("parses");
        What::from_arg_matches(&m).expect("an edit")
    }

    /// Every edit takes the same arguments in `set` and after `:` in the TUI: the same
    /// words give the same values (the TUI quotes names with spaces on its one line).
    #[test]
    fn set_and_the_tui_line_read_the_same_arguments() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["score", "plan it", "Search", "0.5"],
                r#""plan it" Search 0.5"#,
            ),
            (
                &["threshold", "Query Expert/1", "0.7"],
                r#""Query Expert/1" 0.7"#,
            ),
            (&["t", "op", "0.7"], "op 0.7"),
            (&["hops", "op", "2"], "op 2"),
            (&["link", "a", "b"], "a b"),
            (
                &["link", "a", "b", "0.3", "--kind", "tool"],
                "a b 0.3 --kind tool",
            ),
            (&["unlink", "a", "b"], "a b"),
            (
                &["remove", "my tool", "--kind", "tool"],
                r#""my tool" --kind tool"#,
            ),
            (&["add-action", "write it"], "write it"),
            (
                &["add-tool", "Mail", "--caller", "a", "--caller", "b c"],
                r#"Mail --caller a --caller "b c""#,
            ),
            (&["enabled", "Mail", "false"], "Mail false"),
            (
                &["desc", "plan it", "--kind", "action"],
                r#""plan it" --kind action"#,
            ),
        ];
        let mut covered = Vec::new();
        for (words, line) in cases {
            let what = cli(words);
            covered.push(what.op.name);
            let tui = ops::parse_args(what.op, line, |_| None).expect("the TUI parses");
            assert_eq!(what.given, tui, "{words:?} vs :{} {line}", what.op.name);
        }
        for op in EDIT_OPS {
            assert!(covered.contains(&op.name), "{} is not compared", op.name);
        }
    }

    #[test]
    fn the_summary_names_every_edit() {
        let summary = summary();
        for op in EDIT_OPS {
            assert!(
                summary.contains(op.name),
                "{} is not in: {summary}",
                op.name
            );
        }
    }

    #[test]
    fn a_value_out_of_range_is_a_usage_error() {
        let cmd = What::augment_subcommands(Command::new("set"));
        let e = cmd
            .try_get_matches_from(["set", "hops", "op", "1001"])
            .expect_err("refused");
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("from 0 to 1000"), "{e}");
    }
}
