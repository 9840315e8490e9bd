//! Output formats: PNG (one frame), animated GIF (the `gif` crate, fixed palette), and MP4
//! (raw RGBA frames piped into an `ffmpeg` process, H.264 when it has libx264, else MPEG-4).
//!
//! Writers take any `Write` (or, for ffmpeg, a path), so the caller decides where bytes land;
//! the `boids` command writes to a temporary file beside the target and renames it at the end.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::str::FromStr;
use std::sync::mpsc::{SyncSender, sync_channel};
use std::thread::JoinHandle;

use crate::canvas::Canvas;
use crate::error::RenderError;
use crate::palette::Palette;

/// Environment variable naming the ffmpeg program to run (default `ffmpeg` on `PATH`).
pub const FFMPEG_ENV: &str = "BOIDS_FFMPEG";

/// Width and height of the images, in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageSize {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

impl ImageSize {
    /// Smallest side accepted.
    pub const MIN: u32 = 16;
    /// Largest side accepted (an 8192x8192 frame is 256 MiB of RGBA).
    pub const MAX: u32 = 8192;
}

impl std::fmt::Display for ImageSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

impl FromStr for ImageSize {
    type Err = RenderError;

    /// Parses `WxH`, e.g. `640x480`.
    fn from_str(s: &str) -> Result<Self, RenderError> {
        let bad = |reason: String| RenderError::Size {
            value: s.to_owned(),
            reason,
        };
        let (w, h) = s
            .split_once(['x', 'X'])
            .ok_or_else(|| bad("expected WIDTHxHEIGHT in pixels, e.g. 640x480".into()))?;
        let side = |text: &str, name: &str| {
            let value: u32 = text.trim().parse().map_err(|_| {
                bad(format!(
                    "{name} '{text}' is not a whole number; expected WIDTHxHEIGHT, e.g. 640x480"
                ))
            })?;
            if !(Self::MIN..=Self::MAX).contains(&value) {
                return Err(bad(format!(
                    "{name} {value} is out of range {}..={} pixels",
                    Self::MIN,
                    Self::MAX
                )));
            }
            Ok(value)
        };
        Ok(Self {
            width: side(w, "width")?,
            height: side(h, "height")?,
        })
    }
}

/// An output format, chosen by the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One PNG image of the last frame.
    Png,
    /// An animated, looping GIF.
    Gif,
    /// An MP4 video, through ffmpeg.
    Mp4,
}

impl Format {
    /// The format named by `path`'s extension (`.png`, `.gif`, `.mp4`, any case).
    pub fn from_path(path: &Path) -> Result<Self, RenderError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("png") => Ok(Self::Png),
            Some("gif") => Ok(Self::Gif),
            Some("mp4") => Ok(Self::Mp4),
            _ => Err(RenderError::UnknownFormat {
                path: path.display().to_string(),
            }),
        }
    }

    /// Whether the format holds more than one frame.
    pub fn is_animated(self) -> bool {
        self != Self::Png
    }

    /// Refuses sizes the format cannot hold: MP4's 4:2:0 chroma needs even sides.
    pub fn check_size(self, size: ImageSize) -> Result<(), RenderError> {
        if self == Self::Mp4 && (size.width % 2 == 1 || size.height % 2 == 1) {
            return Err(RenderError::SizeForFormat {
                format: "MP4 (yuv420p)",
                what: "an even width and height",
                width: size.width,
                height: size.height,
            });
        }
        Ok(())
    }
}

/// Writes `canvas` as a PNG file to `out`.
pub fn write_png(canvas: &Canvas, mut out: impl Write) -> Result<(), RenderError> {
    out.write_all(&canvas.encode_png()?)?;
    Ok(())
}

/// An animated GIF being written, one frame at a time, with a fixed global palette.
///
/// Quantising and LZW compression take most of a GIF frame's time, so they run on a worker
/// thread while the caller draws the next frame; frames are encoded in the order pushed, so the
/// file is the same as a single-threaded encoder's.
pub struct GifWriter<W: Write + Send + 'static> {
    frames: Option<SyncSender<Vec<u8>>>,
    worker: Option<JoinHandle<Result<W, RenderError>>>,
    size: ImageSize,
}

/// A GIF error as ours.
fn gif_error(e: gif::EncodingError) -> RenderError {
    match e {
        gif::EncodingError::Io(e) => RenderError::Io(e),
        e => RenderError::Gif(e.to_string()),
    }
}

impl<W: Write + Send + 'static> GifWriter<W> {
    /// Starts a looping GIF of `size` at `fps` frames per second. GIF delays count hundredths
    /// of a second, so the rate is rounded to 100/round(100/fps).
    pub fn new(
        out: W,
        size: ImageSize,
        fps: u32,
        mut palette: Palette,
    ) -> Result<Self, RenderError> {
        let too_big = |_| RenderError::SizeForFormat {
            format: "GIF",
            what: "sides of at most 65535 pixels",
            width: size.width,
            height: size.height,
        };
        let (w, h) = (
            u16::try_from(size.width).map_err(too_big)?,
            u16::try_from(size.height).map_err(too_big)?,
        );
        let mut encoder = gif::Encoder::new(out, w, h, &palette.rgb_bytes()).map_err(gif_error)?;
        encoder
            .set_repeat(gif::Repeat::Infinite)
            .map_err(gif_error)?;
        let delay = (100.0 / f64::from(fps.max(1))).round().max(1.0) as u16;
        let (frames, received) = sync_channel::<Vec<u8>>(2);
        let worker = std::thread::spawn(move || {
            let mut indices = Vec::new();
            for rgba in received {
                palette.index_pixels(&rgba, &mut indices);
                let mut frame = gif::Frame::from_indexed_pixels(w, h, indices, None);
                frame.delay = delay;
                encoder.write_frame(&frame).map_err(gif_error)?;
                indices = frame.buffer.into_owned();
            }
            encoder.into_inner().map_err(gif_error)
        });
        Ok(Self {
            frames: Some(frames),
            worker: Some(worker),
            size,
        })
    }

    /// Appends a frame (the canvas must have the writer's size).
    pub fn push(&mut self, canvas: &Canvas) -> Result<(), RenderError> {
        check_frame(canvas, self.size)?;
        let sent = match &self.frames {
            Some(frames) => frames.send(canvas.rgba().to_vec()).is_ok(),
            None => false,
        };
        if sent {
            return Ok(());
        }
        // The worker stopped on an error: report it.
        self.frames = None;
        match self.join() {
            Err(e) => Err(e),
            Ok(_) => Err(RenderError::Gif("the encoder stopped early".into())),
        }
    }

    /// Writes the remaining frames and the trailer, and returns the output.
    pub fn finish(mut self) -> Result<W, RenderError> {
        self.frames = None;
        self.join()
    }

    fn join(&mut self) -> Result<W, RenderError> {
        let worker = self
            .worker
            .take()
            .ok_or_else(|| RenderError::Gif("the encoder already stopped".into()))?;
        worker
            .join()
            .unwrap_or_else(|_| Err(RenderError::Gif("the encoder thread panicked".into())))
    }
}

impl<W: Write + Send + 'static> Drop for GifWriter<W> {
    /// A writer dropped unfinished lets its worker end before the output is dropped.
    fn drop(&mut self) {
        self.frames = None;
        if let Some(worker) = self.worker.take() {
            worker.join().ok();
        }
    }
}

fn check_frame(canvas: &Canvas, size: ImageSize) -> Result<(), RenderError> {
    if canvas.width() != size.width || canvas.height() != size.height {
        return Err(RenderError::Size {
            value: format!("{}x{}", canvas.width(), canvas.height()),
            reason: format!("frame differs from the output's size {size}"),
        });
    }
    Ok(())
}

/// The ffmpeg program to run: `$BOIDS_FFMPEG`, or `ffmpeg` on `PATH`.
pub fn ffmpeg_program() -> String {
    std::env::var(FFMPEG_ENV).unwrap_or_else(|_| "ffmpeg".to_owned())
}

/// Checks that ffmpeg runs, and picks its video encoder: `libx264` if it has it, else `mpeg4`.
pub fn ffmpeg_encoder() -> Result<&'static str, RenderError> {
    let program = ffmpeg_program();
    let missing = |reason: String| RenderError::FfmpegMissing {
        program: program.clone(),
        reason,
    };
    let output = Command::new(&program)
        .args(["-hide_banner", "-encoders"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| missing(e.to_string()))?;
    if !output.status.success() {
        return Err(missing(format!(
            "`-encoders` exited with {}",
            output.status
        )));
    }
    let listing = String::from_utf8_lossy(&output.stdout);
    let has = |name: &str| {
        listing
            .lines()
            .any(|line| line.split_whitespace().nth(1) == Some(name))
    };
    ["libx264", "mpeg4"]
        .into_iter()
        .find(|name| has(name))
        .ok_or_else(|| missing("it has neither the libx264 nor the mpeg4 encoder".into()))
}

/// An MP4 being written by an ffmpeg child process fed raw RGBA frames on its stdin.
pub struct Mp4Writer {
    child: Child,
    stdin: Option<ChildStdin>,
    stderr: Option<JoinHandle<String>>,
    size: ImageSize,
}

impl Mp4Writer {
    /// Starts ffmpeg writing an MP4 of `size` at `fps` to `path` (overwritten).
    pub fn start(path: &Path, size: ImageSize, fps: u32) -> Result<Self, RenderError> {
        Format::Mp4.check_size(size)?;
        let encoder = ffmpeg_encoder()?;
        let quality: &[&str] = match encoder {
            "libx264" => &["-preset", "medium", "-crf", "20"],
            _ => &["-q:v", "3"],
        };
        let mut child = Command::new(ffmpeg_program())
            .args(["-hide_banner", "-loglevel", "error", "-y"])
            .args(["-f", "rawvideo", "-pix_fmt", "rgba"])
            .args(["-video_size", &size.to_string()])
            .args(["-framerate", &fps.to_string()])
            .args(["-i", "pipe:0", "-an", "-c:v", encoder])
            .args(quality)
            .args([
                "-pix_fmt",
                "yuv420p",
                "-movflags",
                "+faststart",
                "-f",
                "mp4",
            ])
            .arg(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| RenderError::FfmpegMissing {
                program: ffmpeg_program(),
                reason: e.to_string(),
            })?;
        let stdin = child.stdin.take();
        let stderr = child.stderr.take().map(|mut pipe| {
            std::thread::spawn(move || {
                let mut text = String::new();
                pipe.read_to_string(&mut text).ok();
                text
            })
        });
        Ok(Self {
            child,
            stdin,
            stderr,
            size,
        })
    }

    /// Sends a frame (the canvas must have the writer's size).
    pub fn push(&mut self, canvas: &Canvas) -> Result<(), RenderError> {
        check_frame(canvas, self.size)?;
        let stdin = self.stdin.as_mut().expect("open until finish");
        if stdin.write_all(canvas.rgba()).is_err() {
            // ffmpeg stopped reading: its own message says why.
            self.stdin = None;
            return Err(self.wait().err().unwrap_or_else(|| RenderError::Ffmpeg {
                status: "exited early".into(),
                stderr: String::new(),
            }));
        }
        Ok(())
    }

    /// Closes the input and waits for ffmpeg to finish the file.
    pub fn finish(mut self) -> Result<(), RenderError> {
        self.stdin = None;
        self.wait()
    }

    fn wait(&mut self) -> Result<(), RenderError> {
        let status = self.child.wait()?;
        let stderr = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        if status.success() {
            return Ok(());
        }
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        Err(RenderError::Ffmpeg {
            status: status.to_string(),
            stderr: tail.into_iter().rev().collect::<Vec<_>>().join("; "),
        })
    }
}

impl Drop for Mp4Writer {
    /// A writer dropped unfinished (an error elsewhere) stops ffmpeg rather than leave it
    /// waiting on its input.
    fn drop(&mut self) {
        if self.stdin.take().is_some() {
            self.child.kill().ok();
            self.child.wait().ok();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_out_of_range_sides_are_refused_with_the_range() {
        let size: ImageSize = "480x360".parse().unwrap();
        assert_eq!((size.width, size.height), (480, 360));
        assert_eq!("64X32".parse::<ImageSize>().unwrap().to_string(), "64x32");
        for (bad, says) in [
            ("480", "expected WIDTHxHEIGHT"),
            ("0x360", "width 0 is out of range 16..=8192"),
            ("480x9000", "height 9000 is out of range 16..=8192"),
            ("ax360", "width 'a' is not a whole number"),
            ("-5x360", "width '-5' is not a whole number"),
        ] {
            let message = bad.parse::<ImageSize>().unwrap_err().to_string();
            assert!(message.contains(says), "{bad}: {message}");
            assert!(message.contains(bad), "{bad}: {message}");
        }
    }

    #[test]
    fn formats_follow_the_extension_and_mp4_needs_even_sides() {
        assert_eq!(
            Format::from_path(Path::new("a/b.PNG")).unwrap(),
            Format::Png
        );
        assert_eq!(Format::from_path(Path::new("x.gif")).unwrap(), Format::Gif);
        assert_eq!(Format::from_path(Path::new("x.mp4")).unwrap(), Format::Mp4);
        for bad in ["x.jpg", "x", "gif"] {
            let message = Format::from_path(Path::new(bad)).unwrap_err().to_string();
            assert!(message.contains(".png, .gif or .mp4"), "{message}");
        }
        let odd = ImageSize {
            width: 481,
            height: 360,
        };
        assert!(Format::Gif.check_size(odd).is_ok());
        let message = Format::Mp4.check_size(odd).unwrap_err().to_string();
        assert!(message.contains("even width and height") && message.contains("481x360"));
    }
}
