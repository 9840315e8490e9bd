//! Trajectory files: positions and velocities every E steps, as `.npz` (for numpy) or `.csv`
//! (tidy, for pandas), chosen by extension. Beside each goes `FILE.params.toml`: the run's full
//! parameters (usable as `--config`) headed by the command line that repeats the run.
//!
//! `.npz` arrays: `states` float32 (frames, N, 2D) holding the position then the velocity of
//! boid ids 0..N, `D` being the run's `dimensions` (x, y, vx, vy in 2D; x, y, z, vx, vy, vz in
//! 3D); `predators` float32 (frames, P, 2D), the same for predators 0..P, when the run has P > 0;
//! `steps` uint64 (frames,); `groups` uint8 (N,); `seed` uint64 (1,); `params_toml` uint8 (the
//! TOML text). Frames are streamed to disk as they are produced, so memory stays flat. The
//! arrays have one size, the first frame's: a replayed event log that changes the number of
//! boids or predators is refused at the step it does so (the CSV form takes any number).
//!
//! `.csv` columns: `step,id,x,y,vx,vy,group` (`step,id,x,y,z,vx,vy,vz,group` in 3D), one row per
//! boid per frame, then, when the run has
//! predators (or replays an event log, which may add some), a `kind` column (`boid` or
//! `predator`) and a row per predator after the frame's boids: its `id` counts predators (0..P)
//! apart from boids, and its `group` is empty.
//!
//! `-` writes the CSV form to standard output, without a sidecar (the command line that repeats
//! the run is the one just typed).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};
use boids_core::{Coordinates, Dim, Dimension, FlockState, Params};
use boids_io::output::{Content, Labelled, Pending, Ready, Target, WorkDir};
use boids_io::resume::sidecar_path;
use boids_io::state_csv::{BOID, PREDATOR, motion_columns, predator_motion};
use npyz::WriterBuilder;
use npyz::npz::NpzWriter;
use npyz::zip::write::FileOptions;

/// File format of a trajectory, from its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// numpy archive.
    Npz,
    /// CSV, one row per boid per frame.
    Csv,
}

impl Format {
    /// The format named by `path`'s extension (CSV for `-`, standard output).
    pub fn of(path: &Path) -> Result<Self> {
        if path == Path::new("-") {
            return Ok(Format::Csv);
        }
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("npz") => Ok(Format::Npz),
            Some("csv") => Ok(Format::Csv),
            _ => bail!(
                "--trajectory {}: unknown format; allowed extensions are .npz and .csv",
                path.display()
            ),
        }
    }
}

/// What a trajectory records about the run besides its frames.
pub struct RunInfo<'a> {
    /// Parameters of the run.
    pub params: &'a Params,
    /// Seed of the run.
    pub seed: u64,
    /// Command line that repeats the run.
    pub command: String,
    /// Whether the run replays an event log, whose changes may add predators.
    pub replays_events: bool,
}

/// Where a trajectory goes: the file and, unless it is standard output, its sidecar.
pub struct TrajectoryTargets {
    /// The trajectory.
    pub data: Target,
    /// `FILE.params.toml`, absent for standard output.
    pub sidecar: Option<Target>,
}

impl TrajectoryTargets {
    /// Resolves `--trajectory path` and its sidecar (checked like any other output).
    pub fn new(path: &Path) -> Result<Self> {
        let format = Format::of(path)?;
        let content = match format {
            Format::Csv => Content::Text,
            Format::Npz => Content::Binary,
        };
        let data = Target::new("--trajectory", path, content)?;
        let sidecar = if data.is_stdout() {
            None
        } else {
            let path = sidecar_path(path);
            Some(Target::new(
                "the parameters of --trajectory",
                &path,
                Content::Text,
            )?)
        };
        Ok(Self { data, sidecar })
    }
}

/// An open trajectory being written.
pub struct TrajectoryWriter {
    sink: Sink,
    sidecar: Option<Pending>,
}

enum Sink {
    Csv {
        file: Pending,
        /// Whether rows have a `kind` column (and predators rows of their own).
        kinds: bool,
    },
    Npz(Box<NpzFrames>),
}

/// An array of frames streamed to a scratch `.npy` file; copied into the archive at the end.
struct Streamed {
    writer: npyz::NpyWriter<f32, Labelled<BufWriter<File>>>,
    scratch: WorkDir,
    /// Rows a frame has (boids or predators).
    rows: usize,
}

impl Streamed {
    /// A scratch array of `frames` frames of `rows` rows of `width` coordinates (position,
    /// then velocity) for `target`.
    fn create(target: &Target, frames: u64, rows: usize, width: usize) -> Result<Self> {
        let scratch = WorkDir::for_target(target)?;
        let file = File::create(scratch.file())
            .with_context(|| format!("{}: cannot create a temporary file", target.label()))?;
        let writer = npyz::WriteOptions::new()
            .default_dtype()
            .shape(&[frames, rows as u64, width as u64])
            .writer(Labelled::new(BufWriter::new(file), target))
            .begin_nd()?;
        Ok(Self {
            writer,
            scratch,
            rows,
        })
    }

    /// Appends the frame of `agents` (named `what` in a message) at `step`; refuses a frame of
    /// another size than the array's.
    fn push<const D: usize>(
        &mut self,
        step: u64,
        what: &str,
        agents: impl ExactSizeIterator<Item = [[f32; D]; 2]>,
    ) -> Result<()> {
        if agents.len() != self.rows {
            bail!(
                "--trajectory: the run has {} {what} at step {step} but {} at its start; an .npz trajectory holds a fixed number (write .csv instead)",
                agents.len(),
                self.rows
            );
        }
        self.writer.extend(agents.flatten().flatten())?;
        Ok(())
    }

    /// Completes the array and copies it into `zip` as `NAME.npy`.
    fn copy_into(
        self,
        name: &str,
        label: &str,
        zip: &mut npyz::zip::ZipWriter<Pending>,
    ) -> Result<()> {
        self.writer.finish()?;
        let mut data = File::open(self.scratch.file())
            .with_context(|| format!("{label}: cannot read back its frames"))?;
        zip.start_file(format!("{name}.npy"), options())?;
        std::io::copy(&mut data, zip)?;
        Ok(())
    }
}

/// The `.npz` being written: `states` and `predators` streamed, the small arrays kept.
struct NpzFrames {
    states: Streamed,
    /// Left out of the archive when the run has no predators.
    predators: Streamed,
    archive: Pending,
    steps: Vec<u64>,
    groups: Vec<u8>,
    seed: u64,
    params_toml: String,
}

/// The boids of `state` as (position, velocity) coordinates, in id order.
fn boids_of<const D: usize>(
    state: &FlockState<D>,
) -> impl ExactSizeIterator<Item = [[f32; D]; 2]> + '_
where
    Dim<D>: Dimension<D>,
{
    let motion = state.positions.iter().zip(&state.velocities);
    motion.map(|(p, v)| [p.to_array(), v.to_array()])
}

/// The predators of `state` as (position, velocity) coordinates.
fn predators_of<const D: usize>(
    state: &FlockState<D>,
) -> impl ExactSizeIterator<Item = [[f32; D]; 2]> + '_
where
    Dim<D>: Dimension<D>,
{
    state.predators.iter().map(predator_motion::<D>)
}

/// The coordinates of `motion` as CSV cells, each followed by a comma.
fn cells<const D: usize>(motion: [[f32; D]; 2]) -> String {
    motion.iter().flatten().map(|v| format!("{v},")).collect()
}

impl TrajectoryWriter {
    /// Opens `targets` for `frames` frames of a run that starts as `start`.
    pub fn create<const D: usize>(
        targets: &TrajectoryTargets,
        frames: u64,
        info: &RunInfo,
        start: &FlockState<D>,
    ) -> Result<Self>
    where
        Dim<D>: Dimension<D>,
    {
        let path = targets.data.path();
        let sidecar = match &targets.sidecar {
            Some(target) => {
                let mut file = target.create()?;
                write!(
                    file,
                    "# boids trajectory {}\n# repeat with: {}\n# seed = {}\n{}",
                    path.display(),
                    info.command,
                    info.seed,
                    info.params.to_toml()
                )?;
                Some(file)
            }
            None => None,
        };
        let sink = match Format::of(path)? {
            Format::Csv => {
                let mut file = targets.data.create()?;
                let kinds = !start.predators.is_empty() || info.replays_events;
                let kind_column = if kinds { ",kind" } else { "" };
                let motion = motion_columns(D).join(",");
                writeln!(file, "step,id,{motion},group{kind_column}")?;
                Sink::Csv { file, kinds }
            }
            Format::Npz => {
                let data = &targets.data;
                Sink::Npz(Box::new(NpzFrames {
                    states: Streamed::create(data, frames, start.len(), 2 * D)?,
                    predators: Streamed::create(data, frames, start.predators.len(), 2 * D)?,
                    archive: data.create()?,
                    steps: Vec::new(),
                    groups: start.groups.clone(),
                    seed: info.seed,
                    params_toml: info.params.to_toml(),
                }))
            }
        };
        Ok(Self { sink, sidecar })
    }

    /// Appends one frame (state in id order) at `step`.
    pub fn write_frame<const D: usize>(&mut self, step: u64, state: &FlockState<D>) -> Result<()>
    where
        Dim<D>: Dimension<D>,
    {
        match &mut self.sink {
            Sink::Csv { file, kinds } => {
                let kind = |name: &str| {
                    if *kinds {
                        format!(",{name}")
                    } else {
                        String::new()
                    }
                };
                let boid = kind(BOID);
                for (i, motion) in boids_of(state).enumerate() {
                    let (cells, group) = (cells(motion), state.groups[i]);
                    writeln!(file, "{step},{i},{cells}{group}{boid}")?;
                }
                let predator = kind(PREDATOR);
                for (i, motion) in predators_of(state).enumerate() {
                    writeln!(file, "{step},{i},{}{predator}", cells(motion))?;
                }
            }
            Sink::Npz(npz) => {
                npz.states.push(step, "boids", boids_of(state))?;
                npz.predators.push(step, "predators", predators_of(state))?;
                npz.steps.push(step);
            }
        }
        Ok(())
    }

    /// Completes the file and its `.params.toml` sidecar, ready to be committed with the run's
    /// other outputs.
    pub fn finish(self) -> Result<Vec<Ready>> {
        let mut ready = vec![match self.sink {
            Sink::Csv { file, .. } => file.finish()?,
            Sink::Npz(npz) => npz.pack()?,
        }];
        if let Some(sidecar) = self.sidecar {
            ready.push(sidecar.finish()?);
        }
        Ok(ready)
    }
}

/// Every member of the archive: stored, of any size, and dated the zip format's first day
/// (1980-01-01) rather than when it was written, so that equal runs give equal bytes.
fn options() -> FileOptions {
    FileOptions::default()
        .compression_method(npyz::zip::CompressionMethod::Stored)
        .large_file(true)
        .last_modified_time(npyz::zip::DateTime::default())
}

impl NpzFrames {
    /// Writes the archive: the small arrays, then the streamed ones copied in.
    fn pack(self) -> Result<Ready> {
        let label = self.archive.target().label();
        let mut npz = NpzWriter::new(self.archive);
        write_1d(&mut npz, "steps", &self.steps)?;
        write_1d(&mut npz, "groups", &self.groups)?;
        write_1d(&mut npz, "seed", &[self.seed])?;
        write_1d(&mut npz, "params_toml", self.params_toml.as_bytes())?;
        let zip = npz.zip_writer();
        self.states.copy_into("states", &label, zip)?;
        if self.predators.rows > 0 {
            self.predators.copy_into("predators", &label, zip)?;
        }
        zip.finish()?.finish()
    }
}

fn write_1d<T: npyz::AutoSerialize + Copy, W: Write + std::io::Seek>(
    npz: &mut NpzWriter<W>,
    name: &str,
    data: &[T],
) -> Result<()> {
    let mut writer = npz
        .array::<T>(name, options())?
        .default_dtype()
        .shape(&[data.len() as u64])
        .begin_nd()?;
    writer.extend(data.iter().copied())?;
    writer.finish()?;
    Ok(())
}
