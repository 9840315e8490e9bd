//! `boids presets` and `boids params`: what models there are and what every knob means.

use anyhow::Result;
use boids_core::params::{Model, Section};
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
#[command(allow_negative_numbers = true)]
pub struct ParamsArgs {
    #[command(flatten)]
    pub flock: FlockArgs,
    /// Print a TOML config file instead of the table.
    #[arg(long)]
    pub toml: bool,
}

/// Prints every parameter with its value, unit, the models it acts in and its meaning, by section.
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
    println!(
        "{:<22} {:<18} {:<14} {:<14} meaning",
        "parameter", "value", "unit", "models"
    );
    for section in Section::ALL {
        println!("\n[{}]", section.title());
        for info in PARAMS.iter().filter(|info| info.section == section) {
            let value = params
                .get(info.name)
                .map(|v| v.to_string())
                .unwrap_or_default();
            println!(
                "{:<22} {:<18} {:<14} {:<14} {}",
                info.name,
                value,
                info.unit.symbol(),
                models(info.models),
                info.meaning
            );
        }
    }
    Ok(())
}

/// The models a parameter acts in, as the table shows them.
fn models(models: &[Model]) -> String {
    if models == Model::ALL {
        "all".to_owned()
    } else {
        let names: Vec<&str> = models.iter().map(|m| m.name()).collect();
        names.join(", ")
    }
}
