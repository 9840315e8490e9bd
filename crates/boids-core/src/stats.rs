//! What a step reports about itself: how long each phase took and how much neighbour work it
//! did. A benchmark then describes its workload (neighbours per boid, candidates tested, cells
//! visited) from the very steps it timed instead of recounting on the side, and a change to the
//! scan shows up in these counts as well as in the times.
//!
//! The counts are exact and the same on any thread count: each part of the step counts into
//! locals and adds them once per group of boids, and the parts' totals are integer sums, which
//! come out the same whatever order they are added in.

use std::ops::{Add, AddAssign};
use std::time::Duration;

/// Wall-clock time of each phase of a step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    /// Cell of every boid and the boid count of every cell.
    pub bin: Duration,
    /// Moving boids and their data into cell order, by id within a cell.
    pub sort: Duration,
    /// Neighbour sums, rules and the move.
    pub interact: Duration,
}

impl PhaseTimes {
    /// Every phase with its name, in step order.
    pub fn named(&self) -> [(&'static str, Duration); 3] {
        [
            ("bin", self.bin),
            ("sort", self.sort),
            ("interact", self.interact),
        ]
    }

    /// The whole step.
    pub fn total(&self) -> Duration {
        self.named().iter().map(|(_, d)| *d).sum()
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

/// Everything a step reports about itself ([`crate::Simulation::stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Time of each phase.
    pub times: PhaseTimes,
    /// Neighbour work.
    pub counts: ScanCounts,
}
