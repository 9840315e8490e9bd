//! Errors of rendering and encoding, each saying what was wrong and what is allowed.

/// What can go wrong while rendering or writing frames.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// An image size that is malformed or out of range.
    #[error("image size '{value}': {reason}")]
    Size {
        /// The size as given.
        value: String,
        /// What is wrong and what is allowed.
        reason: String,
    },
    /// A camera angle that is malformed or out of range.
    #[error("camera angle '{value}': {reason}")]
    CameraAngle {
        /// The angle as given.
        value: String,
        /// What is wrong and what is allowed.
        reason: String,
    },
    /// An output name whose extension names no format we write.
    #[error("cannot tell the format of '{path}' from its extension: expected .png, .gif or .mp4")]
    UnknownFormat {
        /// The output path.
        path: String,
    },
    /// A size the chosen format cannot hold.
    #[error("{format} needs {what}; got {width}x{height}")]
    SizeForFormat {
        /// The format.
        format: &'static str,
        /// What it needs.
        what: &'static str,
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
    },
    /// MP4 output without ffmpeg.
    #[error(
        "writing MP4 needs ffmpeg, and '{program}' could not be run ({reason}); install it \
         (Debian/Ubuntu: apt-get install ffmpeg) or write .gif or .png instead"
    )]
    FfmpegMissing {
        /// The program tried (`ffmpeg`, or `$BOIDS_FFMPEG`).
        program: String,
        /// Why it could not be run.
        reason: String,
    },
    /// ffmpeg ran but failed.
    #[error("ffmpeg failed ({status}): {stderr}")]
    Ffmpeg {
        /// Its exit status.
        status: String,
        /// The end of what it printed.
        stderr: String,
    },
    /// GIF encoding failed.
    #[error("cannot encode GIF: {0}")]
    Gif(String),
    /// PNG encoding failed.
    #[error("cannot encode PNG: {0}")]
    Png(String),
    /// Writing failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}
