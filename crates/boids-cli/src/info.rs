//! `boids presets` and `boids params`: what models there are and what every knob means.

use anyhow::Result;
use boids_core::{PARAMS, PRESETS};
use clap::Args;

use crate::flock_args::FlockArgs;

/// Flags of `boids presets`.
#[derive(Args, Debug)]
pub struct PresetsArgs {
    /// Also print each preset's source and its deviations from the seed.
    #[arg(long)]
    pub long: bool,
}

/// Prints the presets, one line each (or in full with `--long`).
pub fn presets(args: &PresetsArgs) {
    for preset in PRESETS {
        println!("{:<11} {}", preset.name, preset.summary);
        if args.long {
            println!("            source: {}", preset.source);
            println!(
                "            deviations and choices: {}\n",
                preset.deviations
            );
        }
    }
}

/// Flags of `boids params`.
#[derive(Args, Debug)]
pub struct ParamsArgs {
    #[command(flatten)]
    pub flock: FlockArgs,
    /// Print a TOML config file instead of the table.
    #[arg(long)]
    pub toml: bool,
}

/// Prints every parameter with its value, unit and meaning.
pub fn params(args: &ParamsArgs) -> Result<()> {
    let params = args.flock.params()?;
    if args.toml {
        print!(
            "# boids parameters (preset {})\n{}",
            args.flock.preset,
            params.to_toml()
        );
        return Ok(());
    }
    let table = params.to_table();
    println!("{:<22} {:<18} {:<14} meaning", "parameter", "value", "unit");
    for info in PARAMS {
        let value = table
            .get(info.name)
            .map(ToString::to_string)
            .unwrap_or_default();
        println!(
            "{:<22} {:<18} {:<14} {}",
            info.name, value, info.unit, info.meaning
        );
    }
    Ok(())
}
