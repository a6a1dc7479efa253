//! Tab completion on the `:` line: command names, then the argument by what the command's
//! row in the table says it takes (operator names, node names, action names, formats). A unique match is completed whole;
//! several extend the text to their longest common prefix and are listed in the status.

use toolscope_core::model::NodeKind;

use crate::tui::app::{App, Level};
use crate::tui::update::row::Args;

/// The completed command line for `text` (unchanged when nothing matches).
pub fn complete(app: &mut App, text: &str) -> String {
    let Some((cmd, arg)) = text.split_once(' ') else {
        let names: Vec<String> = super::names().map(str::to_string).collect();
        return extend(app, "", text, &names, " ");
    };
    let candidates = arguments(app, cmd, arg);
    // The whole argument first (one name with spaces); else its last word, a later
    // argument of an edit (`:score act Sea` completes `Sea`), quoted when the name
    // has spaces.
    if candidates.iter().any(|c| c.starts_with(arg)) || !arg.contains(' ') {
        return extend(app, &format!("{cmd} "), arg, &candidates, "");
    }
    let (before, last) = arg.rsplit_once(' ').unwrap_or(("", arg));
    let quoted: Vec<String> = candidates
        .iter()
        .map(|c| match c.contains(' ') {
            true => format!("\"{c}\""),
            false => c.clone(),
        })
        .collect();
    extend(app, &format!("{cmd} {before} "), last, &quoted, "")
}

/// Candidates for the argument of `cmd`.
fn arguments(app: &App, cmd: &str, arg: &str) -> Vec<String> {
    let tk = &app.tk;
    let names = |kinds: &[NodeKind]| -> Vec<String> {
        tk.graph
            .node_indices()
            .filter(|&ix| kinds.contains(&tk.kind(ix)))
            .map(|ix| tk.name(ix).to_string())
            .collect()
    };
    let Some(typed) = super::find(cmd) else {
        return Vec::new();
    };
    match typed.args {
        Args::Operators => tk.operators.iter().map(|o| o.name.clone()).collect(),
        Args::Actions => names(&[NodeKind::Action]),
        Args::Nodes => names(&[NodeKind::Action, NodeKind::Tool, NodeKind::Group]),
        Args::Formats if !arg.contains(' ') => toolscope_core::export::ExportFormat::ALL
            .iter()
            .map(|f| f.name().to_string())
            .collect(),
        Args::Formats | Args::File | Args::None => Vec::new(),
    }
}

/// Extends `typed` to the longest prefix common to the candidates starting with it.
fn extend(app: &mut App, head: &str, typed: &str, all: &[String], done: &str) -> String {
    let mut hits: Vec<&String> = all.iter().filter(|c| c.starts_with(typed)).collect();
    hits.sort();
    hits.dedup();
    match hits.as_slice() {
        [] => format!("{head}{typed}"),
        [one] => format!("{head}{one}{done}"),
        many => {
            let shown: Vec<&str> = many.iter().take(8).map(|s| s.as_str()).collect();
            let more = if many.len() > 8 { ", ..." } else { "" };
            app.set_status(Level::Info, format!("{}{more}", shown.join(", ")));
            format!("{head}{}", common_prefix(many))
        }
    }
}

fn common_prefix(words: &[&String]) -> String {
    let Some(first) = words.first() else {
        return String::new();
    };
    let mut end = first.len();
    for w in &words[1..] {
        end = first
            .char_indices()
            .zip(w.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, a), _)| i + a.len_utf8())
            .min(end);
    }
    first[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::theme::Theme;
    use toolscope_core::load::load_example;
    use toolscope_core::source::EXAMPLE_NAME;

    fn app() -> App {
        App::new(
            load_example(),
            EXAMPLE_NAME.into(),
            Theme::default(),
            (160, 48),
        )
    }

    #[test]
    fn completes_commands_and_names() {
        let mut app = app();
        assert_eq!(complete(&mut app, "opera"), "operator ");
        assert_eq!(complete(&mut app, "ope"), "ope", "open and operator");
        assert_eq!(complete(&mut app, "re"), "re");
        assert_eq!(complete(&mut app, "rel"), "reload ");
        assert_eq!(complete(&mut app, "basel"), "baseline ");
        assert_eq!(complete(&mut app, "mess"), "messages ");
        assert_eq!(complete(&mut app, "export m"), "export mermaid");
        assert_eq!(complete(&mut app, "goto query_d"), "goto query_design");
        let op = app.tk.operators[0].name.clone();
        assert_eq!(complete(&mut app, &format!("operator {}", &op[..2])), {
            let same: Vec<_> = app
                .tk
                .operators
                .iter()
                .filter(|o| o.name.starts_with(&op[..2]))
                .collect();
            if same.len() == 1 {
                format!("operator {op}")
            } else {
                format!("operator {}", &op[..2])
            }
        });
    }
}
