//! What a step reports about itself: how long each named stage took and how much neighbour work it
//! did. A benchmark then describes its workload (neighbours per boid, candidates tested, cells
//! visited) from the very steps it timed instead of recounting on the side, and a change to the
//! scan shows up in these counts as well as in the times.
//!
//! The counts are exact and the same on any thread count: each part of the step counts into
//! locals and adds them once per group of boids, and the parts' totals are integer sums, which
//! come out the same whatever order they are added in.

use std::ops::{Add, AddAssign};
use std::time::{Duration, Instant};

/// A named stage of the step, in the order the step runs them. The step times each stage that
/// runs ([`StageTimes`]), so `boids bench` books every part of a step under its own name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The world's pull on the boids from the state at the step's start (predators to flee,
    /// attractors, a force from outside).
    Steer,
    /// The predators' next move, from the state at the step's start.
    Hunt,
    /// Cell of every boid and the boid count of every cell (the engine's grid path).
    Bin,
    /// Moving boids and their data into cell order, by id within a cell.
    Sort,
    /// Neighbour sums, rules and the move (the engine's grid path).
    Interact,
    /// A step of a model off the grid path: Vicsek, Couzin, k nearest, a blind angle, perching.
    General,
    /// Steering around obstacles and keeping out of them, after the move.
    Obstacles,
    /// Predators catching the boids they reach.
    Catch,
    /// The flock copied between the host and a device, for an engine that steps it there (the
    /// GPU engine: up when the simulation changed it, back at a batch's end).
    Transfer,
}

impl Stage {
    /// Every stage, in step order.
    pub const ALL: [Stage; 9] = [
        Stage::Steer,
        Stage::Hunt,
        Stage::Bin,
        Stage::Sort,
        Stage::Interact,
        Stage::General,
        Stage::Obstacles,
        Stage::Catch,
        Stage::Transfer,
    ];

    /// The stage's name, as `boids bench` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Steer => "steer",
            Stage::Hunt => "hunt",
            Stage::Bin => "bin",
            Stage::Sort => "sort",
            Stage::Interact => "interact",
            Stage::General => "general",
            Stage::Obstacles => "obstacles",
            Stage::Catch => "catch",
            Stage::Transfer => "transfer",
        }
    }
}

/// Wall-clock time of each stage of a step; a stage the step did not run has none.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimes([Option<Duration>; Stage::ALL.len()]);

impl StageTimes {
    /// Runs `work` as `stage`, adding its time to the stage's, and returns what it returns.
    pub fn time<T>(&mut self, stage: Stage, work: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = work();
        self.add(stage, start.elapsed());
        out
    }

    /// Runs `work` as `stage`; its time counts only when `ran` says of what `work` returned that
    /// the stage ran (a world with no predators has no hunt).
    pub fn time_if<T>(
        &mut self,
        stage: Stage,
        ran: impl Fn(&T) -> bool,
        work: impl FnOnce() -> T,
    ) -> T {
        let start = Instant::now();
        let out = work();
        if ran(&out) {
            self.add(stage, start.elapsed());
        }
        out
    }

    /// Adds `elapsed` to `stage`'s time (which then counts as run).
    pub fn add(&mut self, stage: Stage, elapsed: Duration) {
        let slot = &mut self.0[stage as usize];
        *slot = Some(slot.unwrap_or_default() + elapsed);
    }

    /// The time of `stage`, if it ran.
    pub fn get(&self, stage: Stage) -> Option<Duration> {
        self.0[stage as usize]
    }

    /// Every stage that ran, with its name and time, in step order.
    pub fn named(&self) -> impl Iterator<Item = (&'static str, Duration)> + '_ {
        Stage::ALL
            .iter()
            .filter_map(|&stage| self.get(stage).map(|d| (stage.name(), d)))
    }

    /// Each stage's time over `steps`: a batch's times as those of one of its steps.
    pub fn per_step(&self, steps: u64) -> StageTimes {
        let steps = u32::try_from(steps.max(1)).unwrap_or(u32::MAX);
        StageTimes(self.0.map(|time| time.map(|t| t / steps)))
    }

    /// The whole step: the sum of its stages.
    pub fn total(&self) -> Duration {
        self.named().map(|(_, d)| d).sum()
    }
}

/// The neighbour work of a step, totals over the flock. Each count is of what the step itself
/// did, so it depends on the path taken:
///
/// - the grid fast path scans a group of up to eight boids in a row of cells against every
///   boid of the cells around the group, so a candidate is tested against the whole group;
/// - the general path ([`crate::models`]) searches the cells ring by ring around each boid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanCounts {
    /// Grid cells whose boids were read, once per visit (per group of boids on the fast path,
    /// per neighbour query on the general path).
    pub cells: u64,
    /// Distance tests: pairs (boid, candidate) whose distance was compared with a range. The
    /// fast path tests a boid against itself too.
    pub candidates: u64,
    /// Pairs (boid `i`, other boid `j`) where `j` is among the neighbours `i`'s rules took
    /// into account: within the visual range (and outside the blind angle), or among the k
    /// nearest in view for topological neighbourhoods (plus, for the boids rules, those in
    /// view within the protected range); for Couzin's model the zone of repulsion when it holds
    /// any boid (the rest is then ignored), else the zone of orientation and attraction.
    pub neighbors: u64,
}

impl Add for ScanCounts {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            cells: self.cells + other.cells,
            candidates: self.candidates + other.candidates,
            neighbors: self.neighbors + other.neighbors,
        }
    }
}

impl AddAssign for ScanCounts {
    fn add_assign(&mut self, other: Self) {
        *self = *self + other;
    }
}

impl std::iter::Sum for ScanCounts {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::default(), Add::add)
    }
}

/// Everything a step, or a batch of steps, reports about itself ([`crate::Simulation::stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Time of each stage, over all `steps`.
    pub times: StageTimes,
    /// Neighbour work of the last step.
    pub counts: ScanCounts,
    /// Steps the times cover: 1, or a batch's ([`crate::Simulation::step_many`]).
    pub steps: u64,
}
