//! Trajectory files: positions and velocities every E steps, as `.npz` (for numpy) or `.csv`
//! (tidy, for pandas), chosen by extension. Beside each goes `FILE.params.toml`: the run's full
//! parameters (usable as `--config`) headed by the command line that repeats the run.
//!
//! `.npz` arrays: `states` float32 (frames, N, 4) holding x, y, vx, vy of boid ids 0..N;
//! `steps` uint64 (frames,); `groups` uint8 (N,); `seed` uint64 (1,); `params_toml` uint8 (the
//! TOML text). Frames are streamed to disk as they are produced, so memory stays flat.
//! `.csv` columns: `step,id,x,y,vx,vy,group`, one row per boid per frame.
//!
//! `-` writes the CSV form to standard output, without a sidecar (the command line that repeats
//! the run is the one just typed).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use boids_core::{FlockState, Params};
use npyz::WriterBuilder;
use npyz::npz::NpzWriter;
use npyz::zip::write::FileOptions;

use crate::output::{Content, Labelled, Pending, Ready, Target, WorkDir};

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
    Csv(Pending),
    Npz(Box<NpzFrames>),
}

/// The `states` array streamed to a scratch `.npy` file; packed into the archive at the end.
struct NpzFrames {
    states: npyz::NpyWriter<f32, Labelled<BufWriter<File>>>,
    scratch: WorkDir,
    archive: Pending,
    steps: Vec<u64>,
    groups: Vec<u8>,
    seed: u64,
    params_toml: String,
}

impl TrajectoryWriter {
    /// Opens `targets` for `frames` frames of the boids in `groups`.
    pub fn create(
        targets: &TrajectoryTargets,
        frames: u64,
        info: &RunInfo,
        groups: &[u8],
    ) -> Result<Self> {
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
                writeln!(file, "step,id,x,y,vx,vy,group")?;
                Sink::Csv(file)
            }
            Format::Npz => {
                let scratch = WorkDir::for_target(&targets.data)?;
                let file = File::create(scratch.file()).with_context(|| {
                    format!("{}: cannot create a temporary file", targets.data.label())
                })?;
                let states = npyz::WriteOptions::new()
                    .default_dtype()
                    .shape(&[frames, groups.len() as u64, 4])
                    .writer(Labelled::new(BufWriter::new(file), &targets.data))
                    .begin_nd()?;
                Sink::Npz(Box::new(NpzFrames {
                    states,
                    scratch,
                    archive: targets.data.create()?,
                    steps: Vec::new(),
                    groups: groups.to_vec(),
                    seed: info.seed,
                    params_toml: info.params.to_toml(),
                }))
            }
        };
        Ok(Self { sink, sidecar })
    }

    /// Appends one frame (state in id order) at `step`.
    pub fn write_frame(&mut self, step: u64, state: &FlockState) -> Result<()> {
        match &mut self.sink {
            Sink::Csv(out) => {
                for i in 0..state.len() {
                    let (p, v) = (state.positions[i], state.velocities[i]);
                    writeln!(
                        out,
                        "{step},{i},{},{},{},{},{}",
                        p.x, p.y, v.x, v.y, state.groups[i]
                    )?;
                }
            }
            Sink::Npz(npz) => {
                let frame = state
                    .positions
                    .iter()
                    .zip(&state.velocities)
                    .flat_map(|(p, v)| [p.x, p.y, v.x, v.y]);
                npz.states.extend(frame)?;
                npz.steps.push(step);
            }
        }
        Ok(())
    }

    /// Completes the file and its `.params.toml` sidecar, ready to be committed with the run's
    /// other outputs.
    pub fn finish(self) -> Result<Vec<Ready>> {
        let mut ready = vec![match self.sink {
            Sink::Csv(file) => file.finish()?,
            Sink::Npz(npz) => npz.pack()?,
        }];
        if let Some(sidecar) = self.sidecar {
            ready.push(sidecar.finish()?);
        }
        Ok(ready)
    }
}

/// `FILE.params.toml` beside `FILE`.
pub fn sidecar_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".params.toml");
    PathBuf::from(name)
}

fn options() -> FileOptions {
    FileOptions::default()
        .compression_method(npyz::zip::CompressionMethod::Stored)
        .large_file(true)
}

impl NpzFrames {
    /// Writes the archive: the small arrays, then the streamed `states` copied in.
    fn pack(self) -> Result<Ready> {
        self.states.finish()?;
        let mut states = File::open(self.scratch.file()).with_context(|| {
            format!(
                "{}: cannot read back its frames",
                self.archive.target().label()
            )
        })?;
        let mut npz = NpzWriter::new(self.archive);
        write_1d(&mut npz, "steps", &self.steps)?;
        write_1d(&mut npz, "groups", &self.groups)?;
        write_1d(&mut npz, "seed", &[self.seed])?;
        write_1d(&mut npz, "params_toml", self.params_toml.as_bytes())?;
        let zip = npz.zip_writer();
        zip.start_file("states.npy", options())?;
        std::io::copy(&mut states, zip)?;
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
