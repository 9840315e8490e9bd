//! What resumes a saved flock besides its boids. A state CSV holds the boids, not the
//! parameters, seed and step that continue them, so a flock resumed from the CSV alone runs on
//! whatever parameters the caller restates, and silently diverges when one differs.
//! `Simulation.save` therefore writes them beside the state, in `STATE.csv.params.toml` (the name
//! of a trajectory's sidecar): every parameter as TOML, usable as `boids run --config`, headed by
//! comment lines giving the preset, seed and step and the command line that resumes the flock.
//! `Simulation.load` reads it back ([`read`]), so the flock resumes as it was saved.

use std::path::{Path, PathBuf};

use boids_core::{Params, ParamsBuilder};

use crate::StateFileError;

/// `FILE.params.toml` beside `FILE`: the parameters of a state or trajectory file.
pub fn sidecar_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".params.toml");
    PathBuf::from(name)
}

/// Where a saved flock was: the preset its parameters started from, its seed and its step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Saved {
    /// The preset the parameters started from (a name, for messages and `Simulation.preset`).
    pub preset: String,
    /// The seed of its random streams.
    pub seed: u64,
    /// The step it was saved at, the one it resumes at.
    pub step: u64,
}

/// The header lines' keys, in order.
const PRESET: &str = "preset";
const SEED: &str = "seed";
const STEP: &str = "step";

impl Saved {
    /// The sidecar of the state file `state` for a flock of `params` saved at `self`.
    pub fn sidecar(&self, state: &Path, params: &Params) -> String {
        let state_name = state.display();
        let sidecar = sidecar_path(state);
        format!(
            "# boids state {state_name}: the parameters, seed and step that resume it\n\
             # resume with: boids run --init {state_name} --preset {preset} --config {sidecar} --seed {seed} --start-step {step} --steps K\n\
             # {PRESET} = {preset}\n# {SEED} = {seed}\n# {STEP} = {step}\n{params}",
            sidecar = sidecar.display(),
            preset = self.preset,
            seed = self.seed,
            step = self.step,
            params = params.to_toml(),
        )
    }
}

/// Reads the sidecar text `text` (of the file `name`): where the flock was, and its parameter
/// layers (the preset, then every value of the file, each from its line).
pub fn read(text: &str, name: &str) -> Result<(Saved, ParamsBuilder), StateFileError> {
    let saved = Saved {
        preset: header(text, name, PRESET)?.to_owned(),
        seed: whole(text, name, SEED)?,
        step: whole(text, name, STEP)?,
    };
    let layers = ParamsBuilder::preset(&saved.preset)?.apply_toml(text, name)?;
    Ok((saved, layers))
}

/// The value of the header line `# key = value` of `text`.
fn header<'a>(text: &'a str, name: &str, key: &str) -> Result<&'a str, StateFileError> {
    let prefix = format!("# {key} = ");
    text.lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .map(str::trim)
        .ok_or_else(|| {
            StateFileError::Invalid(format!(
                "{name}: no `# {key} = ...` line; a saved flock's parameters file starts with its preset, seed and step, as Simulation.save writes them"
            ))
        })
}

/// The whole number of the header line `# key = N` of `text`.
fn whole(text: &str, name: &str, key: &str) -> Result<u64, StateFileError> {
    let value = header(text, name, key)?;
    value.parse().map_err(|_| {
        StateFileError::Invalid(format!(
            "{name}: `# {key} = {value}` is not allowed: allowed range is [0, {}]",
            u64::MAX
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved() -> Saved {
        Saved {
            preset: "vicsek".to_owned(),
            seed: 7,
            step: 300,
        }
    }

    #[test]
    fn a_sidecar_reads_back_as_it_was_written() {
        let params = ParamsBuilder::preset("vicsek")
            .and_then(|b| b.apply_toml("noise = 0.25\ncount = 40\n", "test"))
            .and_then(|b| b.build())
            .expect("valid parameters");
        let text = saved().sidecar(Path::new("flock.csv"), &params);
        assert!(text.contains("--init flock.csv --preset vicsek --config flock.csv.params.toml --seed 7 --start-step 300"), "{text}");
        let (read_back, layers) = read(&text, "flock.csv.params.toml").expect("it reads");
        assert_eq!(read_back, saved());
        assert_eq!(layers.build().expect("valid"), params);
    }

    #[test]
    fn a_sidecar_without_its_header_is_refused_naming_the_line_it_lacks() {
        let text = saved().sidecar(
            Path::new("f.csv"),
            &ParamsBuilder::preset("vicsek")
                .and_then(|b| b.build())
                .expect("valid"),
        );
        let without_seed = text.replace("# seed = 7\n", "");
        let error = read(&without_seed, "f.csv.params.toml")
            .map(drop)
            .expect_err("refused")
            .to_string();
        assert!(
            error.contains("f.csv.params.toml: no `# seed = ...` line"),
            "{error}"
        );
        let negative = text.replace("# step = 300", "# step = -1");
        let error = read(&negative, "f.csv.params.toml")
            .map(drop)
            .expect_err("refused")
            .to_string();
        assert!(
            error.contains("`# step = -1` is not allowed: allowed range is [0, "),
            "{error}"
        );
    }
}
