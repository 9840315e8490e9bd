//! Trajectory files: positions and velocities every E steps, as `.npz` (for numpy) or `.csv`
//! (tidy, for pandas), chosen by extension. Beside each goes `FILE.params.toml`: the run's full
//! parameters (usable as `--config`) headed by the command line that repeats the run.
//!
//! `.npz` arrays: `states` float32 (frames, N, 4) holding x, y, vx, vy of boid ids 0..N;
//! `steps` uint64 (frames,); `groups` uint8 (N,); `seed` uint64 (1,); `params_toml` uint8 (the
//! TOML text). Frames are streamed to disk as they are produced, so memory stays flat.
//! `.csv` columns: `step,id,x,y,vx,vy,group`, one row per boid per frame.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use boids_core::{FlockState, Params};
use npyz::WriterBuilder;
use npyz::npz::NpzWriter;
use npyz::zip::write::FileOptions;
use tempfile::NamedTempFile;

use crate::output::{AtomicFile, temp_beside};

/// File format of a trajectory, from its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// numpy archive.
    Npz,
    /// CSV, one row per boid per frame.
    Csv,
}

impl Format {
    /// The format named by `path`'s extension.
    pub fn of(path: &Path) -> Result<Self> {
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

/// An open trajectory being written.
pub struct TrajectoryWriter {
    path: PathBuf,
    sink: Sink,
    sidecar: String,
}

enum Sink {
    Csv(AtomicFile),
    Npz(NpzFrames),
}

/// The `states` array streamed to a temporary `.npy` file; packed into the archive at the end.
struct NpzFrames {
    states: npyz::NpyWriter<f32, std::io::BufWriter<std::fs::File>>,
    states_file: NamedTempFile,
    steps: Vec<u64>,
    groups: Vec<u8>,
    seed: u64,
    params_toml: String,
}

impl TrajectoryWriter {
    /// Opens `path` for `frames` frames of `n` boids.
    pub fn create(path: &Path, frames: u64, info: &RunInfo, groups: &[u8]) -> Result<Self> {
        let sidecar = format!(
            "# boids trajectory {}\n# repeat with: {}\n# seed = {}\n{}",
            path.display(),
            info.command,
            info.seed,
            info.params.to_toml()
        );
        let sink = match Format::of(path)? {
            Format::Csv => {
                let mut file = AtomicFile::create(path)?;
                writeln!(file.writer(), "step,id,x,y,vx,vy,group")?;
                Sink::Csv(file)
            }
            Format::Npz => {
                let states_file = temp_beside(path)?;
                let states = npyz::WriteOptions::new()
                    .default_dtype()
                    .shape(&[frames, groups.len() as u64, 4])
                    .writer(std::io::BufWriter::new(states_file.reopen()?))
                    .begin_nd()?;
                Sink::Npz(NpzFrames {
                    states,
                    states_file,
                    steps: Vec::new(),
                    groups: groups.to_vec(),
                    seed: info.seed,
                    params_toml: info.params.to_toml(),
                })
            }
        };
        Ok(Self {
            path: path.to_owned(),
            sink,
            sidecar,
        })
    }

    /// Appends one frame (state in id order) at `step`.
    pub fn write_frame(&mut self, step: u64, state: &FlockState) -> Result<()> {
        match &mut self.sink {
            Sink::Csv(file) => {
                let out = file.writer();
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
                for (p, v) in state.positions.iter().zip(&state.velocities) {
                    npz.states.extend([p.x, p.y, v.x, v.y])?;
                }
                npz.steps.push(step);
            }
        }
        Ok(())
    }

    /// Completes the file and its `.params.toml` sidecar.
    pub fn finish(self) -> Result<()> {
        let sidecar_path = sidecar_path(&self.path);
        let mut sidecar = AtomicFile::create(&sidecar_path)?;
        sidecar.writer().write_all(self.sidecar.as_bytes())?;
        match self.sink {
            Sink::Csv(file) => file.commit()?,
            Sink::Npz(npz) => npz.pack(&self.path)?,
        }
        sidecar.commit()
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
    fn pack(self, path: &Path) -> Result<()> {
        self.states.finish()?;
        let archive = temp_beside(path)?;
        let mut npz = NpzWriter::new(std::io::BufWriter::new(archive.reopen()?));
        write_1d(&mut npz, "steps", &self.steps)?;
        write_1d(&mut npz, "groups", &self.groups)?;
        write_1d(&mut npz, "seed", &[self.seed])?;
        write_1d(&mut npz, "params_toml", self.params_toml.as_bytes())?;
        let zip = npz.zip_writer();
        zip.start_file("states.npy", options())?;
        std::io::copy(&mut self.states_file.reopen()?, zip)?;
        zip.finish()?.flush()?;
        archive
            .persist(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(())
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
