//! The list of unfinished outputs: the private temporary directories that [`crate::output`]
//! writes into, which a signal must remove.
//!
//! Their destructors remove them on an error, but a signal ends the process without running
//! destructors. Only the front end that owns the process may decide what a signal does (the
//! `boids` command removes the listed directories and exits; inside a Python interpreter a
//! signal stays Python's), so this crate keeps the list and the front end registers its
//! watcher ([`set_signal_watcher`]), which starts when the first directory is listed.
//!
//! The list's lock is held while outputs are committed, so a signal that arrives then waits until
//! every target is replaced: it never finds half the outputs moved.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once, OnceLock};

use tempfile::TempDir;

/// The temporary directories that a signal must remove.
static UNFINISHED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// What starts watching for signals, as the front end registered it.
static WATCHER: OnceLock<fn()> = OnceLock::new();

/// The list of unfinished directories, locked. A poisoned lock still holds a valid list.
pub fn lock() -> MutexGuard<'static, Vec<PathBuf>> {
    UNFINISHED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Registers `start`, which starts watching for signals (and removes the listed directories
/// when one comes, holding [`lock`]); it is called once, before the first directory is listed.
/// Without a watcher a signal does what it otherwise does.
pub fn set_signal_watcher(start: fn()) {
    // A second registration changes nothing: the first watcher may already run.
    let _ = WATCHER.set(start);
}

/// Makes a temporary directory with `make` and lists it for removal on a signal (starting the
/// watcher, once), holding the list's lock throughout: a signal waits until the directory is
/// listed, so it never finds one made and not yet listed, which it would leave behind.
pub(crate) fn make_listed<E>(make: impl FnOnce() -> Result<TempDir, E>) -> Result<TempDir, E> {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        if let Some(start) = WATCHER.get() {
            start();
        }
    });
    let mut list = lock();
    let dir = make()?;
    list.push(dir.path().to_owned());
    Ok(dir)
}

/// Takes `dir` off the list (it was committed or removed).
pub(crate) fn forget(list: &mut Vec<PathBuf>, dir: &Path) {
    list.retain(|d| d != dir);
}
