//! Output files written atomically: data goes to a temporary file beside the target, which is
//! renamed over the target only when complete. A failed run leaves no half-written file, and an
//! output path that names one of the run's inputs is refused before anything is written.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use tempfile::NamedTempFile;

/// A file being written; it appears at its path only after [`AtomicFile::commit`].
pub struct AtomicFile {
    path: PathBuf,
    writer: BufWriter<NamedTempFile>,
}

impl AtomicFile {
    /// Starts writing `path` (in a temporary file in the same directory).
    pub fn create(path: &Path) -> Result<Self> {
        Ok(Self {
            path: path.to_owned(),
            writer: BufWriter::new(temp_beside(path)?),
        })
    }

    /// The writer for the file's contents.
    pub fn writer(&mut self) -> &mut BufWriter<NamedTempFile> {
        &mut self.writer
    }

    /// Flushes and renames the file into place.
    pub fn commit(self) -> Result<()> {
        let temp = self
            .writer
            .into_inner()
            .map_err(|e| e.into_error())
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        temp.as_file().sync_all().ok();
        temp.persist(&self.path)
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.flush()
    }
}

/// A temporary file in `path`'s directory (so the final rename stays on one file system), with
/// the permissions an ordinary new file gets rather than tempfile's private 0600.
pub fn temp_beside(path: &Path) -> Result<NamedTempFile> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".boids-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    builder
        .tempfile_in(dir)
        .with_context(|| format!("cannot create output file {}", path.display()))
}

/// Refuses outputs that would overwrite one of the inputs, or each other.
pub fn check_outputs(inputs: &[&Path], outputs: &[(&str, &Path)]) -> Result<()> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    for (i, (flag, out)) in outputs.iter().enumerate() {
        if let Some(input) = inputs.iter().find(|input| same(input, out)) {
            bail!(
                "{flag} {} would overwrite the input file {}",
                out.display(),
                input.display()
            );
        }
        if let Some((other, _)) = outputs[..i].iter().find(|(_, o)| same(o, out)) {
            bail!("{flag} and {other} both name {}", out.display());
        }
    }
    Ok(())
}
