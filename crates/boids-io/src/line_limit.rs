//! A reader that refuses absurdly long lines: a state file may rightly hold millions of rows,
//! so it is not read with a size limit, but no row is 64 KiB long, and a path that names
//! `/dev/zero` or a binary file must fail after a few kilobytes instead of filling memory.

use std::io::{self, Read};

/// The longest line a state file may have; a real row is under 100 bytes.
pub const LINE_LIMIT: u64 = 64 * 1024;

/// A reader that fails once a line grows past a limit, so a stream without line breaks
/// (`/dev/zero`) is refused after a few kilobytes instead of filling memory.
pub struct LineLimit<R> {
    inner: R,
    limit: u64,
    /// The 1-based number of the line being read.
    line: u64,
    /// Bytes of that line read so far.
    length: u64,
}

impl<R> LineLimit<R> {
    /// Wraps `inner`, allowing lines of at most `limit` bytes (not counting the line break).
    pub fn new(inner: R, limit: u64) -> Self {
        Self {
            inner,
            limit,
            line: 1,
            length: 0,
        }
    }

    fn add(&mut self, bytes: usize) -> io::Result<()> {
        self.length += bytes as u64;
        if self.length > self.limit {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "line {} is longer than {}: not a state file",
                    self.line,
                    show_size(self.limit)
                ),
            ));
        }
        Ok(())
    }
}

impl<R: Read> Read for LineLimit<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut pieces = buf[..n].split(|&b| b == b'\n');
        // The first piece continues the current line; each later one starts a new line.
        self.add(pieces.next().map_or(0, <[u8]>::len))?;
        for piece in pieces {
            self.line += 1;
            self.length = 0;
            self.add(piece.len())?;
        }
        Ok(n)
    }
}

/// A byte count as a limit is spoken of: `64 KiB`, `8 bytes`.
fn show_size(bytes: u64) -> String {
    match bytes {
        b if b >= 1024 && b % 1024 == 0 => format!("{} KiB", b / 1024),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_limit_passes_short_lines_and_stops_a_long_one() {
        let text = "x,y\n1,2\n".repeat(1000);
        let mut out = String::new();
        LineLimit::new(text.as_bytes(), 8)
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, text);
        let err = LineLimit::new("ab\nabcdefghi\n".as_bytes(), 8)
            .read_to_end(&mut Vec::new())
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(
            err.to_string(),
            "line 2 is longer than 8 bytes: not a state file"
        );
    }

    #[test]
    fn the_limit_is_spoken_in_its_unit() {
        assert_eq!(show_size(LINE_LIMIT), "64 KiB");
    }
}
