//! Unfinished outputs are removed when the run is interrupted.
//!
//! Outputs are written into private temporary directories beside their targets and renamed into
//! place only when the whole run is complete ([`crate::output`]). Their destructors remove them
//! on an error, but a signal ends the process without running destructors, so every such
//! directory is also listed here, and a thread that waits for SIGINT, SIGTERM and SIGHUP removes
//! the listed directories, says that the run was interrupted and exits with 128 + the signal's
//! number (130 for Ctrl-C, 143 for SIGTERM), as a shell reports a process killed by it.
//!
//! The list's lock is held while outputs are committed, so a signal that arrives then waits until
//! every target is replaced: it never finds half the outputs moved.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use tempfile::TempDir;

/// The temporary directories that a signal must remove.
static UNFINISHED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The list of unfinished directories, locked. A poisoned lock still holds a valid list.
pub fn unfinished() -> MutexGuard<'static, Vec<PathBuf>> {
    UNFINISHED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Makes a temporary directory with `make` and lists it for removal on a signal (starting to
/// listen for signals, once), holding the list's lock throughout: a signal waits until the
/// directory is listed, so it never finds one made and not yet listed, which it would leave
/// behind.
pub fn make_listed<E>(make: impl FnOnce() -> Result<TempDir, E>) -> Result<TempDir, E> {
    static LISTEN: Once = Once::new();
    LISTEN.call_once(listen);
    let mut list = unfinished();
    let dir = make()?;
    list.push(dir.path().to_owned());
    Ok(dir)
}

/// Takes `dir` off the list (it was committed or removed).
pub fn forget(list: &mut Vec<PathBuf>, dir: &Path) {
    list.retain(|d| d != dir);
}

fn listen() {
    // Without the handler a signal still ends the run, only without the clean-up.
    let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            let list = unfinished();
            for dir in list.iter() {
                let _ = std::fs::remove_dir_all(dir);
            }
            let name = match signal {
                SIGINT => "SIGINT",
                SIGTERM => "SIGTERM",
                _ => "SIGHUP",
            };
            eprintln!(
                "error: interrupted by {name}; removed {} unfinished output(s)",
                list.len()
            );
            std::process::exit(128 + signal);
        }
    });
}
