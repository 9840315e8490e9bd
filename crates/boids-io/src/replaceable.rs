//! Whether an existing file may be replaced by an output.
//!
//! An output is written aside and renamed over its target ([`crate::output`]), and a rename
//! asks for the directory's permission, not the file's. So in a directory anyone may write, a
//! file this user could not write in place (another user's 0644 file) would be replaced by one
//! of this user's: its content gone and its owner changed. Such a file is refused, as a
//! read-only one is (as `cp` refuses it): when the output is resolved, before the run, and
//! again just before the rename, since the file may have appeared or changed meanwhile.

use std::fs::Metadata;
use std::io;
use std::path::Path;

use anyhow::{Result, bail};

/// Refuses to replace `path`, an existing regular file described by `meta`, when it is
/// read-only or when this process's user could not open it for writing in place.
pub(crate) fn check(path: &Path, meta: &Metadata) -> Result<()> {
    if meta.permissions().readonly() {
        bail!("is read-only: it is not replaced (make it writable to replace it)");
    }
    writable_in_place(path, meta)
}

/// [`check`] for `path` if it is an existing regular file; nothing to check otherwise (a new
/// file, or a directory the rename itself refuses).
pub(crate) fn check_path(path: &Path) -> Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => check(path, &meta),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Refuses a file that `access(W_OK)` says this user may not write. `access` asks for the
/// real user, which is this process's user: the command is never installed set-user-ID. Root
/// passes it for any file on a writable file system, as it may write any file in place.
#[cfg(unix)]
fn writable_in_place(path: &Path, meta: &Metadata) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    match rustix::fs::access(path, rustix::fs::Access::WRITE_OK) {
        Ok(()) => Ok(()),
        Err(rustix::io::Errno::ACCESS | rustix::io::Errno::PERM) => bail!(
            "belongs to user {} (mode {:04o}) and this user may not write it: it is not \
             replaced, which would take it from its owner (name a file of your own)",
            meta.uid(),
            meta.mode() & 0o7777
        ),
        Err(e) => bail!("cannot be written in place: {}", io::Error::from(e)),
    }
}

/// Without `access`, the mode's read-only flag is all there is to check.
#[cfg(not(unix))]
fn writable_in_place(_: &Path, _: &Metadata) -> Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_only_file_is_refused_and_a_writable_or_new_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.csv");
        std::fs::write(&file, "old").unwrap();
        check_path(&file).expect("a file of this user's may be replaced");
        check_path(&dir.path().join("new.csv")).expect("a new file");
        let mut permissions = std::fs::metadata(&file).unwrap().permissions();
        permissions.set_readonly(true);
        std::fs::set_permissions(&file, permissions).unwrap();
        let err = check_path(&file).unwrap_err().to_string();
        assert!(err.contains("is read-only"), "{err}");
    }

    #[test]
    fn a_file_that_appears_during_the_run_is_checked_before_the_rename() {
        use crate::output::{Content, Target, commit};
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.csv");
        let target = Target::new("--save", &file, Content::Text).unwrap();
        let mut pending = target.create().unwrap();
        pending.write_all(b"new").unwrap();
        let ready = pending.finish().unwrap();
        std::fs::write(&file, "old").unwrap();
        let mut permissions = std::fs::metadata(&file).unwrap().permissions();
        permissions.set_readonly(true);
        std::fs::set_permissions(&file, permissions).unwrap();
        let err = format!("{:#}", commit(vec![ready]).unwrap_err());
        assert!(
            err.contains("--save") && err.contains("is read-only"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "old");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "the temporary output is removed: {names:?}");
    }
}
