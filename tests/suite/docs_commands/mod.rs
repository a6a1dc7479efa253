//! Every shell example in `README.md` and `docs/*.md` runs as shown on the repository's own
//! example files (issue 23: a newcomer can paste any of them into a fresh clone).
//!
//! **Which lines are commands.** Fenced blocks whose info string is `sh`, `bash`, `shell`
//! or `console` are read. In `sh`, `bash` and `shell` blocks every line is a command except
//! blank lines and lines holding only a comment; in `console` blocks only the lines after a
//! `$ ` prompt are (the rest is output). A line ending in `\` goes on on the next one. A `#`
//! at the start of a word outside quotes begins the comment, which is not run.
//!
//! **How they run.** Each block runs in a fresh temporary folder holding a copy of the
//! folders in [`run::COPIED`], its lines in order (so `add-action review` then `add-tool Linter
//! --caller review` works), each as `bash -o pipefail -c LINE` with `toolscope` on `PATH`
//! being the binary under test, stdin empty and no controlling terminal. Pipelines (`echo
//! ... | toolscope set ...`), variables (`NO_COLOR=1 toolscope ...`) and redirections (`>
//! big.yaml`) work as in a shell, and every write (`set` without `--dry-run`, `fit --write`,
//! `-o FILE`) lands in the copy: the test checks the repository's files are unchanged after.
//! Blocks run in parallel, longest first.
//!
//! **What must hold.**
//! - A command exits 0, or N when its comment starts with `exit N` (`toolscope lint
//!   bad.yaml   # exit 1: TS030 ...`).
//! - A line is a `toolscope` command when one of its pipeline stages starts with
//!   `toolscope` (after `NAME=value` assignments). Any other line (`cargo ...`, `python
//!   ...`) fails the test unless its block is marked "not run" (below).
//! - Every file a `toolscope` command reads exists when the line runs: a word ending in
//!   one of [`shell::INPUT_ENDINGS`] that is not the value of `-o`/`--output` or the target of a `>`.
//!   An absolute path other than `/dev/null` is refused: it would reach outside the copy.
//! - **The TUI** (`toolscope` with no subcommand, or `tui`) runs too. With no terminal it
//!   parses its arguments and opens its files, then stops with [`run::TUI_STOP`] (exit 1); that
//!   is required, so a flag that no longer exists (exit 2) or a file that does not open
//!   fails. The screen itself is tested by the tmux tests.
//!
//! **Links.** Every relative link of these files leads to a file, and to a heading of it
//! after `#`; every inline-code path into one of the repository's folders
//! (`core-base/src/text.rs`) exists (`links.rs`).
//!
//! **Not run.** A block right after `<!-- not run: REASON -->` (blank lines between are
//! allowed) is not run; its lines are counted under the reason and printed. Its `toolscope`
//! commands still have their files checked. A marker with no reason, or not before a shell
//! block with commands, fails the test.
//!
//! Modules: `markdown` (blocks, markers, command lines), `shell` (words, stages, which run
//! `toolscope`), `run` (the copies, running, judging), `links` (links and paths).

mod links;
mod markdown;
mod run;
mod shell;

use std::fs;
use std::path::Path;
use std::time::Instant;

use markdown::{Block, extract};
use run::{Runner, snapshot};
use shell::{Invocation, expected_exit, invocations, is_tui};

/// `README.md` and `docs/*.md`: their paths relative to the repository, and their text.
fn doc_files(repo: &Path) -> Vec<(String, String)> {
    let mut names: Vec<String> = fs::read_dir(repo.join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    names.sort();
    names.insert(0, "README.md".to_string());
    names
        .into_iter()
        .map(|file| {
            let text = fs::read_to_string(repo.join(&file)).expect("read a docs file");
            (file, text)
        })
        .collect()
}

/// The blocks of named markdown texts, or what is wrong with them.
fn jobs(texts: &[(String, String)]) -> (Vec<(String, Block)>, Vec<String>) {
    let mut jobs = Vec::new();
    let mut problems = Vec::new();
    for (file, text) in texts {
        match extract(text) {
            Ok(blocks) => jobs.extend(blocks.into_iter().map(|b| (file.clone(), b))),
            Err(errors) => problems.extend(errors.into_iter().map(|e| format!("{file}: {e}"))),
        }
    }
    (jobs, problems)
}

// ---------------------------------------------------------------------------------------
// The tests

#[test]
fn every_shell_example_in_the_docs_runs() {
    let runner = Runner::new();
    let before = snapshot(&runner.repo);
    let (jobs, mut problems) = jobs(&doc_files(&runner.repo));
    assert!(
        jobs.iter().any(|(file, _)| file == "README.md"),
        "no shell example found in README.md: is the extractor broken?"
    );
    let start = Instant::now();
    let report = runner.run_all(jobs);
    println!(
        "{} commands run, {} TUI commands run up to the terminal, in {:.1?}",
        report.run,
        report.tui,
        start.elapsed()
    );
    for (reason, n) in &report.not_run {
        println!("not run ({reason}): {n}");
    }
    problems.extend(report.failures.into_iter().map(|(_, _, text)| text));
    assert!(
        problems.is_empty(),
        "{} docs examples do not run as shown:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(
        snapshot(&runner.repo) == before,
        "a docs example changed the repository's example files"
    );
}

#[test]
fn every_link_and_path_in_the_docs_resolves() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let problems: Vec<String> = doc_files(repo)
        .iter()
        .flat_map(|(file, text)| links::check(repo, file, text))
        .collect();
    assert!(
        problems.is_empty(),
        "{} cross-references lead nowhere:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The synthetic page of the extractor's tests (line numbers matter).
const PAGE: &str = r#"# A page

```sh
# a comment line
toolscope lint toolkits/graph-db.yaml   # exit 1: errors
NO_COLOR=1 toolscope recommend a.yaml \
  --operator "Query Expert/1" -o out.json
echo "x # y" | toolscope set a.yaml desc N > /dev/null
```

<!-- not run: needs network -->

```bash
cargo build
```

```console
$ toolscope lint b.yml
b.yml:1:1: error
```

```yaml
x: toolscope lint c.yaml
```

- an item

  ```sh
  toolscope sweep dir/
  ```

````sh
toolscope c.yaml --ascii  # TUI
````
"#;

#[test]
fn the_extractor_finds_commands_comments_continuations_and_markers() {
    let blocks = extract(PAGE).expect("a well-formed page");
    let found: Vec<(Option<&str>, usize, &str, Option<&str>)> = blocks
        .iter()
        .flat_map(|b| {
            b.examples.iter().map(|e| {
                (
                    b.not_run.as_deref(),
                    e.line,
                    e.code.as_str(),
                    e.comment.as_deref(),
                )
            })
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                None,
                5,
                "toolscope lint toolkits/graph-db.yaml",
                Some("exit 1: errors")
            ),
            (
                None,
                6,
                "NO_COLOR=1 toolscope recommend a.yaml   --operator \"Query Expert/1\" -o out.json",
                None
            ),
            (
                None,
                8,
                "echo \"x # y\" | toolscope set a.yaml desc N > /dev/null",
                None
            ),
            (Some("needs network"), 14, "cargo build", None),
            (None, 18, "toolscope lint b.yml", None),
            (None, 29, "toolscope sweep dir/", None),
            (None, 33, "toolscope c.yaml --ascii", Some("TUI")),
        ]
    );
    let calls = invocations(&blocks[0].examples[1].code);
    assert_eq!(
        calls,
        [Invocation {
            args: [
                "recommend",
                "a.yaml",
                "--operator",
                "Query Expert/1",
                "-o",
                "out.json"
            ]
            .map(String::from)
            .to_vec(),
            reads: vec!["a.yaml".to_string()],
            absolute: vec![],
        }]
    );
    let piped = invocations(&blocks[0].examples[2].code);
    assert_eq!(piped.len(), 1);
    assert_eq!(piped[0].args, ["set", "a.yaml", "desc", "N"]);
    assert!(invocations("cargo build").is_empty());
    assert!(invocations("echo toolscope").is_empty());
    assert_eq!(
        invocations("toolscope lint < in.yaml 2> err.json")[0].reads,
        ["in.yaml"]
    );
    assert!(is_tui(&["c.yaml".into(), "--ascii".into()]));
    assert!(is_tui(&[]));
    assert!(is_tui(&["tui".into(), "--ascii".into()]));
    assert!(!is_tui(&["--no-mcp-cache".into(), "lint".into()]));
    assert!(!is_tui(&["lint".into(), "c.yaml".into()]));
    assert_eq!(expected_exit(Some("exit 1: errors")), Ok(1));
    assert_eq!(expected_exit(Some("the bundled example")), Ok(0));
    assert!(expected_exit(Some("exit one")).is_err());
}

#[test]
fn the_extractor_refuses_stray_markers_and_open_blocks() {
    let errors = |page: &str| extract(page).err().unwrap_or_default();
    assert_eq!(
        errors("<!-- not run: x -->\ntext\n```sh\ntoolscope\n```\n"),
        ["line 1: a not-run marker before no code block"]
    );
    assert_eq!(
        errors("<!-- not run: -->\n```sh\ncargo build\n```\n"),
        ["line 1: a marker is `<!-- not run: REASON -->`"]
    );
    assert_eq!(
        errors("<!-- not run: x -->\n```yaml\na: 1\n```\n"),
        ["line 1: a not-run marker before a `yaml` block"]
    );
    assert_eq!(
        errors("```sh\ntoolscope\n"),
        ["line 1: a code block that is never closed"]
    );
}

/// The checker fails, naming the line, on each way an example can be wrong; and what it
/// runs never changes the repository.
#[test]
fn broken_examples_are_caught() {
    let page = "\
```sh
toolscope lint toolkits/graph-db.yaml
toolscope lint no-such-kit.yaml
toolscope recommend toolkits/graph-db.yaml --no-such-flag
toolscope lint toolkits/graph-db.yaml   # exit 1
toolscope lint /etc/hostname
cargo build
toolscope toolkits/graph-db.yaml --no-such-flag
toolscope toolkits/graph-db.yaml --ascii
echo hi | toolscope set toolkits/graph-db.yaml desc NoSuchNode
toolscope set toolkits/graph-db.yaml threshold query 0.9
```
";
    let runner = Runner::new();
    let before = snapshot(&runner.repo);
    let (jobs, problems) = jobs(&[("page.md".to_string(), page.to_string())]);
    assert!(problems.is_empty(), "{problems:?}");
    let report = runner.run_all(jobs);
    let failed: Vec<usize> = report.failures.iter().map(|f| f.1).collect();
    assert_eq!(failed, [3, 4, 5, 6, 7, 8, 10], "{:#?}", report.failures);
    let text = |i: usize| &report.failures[i].2;
    assert!(text(0).starts_with("page.md:3: `toolscope lint no-such-kit.yaml`"));
    assert!(text(0).ends_with("no-such-kit.yaml does not exist"));
    assert!(text(1).contains("exit Some(2), expected 0"));
    assert!(text(2).contains("exit Some(0), expected 1"));
    assert!(text(3).contains("an absolute path"));
    assert!(text(4).contains("not a toolscope command"));
    assert!(text(5).contains("the TUI should stop"));
    assert!(text(6).contains("exit Some(1), expected 0"));
    assert_eq!((report.run, report.tui), (2, 1));
    assert!(
        snapshot(&runner.repo) == before,
        "an example changed the repository"
    );
}
