//! Running the blocks: each in a temporary copy of the example files, lines in order,
//! blocks in parallel; what each line must do.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::markdown::{Block, Example, NOT_RUN};
use super::shell::{expected_exit, invocations, is_tui};

/// What each block's temporary folder holds: every example file the docs name lives here.
pub const COPIED: &[&str] = &["toolkits", "tests/fixtures"];
/// What the TUI says when it finds no terminal, after its arguments and files were fine.
pub const TUI_STOP: &str = "cannot set up the terminal";
/// One command's bound; a docs example is never meant to take this long.
const TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Default)]
pub struct Report {
    /// (file, line, message), sorted by file and line.
    pub failures: Vec<(String, usize, String)>,
    /// CLI commands run with the expected exit code.
    pub run: usize,
    /// TUI commands run up to the terminal.
    pub tui: usize,
    /// Lines not run, by the marker's reason.
    pub not_run: BTreeMap<String, usize>,
}

/// What one line counts as.
enum Verdict {
    /// A CLI command that exited as expected.
    Run,
    /// The TUI, run up to the terminal.
    Tui,
    /// In a block marked not run, for this reason.
    NotRun(String),
    Failed,
}

impl Report {
    fn merge(&mut self, other: Report) {
        self.failures.extend(other.failures);
        self.run += other.run;
        self.tui += other.tui;
        for (reason, n) in other.not_run {
            *self.not_run.entry(reason).or_default() += n;
        }
    }
}

/// Where commands run: the repository they copy from and a folder whose `toolscope` is
/// the binary under test.
pub struct Runner {
    pub repo: PathBuf,
    bin: tempfile::TempDir,
}

impl Runner {
    pub fn new() -> Runner {
        let bin = tempfile::tempdir().expect("temporary folder");
        std::os::unix::fs::symlink(
            env!("CARGO_BIN_EXE_toolscope"),
            bin.path().join("toolscope"),
        )
        .expect("link the binary");
        Runner {
            repo: PathBuf::from(env!("CARGO_MANIFEST_DIR")),
            bin,
        }
    }

    /// Runs the blocks (named by their file) on a few threads, longest first.
    pub fn run_all(&self, mut jobs: Vec<(String, Block)>) -> Report {
        jobs.sort_by_key(|(_, block)| std::cmp::Reverse(block.examples.len()));
        let next = AtomicUsize::new(0);
        let total = Mutex::new(Report::default());
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 8));
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    while let Some((file, block)) = jobs.get(next.fetch_add(1, Ordering::SeqCst)) {
                        let report = self.run_block(file, block);
                        total.lock().expect("report").merge(report);
                    }
                });
            }
        });
        let mut report = total.into_inner().expect("report");
        report
            .failures
            .sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        report
    }

    fn run_block(&self, file: &str, block: &Block) -> Report {
        let mut report = Report::default();
        let tmp = tempfile::tempdir().expect("temporary folder");
        for dir in COPIED {
            copy_tree(&self.repo.join(dir), &tmp.path().join("work").join(dir));
        }
        for example in &block.examples {
            let (verdict, problems) = self.line(example, block.not_run.as_deref(), tmp.path());
            match verdict {
                Verdict::Run => report.run += 1,
                Verdict::Tui => report.tui += 1,
                Verdict::NotRun(reason) => *report.not_run.entry(reason).or_default() += 1,
                Verdict::Failed => {}
            }
            report.failures.extend(problems.into_iter().map(|why| {
                let text = format!("{file}:{}: `{}`: {why}", example.line, example.code);
                (file.to_string(), example.line, text)
            }));
        }
        report
    }

    /// Checks and runs one line in `tmp/work`: what it counts as, and what is wrong.
    fn line(&self, example: &Example, not_run: Option<&str>, tmp: &Path) -> (Verdict, Vec<String>) {
        let calls = invocations(&example.code);
        let mut problems: Vec<String> = calls
            .iter()
            .flat_map(|call| &call.reads)
            .filter_map(|path| self.unreadable(path, &tmp.join("work")))
            .collect();
        if let Some(reason) = not_run {
            return (Verdict::NotRun(reason.to_string()), problems);
        }
        if calls.is_empty() {
            let why = format!(
                "not a toolscope command; mark its block `{NOT_RUN} REASON -->` if it cannot \
                 run in a test"
            );
            return (Verdict::Failed, vec![why]);
        }
        problems.extend(
            calls
                .iter()
                .flat_map(|call| &call.absolute)
                .map(|path| format!("{path}: an absolute path reaches outside the example files")),
        );
        if !problems.is_empty() {
            return (Verdict::Failed, problems);
        }
        let tui = calls.iter().any(|call| is_tui(&call.args));
        let outcome = (
            expected_exit(example.comment.as_deref()),
            self.run(&example.code, tmp),
        );
        let why = match outcome {
            (Err(e), _) | (_, Err(e)) => e,
            (Ok(_), Ok((Some(1), stderr))) if tui && stderr.contains(TUI_STOP) => {
                return (Verdict::Tui, vec![]);
            }
            (Ok(_), Ok((code, stderr))) if tui => format!(
                "the TUI should stop at `{TUI_STOP}` with no terminal; exit {code:?}{}",
                tail(&stderr)
            ),
            (Ok(want), Ok((code, _))) if code == Some(want) => return (Verdict::Run, vec![]),
            (Ok(want), Ok((code, stderr))) => {
                format!("exit {code:?}, expected {want}{}", tail(&stderr))
            }
        };
        (Verdict::Failed, vec![why])
    }

    /// Why a file a command reads cannot be read in the copy, if it cannot.
    fn unreadable(&self, path: &str, work: &Path) -> Option<String> {
        if Path::new(path).is_absolute() || work.join(path).exists() {
            return None;
        }
        Some(if self.repo.join(path).exists() {
            format!("{path} is in the repository but not among the copied folders {COPIED:?}")
        } else {
            format!("{path} does not exist")
        })
    }

    /// Runs one line in `tmp/work`: its exit code (None: killed by a signal) and stderr.
    fn run(&self, code: &str, tmp: &Path) -> Result<(Option<i32>, String), String> {
        let state = tmp.join("state");
        fs::create_dir_all(&state).map_err(|e| e.to_string())?;
        let stderr_path = tmp.join("stderr");
        let open = |p: &Path| fs::File::create(p).map_err(|e| e.to_string());
        let path = std::env::join_paths(std::iter::once(self.bin.path().to_path_buf()).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ))
        .map_err(|e| e.to_string())?;
        let mut command = Command::new("bash");
        command
            .args(["-o", "pipefail", "-c", code])
            .current_dir(tmp.join("work"))
            .env("PATH", path)
            .env("TOOLSCOPE_STATE_DIR", &state)
            .env("XDG_STATE_HOME", &state)
            .stdin(Stdio::null())
            .stdout(open(&tmp.join("stdout"))?)
            .stderr(open(&stderr_path)?);
        // SAFETY: setsid is async-signal-safe and touches no memory of this process. A
        // session of its own leaves the command without a controlling terminal (so the TUI
        // can never take over the terminal running the tests) and makes its process group
        // killable as one.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command.spawn().map_err(|e| format!("bash: {e}"))?;
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
                break status;
            }
            if start.elapsed() > TIMEOUT {
                let group = i32::try_from(child.id()).map_err(|e| e.to_string())?;
                // SAFETY: a plain system call; the group is the child's own session.
                unsafe { libc::kill(-group, libc::SIGKILL) };
                let _ = child.wait();
                return Err(format!("did not finish in {TIMEOUT:?}; killed"));
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let stderr = fs::read(&stderr_path).map_err(|e| e.to_string())?;
        Ok((status.code(), String::from_utf8_lossy(&stderr).into_owned()))
    }
}

/// The last lines of a command's stderr, for a failure message.
fn tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().collect();
    let shown = &lines[lines.len().saturating_sub(8)..];
    shown.iter().map(|l| format!("\n      {l}")).collect()
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("create a folder in the copy");
    for entry in fs::read_dir(from).expect("read an example folder") {
        let entry = entry.expect("a folder entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).expect("copy an example file");
        }
    }
}

/// Every file under the copied folders with its bytes: what no example may change.
pub fn snapshot(repo: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in fs::read_dir(dir).expect("read a folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.insert(path.clone(), fs::read(&path).expect("read a file"));
            }
        }
    }
    let mut out = BTreeMap::new();
    for dir in COPIED {
        walk(&repo.join(dir), &mut out);
    }
    out
}
