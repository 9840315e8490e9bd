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
//! for bit unchanged (a select, see [`Accum::add`]). That is the order of [`NeighborSearch`]'s
//! `for_each_candidate` with [`Accum::add`], so the result depends neither on how boids fall
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
//! [`Accum::add`]: crate::rules::Accum::add
//! [`NeighborSearch`]: crate::neighbors::NeighborSearch

use std::ops::Range;

use glam::Vec2;

use crate::grid::{GridGeometry, NearRun};
use crate::par;
use crate::real::{Real, V2};
use crate::rules::{self, Boids, Kernel, Scouts, group};
pub use crate::simd::LANES;
use crate::simd::{Arrays, Build, Pack, Simd};
use crate::stats::ScanCounts;
use crate::world::WorldSteer;

/// Column of an unused lane: no cell is within reach of it.
const NO_COLUMN: i32 = -1 << 30;

/// The previous frame in cell order. A candidate's position and velocity share one 16-byte
/// entry, so the scan reads each candidate from one place. Both arrays carry [`LANES`] entries
/// of padding, so a group's lanes past the last boid still read memory.
#[derive(Clone, Debug, Default)]
pub(crate) struct Frame {
    /// x, y, vx, vy of each boid.
    pub boid: Vec<[f32; 4]>,
    pub bias: Vec<f32>,
}

impl Frame {
    /// Where a component lies in an entry of [`Frame::boid`].
    pub const X: usize = 0;
    pub const Y: usize = 1;
    pub const VX: usize = 2;
    pub const VY: usize = 3;

    /// Component `c` ([`Frame::X`] to [`Frame::VY`]) of the boids `first..first + LANES`.
    #[inline(always)]
    fn lanes(&self, first: usize, c: usize) -> [f32; LANES] {
        let boids = &self.boid[first..first + LANES];
        std::array::from_fn(|l| boids[l][c])
    }
}

/// Everything the phase reads.
pub(crate) struct Interaction<'a> {
    pub prev: &'a Frame,
    pub geometry: &'a GridGeometry<2>,
    /// `cell_start[c]..cell_start[c + 1]`: the boids of cell `c` in `prev`.
    pub cell_start: &'a [u32],
    pub groups: &'a [u8],
    pub kernel: &'a Kernel,
    pub wander: Vec2,
    /// What predators and attractors do to boids this step (`None`: nothing).
    pub world: Option<&'a WorldSteer>,
}

impl Interaction<'_> {
    /// The new state of every boid (cell order) into `pos`, `vel` and `bias`, in parallel, and
    /// what the scan did.
    pub fn run(&self, pos: &mut [Vec2], vel: &mut [Vec2], bias: &mut [f32]) -> ScanCounts {
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
        pos: &mut [Vec2],
        vel: &mut [Vec2],
        bias: &mut [f32],
    ) -> ScanCounts {
        let pairwise = self.geometry.pairwise_wrap() != [0.0; 2];
        let (job, out) = (self, (start, pos, vel, bias));
        match (pairwise, self.kernel.must_skip_self()) {
            (false, false) => interact_chunk::<false, false>(build, job, out),
            (false, true) => interact_chunk::<false, true>(build, job, out),
            (true, false) => interact_chunk::<true, false>(build, job, out),
            (true, true) => interact_chunk::<true, true>(build, job, out),
        }
    }
}

/// Where a part of the step writes: its first boid, and its positions, velocities and biases.
type Part<'a> = (usize, &'a mut [Vec2], &'a mut [Vec2], &'a mut [f32]);

/// New state of the boids of `part` (cell order), by `build`, which must be
/// [`Build::supported`], and what the scan did.
/// `PAIRWISE`: some torus axis is a single cell, and offsets take the minimum image per pair.
/// `SKIP_SELF`: each lane must leave its own boid out by index ([`Kernel::must_skip_self`]).
fn interact_chunk<const PAIRWISE: bool, const SKIP_SELF: bool>(
    build: Build,
    job: &Interaction,
    part: Part,
) -> ScanCounts {
    debug_assert!(build.supported());
    match build {
        Build::Arrays => chunk::<Arrays, PAIRWISE, SKIP_SELF>(job, part),
        // SAFETY (both): the caller checked that the processor has the build's features.
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        Build::Avx2 => unsafe { x86::chunk_avx2::<PAIRWISE, SKIP_SELF>(job, part) },
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        Build::Avx512 => unsafe { x86::chunk_avx512::<PAIRWISE, SKIP_SELF>(job, part) },
    }
}

/// The loop compiled for the x86 vector extensions.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Interaction, Part, chunk};
    use crate::simd::{Avx2, Avx512};
    use crate::stats::ScanCounts;

    #[target_feature(enable = "avx512f,avx512vl,avx2,popcnt")]
    pub fn chunk_avx512<const PAIRWISE: bool, const SKIP_SELF: bool>(
        job: &Interaction,
        part: Part,
    ) -> ScanCounts {
        chunk::<Avx512, PAIRWISE, SKIP_SELF>(job, part)
    }

    #[target_feature(enable = "avx2,popcnt")]
    pub fn chunk_avx2<const PAIRWISE: bool, const SKIP_SELF: bool>(
        job: &Interaction,
        part: Part,
    ) -> ScanCounts {
        chunk::<Avx2, PAIRWISE, SKIP_SELF>(job, part)
    }
}

/// [`interact_chunk`] with the vectors of `S`.
#[inline(always)]
fn chunk<S: Simd, const PAIRWISE: bool, const SKIP_SELF: bool>(
    job: &Interaction,
    part: Part,
) -> ScanCounts {
    let (start, pos, vel, bias) = part;
    let end = start + pos.len();
    let mut walk = CellWalk::new(job.cell_start, start);
    let mut counts = ScanCounts::default();
    let mut first = start;
    while first < end {
        let group = Group::new(job, &mut walk, first, end);
        let sums = Sums::<S>::of::<PAIRWISE, SKIP_SELF>(job, &group, &mut counts);
        let next = group.advance(job, &sums);
        let lanes = |v: Pack<S>| S::to_array(v.0);
        let (x, y) = (lanes(next.position.x), lanes(next.position.y));
        let (vx, vy) = (lanes(next.velocity.x), lanes(next.velocity.y));
        let b = lanes(next.bias);
        let out = first - start;
        for l in 0..group.len {
            pos[out + l] = Vec2::new(x[l], y[l]);
            vel[out + l] = Vec2::new(vx[l], vy[l]);
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

/// Up to [`LANES`] consecutive boids in one row of cells, one per lane.
struct Group {
    /// Index of lane 0's boid.
    first: usize,
    /// Lanes in use.
    len: usize,
    row: u32,
    /// Each lane's column ([`NO_COLUMN`] past `len`).
    column: [i32; LANES],
    x: [f32; LANES],
    y: [f32; LANES],
}

impl Group {
    /// The group starting at boid `first`: as many boids as fit, stopping at `end` and at the
    /// end of the row.
    #[inline(always)]
    fn new(job: &Interaction, walk: &mut CellWalk, first: usize, end: usize) -> Self {
        let [_, row] = job.geometry.coords(walk.cell_of(first));
        // The row's cells are numbered from `row * nx`; one division per group, not per boid.
        let nx = job.geometry.dims()[0];
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
            x: job.prev.lanes(first, Frame::X),
            y: job.prev.lanes(first, Frame::Y),
        }
    }
}

impl Group {
    /// The rules applied to every lane ([`rules::advance`] on eight boids at once).
    #[inline(always)]
    fn advance<S: Simd>(&self, job: &Interaction, sums: &Sums<S>) -> Boids<Pack<S>> {
        let prev = job.prev;
        let lanes = |c: usize| -> Pack<S> { Pack(S::load(prev.lanes(self.first, c))) };
        // A plain loop: closures here are not inlined into the vector builds.
        let (mut goal_x, mut goal_y, mut scout) = ([0.0; LANES], [0.0; LANES], [0.0; LANES]);
        for l in 0..self.len {
            let group = job.groups[self.first + l];
            let goal = job.kernel.goal[usize::from(group)];
            (goal_x[l], goal_y[l]) = (goal.x, goal.y);
            scout[l] = f32::from(u8::from(group != group::NONE));
        }
        let scouts = Scouts {
            goal: V2::new(Pack(S::load(goal_x)), Pack(S::load(goal_y))),
            scout: Pack(S::load(scout)).gt(Pack::splat(0.0)),
        };
        let boids = Boids {
            position: V2::new(Pack(S::load(self.x)), Pack(S::load(self.y))),
            velocity: V2::new(lanes(Frame::VX), lanes(Frame::VY)),
            bias: Pack(S::load(
                prev.bias[self.first..self.first + LANES]
                    .try_into()
                    .expect("LANES entries"),
            )),
        };
        let acc = rules::Sums {
            count: Pack(sums.count),
            offset_sum: V2::new(Pack(sums.offset_x), Pack(sums.offset_y)),
            velocity_sum: V2::new(Pack(sums.velocity_x), Pack(sums.velocity_y)),
            separation: V2::new(Pack(sums.separation_x), Pack(sums.separation_y)),
        };
        let world = job.world.map(|steer| {
            let (mut pull_x, mut pull_y) = ([0.0; LANES], [0.0; LANES]);
            let lanes = || (0..self.len).map(|l| Vec2::new(self.x[l], self.y[l]));
            let lo = lanes().fold(Vec2::INFINITY, Vec2::min);
            let hi = lanes().fold(Vec2::NEG_INFINITY, Vec2::max);
            // Most groups are far from every predator: their pull is zero, as `pull` gives it.
            if steer.reaches(lo, hi) {
                for (l, p) in lanes().enumerate() {
                    let pull = steer.pull(p);
                    (pull_x[l], pull_y[l]) = (pull.x, pull.y);
                }
            }
            V2::new(Pack(S::load(pull_x)), Pack(S::load(pull_y)))
        });
        rules::advance_lanes(job.kernel, &acc, boids, &scouts, job.wander, world)
    }
}

/// The fields of [`Accum`], one lane per boid of a group, and the group's neighbour count.
struct Sums<S: Simd> {
    /// Candidates within the visual range over all lanes, each lane's own boid among them: for
    /// [`ScanCounts::neighbors`], counted on the scalar units beside the vector sums.
    in_range: u32,
    count: S::F,
    offset_x: S::F,
    offset_y: S::F,
    velocity_x: S::F,
    velocity_y: S::F,
    separation_x: S::F,
    separation_y: S::F,
}

impl<S: Simd> Sums<S> {
    /// The neighbour sums of every boid of `group`, counting the scan's work into `counts`:
    /// per run of cells, its cells and its boids tested against each boid of the group, and
    /// once at the end the group's neighbours.
    #[inline(always)]
    fn of<const PAIRWISE: bool, const SKIP_SELF: bool>(
        job: &Interaction,
        group: &Group,
        counts: &mut ScanCounts,
    ) -> Self {
        let zero = S::splat(0.0);
        let mut sums = Self {
            in_range: 0,
            count: zero,
            offset_x: zero,
            offset_y: zero,
            velocity_x: zero,
            velocity_y: zero,
            separation_x: zero,
            separation_y: zero,
        };
        let columns = group.column[0] as u32..=group.column[group.len - 1] as u32;
        let lanes = Lanes::<S>::new(job, group);
        for run in job.geometry.runs_near(group.row, columns) {
            let boids = job.cell_start[run.cells.start as usize] as usize
                ..job.cell_start[run.cells.end as usize] as usize;
            counts.cells += u64::from(run.cells.end - run.cells.start);
            counts.candidates += (boids.len() * group.len) as u64;
            // Offsets across a seam take the shift off after the difference, as the minimum
            // image does (the same rounding as the brute-force reference); elsewhere there is
            // nothing to take off.
            if run.shift == [0.0; 2] {
                sums.add_run::<PAIRWISE, SKIP_SELF, false>(job, &lanes, boids, &run);
            } else {
                sums.add_run::<PAIRWISE, SKIP_SELF, true>(job, &lanes, boids, &run);
            }
        }
        // Every lane found its own boid in range (at distance zero) once.
        counts.neighbors += u64::from(sums.in_range) - group.len as u64;
        sums
    }

    /// Adds the candidates `boids` of `run` to every lane: [`Accum::add`] in all lanes at once.
    /// `SHIFTED`: the run's offsets take a torus shift off.
    ///
    /// A lane meets candidates of the run's cells beyond the reach from its own column, which
    /// are not in its block. An unshifted run is one span of a row, so such a candidate is more
    /// than `reach` cell widths away in x, exactly, and `reach` cells are wider than the visual
    /// range. Rounding is monotonic, so the computed `dx * dx` is at least the rounded square
    /// of that width, which exceeds both range bounds: the candidate fails both tests in that
    /// lane and leaves its sums bit for bit unchanged. So every lane sums exactly its own
    /// block, in its order. A shifted offset is rounded twice, so there a lane mask keeps each
    /// boid to cells within reach of its own instead.
    #[inline(always)]
    fn add_run<const PAIRWISE: bool, const SKIP_SELF: bool, const SHIFTED: bool>(
        &mut self,
        job: &Interaction,
        lanes: &Lanes<S>,
        boids: Range<usize>,
        run: &NearRun<2>,
    ) {
        let (first, last) = (*run.columns.start() as f32, *run.columns.end() as f32);
        let near = S::lt(
            S::abs(S::sub(lanes.column, S::splat((first + last) / 2.0))),
            S::splat((last - first) / 2.0 + lanes.reach + 0.5),
        );
        let shift = run.shift;
        let (shift_x, shift_y) = (S::splat(shift[0]), S::splat(shift[1]));
        let prev = job.prev;
        let Sums {
            mut in_range,
            mut count,
            mut offset_x,
            mut offset_y,
            mut velocity_x,
            mut velocity_y,
            mut separation_x,
            mut separation_y,
        } = *self;
        for (j, &[x, y, vx, vy]) in boids.clone().zip(&prev.boid[boids]) {
            let mut dx = S::sub(lanes.x, S::splat(x));
            let mut dy = S::sub(lanes.y, S::splat(y));
            if SHIFTED {
                (dx, dy) = (S::sub(dx, shift_x), S::sub(dy, shift_y));
            }
            if PAIRWISE {
                (dx, dy) = lanes.minimum_image(dx, dy);
            }
            let d2 = S::add(S::mul(dx, dx), S::mul(dy, dy));
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
            // Three of the seven sums go to the multipliers, which the scan leaves idler.
            let one = lanes.opaque_one;
            count = S::add_where_by_multiplier(averaged, count, one, one);
            offset_x = S::sub_where(averaged, offset_x, dx);
            offset_y = S::sub_where(averaged, offset_y, dy);
            velocity_x = S::add_where_by_multiplier(averaged, velocity_x, S::splat(vx), one);
            velocity_y = S::add_where_by_multiplier(averaged, velocity_y, S::splat(vy), one);
            separation_x = S::add_where(separated, separation_x, dx);
            separation_y = S::add_where(separated, separation_y, dy);
        }
        *self = Sums {
            in_range,
            count,
            offset_x,
            offset_y,
            velocity_x,
            velocity_y,
            separation_x,
            separation_y,
        };
    }
}

impl<S: Simd> Clone for Sums<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Simd> Copy for Sums<S> {}

/// A group's lanes and the scan's constants, as vectors.
struct Lanes<S: Simd> {
    /// Index of lane 0's boid.
    first: usize,
    /// The lanes' positions; lanes past the group's boids at x = infinity, where no candidate
    /// is in range (their sums are not used, and they count no neighbours).
    x: S::F,
    y: S::F,
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
    wrap_x: S::F,
    wrap_y: S::F,
}

impl<S: Simd> Lanes<S> {
    #[inline(always)]
    fn new(job: &Interaction, group: &Group) -> Self {
        let wrap = job.geometry.pairwise_wrap();
        Self {
            first: group.first,
            x: S::load(std::array::from_fn(|l| match l < group.len {
                true => group.x[l],
                false => f32::INFINITY,
            })),
            y: S::load(group.y),
            column: S::load(group.column.map(|c| c as f32)),
            reach: job.geometry.reach()[0] as f32,
            visual_below: S::splat(job.kernel.visual_below),
            protected_below: S::splat(job.kernel.protected_below),
            unseen_below: S::splat(job.kernel.unseen_below()),
            opaque_one: std::hint::black_box(S::splat(1.0)),
            wrap_x: S::splat(wrap[0]),
            wrap_y: S::splat(wrap[1]),
        }
    }

    /// [`rules::minimum_image`] in every lane.
    #[inline(always)]
    fn minimum_image(&self, dx: S::F, dy: S::F) -> (S::F, S::F) {
        let axis = |d: S::F, w: S::F| {
            let d = S::to_array(d);
            let w = S::to_array(w);
            S::load(std::array::from_fn(|l| {
                rules::minimum_image(Vec2::new(d[l], 0.0), Vec2::new(w[l], 0.0)).x
            }))
        };
        (axis(dx, self.wrap_x), axis(dy, self.wrap_y))
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::grid::CellIndex;
    use crate::neighbors::NeighborSearch;
    use crate::params::{Boundary, Params};
    use crate::rules::{Accum, BoidState};
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
    /// [`Accum::add`], moved by [`rules::advance`]. It counts the other boids within the visual
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
                    .map(|&i| [pos[i].x, pos[i].y, vel[i].x, vel[i].y])
                    .chain([[0.0; 4]; LANES])
                    .collect(),
                bias: vec![0.0; p.count + LANES],
            };
            let groups: Vec<u8> = order.iter().map(|&i| (i % 3) as u8).collect();
            let kernel = Kernel::new(&p);
            let wander = Vec2::new(0.6, 0.8);

            let sorted: Vec<Vec2> = order.iter().map(|&i| pos[i]).collect();
            let sorted_ids: Vec<u32> = order.iter().map(|&i| i as u32).collect();
            let search = NeighborSearch::new(&p, &sorted, &sorted_ids);
            let mut neighbors = 0;
            let want: Vec<[u32; 5]> = (0..p.count)
                .map(|k| {
                    let mut acc = Accum::default();
                    search.for_each_candidate(k, |j, d| {
                        let v = Vec2::new(frame.boid[j][Frame::VX], frame.boid[j][Frame::VY]);
                        acc.add(&kernel, d, v, j == k);
                        neighbors += u64::from(j != k && d.length_squared() < kernel.visual_below);
                    });
                    let boid = BoidState {
                        position: sorted[k],
                        velocity: Vec2::new(frame.boid[k][Frame::VX], frame.boid[k][Frame::VY]),
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
                kernel: &kernel,
                wander,
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
}
