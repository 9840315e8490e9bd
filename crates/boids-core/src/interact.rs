//! The step's last phase: every boid's neighbour sums and move, [`LANES`] boids at a time.
//!
//! **Boids in lanes.** Boids are stored in cell order, so a run of consecutive boids in one row
//! of cells shares nearly all of its candidates: the cells one row and a visual range of
//! columns ([`GridGeometry::reach`]) around the run. The scan takes up to [`LANES`] such boids
//! as a *group*, one boid per vector lane, and visits each candidate once for the whole group:
//! its coordinates are loaded once and tested against every lane in one instruction. The cells
//! of one row around the group are one span of boids ([`GridGeometry::runs_near`]), so the scan
//! is three plain loops per group; candidates of that span beyond the reach from a lane's
//! boid are out of its range by construction (see `Sums::add_run`), so every boid sums exactly
//! the candidates of its own block of cells, whichever group it lands in. No horizontal sums
//! are needed, and the moves of a group are independent chains the processor overlaps.
//!
//! **Canonical sums.** Each lane adds its candidates one after another in the order the cells
//! are visited ([`GridGeometry::cells_near`]: rows from the lowest, unwrapped columns
//! left to right, ascending id within a cell), and a candidate out of range leaves the sums bit
//! for bit unchanged (a select, see [`Sums::add`]). That is the order of [`NeighborSearch`]'s
//! `for_each_candidate` with [`Sums::add`], so the result depends neither on how boids fall
//! into groups nor on chunking, thread count or the machine's vector width: a flock restored
//! from a file in id order continues bit-identically, on any machine, and the debug overlays
//! see the same sums.
//!
//! **No branches in the loop.** Range tests become lane masks and the sums grow by selects, so
//! the compiler keeps the loop in vector registers. It is compiled for AVX2 and AVX-512 as well
//! as the baseline, the best chosen at run time; all perform the same IEEE operations in the
//! same order (Rust never fuses a multiply and an add unless asked, and the fused multiply-adds
//! asked for multiply by exactly 1.0, so they round as the adds), so all give the same bits.
//!
//! **Counting the work.** Beside the sums the scan counts what it does ([`ScanCounts`]): per run
//! of cells, its cells, and its boids times the group's lanes (the distance tests); per
//! candidate, the lanes that have it within the visual range, by a population count of the
//! range mask. That count runs on the scalar units, which the vector loop leaves idle, and a
//! lane past the group's last boid sits at x = infinity, so it counts nothing; a vector counter
//! instead would add an operation to the busy vector pipes (5 to 14% more time in this phase,
//! measured, against about 2% for the population count).
//!
//! [`Sums::add`]: crate::rules::Sums::add
//! [`NeighborSearch`]: crate::neighbors::NeighborSearch

use std::ops::Range;

use crate::grid::{GridGeometry, NearRun};
use crate::par;
use crate::real::{Real, Vector};
use crate::rules::{self, Boids, Kernel, Scouts, group};
pub use crate::simd::LANES;
use crate::simd::{Arrays, Build, Pack, Simd};
use crate::space::{self, Dim, Dimension, VecN};
use crate::stats::ScanCounts;
use crate::world::Pull;

/// Column of an unused lane: no cell is within reach of it.
const NO_COLUMN: i32 = -1 << 30;

/// The previous frame in cell order. A candidate's position and velocity share one entry
/// (16 bytes in 2D, 24 in 3D), so the scan reads each candidate from one place. Both arrays
/// carry [`LANES`] entries of padding, so a group's lanes past the last boid still read memory.
#[derive(Clone, Debug)]
pub(crate) struct Frame<const D: usize> {
    /// Position, then velocity, of each boid.
    pub boid: Vec<[[f32; D]; 2]>,
    pub bias: Vec<f32>,
}

impl<const D: usize> Default for Frame<D> {
    fn default() -> Self {
        Self {
            boid: Vec::new(),
            bias: Vec::new(),
        }
    }
}

impl<const D: usize> Frame<D> {
    /// Where the position and the velocity lie in an entry of [`Frame::boid`].
    pub const POSITION: usize = 0;
    pub const VELOCITY: usize = 1;

    /// Axis `a` of the position or velocity (`what`) of the boids `first..first + LANES`.
    #[inline(always)]
    fn lanes(&self, first: usize, what: usize, a: usize) -> [f32; LANES] {
        let boids = &self.boid[first..first + LANES];
        std::array::from_fn(|l| boids[l][what][a])
    }
}

/// Everything the phase reads.
pub(crate) struct Interaction<'a, const D: usize>
where
    Dim<D>: Dimension<D>,
{
    pub prev: &'a Frame<D>,
    pub geometry: &'a GridGeometry<D>,
    /// `cell_start[c]..cell_start[c + 1]`: the boids of cell `c` in `prev`.
    pub cell_start: &'a [u32],
    pub groups: &'a [u8],
    /// The id of each boid of `prev` (a force given from outside pulls boids by id).
    pub ids: &'a [u32],
    pub kernel: &'a Kernel<D>,
    pub wander: [f32; D],
    /// What pulls on the boids this step: predators, attractors, a force (`None`: nothing).
    pub world: Option<&'a Pull<'a, D>>,
}

impl<const D: usize> Interaction<'_, D>
where
    Dim<D>: Dimension<D>,
{
    /// The new state of every boid (cell order) into `pos`, `vel` and `bias`, in parallel, and
    /// what the scan did.
    pub fn run(&self, pos: &mut [VecN<D>], vel: &mut [VecN<D>], bias: &mut [f32]) -> ScanCounts {
        let build = Build::best();
        par::sum_parts((pos, vel, bias), |start, (pos, vel, bias)| {
            self.run_part(build, start, pos, vel, bias)
        })
    }

    /// The new state of boids `start..start + pos.len()` into `pos`, `vel` and `bias`, by
    /// `build`, which must be [`Build::supported`], and what the scan did.
    fn run_part(
        &self,
        build: Build,
        start: usize,
        pos: &mut [VecN<D>],
        vel: &mut [VecN<D>],
        bias: &mut [f32],
    ) -> ScanCounts {
        let pairwise = self.geometry.pairwise_wrap() != [0.0; D];
        let (job, out) = (self, (start, pos, vel, bias));
        match (pairwise, self.kernel.must_skip_self()) {
            (false, false) => interact_chunk::<D, false, false>(build, job, out),
            (false, true) => interact_chunk::<D, false, true>(build, job, out),
            (true, false) => interact_chunk::<D, true, false>(build, job, out),
            (true, true) => interact_chunk::<D, true, true>(build, job, out),
        }
    }
}

/// Where a part of the step writes: its first boid, and its positions, velocities and biases.
type Part<'a, const D: usize> = (usize, &'a mut [VecN<D>], &'a mut [VecN<D>], &'a mut [f32]);

/// New state of the boids of `part` (cell order), by `build`, which must be
/// [`Build::supported`], and what the scan did.
/// `PAIRWISE`: some torus axis is a single cell, and offsets take the minimum image per pair.
/// `SKIP_SELF`: each lane must leave its own boid out by index ([`Kernel::must_skip_self`]).
fn interact_chunk<const D: usize, const PAIRWISE: bool, const SKIP_SELF: bool>(
    build: Build,
    job: &Interaction<D>,
    part: Part<D>,
) -> ScanCounts
where
    Dim<D>: Dimension<D>,
{
    debug_assert!(build.supported());
    match build {
        Build::Arrays => chunk::<Arrays, D, PAIRWISE, SKIP_SELF>(job, part),
        // SAFETY (both): the caller checked that the processor has the build's features.
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        Build::Avx2 => unsafe { x86::chunk_avx2::<D, PAIRWISE, SKIP_SELF>(job, part) },
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        Build::Avx512 => unsafe { x86::chunk_avx512::<D, PAIRWISE, SKIP_SELF>(job, part) },
    }
}

/// The loop compiled for the x86 vector extensions.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Interaction, Part, chunk};
    use crate::simd::{Avx2, Avx512};
    use crate::space::{Dim, Dimension};
    use crate::stats::ScanCounts;

    #[target_feature(enable = "avx512f,avx512vl,avx2,popcnt")]
    pub fn chunk_avx512<const D: usize, const PAIRWISE: bool, const SKIP_SELF: bool>(
        job: &Interaction<D>,
        part: Part<D>,
    ) -> ScanCounts
    where
        Dim<D>: Dimension<D>,
    {
        chunk::<Avx512, D, PAIRWISE, SKIP_SELF>(job, part)
    }

    #[target_feature(enable = "avx2,popcnt")]
    pub fn chunk_avx2<const D: usize, const PAIRWISE: bool, const SKIP_SELF: bool>(
        job: &Interaction<D>,
        part: Part<D>,
    ) -> ScanCounts
    where
        Dim<D>: Dimension<D>,
    {
        chunk::<Avx2, D, PAIRWISE, SKIP_SELF>(job, part)
    }
}

/// [`interact_chunk`] with the vectors of `S`.
#[inline(always)]
fn chunk<S: Simd, const D: usize, const PAIRWISE: bool, const SKIP_SELF: bool>(
    job: &Interaction<D>,
    part: Part<D>,
) -> ScanCounts
where
    Dim<D>: Dimension<D>,
{
    let (start, pos, vel, bias) = part;
    let end = start + pos.len();
    let mut walk = CellWalk::new(job.cell_start, start);
    let mut counts = ScanCounts::default();
    let mut first = start;
    while first < end {
        let group = Group::new(job, &mut walk, first, end);
        let sums = Sums::<S, D>::of::<PAIRWISE, SKIP_SELF>(job, &group, &mut counts);
        let next = group.advance(job, &sums);
        let position = next.position.0.map(|c| S::to_array(c.0));
        let velocity = next.velocity.0.map(|c| S::to_array(c.0));
        let b = S::to_array(next.bias.0);
        let out = first - start;
        for l in 0..group.len {
            pos[out + l] = std::array::from_fn(|a| position[a][l]).into();
            vel[out + l] = std::array::from_fn(|a| velocity[a][l]).into();
            bias[out + l] = b[l];
        }
        first += group.len;
    }
    counts
}

/// The cell of each boid in turn, for boids visited in ascending (cell) order.
struct CellWalk<'a> {
    cell_start: &'a [u32],
    cell: usize,
}

impl<'a> CellWalk<'a> {
    /// A walk starting at boid `first`.
    fn new(cell_start: &'a [u32], first: usize) -> Self {
        // The cell holding boid `first`: the last one starting at or before it.
        let cell = cell_start.partition_point(|&s| s as usize <= first) - 1;
        Self { cell_start, cell }
    }

    /// The cell of boid `k`, at or after the last boid asked about.
    #[inline(always)]
    fn cell_of(&mut self, k: usize) -> u32 {
        while self.cell_start[self.cell + 1] as usize <= k {
            self.cell += 1;
        }
        self.cell as u32
    }
}

/// Up to [`LANES`] consecutive boids in one row of cells (a line of cells along x), one per
/// lane.
struct Group<const D: usize> {
    /// Index of lane 0's boid.
    first: usize,
    /// Lanes in use.
    len: usize,
    /// The row: its cells are `row * nx..(row + 1) * nx`.
    row: u32,
    /// Each lane's column ([`NO_COLUMN`] past `len`).
    column: [i32; LANES],
    /// Each lane's position, axis by axis.
    position: [[f32; LANES]; D],
}

impl<const D: usize> Group<D>
where
    Dim<D>: Dimension<D>,
{
    /// The group starting at boid `first`: as many boids as fit, stopping at `end` and at the
    /// end of the row.
    #[inline(always)]
    fn new(job: &Interaction<D>, walk: &mut CellWalk, first: usize, end: usize) -> Self {
        // The row's cells are numbered from `row * nx`; one division per group, not per boid.
        let nx = job.geometry.dims()[0];
        let row = walk.cell_of(first) / nx;
        let row_first = row * nx;
        let mut column = [NO_COLUMN; LANES];
        let mut len = 0;
        while len < LANES && first + len < end {
            let x = walk.cell_of(first + len) - row_first;
            if x >= nx {
                break;
            }
            column[len] = x as i32;
            len += 1;
        }
        Self {
            first,
            len,
            row,
            column,
            position: std::array::from_fn(|a| job.prev.lanes(first, Frame::<D>::POSITION, a)),
        }
    }

    /// Lane `l`'s position.
    #[inline(always)]
    fn position_of(&self, l: usize) -> [f32; D] {
        std::array::from_fn(|a| self.position[a][l])
    }

    /// The rules applied to every lane ([`rules::advance`] on eight boids at once).
    #[inline(always)]
    fn advance<S: Simd>(&self, job: &Interaction<D>, sums: &Sums<S, D>) -> Boids<Pack<S>, D>
    where
        Dim<D>: Dimension<D>,
    {
        let prev = job.prev;
        let load = |lanes: [f32; LANES]| -> Pack<S> { Pack(S::load(lanes)) };
        // A plain loop: closures here are not inlined into the vector builds.
        let (mut goal, mut scout) = ([[0.0; LANES]; D], [0.0; LANES]);
        for l in 0..self.len {
            let group = job.groups[self.first + l];
            let preferred = job.kernel.goal[usize::from(group)];
            for a in 0..D {
                goal[a][l] = preferred[a];
            }
            scout[l] = f32::from(u8::from(group != group::NONE));
        }
        let scouts = Scouts {
            goal: Vector(goal.map(load)),
            scout: load(scout).gt(Pack::splat(0.0)),
        };
        let velocity = std::array::from_fn(|a| prev.lanes(self.first, Frame::<D>::VELOCITY, a));
        let boids = Boids {
            position: Vector(self.position.map(load)),
            velocity: Vector(velocity.map(load)),
            bias: load(
                prev.bias[self.first..self.first + LANES]
                    .try_into()
                    .expect("LANES entries"),
            ),
        };
        let pack = |v: [S::F; D]| Vector(v.map(Pack));
        let acc = rules::Sums {
            count: Pack(sums.count),
            offset_sum: pack(sums.offset),
            velocity_sum: pack(sums.velocity),
            separation: pack(sums.separation),
        };
        let world = job.world.map(|steer| {
            let mut pull = [[0.0; LANES]; D];
            let (mut lo, mut hi) = ([f32::INFINITY; D], [f32::NEG_INFINITY; D]);
            for l in 0..self.len {
                let p = self.position_of(l);
                for a in 0..D {
                    (lo[a], hi[a]) = (lo[a].min(p[a]), hi[a].max(p[a]));
                }
            }
            // Most groups are far from every predator: their pull is zero, as `pull` gives it.
            if steer.reaches(lo.into(), hi.into()) {
                for l in 0..self.len {
                    let at = self.position_of(l).into();
                    let lane: [f32; D] = steer.pull(job.ids[self.first + l], at).into();
                    for (axis, value) in pull.iter_mut().zip(lane) {
                        axis[l] = value;
                    }
                }
            }
            Vector(pull.map(load))
        });
        rules::advance_lanes(job.kernel, &acc, boids, &scouts, job.wander, world)
    }
}

/// The fields of [`rules::Sums`] as registers of lanes, one lane per boid of a group, and the
/// group's neighbour count. The scan keeps them as plain registers rather than as a
/// `rules::Sums<S::F, D>`: wrapped, the same operations compile to other machine code in this
/// loop (stack layout and register choice, checked on the AVX2 and AVX-512 builds).
struct Sums<S: Simd, const D: usize> {
    /// Candidates within the visual range over all lanes, each lane's own boid among them: for
    /// [`ScanCounts::neighbors`], counted on the scalar units beside the vector sums.
    in_range: u32,
    count: S::F,
    offset: [S::F; D],
    velocity: [S::F; D],
    separation: [S::F; D],
}

impl<S: Simd, const D: usize> Sums<S, D>
where
    Dim<D>: Dimension<D>,
{
    /// The neighbour sums of every boid of `group`, counting the scan's work into `counts`:
    /// per run of cells, its cells and its boids tested against each boid of the group, and
    /// once at the end the group's neighbours.
    #[inline(always)]
    fn of<const PAIRWISE: bool, const SKIP_SELF: bool>(
        job: &Interaction<D>,
        group: &Group<D>,
        counts: &mut ScanCounts,
    ) -> Self {
        let zero = S::splat(0.0);
        let mut sums = Self {
            in_range: 0,
            count: zero,
            offset: [zero; D],
            velocity: [zero; D],
            separation: [zero; D],
        };
        let columns = group.column[0] as u32..=group.column[group.len - 1] as u32;
        let lanes = Lanes::<S, D>::new(job, group);
        for run in job.geometry.runs_near(group.row, columns) {
            let boids = job.cell_start[run.cells.start as usize] as usize
                ..job.cell_start[run.cells.end as usize] as usize;
            counts.cells += u64::from(run.cells.end - run.cells.start);
            counts.candidates += (boids.len() * group.len) as u64;
            // Offsets across a seam take the shift off after the difference, as the minimum
            // image does (the same rounding as the brute-force reference); elsewhere there is
            // nothing to take off.
            if run.shift == [0.0; D] {
                sums.add_run::<PAIRWISE, SKIP_SELF, false>(job, &lanes, boids, &run);
            } else {
                sums.add_run::<PAIRWISE, SKIP_SELF, true>(job, &lanes, boids, &run);
            }
        }
        // Every lane found its own boid in range (at distance zero) once.
        counts.neighbors += u64::from(sums.in_range) - group.len as u64;
        sums
    }

    /// Adds the candidates `boids` of `run` to every lane: [`rules::Sums::add`] in all lanes at
    /// once.
    /// `SHIFTED`: the run's offsets take a torus shift off.
    ///
    /// A lane meets candidates of the run's cells beyond the reach from its own column, which
    /// are not in its block. An unshifted run is one span of a row, so such a candidate is more
    /// than `reach` cell widths away in x, exactly, and `reach` cells are wider than the visual
    /// range. Rounding is monotonic, so the computed `dx * dx` is at least the rounded square
    /// of that width, which exceeds both range bounds (the other axes only add to it): the
    /// candidate fails both tests in that lane and leaves its sums bit for bit unchanged. So
    /// every lane sums exactly its own block, in its order. A shifted offset is rounded twice,
    /// so there a lane mask keeps each boid to cells within reach of its own instead.
    #[inline(always)]
    fn add_run<const PAIRWISE: bool, const SKIP_SELF: bool, const SHIFTED: bool>(
        &mut self,
        job: &Interaction<D>,
        lanes: &Lanes<S, D>,
        boids: Range<usize>,
        run: &NearRun<D>,
    ) {
        let (first, last) = (*run.columns.start() as f32, *run.columns.end() as f32);
        let near = S::lt(
            S::abs(S::sub(lanes.column, S::splat((first + last) / 2.0))),
            S::splat((last - first) / 2.0 + lanes.reach + 0.5),
        );
        let shift = run.shift.map(S::splat);
        let prev = job.prev;
        let Sums {
            mut in_range,
            mut count,
            mut offset,
            mut velocity,
            mut separation,
        } = *self;
        for (j, &[p, v]) in boids.clone().zip(&prev.boid[boids]) {
            let mut d = [S::splat(0.0); D];
            for a in 0..D {
                d[a] = S::sub(lanes.position[a], S::splat(p[a]));
                if SHIFTED {
                    d[a] = S::sub(d[a], shift[a]);
                }
            }
            if PAIRWISE {
                d = lanes.minimum_image(d);
            }
            let mut d2 = S::mul(d[0], d[0]);
            for &c in &d[1..] {
                d2 = S::add(d2, S::mul(c, c));
            }
            let (seen, separated) = match SHIFTED {
                true => (
                    S::lt_where(near, d2, lanes.visual_below),
                    S::lt_where(near, d2, lanes.protected_below),
                ),
                false => (
                    S::lt(d2, lanes.visual_below),
                    S::lt(d2, lanes.protected_below),
                ),
            };
            // Kernel::joins, lane by lane.
            let mut averaged = S::ge_where(seen, d2, lanes.unseen_below);
            if SKIP_SELF {
                averaged = S::and_not(averaged, S::only_lane(j.wrapping_sub(lanes.first) as i32));
            }
            in_range += S::count(seen);
            // Three of the seven 2D sums go to the multipliers, which the scan leaves idler.
            let one = lanes.opaque_one;
            count = S::add_where_by_multiplier(averaged, count, one, one);
            for a in 0..D {
                offset[a] = S::sub_where(averaged, offset[a], d[a]);
            }
            for a in 0..D {
                velocity[a] =
                    S::add_where_by_multiplier(averaged, velocity[a], S::splat(v[a]), one);
            }
            for a in 0..D {
                separation[a] = S::add_where(separated, separation[a], d[a]);
            }
        }
        *self = Sums {
            in_range,
            count,
            offset,
            velocity,
            separation,
        };
    }
}

impl<S: Simd, const D: usize> Clone for Sums<S, D> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Simd, const D: usize> Copy for Sums<S, D> {}

/// A group's lanes and the scan's constants, as vectors.
struct Lanes<S: Simd, const D: usize> {
    /// Index of lane 0's boid.
    first: usize,
    /// The lanes' positions; lanes past the group's boids at x = infinity, where no candidate
    /// is in range (their sums are not used, and they count no neighbours).
    position: [S::F; D],
    column: S::F,
    /// Columns each way a boid's neighbours can lie in ([`GridGeometry::reach`]).
    reach: f32,
    visual_below: S::F,
    protected_below: S::F,
    /// Neighbours closer than this (squared) are left out of the averages: the protected
    /// range if protected neighbours are, else zero (nothing is closer than zero).
    unseen_below: S::F,
    /// 1.0, hidden from the compiler (see [`Simd::add_where_by_multiplier`]).
    opaque_one: S::F,
    /// The per-pair minimum image's world size (see `interact_chunk`).
    wrap: [f32; D],
}

impl<S: Simd, const D: usize> Lanes<S, D>
where
    Dim<D>: Dimension<D>,
{
    #[inline(always)]
    fn new(job: &Interaction<D>, group: &Group<D>) -> Self {
        let mut position = group.position;
        for x in &mut position[0][group.len..] {
            *x = f32::INFINITY;
        }
        Self {
            first: group.first,
            position: position.map(S::load),
            column: S::load(group.column.map(|c| c as f32)),
            reach: job.geometry.reach()[0] as f32,
            visual_below: S::splat(job.kernel.visual_below),
            protected_below: S::splat(job.kernel.protected_below),
            unseen_below: S::splat(job.kernel.unseen_below()),
            opaque_one: std::hint::black_box(S::splat(1.0)),
            wrap: job.geometry.pairwise_wrap(),
        }
    }

    /// [`space::minimum_image`] in every lane.
    #[inline(always)]
    fn minimum_image(&self, mut d: [S::F; D]) -> [S::F; D] {
        for (c, wrap) in d.iter_mut().zip(self.wrap) {
            let lanes = S::to_array(*c);
            *c = S::load(lanes.map(|x| space::minimum_image_axis(x, wrap)));
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::grid::CellIndex;
    use crate::neighbors::NeighborSearch;
    use crate::params::{Boundary, Params};
    use crate::rules::{BoidState, Sums};
    use crate::sim::Simulation;

    /// Worlds that take every path: margins with protected neighbours left out of the averages
    /// (no self test), a torus with seams, averages that must skip the boid itself, walls, an
    /// open world, and a torus too narrow for three cells (per-pair minimum image).
    fn worlds() -> Vec<Params> {
        let preset = |name: &str, edit: &dyn Fn(&mut Params)| {
            let mut p = Params::preset(name).unwrap();
            edit(&mut p);
            p
        };
        vec![
            preset("cornell", &|_| {}),
            preset("cornell", &|p| {
                p.boundary = Boundary::Torus;
                p.exclude_protected = false;
            }),
            preset("canvas", &|_| {}),
            preset("functional", &|p| p.include_self = true),
            preset("occoids", &|_| {}),
            preset("functional", &|p| {
                (p.world_width, p.world_height, p.visual_range) = (1.5, 0.9, 0.4);
            }),
            preset("cornell", &|p| {
                p.boundary = Boundary::Torus;
                p.inclusive_ranges = true;
                p.world_width = 1013.0;
            }),
        ]
    }

    /// The smallest `x` in column `column` or beyond, on the row of height `y`.
    fn column_border(geometry: &GridGeometry<2>, column: u32, y: f32, mut low: f32) -> f32 {
        let inside = |x: f32| geometry.coords(geometry.cell_of(Vec2::new(x, y)))[0] >= column;
        let mut high = low + 1.0;
        while !inside(high) {
            high = low + 2.0 * (high - low);
        }
        while high.next_down() > low {
            let mid = low + (high - low) / 2.0;
            match mid > low && mid < high {
                true if inside(mid) => high = mid,
                true => low = mid,
                false => low = high.next_down(),
            }
        }
        high
    }

    /// Moves every fourth boid onto a column border, just inside one cell or the other, at one
    /// of four heights: the pairs that the scan meets two columns apart are then as close as
    /// such pairs can be.
    fn pack_on_borders(geometry: &GridGeometry<2>, pos: &mut [Vec2], p: &Params) {
        let nx = geometry.dims()[0];
        if nx < 2 {
            return;
        }
        let (x_min, y_min) = (p.world_x_min as f32, p.world_y_min as f32);
        let height = p.world_height as f32;
        for (i, p) in pos.iter_mut().enumerate().filter(|(i, _)| i % 4 == 2) {
            p.y = y_min + height * (i / 8 % 4) as f32 / 4.0;
            let column = 1 + (i / 32) as u32 % (nx - 1);
            let border = column_border(geometry, column, p.y, x_min);
            p.x = if i % 8 == 2 {
                border
            } else {
                border.next_down()
            };
        }
    }

    /// Random boids over the world, a quarter of them in one dense clump.
    fn positions(p: &Params, n: usize, seed: u64) -> (Vec<Vec2>, Vec<Vec2>) {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let (x0, y0) = (p.world_x_min as f32, p.world_y_min as f32);
        let (w, h) = (p.world_width as f32, p.world_height as f32);
        let r = p.visual_range as f32;
        let mut random = move |a: f32, b: f32| a + rng.random::<f32>() * (b - a);
        let pos = (0..n)
            .map(|i| match i % 4 {
                0 => Vec2::new(x0 + w * 0.3 + random(0.0, r), y0 + h * 0.6 + random(0.0, r)),
                _ => Vec2::new(random(x0, x0 + w), random(y0, y0 + h)),
            })
            .collect();
        let speed = p.max_speed as f32;
        let vel = (0..n)
            .map(|_| Vec2::new(random(-speed, speed), random(-speed, speed)))
            .collect();
        (pos, vel)
    }

    /// Every build of the loop, split into chunks anywhere, gives the bits of the definition
    /// (also with boids packed on cell borders, so that the scan's extra candidates, two
    /// columns away, are as close as they can be):
    /// the candidates of [`NeighborSearch::for_each_candidate`] in order, summed by
    /// [`Sums::add`], moved by [`rules::advance`]. It counts the other boids within the visual
    /// range among those candidates as neighbours, and every build counts the same work.
    #[test]
    fn every_build_gives_the_definitions_bits() {
        for (case, mut p) in worlds().into_iter().enumerate() {
            p.count = 700;
            let (mut pos, vel) = positions(&p, p.count, case as u64);
            pack_on_borders(&Simulation::geometry(&p, &pos), &mut pos, &p);
            let geometry = Simulation::geometry(&p, &pos);
            let ids: Vec<u32> = (0..p.count as u32).collect();
            let mut index = CellIndex::default();
            index.rebuild(&geometry, &pos, &ids);
            let order: Vec<usize> = index.order.iter().map(|&i| i as usize).collect();
            let frame = Frame {
                boid: order
                    .iter()
                    .map(|&i| [pos[i].into(), vel[i].into()])
                    .chain([[[0.0; 2]; 2]; LANES])
                    .collect(),
                bias: vec![0.0; p.count + LANES],
            };
            let groups: Vec<u8> = order.iter().map(|&i| (i % 3) as u8).collect();
            let kernel = Kernel::<2>::new(&p);
            let wander = Vec2::new(0.6, 0.8);

            let sorted: Vec<Vec2> = order.iter().map(|&i| pos[i]).collect();
            let sorted_ids: Vec<u32> = order.iter().map(|&i| i as u32).collect();
            let search = NeighborSearch::<2>::new(&p, &sorted, &sorted_ids);
            let mut neighbors = 0;
            let want: Vec<[u32; 5]> = (0..p.count)
                .map(|k| {
                    let mut acc = Sums::<f32, 2>::default();
                    search.for_each_candidate(k, |j, d| {
                        let v = Vec2::from(frame.boid[j][Frame::<2>::VELOCITY]);
                        acc.add(&kernel, d, v, j == k);
                        neighbors += u64::from(j != k && d.length_squared() < kernel.visual_below);
                    });
                    let boid = BoidState {
                        position: sorted[k],
                        velocity: Vec2::from(frame.boid[k][Frame::<2>::VELOCITY]),
                        bias: 0.0,
                    };
                    let b = rules::advance(&kernel, &acc, boid, groups[k], wander, None);
                    [
                        b.position.x,
                        b.position.y,
                        b.velocity.x,
                        b.velocity.y,
                        b.bias,
                    ]
                    .map(f32::to_bits)
                })
                .collect();

            let job = Interaction {
                prev: &frame,
                geometry: &geometry,
                cell_start: &index.cell_start,
                groups: &groups,
                ids: &[],
                kernel: &kernel,
                wander: wander.into(),
                world: None,
            };
            let mut work_by_cut = std::collections::HashMap::new();
            for build in Build::ALL.iter().filter(|b| b.supported()) {
                for cut in [0, 1, 37, 350] {
                    let n = p.count;
                    let (mut pos, mut vel, mut bias) =
                        (vec![Vec2::ZERO; n], vec![Vec2::ZERO; n], vec![0.0; n]);
                    let (pos_a, pos_b) = pos.split_at_mut(cut);
                    let (vel_a, vel_b) = vel.split_at_mut(cut);
                    let (bias_a, bias_b) = bias.split_at_mut(cut);
                    let counts = job.run_part(*build, 0, pos_a, vel_a, bias_a)
                        + job.run_part(*build, cut, pos_b, vel_b, bias_b);
                    assert_eq!(
                        counts.neighbors, neighbors,
                        "case {case}, {build:?}, cut {cut}"
                    );
                    let work = work_by_cut.entry(cut).or_insert(counts);
                    assert_eq!(counts, *work, "case {case}, {build:?}, cut {cut}");
                    for k in 0..n {
                        let got =
                            [pos[k].x, pos[k].y, vel[k].x, vel[k].y, bias[k]].map(f32::to_bits);
                        assert_eq!(got, want[k], "case {case}, {build:?}, cut {cut}, boid {k}");
                    }
                }
            }
            let missing: Vec<_> = Build::ALL.iter().filter(|b| !b.supported()).collect();
            if !missing.is_empty() {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "CI runs every build; this machine lacks {missing:?}"
                );
                eprintln!("SKIPPED builds {missing:?}: this processor lacks their features");
            }
        }
    }

    /// In three dimensions every build, split into chunks anywhere, gives the bits of the
    /// baseline build, and the same counts of work: on a torus cube (seams, edges, corners),
    /// in a box with margins, and on a torus too narrow for three cells along some axis.
    #[test]
    fn every_build_gives_the_same_bits_in_3d() {
        let cases = [
            ("cornell", vec!["boundary=\"torus\""]),
            ("cornell", vec![]),
            ("functional", vec!["world_width=1.5", "world_depth=0.9"]),
        ];
        for (case, (preset, sets)) in cases.into_iter().enumerate() {
            let mut builder = crate::ParamsBuilder::preset(preset).unwrap();
            for set in sets.into_iter().chain(["dimensions=3", "count=900"]) {
                let source = crate::Source::Flag(set.to_owned());
                builder = builder.apply_assignment(set, source).unwrap();
            }
            let p = builder.build().unwrap();
            let state = crate::FlockState::<3>::initial(&p, case as u64);
            let geometry = Simulation::<3>::geometry(&p, &state.positions);
            let ids: Vec<u32> = (0..p.count as u32).collect();
            let mut index = CellIndex::default();
            index.rebuild(&geometry, &state.positions, &ids);
            let order: Vec<usize> = index.order.iter().map(|&i| i as usize).collect();
            let frame = Frame {
                boid: order
                    .iter()
                    .map(|&i| [state.positions[i].into(), state.velocities[i].into()])
                    .chain([[[0.0; 3]; 2]; LANES])
                    .collect(),
                bias: vec![0.001; p.count + LANES],
            };
            let groups: Vec<u8> = order.iter().map(|&i| (i % 3) as u8).collect();
            let kernel = Kernel::<3>::new(&p);
            let job = Interaction {
                prev: &frame,
                geometry: &geometry,
                cell_start: &index.cell_start,
                groups: &groups,
                ids: &[],
                kernel: &kernel,
                wander: [0.6, 0.8, 0.0],
                world: None,
            };
            let n = p.count;
            let run = |build: Build, cut: usize| {
                let (mut pos, mut vel, mut bias) = (
                    vec![glam::Vec3::ZERO; n],
                    vec![glam::Vec3::ZERO; n],
                    vec![0.0; n],
                );
                let (pos_a, pos_b) = pos.split_at_mut(cut);
                let (vel_a, vel_b) = vel.split_at_mut(cut);
                let (bias_a, bias_b) = bias.split_at_mut(cut);
                let counts = job.run_part(build, 0, pos_a, vel_a, bias_a)
                    + job.run_part(build, cut, pos_b, vel_b, bias_b);
                let bits: Vec<u32> = (0..n)
                    .flat_map(|k| pos[k].to_array().into_iter().chain(vel[k].to_array()))
                    .chain(bias)
                    .map(f32::to_bits)
                    .collect();
                (counts, bits)
            };
            let (baseline, bits) = run(Build::Arrays, 0);
            assert!(
                baseline.neighbors > n as u64,
                "case {case}: too few neighbours"
            );
            for cut in [0, 1, 37, 350] {
                // The work counted depends on how the cut groups boids, not on the build.
                let (work, _) = run(Build::Arrays, cut);
                for build in Build::ALL.iter().filter(|b| b.supported()) {
                    let (counts, got) = run(*build, cut);
                    assert_eq!(counts, work, "case {case}, {build:?}, cut {cut}");
                    assert_eq!(counts.neighbors, baseline.neighbors);
                    assert!(got == bits, "case {case}, {build:?}, cut {cut}: other bits");
                }
            }
        }
    }
}
