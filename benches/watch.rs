//! Latency from a file write on disk to the watcher's event (rename-over saves, as vim
//! does). The TUI's reload and redraw come on top; see the reload benchmark.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use toolscope_core::watch::{WatchEvent, Watcher};

fn rename_over(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp~");
    if std::fs::write(&tmp, text).is_ok() {
        let _ = std::fs::rename(&tmp, path);
    }
}

fn wait_for(rx: &mpsc::Receiver<WatchEvent>, file: &PathBuf) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(WatchEvent::Changed(paths)) if paths.contains(file) => return,
            Ok(_) => {}
            Err(_) => return,
        }
    }
}

fn latency(c: &mut Criterion) {
    let Ok(dir) = tempfile::tempdir() else { return };
    let file = dir.path().join("toolkit.yaml");
    rename_over(&file, "actions: []\n");
    let (tx, rx) = mpsc::channel();
    let Ok(_watcher) = Watcher::new(std::slice::from_ref(&file), move |ev| {
        let _ = tx.send(ev);
    }) else {
        return;
    };
    let mut group = c.benchmark_group("watch");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(5));
    let mut n = 0u64;
    group.bench_function("write_to_event", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                n += 1;
                let t0 = Instant::now();
                rename_over(&file, &format!("actions: [v{n}]\n"));
                wait_for(&rx, &file);
                total += t0.elapsed();
                // Let the debouncer settle so each sample is one write.
                while rx.recv_timeout(Duration::from_millis(120)).is_ok() {}
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, latency);
criterion_main!(benches);
