//! Reading the files a user names (`--config`, `--events`, `--init`; Python's `params` and
//! `load`) without trusting them.
//!
//! A path may be anything: `/dev/zero`, a FIFO, a directory, a multi-gigabyte log. Reading such a
//! file to the end would run the machine out of memory before any parser could complain, so whole
//! documents are read with a size limit (`read_text`) and state files, which may rightly hold
//! millions of rows, are read through [`crate::LineLimit`], which refuses only an absurdly long
//! line.
//! Every message names the flag (or argument) and the path, and the operating system's cause
//! appears once.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result, bail};

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;

/// The most a `--config` file may hold: far beyond any parameter file, well within memory.
pub const CONFIG_LIMIT: u64 = 16 * MIB;
/// The most an `--events` log may hold (the viewer keeps at most 8 MiB of events).
pub const EVENTS_LIMIT: u64 = 64 * MIB;

/// Opens `path` for `flag`, refusing a directory before anything is read.
pub fn open(flag: &str, path: &Path) -> Result<File> {
    let name = path.display();
    let file = File::open(path).with_context(|| format!("{flag} {name}: cannot open"))?;
    let metadata = file
        .metadata()
        .with_context(|| format!("{flag} {name}: cannot inspect"))?;
    if metadata.is_dir() {
        bail!("{flag} {name}: is a directory, not a file");
    }
    Ok(file)
}

/// Reads the UTF-8 text of `path`, given with `flag`, refusing more than `limit` bytes.
pub fn read_text(flag: &str, path: &Path, limit: u64) -> Result<String> {
    let name = path.display();
    let mut bytes = Vec::new();
    open(flag, path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .with_context(|| format!("{flag} {name}: cannot read"))?;
    if bytes.len() as u64 > limit {
        bail!(
            "{flag} {name}: larger than {}, the most {flag} accepts",
            show_size(limit)
        );
    }
    String::from_utf8(bytes).map_err(|err| {
        let offset = err.utf8_error().valid_up_to();
        let line = err.as_bytes()[..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        anyhow::anyhow!(
            "{flag} {name}, line {line}: not UTF-8 text (invalid byte at offset {offset})"
        )
    })
}

/// A byte count as a limit is spoken of: `16 MiB`, `64 KiB`.
fn show_size(bytes: u64) -> String {
    match bytes {
        b if b >= MIB && b % MIB == 0 => format!("{} MiB", b / MIB),
        b if b >= KIB && b % KIB == 0 => format!("{} KiB", b / KIB),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_spoken_in_their_unit() {
        assert_eq!(show_size(CONFIG_LIMIT), "16 MiB");
        assert_eq!(show_size(64 * KIB), "64 KiB");
        assert_eq!(show_size(1000), "1000 bytes");
    }
}
