//! Output files: checked before a run starts, written aside, and put in place together only when
//! the whole run is complete.
//!
//! - An output names a [`Target`]: a regular file, new or replaced (a symbolic link is followed
//!   and the file it names is replaced, so the link stays a link; a read-only file, or another
//!   user's that this user may not write in place, is refused, before the run and again before
//!   the rename); a FIFO, a character device or an open descriptor, written in place
//!   (`/dev/null`, a named pipe, `/dev/stderr`); or standard output, `-` or `/dev/stdout`, for
//!   text outputs. A library call writes regular files only ([`Target::regular_file`]).
//! - [`check`] refuses, before anything is written, an output that would overwrite one of the
//!   run's inputs or another output (sidecar files included), compared by the file each path
//!   resolves to, so a link or a second name of the same file is caught too.
//! - Data goes to a [`Pending`] file in a private temporary directory: beside the target, so the
//!   final rename stays on one file system, or for a stream in the system's temporary directory.
//!   The directory is removed if the run fails and, through the list of [`crate::unfinished`],
//!   if it is interrupted by a signal (when the front end watches for signals).
//! - [`commit`] puts a run's outputs in place only once every one of them is complete: streams
//!   are copied into first (they can fail: `/dev/full`), then files are renamed over their
//!   targets. A failure before that leaves every target as it was.
//! - Every error names the flag and the target, never the temporary file.

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use tempfile::TempDir;

use crate::{replaceable, unfinished};

/// What an output holds: only text may go to standard output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    /// CSV, TOML.
    Text,
    /// Images, archives.
    Binary,
}

/// Where one output goes, resolved and checked before the run starts.
#[derive(Clone, Debug)]
pub struct Target {
    /// How the user named it: a flag, or a description for a file that goes beside another.
    flag: String,
    /// The path as given.
    given: PathBuf,
    dest: Dest,
}

#[derive(Clone, Debug)]
enum Dest {
    /// A regular file, new or replaced: the path with every symbolic link followed.
    File(PathBuf),
    /// A FIFO, a character device or an open descriptor (`/dev/fd/N`), opened and appended to
    /// in place.
    Stream(PathBuf),
    /// Standard output.
    Stdout,
}

impl Target {
    /// Resolves the output `path` of `flag`; refuses a directory (or a name ending in `/`), a
    /// missing directory, a block device or socket, and `-` for binary content.
    pub fn new(flag: &str, path: &Path, content: Content) -> Result<Self> {
        let named = || format!("{flag} {}", path.display());
        let real = resolve(path).with_context(named)?;
        let dest = if path == Path::new("-") || real == Path::new(STDOUT) {
            if content == Content::Binary {
                bail!(
                    "{}: standard output takes text outputs only; name a file",
                    named()
                );
            }
            Dest::Stdout
        } else if real.starts_with(DESCRIPTORS) {
            // A descriptor of this process names no file that could be replaced: write to it.
            Dest::Stream(path.to_owned())
        } else {
            destination(&real).with_context(named)?
        };
        Ok(Self::with_dest(flag, path, dest))
    }

    /// Resolves `path` as a regular file, new or replaced (links followed), for a caller with
    /// no standard output or devices of its own (a library call): `-` is a file's name, and a
    /// FIFO or device is refused as well as what [`Target::new`] refuses.
    pub fn regular_file(flag: &str, path: &Path) -> Result<Self> {
        let named = || format!("{flag} {}", path.display());
        let real = resolve(path).with_context(named)?;
        match destination(&real).with_context(named)? {
            dest @ Dest::File(_) => Ok(Self::with_dest(flag, path, dest)),
            _ => bail!("{}: is a device or a FIFO; name a regular file", named()),
        }
    }

    fn with_dest(flag: &str, path: &Path, dest: Dest) -> Self {
        Self {
            flag: flag.to_owned(),
            given: path.to_owned(),
            dest,
        }
    }

    /// The flag and the path, for messages: `--save out.csv`.
    pub fn label(&self) -> String {
        format!("{} {}", self.flag, self.given.display())
    }

    /// The path as given.
    pub fn path(&self) -> &Path {
        &self.given
    }

    /// Whether this output is standard output (so the run's summary goes to stderr instead).
    pub fn is_stdout(&self) -> bool {
        matches!(self.dest, Dest::Stdout)
    }

    /// Starts writing this output, in a temporary file until [`commit`].
    pub fn create(&self) -> Result<Pending> {
        let work = WorkDir::for_target(self)?;
        let file = File::create(work.file())
            .with_context(|| format!("{}: cannot create a temporary file", self.label()))?;
        Ok(Pending {
            target: self.clone(),
            writer: Labelled::new(BufWriter::new(file), self),
            work,
        })
    }

    /// What a clash with another file is compared on.
    fn identity(&self) -> Identity {
        match &self.dest {
            Dest::File(path) | Dest::Stream(path) => Identity::of(path),
            Dest::Stdout => Identity::Stdout,
        }
    }
}

/// Where the open descriptors of this process appear (`/dev/stdout` and `/dev/fd/N` link here).
const DESCRIPTORS: &str = "/proc/self/fd";
/// Standard output among them.
const STDOUT: &str = "/proc/self/fd/1";

/// The path an output's `path` resolves to (links followed); refuses a name ending in `/`,
/// which names a directory before any file exists.
fn resolve(path: &Path) -> Result<PathBuf> {
    if path.as_os_str().as_encoded_bytes().ends_with(b"/") {
        bail!("ends with '/', so it names a directory; name a file");
    }
    follow_links(path)
}

/// Follows symbolic links until a path that is not one (or does not exist yet), or one of this
/// process's descriptors, which stands for an open file rather than a path.
fn follow_links(path: &Path) -> Result<PathBuf> {
    let mut path = path.to_owned();
    for _ in 0..40 {
        if path.starts_with(DESCRIPTORS) {
            return Ok(path);
        }
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&path).context("cannot read the link")?;
                path = match path.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            Ok(_) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(path),
            Err(e) => return Err(e.into()),
        }
    }
    bail!("too many levels of symbolic links")
}

/// What kind of file `real` (links followed) is, and whether it may be written.
fn destination(real: &Path) -> Result<Dest> {
    match std::fs::metadata(real) {
        Ok(meta) if meta.is_dir() => bail!("is a directory; name a file"),
        Ok(meta) if meta.is_file() => {
            replaceable::check(real, &meta)?;
            Ok(Dest::File(real.to_owned()))
        }
        Ok(meta) if is_stream(&meta) => Ok(Dest::Stream(real.to_owned())),
        Ok(_) => bail!("is not a regular file, a FIFO or a character device"),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let dir = parent_of(real);
            match std::fs::metadata(dir) {
                Ok(meta) if meta.is_dir() => Ok(Dest::File(real.to_owned())),
                Ok(_) => bail!("{} is not a directory", dir.display()),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    bail!("directory {} does not exist", dir.display())
                }
                Err(e) => Err(e).with_context(|| format!("cannot use directory {}", dir.display())),
            }
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(unix)]
fn is_stream(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    meta.file_type().is_fifo() || meta.file_type().is_char_device()
}

#[cfg(not(unix))]
fn is_stream(_: &std::fs::Metadata) -> bool {
    false
}

/// The directory holding `path` (`.` for a bare file name).
fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The file a path stands for: the same file under two names (links, `./a` and `a`) is equal.
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    /// An existing file: device and inode (also catches hard links).
    Inode {
        device: u64,
        inode: u64,
        character_device: bool,
    },
    /// A file still to be created: its directory, resolved, and its name.
    New(PathBuf),
    Stdout,
}

impl Identity {
    fn of(path: &Path) -> Self {
        #[cfg(unix)]
        if let Ok(meta) = std::fs::metadata(path) {
            use std::os::unix::fs::{FileTypeExt, MetadataExt};
            return Identity::Inode {
                device: meta.dev(),
                inode: meta.ino(),
                character_device: meta.file_type().is_char_device(),
            };
        }
        let dir = parent_of(path);
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
        Identity::New(match path.file_name() {
            Some(name) => dir.join(name),
            None => dir,
        })
    }

    /// Several outputs may share a character device (`/dev/null`); nothing else.
    fn may_be_shared(&self) -> bool {
        matches!(
            self,
            Identity::Inode {
                character_device: true,
                ..
            }
        )
    }
}

/// Refuses an output that names one of the `inputs` (flag, path) or another output.
pub fn check(inputs: &[(&str, &Path)], outputs: &[&Target]) -> Result<()> {
    for (i, out) in outputs.iter().enumerate() {
        let identity = out.identity();
        if let Some((flag, input)) = inputs
            .iter()
            .find(|(_, input)| Identity::of(input) == identity)
        {
            bail!(
                "{} would overwrite the input {flag} {}",
                out.label(),
                input.display()
            );
        }
        if identity.may_be_shared() {
            continue;
        }
        if let Some(other) = outputs[..i].iter().find(|o| o.identity() == identity) {
            bail!(
                "{} and {} name the same file: each output needs its own",
                other.label(),
                out.label()
            );
        }
    }
    Ok(())
}

/// A private temporary directory holding one output's unfinished data, listed for removal on a
/// signal; dropping it removes it.
pub struct WorkDir(Option<TempDir>);

impl WorkDir {
    /// A directory beside `target`'s file, or in the system's temporary directory for a stream.
    pub fn for_target(target: &Target) -> Result<Self> {
        let base = match &target.dest {
            Dest::File(path) => parent_of(path).to_owned(),
            Dest::Stream(_) | Dest::Stdout => std::env::temp_dir(),
        };
        let dir = unfinished::make_listed(|| {
            tempfile::Builder::new().prefix(".boids-").tempdir_in(&base)
        })
        .map_err(|e| {
            // The error names the temporary path; the user knows the target instead.
            anyhow::anyhow!(
                "{}: cannot create a temporary directory in {}: {}",
                target.label(),
                base.display(),
                io::Error::from(e.kind())
            )
        })?;
        Ok(Self(Some(dir)))
    }

    /// The data file inside.
    pub fn file(&self) -> PathBuf {
        self.0
            .as_ref()
            .expect("open until closed")
            .path()
            .join("data")
    }

    /// Removes the directory while the caller holds the list of unfinished directories.
    fn close(mut self, list: &mut Vec<PathBuf>) {
        if let Some(dir) = self.0.take() {
            unfinished::forget(list, dir.path());
        }
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if let Some(dir) = self.0.take() {
            unfinished::forget(&mut unfinished::lock(), dir.path());
        }
    }
}

/// A writer whose errors name the output they belong to: `--save out.csv: cannot write: No
/// space left on device`.
pub struct Labelled<W> {
    inner: W,
    label: String,
}

impl<W> Labelled<W> {
    /// Labels `inner`'s errors with `target`.
    pub fn new(inner: W, target: &Target) -> Self {
        Self {
            inner,
            label: target.label(),
        }
    }

    fn error(&self, error: io::Error) -> io::Error {
        write_error(&self.label, error)
    }
}

/// `error` as a write error of the output `label` names.
fn write_error(label: &str, error: io::Error) -> io::Error {
    io::Error::new(error.kind(), format!("{label}: cannot write: {error}"))
}

impl<W: Write> Write for Labelled<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).map_err(|e| self.error(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().map_err(|e| self.error(e))
    }
}

impl<W: Seek> Seek for Labelled<W> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos).map_err(|e| self.error(e))
    }
}

/// An output being written. Write errors name the flag and target.
pub struct Pending {
    target: Target,
    writer: Labelled<BufWriter<File>>,
    work: WorkDir,
}

impl Pending {
    /// The temporary file, for a program that writes the output itself (ffmpeg).
    pub fn temp_path(&self) -> PathBuf {
        self.work.file()
    }

    /// The output's target.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Completes the data (flushed and synced to disk); it goes in place at [`commit`].
    pub fn finish(self) -> Result<Ready> {
        let Labelled { inner, label } = self.writer;
        let file = inner
            .into_inner()
            .map_err(|e| write_error(&label, e.into_error()))?;
        file.sync_all().map_err(|e| write_error(&label, e))?;
        Ok(Ready {
            target: self.target,
            work: self.work,
        })
    }
}

impl Write for Pending {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

impl Seek for Pending {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.writer.seek(pos)
    }
}

/// A complete output, waiting for the rest of the run's outputs.
pub struct Ready {
    target: Target,
    work: WorkDir,
}

/// Puts complete outputs in place: copies into streams first, then renames files over their
/// targets while holding off signals, so an interruption never finds them half moved.
pub fn commit(outputs: Vec<Ready>) -> Result<()> {
    let (streams, files): (Vec<Ready>, Vec<Ready>) = outputs
        .into_iter()
        .partition(|r| !matches!(r.target.dest, Dest::File(_)));
    for ready in &streams {
        copy_into_stream(ready)
            .with_context(|| format!("{}: cannot write", ready.target.label()))?;
    }
    let mut list = unfinished::lock();
    let mut files = files.into_iter();
    let renamed = files
        .by_ref()
        .try_for_each(|ready| ready.rename_into_place(&mut list));
    // After a failure the rest are removed while the list is held: a work directory dropped
    // now would wait for the lock this thread holds, for ever.
    for rest in files {
        rest.work.close(&mut list);
    }
    renamed
}

impl Ready {
    /// Renames the data over the target file, unless it is now one that may not be replaced,
    /// then removes the work directory (whether the rename succeeded or not) while the caller
    /// holds the list of unfinished directories.
    fn rename_into_place(self, list: &mut Vec<PathBuf>) -> Result<()> {
        let Dest::File(path) = &self.target.dest else {
            unreachable!("partitioned into files")
        };
        let renamed = replaceable::check_path(path)
            .with_context(|| self.target.label())
            .and_then(|()| {
                keep_permissions(path, &self.work.file());
                std::fs::rename(self.work.file(), path)
                    .with_context(|| format!("{}: cannot replace the file", self.target.label()))
            });
        self.work.close(list);
        renamed
    }
}

fn copy_into_stream(ready: &Ready) -> io::Result<()> {
    let mut data = File::open(ready.work.file())?;
    match &ready.target.dest {
        Dest::Stdout => {
            let mut out = io::stdout().lock();
            io::copy(&mut data, &mut out)?;
            out.flush()
        }
        Dest::Stream(path) => {
            let mut out = std::fs::OpenOptions::new().append(true).open(path)?;
            io::copy(&mut data, &mut out)?;
            out.flush()
        }
        Dest::File(_) => unreachable!("files are renamed"),
    }
}

/// A replaced file keeps its permissions; a new one gets the usual ones (0666 less the umask),
/// as `File::create` made it.
fn keep_permissions(target: &Path, data: &Path) {
    if let Ok(meta) = std::fs::metadata(target) {
        let _ = std::fs::set_permissions(data, meta.permissions());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_followed_to_the_file_they_name() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("real.csv");
        std::fs::write(&file, "old").unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink("real.csv", &link).unwrap();
        let target = Target::new("--save", &link, Content::Text).unwrap();
        let mut pending = target.create().unwrap();
        pending.write_all(b"new").unwrap();
        commit(vec![pending.finish().unwrap()]).unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            2,
            "no temporary left"
        );
    }

    #[test]
    fn a_dropped_output_leaves_nothing_and_the_target_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.csv");
        std::fs::write(&file, "old").unwrap();
        let target = Target::new("--save", &file, Content::Text).unwrap();
        let mut pending = target.create().unwrap();
        pending.write_all(b"new").unwrap();
        let ready = pending.finish().unwrap();
        drop(ready);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        assert!(!unfinished::lock().iter().any(|d| d.starts_with(dir.path())));
    }

    #[test]
    fn a_failed_rename_returns_and_removes_every_work_directory() {
        let dir = tempfile::tempdir().unwrap();
        let ready = |name: &str| {
            let target = Target::new("--save", &dir.path().join(name), Content::Text).unwrap();
            let mut pending = target.create().unwrap();
            pending.write_all(b"new").unwrap();
            pending.finish().unwrap()
        };
        let outputs = vec![ready("a.csv"), ready("b.csv")];
        // a.csv becomes a directory with a file in it: no file can be renamed over it.
        std::fs::create_dir_all(dir.path().join("a.csv/inside")).unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || sender.send(commit(outputs).map_err(|e| format!("{e:#}"))));
        let err = receiver
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("commit returns")
            .unwrap_err();
        assert!(err.contains("a.csv: cannot replace the file"), "{err}");
        assert!(!err.contains(".boids-"), "{err}");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "only a.csv is left: {names:?}");
        assert!(!unfinished::lock().iter().any(|d| d.starts_with(dir.path())));
    }

    #[test]
    fn two_names_of_one_file_clash() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        std::fs::write(&a, "").unwrap();
        std::fs::hard_link(&a, dir.path().join("b.csv")).unwrap();
        let t = |name: &str| Target::new("--save", &dir.path().join(name), Content::Text).unwrap();
        let err = check(&[], &[&t("a.csv"), &t("b.csv")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("name the same file"), "{err}");
        let new = dir.path().join("sub/../new.csv");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let err = check(
            &[],
            &[
                &t("new.csv"),
                &Target::new("--metrics", &new, Content::Text).unwrap(),
            ],
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("name the same file"), "{err}");
        let null = Target::new("--save", Path::new("/dev/null"), Content::Text).unwrap();
        check(&[], &[&null, &null.clone()]).expect("a character device may be shared");
    }
}
