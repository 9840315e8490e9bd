//! `boids render`: pictures without a screen. Runs a flock headless and writes its last frame
//! as a PNG, or frames every E steps as a looping GIF or (through ffmpeg) an MP4, chosen by the
//! output's extension. Everything that can be refused (size, format, ffmpeg, parameters, the
//! output path) is checked before the first step, and the output appears only when complete.
//!
//! With `--events`, the flock is a session saved from the viewer, replayed: each change applies
//! at the step it was made, so the frames show the flock as it was run.
//!
//! A flock of three dimensions (`dimensions = 3`) is drawn in perspective, from `--camera-angle`
//! and turning by `--orbit` degrees over the animation; the dimension is chosen once, and one
//! generic path runs both.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use boids_core::params::Camera;
use boids_core::{Dim, Params, Simulation, with_dimensions};
use boids_io::events::EventLog;
use boids_io::input::{EVENTS_LIMIT, read_text};
use boids_io::output::{self, Content, Pending, Target};
use boids_render::{
    CameraAngle, Canvas, Format, GifWriter, ImageSize, Mp4Writer, Orbit, Palette, Renderer, Scene,
    write_png,
};
use clap::Args;

use crate::changes::{Changes, NoChanges};
use crate::flock_args::FlockArgs;
use crate::numbers::whole;
use crate::run::progress_bar;

/// Flags of `boids render`.
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct RenderArgs {
    #[command(flatten)]
    pub flock: FlockArgs,
    /// Number of steps to run; the last frame is at step K (with --events, by default the step
    /// the session was saved at).
    #[arg(long, value_name = "K", value_parser = whole(0..=u64::MAX), required_unless_present = "events")]
    pub steps: Option<u64>,
    /// Render a session saved from the viewer (`boids serve`, its "Event log (JSON)"): the
    /// flock of its last start/reset event, with each change applied at its step, as
    /// `boids run --events` replays it. Replaces the flags that choose the flock.
    #[arg(long, value_name = "FILE.json", conflicts_with_all = ["preset", "config", "set", "count", "seed"])]
    pub events: Option<PathBuf>,
    /// Output file: .png (last frame), .gif (looping animation) or .mp4 (needs ffmpeg).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Image size in pixels (each side 16..=8192; even sides for .mp4).
    #[arg(long, value_name = "WxH", default_value = "640x480", value_parser = parse_size)]
    pub size: ImageSize,
    /// Steps between animation frames.
    #[arg(long, value_name = "E", default_value_t = 1, value_parser = whole(1..=u64::MAX))]
    pub every: u64,
    /// Steps run before the first animation frame (lets the flock form first).
    #[arg(long, value_name = "S", default_value_t = 0, value_parser = whole(0..=u64::MAX))]
    pub warmup: u64,
    /// Frames per second of .gif and .mp4 (GIF rounds the delay to 1/100 s).
    #[arg(long, value_name = "F", default_value_t = 25, value_parser = clap::value_parser!(u32).range(1..=50))]
    pub fps: u32,
    /// What the frames show: the whole world, the whole flock fitted (refitted every frame),
    /// or the largest flock followed at the world view's scale (default: the `camera`
    /// parameter: `follow` in the couzin preset, `fit` in murmuration).
    #[arg(long, value_name = "CAMERA", value_parser = parse_camera)]
    pub camera: Option<Camera>,
    /// Draw seed 000's debug overlays: visual radius, velocity, cohesion (red), separation
    /// (green), alignment (blue), and torus ghosts.
    #[arg(long)]
    pub overlay: bool,
    /// Where the 3D camera looks from: azimuth (turn about the vertical axis, -360..=360; 0
    /// looks along +z, 90 from the +x side) and elevation (-89..=89; positive looks down), in
    /// degrees. Needs dimensions=3.
    #[arg(long, value_name = "AZ,EL", value_parser = parse_angle, allow_hyphen_values = true)]
    pub camera_angle: Option<CameraAngle>,
    /// Turn the 3D camera by DEG degrees about the vertical axis over the whole animation
    /// (360: one full turn that loops seamlessly). Needs dimensions=3 and a .gif or .mp4.
    #[arg(long, value_name = "DEG", allow_hyphen_values = true)]
    pub orbit: Option<f32>,
    /// Worker threads for the simulation (default: all cores). Images do not depend on it.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
}

fn parse_size(text: &str) -> Result<ImageSize, String> {
    text.parse()
        .map_err(|e: boids_render::RenderError| e.to_string())
}

fn parse_angle(text: &str) -> Result<CameraAngle, String> {
    text.parse()
        .map_err(|e: boids_render::RenderError| e.to_string())
}

/// Turns accepted by `--orbit`, in degrees: ten full turns either way.
const ORBIT_RANGE: (f32, f32) = (-3600.0, 3600.0);

fn parse_camera(text: &str) -> Result<Camera, String> {
    Camera::from_name(text).ok_or_else(|| format!("allowed: {}", Camera::NAMES.join(", ")))
}

/// What the frames are drawn from: the flock's parameters, with `--camera` for its `camera`
/// parameter (how the frames are framed, which the flock's steps never read).
fn drawn(params: &Params, camera: Option<Camera>) -> Params {
    let mut drawn = params.clone();
    if let Some(camera) = camera {
        drawn.camera = camera;
    }
    drawn
}

/// Where frames go until the output is complete.
enum Sink {
    Png(Pending),
    Gif(GifWriter<Pending>),
    /// ffmpeg writes the temporary file of the pending output itself.
    Mp4 {
        writer: Mp4Writer,
        file: Pending,
    },
}

impl Sink {
    fn create(
        format: Format,
        target: &Target,
        args: &RenderArgs,
        palette: Palette,
    ) -> Result<Self> {
        let file = target.create()?;
        Ok(match format {
            Format::Png => Self::Png(file),
            Format::Gif => Self::Gif(GifWriter::new(file, args.size, args.fps, palette)?),
            Format::Mp4 => Self::Mp4 {
                writer: Mp4Writer::start(&file.temp_path(), args.size, args.fps)?,
                file,
            },
        })
    }

    fn push(&mut self, canvas: &Canvas) -> Result<()> {
        match self {
            Self::Png(file) => write_png(canvas, file)?,
            Self::Gif(gif) => gif.push(canvas)?,
            Self::Mp4 { writer, .. } => writer.push(canvas)?,
        }
        Ok(())
    }

    fn finish(self) -> Result<()> {
        let file = match self {
            Self::Png(file) => file,
            Self::Gif(gif) => gif.finish()?,
            Self::Mp4 { writer, file } => {
                writer.finish()?;
                file
            }
        };
        output::commit(vec![file.finish()?])
    }
}

/// Runs `boids render`.
pub fn render(args: &RenderArgs) -> Result<()> {
    let target = Target::new("--out", &args.out, Content::Binary)?;
    let format = Format::from_path(&args.out).with_context(|| "--out")?;
    format
        .check_size(args.size)
        .with_context(|| format!("--size {}", args.size))?;
    let inputs: Vec<(&str, &Path)> = [("--config", &args.flock.config), ("--events", &args.events)]
        .into_iter()
        .filter_map(|(flag, path)| path.as_deref().map(|p| (flag, p)))
        .collect();
    output::check(&inputs, &[&target])?;
    crate::set_threads(args.threads)?;
    let recorded = match &args.events {
        Some(path) => {
            let text = read_text("--events", path, EVENTS_LIMIT)?;
            let origin = path.display().to_string();
            let log = EventLog::parse(&text, &origin)?;
            let plan = Plan::new(args, format, args.steps.unwrap_or(log.end_step(&origin)?))?;
            with_dimensions!(log.dimensions(&origin)?, D, {
                let (mut sim, replay) = log.replay::<D>(&origin)?;
                crate::engines::move_to(&mut sim, args.flock.engine)?;
                plan.record(&target, sim, replay, format!("the session of {origin}"))?
            })
        }
        None => {
            let plan = Plan::new(args, format, args.steps.unwrap_or_default())?;
            let params = args.flock.builder()?.build()?;
            let seed = args.flock.seed;
            let source = format!("{} preset, seed {seed}", args.flock.preset);
            with_dimensions!(params.dimensions, D, {
                let sim = Simulation::<D>::with_engine(params, seed, args.flock.engine.build()?)?;
                plan.record(&target, sim, NoChanges, source)?
            })
        }
    };
    println!(
        "wrote {}: {} frame{} of {} ({} boids, {}, step {})",
        args.out.display(),
        recorded.frames,
        if recorded.frames == 1 { "" } else { "s" },
        args.size,
        recorded.boids,
        recorded.source,
        recorded.step
    );
    Ok(())
}

/// A recording's frames: the flags of `boids render` with its number of steps resolved.
struct Plan<'a> {
    args: &'a RenderArgs,
    format: Format,
    steps: u64,
}

impl<'a> Plan<'a> {
    fn new(args: &'a RenderArgs, format: Format, steps: u64) -> Result<Self> {
        if format.is_animated() && args.warmup > steps {
            bail!(
                "--warmup {} is beyond --steps {steps}: the first frame must come at or before the last step",
                args.warmup
            );
        }
        Ok(Plan {
            args,
            format,
            steps,
        })
    }

    /// Number of frames the output will hold.
    fn frame_count(&self) -> u64 {
        match self.format {
            Format::Png => 1,
            _ => (self.steps - self.args.warmup) / self.args.every + 1,
        }
    }

    /// Whether the frame of step `k` is recorded.
    fn records(&self, k: u64) -> bool {
        let args = self.args;
        match self.format {
            Format::Png => k == self.steps,
            _ => k >= args.warmup && (k - args.warmup).is_multiple_of(args.every),
        }
    }

    /// The next step after `k` that [`Self::records`] (the last step if none is before it).
    fn next_record(&self, k: u64) -> u64 {
        let args = self.args;
        let next = match self.format {
            Format::Png => self.steps,
            _ if k < args.warmup => args.warmup,
            _ => k + args.every - (k - args.warmup) % args.every,
        };
        next.min(self.steps)
    }

    /// The 3D camera of `--camera-angle` and `--orbit`, checked against the flock and the
    /// output.
    fn orbit(&self, params: &Params) -> Result<Orbit> {
        let args = self.args;
        let flags = [
            ("--camera-angle", args.camera_angle.map(|a| a.to_string())),
            ("--orbit", args.orbit.map(|d| d.to_string())),
        ];
        if params.dimensions != 3
            && let Some((flag, Some(value))) = flags.iter().find(|(_, value)| value.is_some())
        {
            bail!(
                "{flag} {value} turns the camera of a 3D flock; this one is {}D (dimensions = {}): add --set dimensions=3",
                params.dimensions,
                params.dimensions
            );
        }
        let degrees = args.orbit.unwrap_or(0.0);
        let (lo, hi) = ORBIT_RANGE;
        if !(lo..=hi).contains(&degrees) {
            bail!("--orbit {degrees} is out of range [{lo}, {hi}] degrees");
        }
        if degrees != 0.0 && !self.format.is_animated() {
            bail!(
                "--orbit {degrees} turns the camera over an animation; a .png has one frame: write .gif or .mp4, or set its angle with --camera-angle"
            );
        }
        Ok(Orbit {
            angle: args.camera_angle.unwrap_or_default(),
            degrees_per_frame: degrees / self.frame_count() as f32,
        })
    }

    /// Runs `sim` for the plan's steps with `changes`, drawing the frames it records into
    /// `target`; `source` names the flock in the summary.
    fn record<const D: usize>(
        &self,
        target: &Target,
        mut sim: Simulation<D>,
        mut changes: impl Changes<D>,
        source: String,
    ) -> Result<Recorded>
    where
        Dim<D>: Scene<D>,
    {
        let args = self.args;
        let orbit = self.orbit(sim.params())?;
        let drawn = drawn(sim.params(), args.camera);
        let mut renderer = Renderer::<D>::new(&drawn, args.size, args.overlay).orbiting(orbit);
        let palette = Palette::for_style(renderer.style());
        let mut sink = Sink::create(self.format, target, args, palette)?;
        // Drawing a frame costs about as much as stepping one boid per pixel it fills, so the
        // bar's "work" counts both.
        let pixels = (args.size.width as usize * args.size.height as usize) / args.every as usize;
        let progress = progress_bar(self.steps, sim.len() + pixels);
        let mut frames = 0u64;
        changes.apply_due(&mut sim)?;
        let mut k = 0;
        loop {
            if self.records(k) {
                sink.push(renderer.draw(&sim))?;
                frames += 1;
            }
            if k == self.steps {
                break;
            }
            // Up to the next frame or change in one go (one batch on the GPU engine), on a
            // thread of the pool, as `boids run` steps.
            let change = k.saturating_add(changes.steps_before_due(sim.step_count()));
            let next = self.next_record(k).min(change);
            boids_core::in_pool(|| sim.step_many(next - k))?;
            changes.apply_due(&mut sim)?;
            progress.inc(next - k);
            k = next;
        }
        progress.finish_and_clear();
        sink.finish()?;
        Ok(Recorded {
            frames,
            boids: sim.len(),
            step: sim.step_count(),
            source,
        })
    }
}

/// What a finished recording reached, for the summary line.
struct Recorded {
    frames: u64,
    boids: usize,
    step: u64,
    /// The flock's preset and seed, or the session it replays.
    source: String,
}
