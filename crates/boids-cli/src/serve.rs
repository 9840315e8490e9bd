//! `boids serve`: the live browser viewer (see the `boids-server` crate). With no subcommand,
//! `boids` runs this with its defaults. With `--events`, the viewer opens on a session saved
//! from it, replayed to where it was saved, so that the session goes on where it stopped.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use boids_core::{EngineKind, Flock, Params, ParamsBuilder, Source, with_dimensions};
use boids_io::events::{Event, EventLog};
use boids_io::input::{EVENTS_LIMIT, read_text};
use boids_server::budget::{self, DEFAULT_MAX_PAIRS, Extent, Work};
use boids_server::protocol::{MAX_SPEED, MIN_SPEED};
use boids_server::{EngineConfig, ServerConfig};
use clap::Args;

use crate::flock_args::FlockArgs;
use crate::numbers::whole;

/// Flags of `boids serve`.
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
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
    /// A host name or address the viewer answers to besides localhost and the --listen address
    /// (repeatable): the name others type in their browser when the viewer is exposed with
    /// --listen. Requests for other names are refused (DNS rebinding), and so are pages from
    /// other sites.
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// Largest boid count the page may ask for (the count slider stops here); a preset's own
    /// count above it is lowered to it, a count asked for above it is refused. Default: 200,000
    /// on the CPU engine, 10,000,000 on the GPU engine.
    #[arg(long, value_name = "N", value_parser = whole(1..=u64::MAX))]
    pub max_count: Option<u64>,
    /// Most neighbour pairs a step (boids x expected neighbours each; the k nearest, the other
    /// models' searches and the world's objects priced in pairs) the page may ask for: a change
    /// that would make steps costlier is refused, so one client cannot freeze the viewer for
    /// everyone. The default is 0.1 to 0.3 s a step on two cores; `inf` for no limit.
    #[arg(long, value_name = "PAIRS", default_value_t = DEFAULT_MAX_PAIRS)]
    pub max_pairs: f64,
    /// Simulation speed in steps per second (the page can change it).
    #[arg(long, value_name = "STEPS", default_value_t = 60.0)]
    pub speed: f64,
    /// Start paused.
    #[arg(long)]
    pub paused: bool,
    /// Open the viewer on a session saved from it (its event log, the page's "Event log
    /// (JSON)"): the flock replayed to the step it was saved at, paused, ready to go on; its
    /// log goes on from the saved one. Replaces the flags that choose the flock.
    #[arg(long, value_name = "FILE.json", conflicts_with_all = ["preset", "config", "set", "count", "seed"])]
    pub events: Option<PathBuf>,
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
    if args.max_pairs.is_nan() || args.max_pairs <= 0.0 {
        bail!(
            "--max-pairs {} is out of range: allowed a number > 0 (inf for no limit)",
            args.max_pairs
        );
    }
    let max_count = args.max_count.unwrap_or(match args.flock.engine {
        EngineKind::Cpu => 200_000,
        EngineKind::Gpu => 10_000_000,
    });
    let caps = Caps {
        max_count: usize::try_from(max_count).unwrap_or(usize::MAX),
        max_pairs: args.max_pairs,
    };
    let opening = Opening::of(args, &caps)?;
    let params = opening.layers.build()?;
    if let Some(refusal) = caps.over_count(&params) {
        bail!("{refusal}");
    }
    let config = ServerConfig {
        engine: EngineConfig {
            params: opening.layers,
            preset: opening.preset.clone(),
            seed: opening.seed,
            engine: args.flock.engine,
            max_count: caps.max_count,
            max_pairs: caps.max_pairs,
            steps_per_second: args.speed,
            running: opening.running,
            start: opening.flock,
            history: opening.history,
        },
        listen: SocketAddr::new(args.listen, args.port),
        allowed_hosts: args.allow_host.clone(),
    };
    boids_server::run_blocking(config, |server| {
        println!(
            "boids viewer: open {}  ({} preset, seed {}{}; Ctrl-C to stop)",
            server.url(),
            opening.preset,
            opening.seed,
            opening.summary
        );
        if !args.listen.is_loopback() {
            println!(
                "warning: listening on {}: anyone who can reach this address can watch and change the simulation",
                args.listen
            );
            if args.listen.is_unspecified() && args.allow_host.is_empty() {
                println!(
                    "note: only requests for localhost are answered; add --allow-host NAME for the name or address others will open"
                );
            }
        }
    })?;
    Ok(())
}

/// The server's limits on a flock (`--max-count`, `--max-pairs`).
struct Caps {
    max_count: usize,
    max_pairs: f64,
}

impl Caps {
    /// The refusal of a flock of more boids than the count cap.
    fn over_count(&self, params: &Params) -> Option<String> {
        let max = self.max_count;
        (params.count > max).then(|| {
            format!(
                "count = {} is out of range: allowed [1, {max}] by --max-count {max} (raise \
                 --max-count to serve more)",
                params.count
            )
        })
    }

    /// Refuses a flock of a saved session over either cap, before its replay: one the server
    /// would have refused, which a replay would step for as long as it takes before the server
    /// refused it. Its work is priced where its boids start (as the server prices a new flock),
    /// since where they went is known only once it steps; the replayed flock is priced again
    /// where it ends ([`boids_server::EngineConfig::max_pairs`]).
    fn check(&self, params: &Params) -> Result<(), String> {
        if let Some(refusal) = self.over_count(params) {
            return Err(refusal);
        }
        let work = Work::estimate(params, Extent::initial(params));
        if work.pairs() > self.max_pairs {
            return Err(format!(
                "the flock would cost {work}, priced where its boids start: allowed at most \
                 {:.2e} by --max-pairs (raise --max-pairs to allow more)",
                self.max_pairs
            ));
        }
        Ok(())
    }
}

/// The flock the viewer opens on: the flags', or a saved session's.
struct Opening {
    layers: ParamsBuilder,
    preset: String,
    seed: u64,
    /// The replayed flock (`None`: the server draws the flags' flock).
    flock: Option<Flock>,
    /// The replayed flock's event log.
    history: Vec<Event>,
    running: bool,
    /// What the first line says of it beside the preset and seed.
    summary: String,
}

impl Opening {
    /// The flock `args` ask for; a preset's own count above the count cap is lowered to it,
    /// with a note, as a page's reset lowers it (a saved session's count is its own, refused
    /// over the cap).
    fn of(args: &ServeArgs, caps: &Caps) -> Result<Opening> {
        if let Some(path) = &args.events {
            return Self::resumed(path, args.flock.engine, caps);
        }
        let mut layers = args.flock.builder()?;
        let max_count = caps.max_count;
        let cap = Source::Flag(format!("--max-count {max_count}"));
        if let Some(note) = budget::lower_preset_count(&mut layers, max_count, cap) {
            eprintln!("note: {note}");
        }
        Ok(Opening {
            layers,
            preset: args.flock.preset.clone(),
            seed: args.flock.seed,
            flock: None,
            history: Vec::new(),
            running: !args.paused,
            summary: String::new(),
        })
    }

    /// The session of the event log at `path`, replayed to its end and paused there, on the
    /// engine `--engine` names; refused before the replay if its flock is ever over `caps`.
    fn resumed(path: &Path, engine: EngineKind, caps: &Caps) -> Result<Opening> {
        let text = read_text("--events", path, EVENTS_LIMIT)?;
        let origin = path.display().to_string();
        let log = EventLog::parse(&text, &origin)?;
        log.course(&origin, |params| caps.check(params))?;
        with_dimensions!(log.dimensions(&origin)?, D, {
            let mut resumed = log.resume::<D>(&origin)?;
            crate::engines::move_to(&mut resumed.sim, engine)?;
            Ok(Opening {
                seed: resumed.sim.seed(),
                summary: format!(", paused at step {} of {origin}", resumed.sim.step_count()),
                flock: Some(Flock::from(resumed.sim)),
                layers: resumed.layers,
                preset: resumed.preset,
                history: resumed.history,
                running: false,
            })
        })
    }
}
