//! `boids serve`: the live browser viewer (see the `boids-server` crate). With no subcommand,
//! `boids` runs this with its defaults.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use anyhow::{Result, bail};
use boids_server::EngineConfig;
use boids_server::protocol::{MAX_SPEED, MIN_SPEED};
use clap::Args;

use crate::flock_args::FlockArgs;

/// Flags of `boids serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    pub flock: FlockArgs,
    /// TCP port (0 picks a free one; the URL printed says which).
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// Address to listen on. The default serves this machine only; `--listen 0.0.0.0` lets
    /// anyone who can reach it watch and change the simulation.
    #[arg(long, value_name = "ADDR", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub listen: IpAddr,
    /// Largest boid count the page may ask for (the count slider stops here).
    #[arg(long, value_name = "N", default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_count: u64,
    /// Simulation speed in steps per second (the page can change it).
    #[arg(long, value_name = "STEPS", default_value_t = 60.0)]
    pub speed: f64,
    /// Start paused.
    #[arg(long)]
    pub paused: bool,
    /// Worker threads for the simulation (default: all cores). Results do not depend on it.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
}

/// Runs `boids serve` until the process is stopped.
pub fn serve(args: &ServeArgs) -> Result<()> {
    crate::set_threads(args.threads)?;
    if !(MIN_SPEED..=MAX_SPEED).contains(&args.speed) {
        bail!(
            "--speed {} is out of range: allowed [{MIN_SPEED}, {MAX_SPEED}] steps per second",
            args.speed
        );
    }
    let params = args.flock.params()?;
    let max_count = usize::try_from(args.max_count).unwrap_or(usize::MAX);
    if params.count > max_count {
        bail!(
            "count = {} is out of range: allowed [1, {max_count}] by --max-count {max_count} (raise --max-count to serve more)",
            params.count
        );
    }
    let config = EngineConfig {
        params,
        preset: args.flock.preset.clone(),
        seed: args.flock.seed,
        max_count,
        steps_per_second: args.speed,
        running: !args.paused,
    };
    let addr = SocketAddr::new(args.listen, args.port);
    boids_server::run_blocking(config, addr, |server| {
        println!(
            "boids viewer: open {}  ({} preset, seed {}; Ctrl-C to stop)",
            server.url(),
            args.flock.preset,
            args.flock.seed
        );
        if !args.listen.is_loopback() {
            println!(
                "warning: listening on {}: anyone who can reach this address can watch and change the simulation",
                args.listen
            );
        }
    })?;
    Ok(())
}
