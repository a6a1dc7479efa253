//! The editing dialogs: what each holds, its keys and what the user chose. A dialog lives
//! inside the overlay that shows it ([`crate::tui::app::Overlay::Dialog`]), so the screen and the
//! state cannot disagree; choosing returns a [`Choice`] that `edit` carries out.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::TextArea;

use crate::tui::field::Field;

use std::path::PathBuf;

use toolscope_core::edit::Transaction;
use toolscope_core::edit::ops::{self, Given};
use toolscope_core::model::NodeKind;

/// A modal dialog of the editing session.
#[derive(Debug, Clone)]
pub enum Dialog {
    /// The score of `from -> to`; `error` says why the typed text was refused.
    Score {
        from: String,
        to: String,
        to_kind: NodeKind,
        text: Field,
        error: Option<String>,
    },
    /// A node's description in a multi-line editor.
    Desc {
        kind: NodeKind,
        name: String,
        area: Box<TextArea<'static>>,
    },
    /// The module a new tool's class is in (a Chat2Graph file needs it); `error` says why
    /// the typed text was refused.
    ModulePath {
        name: String,
        callers: Vec<(String, f64)>,
        text: Field,
        error: Option<String>,
    },
    /// Quit with unsaved edits?
    Quit,
    /// Remove a node and what its cascade takes with it?
    Remove {
        kind: NodeKind,
        name: String,
        /// What goes, one line each: the cascade's nodes and the seeds naming them.
        cascade: Vec<String>,
        /// The removal as made on confirmation.
        txn: Transaction,
    },
    /// Files changed on disk while they had unsaved edits (or a save found them changed).
    Conflict { paths: Vec<PathBuf> },
    /// Unsaved edits of a session that ended without asking (SIGTERM, SIGHUP) were found.
    Recover { edits: Vec<Transaction> },
}

impl PartialEq for Dialog {
    fn eq(&self, other: &Dialog) -> bool {
        use Dialog::*;
        match (self, other) {
            (
                Desc { kind, name, area },
                Desc {
                    kind: k,
                    name: n,
                    area: a,
                },
            ) => kind == k && name == n && area.lines() == a.lines(),
            (
                Score {
                    from,
                    to,
                    text,
                    error,
                    ..
                },
                Score {
                    from: f,
                    to: t,
                    text: x,
                    error: e,
                    ..
                },
            ) => from == f && to == t && text == x && error == e,
            (
                ModulePath {
                    name, text, error, ..
                },
                ModulePath {
                    name: n,
                    text: x,
                    error: e,
                    ..
                },
            ) => name == n && text == x && error == e,
            (Quit, Quit) => true,
            (Remove { txn, .. }, Remove { txn: t, .. }) => txn == t,
            (Conflict { paths }, Conflict { paths: p }) => paths == p,
            (Recover { edits }, Recover { edits: e }) => edits == e,
            _ => false,
        }
    }
}

/// What the user chose in a dialog.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    /// Make this change (a removal, as the registry built it).
    Apply(Transaction),
    /// Run the registry's edit `op` with these values (score, description, a tool's
    /// module): the row builds the edit, as it does for `set` and the `:` line.
    Run {
        op: &'static str,
        given: Given,
    },
    /// Nothing happens; the message says so (e.g. "description unchanged").
    Cancel(Option<&'static str>),
    Quit,
    SaveAndQuit,
    /// Conflict: drop the edits and reload, reapply them onto the new content, or keep
    /// them (the next save overwrites what is on disk now, and only that).
    Reload,
    Reapply,
    KeepMine(Vec<PathBuf>),
    /// Recovered edits: apply them, or throw them away.
    Recover(Vec<Transaction>),
    Discard,
}

/// One key in a dialog: the dialog as it stays open, or what the user chose.
pub enum Step {
    Open(Dialog),
    Chosen(Choice),
}

/// A key row of a dialog's legend: keys, then what they do.
pub type Legend = &'static [(&'static str, &'static str)];

pub const QUIT_KEYS: Legend = &[
    ("y", "quit, dropping the edits"),
    ("w", "save and quit"),
    ("n/Esc", "stay"),
    ("C-c", "quit, edits kept for the next start"),
];
pub const REMOVE_KEYS: Legend = &[("y/Enter", "remove (u undoes)"), ("n/Esc", "keep")];
pub const CONFLICT_KEYS: Legend = &[
    ("r", "reload (drop your edits)"),
    ("a", "reapply your edits on theirs"),
    ("k", "keep mine (the next save overwrites)"),
    ("Esc", "decide later"),
];
pub const RECOVER_KEYS: Legend = &[("a", "reapply them"), ("d", "discard them")];
pub const SCORE_KEYS: Legend = &[("Enter", "applies"), ("Esc", "cancels")];
pub const DESC_KEYS: Legend = &[("C-s", "apply"), ("Esc", "cancel")];
pub const MODULE_KEYS: Legend = &[("Enter", "adds the tool"), ("Esc", "cancels")];

/// A legend as one line: `y quit  w save and quit  n/Esc stay`.
pub fn legend(keys: Legend) -> String {
    keys.iter()
        .map(|(k, what)| format!("{k} {what}"))
        .collect::<Vec<_>>()
        .join("  ")
}

impl Dialog {
    /// The keys this dialog answers to.
    pub fn legend(&self) -> Legend {
        match self {
            Dialog::Score { .. } => SCORE_KEYS,
            Dialog::Desc { .. } => DESC_KEYS,
            Dialog::ModulePath { .. } => MODULE_KEYS,
            Dialog::Quit => QUIT_KEYS,
            Dialog::Remove { .. } => REMOVE_KEYS,
            Dialog::Conflict { .. } => CONFLICT_KEYS,
            Dialog::Recover { .. } => RECOVER_KEYS,
        }
    }

    /// Handles one key.
    pub fn key(self, k: KeyEvent) -> Step {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        match self {
            Dialog::Score {
                from,
                to,
                to_kind,
                mut text,
                mut error,
            } => {
                match k.code {
                    KeyCode::Esc => return Step::Chosen(Choice::Cancel(None)),
                    KeyCode::Enter => match parse_score(text.text()) {
                        Ok(_) => {
                            let kind = to_kind.as_str().to_string();
                            return Step::Chosen(Choice::Run {
                                op: "score",
                                given: given(&[
                                    ("FROM", from),
                                    ("TO", to),
                                    ("VALUE", text.text().to_string()),
                                    ("kind", kind),
                                ]),
                            });
                        }
                        Err(e) => {
                            error = Some(e);
                            text.select_all();
                        }
                    },
                    _ => type_into(&mut text, &mut error, k),
                }
                Step::Open(Dialog::Score {
                    from,
                    to,
                    to_kind,
                    text,
                    error,
                })
            }
            Dialog::Desc {
                kind,
                name,
                mut area,
            } => match k.code {
                KeyCode::Esc => Step::Chosen(Choice::Cancel(Some("description unchanged"))),
                KeyCode::Char('s') if ctrl => {
                    let text = area.lines().join("\n");
                    Step::Chosen(Choice::Run {
                        op: "desc",
                        given: given(&[
                            ("NODE", name),
                            ("kind", kind.as_str().to_string()),
                            (ops::DESC_INPUT, text),
                        ]),
                    })
                }
                _ => {
                    area.input(k);
                    Step::Open(Dialog::Desc { kind, name, area })
                }
            },
            Dialog::ModulePath {
                name,
                callers,
                text,
                error,
            } => module_path_key(name, callers, text, error, k),
            // `q` again does nothing: only `y` drops the edits (issue 45), and Ctrl-C
            // (handled before the dialog) keeps them in the recovery file.
            Dialog::Quit => match k.code {
                KeyCode::Char('y') => Step::Chosen(Choice::Quit),
                KeyCode::Char('w') => Step::Chosen(Choice::SaveAndQuit),
                KeyCode::Esc | KeyCode::Char('n') => Step::Chosen(Choice::Cancel(None)),
                _ => Step::Open(Dialog::Quit),
            },
            Dialog::Remove {
                kind,
                name,
                cascade,
                txn,
            } => match k.code {
                KeyCode::Char('y') | KeyCode::Enter => Step::Chosen(Choice::Apply(txn)),
                KeyCode::Esc | KeyCode::Char('n') => Step::Chosen(Choice::Cancel(None)),
                _ => Step::Open(Dialog::Remove {
                    kind,
                    name,
                    cascade,
                    txn,
                }),
            },
            Dialog::Conflict { paths } => match k.code {
                KeyCode::Char('r') => Step::Chosen(Choice::Reload),
                KeyCode::Char('a') => Step::Chosen(Choice::Reapply),
                KeyCode::Char('k') => Step::Chosen(Choice::KeepMine(paths)),
                KeyCode::Esc => Step::Chosen(Choice::Cancel(Some(
                    "conflict left open: your edits are kept and the next save asks again",
                ))),
                _ => Step::Open(Dialog::Conflict { paths }),
            },
            Dialog::Recover { edits } => match k.code {
                KeyCode::Char('a') | KeyCode::Enter => Step::Chosen(Choice::Recover(edits)),
                KeyCode::Char('d') => Step::Chosen(Choice::Discard),
                _ => Step::Open(Dialog::Recover { edits }),
            },
        }
    }
}

/// A key in the module path dialog: Enter adds the tool when Chat2Graph can import it from
/// the typed module, else says why and stays open.
fn module_path_key(
    name: String,
    callers: Vec<(String, f64)>,
    mut text: Field,
    mut error: Option<String>,
    k: KeyEvent,
) -> Step {
    match k.code {
        KeyCode::Esc => return Step::Chosen(Choice::Cancel(Some("no tool added"))),
        KeyCode::Enter => {
            let module_path = text.text().trim().to_string();
            match toolscope_core::formats::check_module_path(&name, &module_path) {
                Ok(()) => {
                    let score = callers.first().map_or(1.0, |(_, s)| *s);
                    let mut values = vec![
                        ("NAME", name),
                        ("score", score.to_string()),
                        ("module-path", module_path),
                    ];
                    values.extend(callers.into_iter().map(|(c, _)| ("caller", c)));
                    return Step::Chosen(Choice::Run {
                        op: "add-tool",
                        given: given(&values),
                    });
                }
                Err(e) => {
                    error = Some(e);
                    text.select_all();
                }
            }
        }
        _ => type_into(&mut text, &mut error, k),
    }
    Step::Open(Dialog::ModulePath {
        name,
        callers,
        text,
        error,
    })
}

/// A score as typed: a number in [0, 1], read by the registry's one parser.
pub fn parse_score(text: &str) -> Result<f64, String> {
    ops::parse_score(text)
}

/// The values of a registry row, by argument name.
pub(super) fn given(values: &[(&'static str, String)]) -> Given {
    let mut out = Given::default();
    for &(name, ref value) in values {
        out.set(name, value.clone());
    }
    out
}

/// A key typed into a one-line field: the field's keys (see [`Field::key`]); a key that
/// changes the text clears the field's error.
fn type_into(text: &mut Field, error: &mut Option<String>, k: KeyEvent) {
    let before = text.text().to_string();
    text.key(&k);
    if text.text() != before {
        *error = None;
    }
}

/// Pasted text into a dialog: one-line fields take it at the cursor, the description
/// editor as typed (line breaks kept); other dialogs ignore it.
pub fn paste(d: &mut Dialog, s: &str) {
    match d {
        Dialog::Score { text, error, .. } | Dialog::ModulePath { text, error, .. } => {
            text.paste(s);
            *error = None;
        }
        Dialog::Desc { area, .. } => {
            area.insert_str(s);
        }
        _ => {}
    }
}
