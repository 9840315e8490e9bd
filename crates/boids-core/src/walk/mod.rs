//! The one neighbour walk every model's step runs on: the previous frame in cell order, read
//! [`LANES`] boids at a time, each candidate tested against every lane in one instruction.
//!
//! **Boids in lanes.** Boids are stored in cell order, so a run of consecutive boids in one row
//! of cells shares nearly all of its candidates: the cells one row and a visual range of
//! columns ([`GridGeometry::reach`]) around the run. The walk takes up to [`LANES`] such boids
//! as a *group*, one boid per vector lane, and visits each candidate once for the whole group:
//! its coordinates are loaded once and tested against every lane. The cells of one row around
//! the group are one span of boids ([`GridGeometry::runs_near`]), so the walk is three plain
//! loops per group. What a model takes from a candidate is its [`Gather`]: the boids rules'
//! three sums ([`crate::interact`]), Vicsek's sum of headings, Couzin's zones
//! ([`crate::models::lanes`]); how its boids then move is its [`LaneModel`].
//!
//! **Every lane sums exactly its own block.** A lane meets candidates of the run's cells
//! beyond the reach from its own column, which are not in its block of cells. An unshifted run
//! is one span of a row, so such a candidate is more than `reach` cell widths away in x,
//! exactly, and `reach` cells are wider than the visual range. Rounding is monotonic, so the
//! computed `dx * dx` is at least the rounded square of that width, which exceeds every range
//! bound a model tests ([`Candidate::within`], all at most the visual range's): the candidate
//! fails them in that lane and, since sums grow only by selects, leaves them bit for bit
//! unchanged. A shifted offset is rounded twice, so there a lane mask keeps each boid to cells
//! within reach of its own instead. So each lane adds its candidates in the order the cells are
//! visited ([`GridGeometry::cells_near`]: rows from the lowest, unwrapped columns left to
//! right, ascending id within a cell), whichever group it lands in: the result depends neither
//! on how boids fall into groups nor on chunking, thread count or the machine's vector width.
//!
//! **The field of view is a mask.** With a blind angle each lane keeps its unit heading, and a
//! candidate counts for a lane only where the lane sees it: the test of
//! [`FieldOfView::sees`](crate::models::neighborhood::FieldOfView::sees), with the same IEEE
//! operations (`-(h . d) >= limit * sqrt(d . d)` is `h . (-d) >= limit * |-d|` exactly), ANDed
//! into the range masks. No branch leaves the loop.
//!
//! **No branches in the loop.** Range tests become lane masks and the sums grow by selects, so
//! the compiler keeps the loop in vector registers. It is compiled for AVX2 and AVX-512 as well
//! as the baseline, the best chosen at run time; all perform the same IEEE operations in the
//! same order (Rust never fuses a multiply and an add unless asked, and the fused multiply-adds
//! asked for multiply by exactly 1.0, so they round as the adds), so all give the same bits.
//!
//! **Counting the work.** Beside the sums the walk counts what it does ([`ScanCounts`]): per
//! run of cells, its cells, and its boids times the group's lanes (the distance tests); the
//! neighbours are the model's to count, by a population count of its range masks on the scalar
//! units, which the vector loop leaves idle. A lane past the group's last boid sits at
//! x = infinity, so it is in range of nothing.

mod group;

use std::ops::Range;

use crate::grid::{GridGeometry, NearRun};
use crate::par;
use crate::params::Params;
use crate::rules::{BoidState, Kernel};
pub use crate::simd::LANES;
use crate::simd::{Arrays, Build, Simd};
use crate::space::{self, Coordinates, Dim, Dimension, VecN};
use crate::stats::ScanCounts;
use crate::world::Pull;
use group::CellWalk;
pub(crate) use group::{Group, Lanes};

/// The previous frame in cell order. A candidate's position and velocity share one entry
/// (16 bytes in 2D, 24 in 3D), so the walk reads each candidate from one place. Both arrays
/// carry [`LANES`] entries of padding, so a group's lanes past the last boid still read memory.
#[derive(Clone, Debug)]
pub(crate) struct Frame<const D: usize> {
    /// Position, then velocity, of each boid.
    pub boid: Vec<[[f32; D]; 2]>,
    pub bias: Vec<f32>,
    /// The unit heading of each boid (zero at rest), for the models that sum headings; empty
    /// for the others. Made once a step ([`Frame::make_headings`]), not once per candidate.
    pub heading: Vec<[f32; D]>,
}

impl<const D: usize> Default for Frame<D> {
    fn default() -> Self {
        Self {
            boid: Vec::new(),
            bias: Vec::new(),
            heading: Vec::new(),
        }
    }
}

impl<const D: usize> Frame<D> {
    /// Where the position and the velocity lie in an entry of [`Frame::boid`].
    pub const POSITION: usize = 0;
    pub const VELOCITY: usize = 1;

    /// Fills [`Frame::heading`] from the velocities (glam's `normalize_or_zero`, as the
    /// general path takes a heading).
    pub fn make_headings(&mut self)
    where
        Dim<D>: Dimension<D>,
    {
        self.heading.resize(self.boid.len(), [0.0; D]);
        let boid = &self.boid;
        par::for_each_indexed(&mut self.heading, |k, heading| {
            *heading = VecN::<D>::from(boid[k][Self::VELOCITY])
                .normalize_or_zero()
                .into();
        });
    }

    /// Axis `a` of the position or velocity (`what`) of the boids `first..first + LANES`.
    #[inline(always)]
    pub fn lanes(&self, first: usize, what: usize, a: usize) -> [f32; LANES] {
        let boids = &self.boid[first..first + LANES];
        std::array::from_fn(|l| boids[l][what][a])
    }
}

/// Everything a step on the walk reads.
pub(crate) struct Interaction<'a, const D: usize>
where
    Dim<D>: Dimension<D>,
{
    pub prev: &'a Frame<D>,
    pub geometry: &'a GridGeometry<D>,
    /// `cell_start[c]..cell_start[c + 1]`: the boids of cell `c` in `prev`.
    pub cell_start: &'a [u32],
    pub groups: &'a [u8],
    /// The id of each boid of `prev` (a force pulls boids by id; the noise is keyed by id).
    pub ids: &'a [u32],
    pub params: &'a Params,
    pub kernel: &'a Kernel<D>,
    /// The seed and the number of the step (the heading models' noise streams).
    pub seed: u64,
    pub step: u64,
    pub wander: [f32; D],
    /// What pulls on the boids this step: predators, attractors, a force (`None`: nothing).
    pub world: Option<&'a Pull<'a, D>>,
}

impl<const D: usize> Interaction<'_, D>
where
    Dim<D>: Dimension<D>,
{
    /// The boid at `slot` as the previous frame holds it.
    #[inline(always)]
    pub fn boid(&self, slot: usize) -> BoidState<D> {
        let [position, velocity] = self.prev.boid[slot];
        BoidState {
            position: position.into(),
            velocity: velocity.into(),
            bias: self.prev.bias[slot],
        }
    }

    /// What pulls on the boid at `slot`, at `position`, this step (`None`: nothing).
    #[inline(always)]
    pub fn pull_on(&self, slot: usize, position: VecN<D>) -> Option<VecN<D>> {
        self.world.map(|w| w.pull(self.ids[slot], position))
    }
}

/// A candidate of a run as a model's [`Gather`] sees it, against every lane of a group.
/// `MASKED`: some lanes may not count it whatever its distance (a shifted run beyond their
/// reach, or out of their field of view).
pub(crate) struct Candidate<S: Simd, const D: usize, const MASKED: bool> {
    /// Its slot in the frame.
    pub slot: usize,
    /// `p_lane - p_candidate`, minimum image, in every lane.
    pub d: [S::F; D],
    /// `d . d`.
    pub d2: S::F,
    /// Its velocity.
    pub velocity: [f32; D],
    /// The lanes within reach of its run that see it ([`Candidate::visible`]).
    visible: S::M,
}

impl<S: Simd, const D: usize, const MASKED: bool> Candidate<S, D, MASKED> {
    /// The lanes that count the candidate within squared distance `below`, which must be at
    /// most the visual range's (see the module docs).
    #[inline(always)]
    pub fn within(&self, below: S::F) -> S::M {
        match MASKED {
            true => S::lt_where(self.visible, self.d2, below),
            false => S::lt(self.d2, below),
        }
    }

    /// The unit vector along `d` in every lane, and the lanes where it is one (glam's
    /// `normalize_or_zero`, which the general path takes: zero where `1 / |d|` is not a positive
    /// finite number).
    #[inline(always)]
    pub fn unit(&self) -> ([S::F; D], S::M) {
        let rcp = S::div(S::splat(1.0), S::sqrt(self.d2));
        let finite = S::and(
            S::lt(rcp, S::splat(f32::INFINITY)),
            S::gt(rcp, S::splat(0.0)),
        );
        (self.d.map(|c| S::mul(c, rcp)), finite)
    }

    /// The lanes within reach of the candidate's run of cells (every lane unless the run is
    /// shifted: see the module docs) that see it in their field of view: for a search without
    /// a range, which cannot lean on [`Candidate::within`].
    #[inline(always)]
    pub fn visible(&self) -> S::M {
        self.visible
    }
}

/// What a model sums from the candidates of a group, one register of lanes per sum. Every sum
/// grows only by a select under [`Candidate::within`] (so a candidate out of range leaves it
/// bit for bit unchanged), or, for a search without a range (k nearest), keeps what it takes
/// in an order of its own.
pub(crate) trait Gather<S: Simd, const D: usize> {
    /// Adds one candidate.
    fn add<const MASKED: bool>(
        &mut self,
        lanes: &Lanes<'_, S, D>,
        candidate: &Candidate<S, D, MASKED>,
    );
}

/// The new state of a group's boids, lane by lane.
pub(crate) struct Next<const D: usize> {
    pub position: [[f32; LANES]; D],
    pub velocity: [[f32; LANES]; D],
    pub bias: [f32; LANES],
}

impl<const D: usize> Next<D> {
    /// No state yet.
    pub fn new() -> Self {
        Self {
            position: [[0.0; LANES]; D],
            velocity: [[0.0; LANES]; D],
            bias: [0.0; LANES],
        }
    }

    /// Lane `l` becomes `boid`.
    #[inline(always)]
    pub fn set(&mut self, l: usize, boid: BoidState<D>)
    where
        Dim<D>: Dimension<D>,
    {
        let (p, v): ([f32; D], [f32; D]) = (boid.position.into(), boid.velocity.into());
        for a in 0..D {
            self.position[a][l] = p[a];
            self.velocity[a][l] = v[a];
        }
        self.bias[l] = boid.bias;
    }
}

/// A model on the walk: what it gathers, and how a group's boids move from their sums.
pub(crate) trait LaneModel<const D: usize>: Sync
where
    Dim<D>: Dimension<D>,
{
    /// Memory a part of the step reuses from group to group (none for most models).
    type Scratch: Default;

    /// The sums of one group, which may keep part of themselves in the scratch.
    type Sums<'s, S: Simd>: Gather<S, D>
    where
        Self: 's;

    /// Sums with no candidate yet.
    fn empty<'s, S: Simd>(
        &self,
        lanes: &Lanes<'_, S, D>,
        scratch: &'s mut Self::Scratch,
    ) -> Self::Sums<'s, S>;

    /// The group's new state from its sums, counting its neighbours (and any work the model
    /// does beyond the walk) into `counts`.
    fn finish<S: Simd>(
        &self,
        job: &Interaction<D>,
        group: &Group<D>,
        sums: Self::Sums<'_, S>,
        counts: &mut ScanCounts,
    ) -> Next<D>;
}

/// Where a part of the step writes: its first boid, and its positions, velocities and biases.
pub(crate) type Part<'a, const D: usize> =
    (usize, &'a mut [VecN<D>], &'a mut [VecN<D>], &'a mut [f32]);

impl<const D: usize> Interaction<'_, D>
where
    Dim<D>: Dimension<D>,
{
    /// The new state of every boid (cell order) under `model` into `pos`, `vel` and `bias`, in
    /// parallel, and what the walk did.
    pub fn run<M: LaneModel<D>>(
        &self,
        model: &M,
        pos: &mut [VecN<D>],
        vel: &mut [VecN<D>],
        bias: &mut [f32],
    ) -> ScanCounts {
        let build = Build::best();
        par::sum_parts((pos, vel, bias), |start, (pos, vel, bias)| {
            self.run_part(model, build, (start, pos, vel, bias))
        })
    }

    /// The new state of the boids of `part` by `build`, which must be [`Build::supported`],
    /// and what the walk did.
    pub fn run_part<M: LaneModel<D>>(&self, model: &M, build: Build, part: Part<D>) -> ScanCounts {
        let pairwise = self.geometry.pairwise_wrap() != [0.0; D];
        let view = self.params.blind_angle > 0.0;
        match (pairwise, view) {
            (false, false) => walk_part::<M, D, false, false>(build, self, model, part),
            (false, true) => walk_part::<M, D, false, true>(build, self, model, part),
            (true, false) => walk_part::<M, D, true, false>(build, self, model, part),
            (true, true) => walk_part::<M, D, true, true>(build, self, model, part),
        }
    }
}

/// [`Interaction::run_part`] by `build`.
/// `PAIRWISE`: some torus axis is a single cell, and offsets take the minimum image per pair.
/// `VIEW`: a blind angle masks candidates by each lane's field of view.
fn walk_part<M: LaneModel<D>, const D: usize, const PAIRWISE: bool, const VIEW: bool>(
    build: Build,
    job: &Interaction<D>,
    model: &M,
    part: Part<D>,
) -> ScanCounts
where
    Dim<D>: Dimension<D>,
{
    debug_assert!(build.supported());
    match build {
        Build::Arrays => chunk::<Arrays, M, D, PAIRWISE, VIEW>(job, model, part),
        // SAFETY (both): the caller checked that the processor has the build's features.
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        Build::Avx2 => unsafe { x86::chunk_avx2::<M, D, PAIRWISE, VIEW>(job, model, part) },
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        Build::Avx512 => unsafe { x86::chunk_avx512::<M, D, PAIRWISE, VIEW>(job, model, part) },
    }
}

/// The walk compiled for the x86 vector extensions.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Interaction, LaneModel, Part, chunk};
    use crate::simd::{Avx2, Avx512};
    use crate::space::{Dim, Dimension};
    use crate::stats::ScanCounts;

    #[target_feature(enable = "avx512f,avx512vl,avx2,popcnt")]
    pub fn chunk_avx512<M: LaneModel<D>, const D: usize, const PAIRWISE: bool, const VIEW: bool>(
        job: &Interaction<D>,
        model: &M,
        part: Part<D>,
    ) -> ScanCounts
    where
        Dim<D>: Dimension<D>,
    {
        chunk::<Avx512, M, D, PAIRWISE, VIEW>(job, model, part)
    }

    #[target_feature(enable = "avx2,popcnt")]
    pub fn chunk_avx2<M: LaneModel<D>, const D: usize, const PAIRWISE: bool, const VIEW: bool>(
        job: &Interaction<D>,
        model: &M,
        part: Part<D>,
    ) -> ScanCounts
    where
        Dim<D>: Dimension<D>,
    {
        chunk::<Avx2, M, D, PAIRWISE, VIEW>(job, model, part)
    }
}

/// [`walk_part`] with the vectors of `S`.
#[inline(always)]
fn chunk<S: Simd, M: LaneModel<D>, const D: usize, const PAIRWISE: bool, const VIEW: bool>(
    job: &Interaction<D>,
    model: &M,
    part: Part<D>,
) -> ScanCounts
where
    Dim<D>: Dimension<D>,
{
    let (start, pos, vel, bias) = part;
    let end = start + pos.len();
    let mut walk = CellWalk::new(job.cell_start, start);
    let mut counts = ScanCounts::default();
    let mut scratch = M::Scratch::default();
    let mut first = start;
    while first < end {
        let group = Group::new(job, &mut walk, first, end);
        let lanes = Lanes::<S, D>::new::<VIEW>(job, &group);
        let sums = model.empty::<S>(&lanes, &mut scratch);
        let sums = gather::<S, _, D, PAIRWISE, VIEW>(job, &group, &lanes, sums, &mut counts);
        let next = model.finish(job, &group, sums, &mut counts);
        let out = first - start;
        for l in 0..group.len {
            pos[out + l] = std::array::from_fn(|a| next.position[a][l]).into();
            vel[out + l] = std::array::from_fn(|a| next.velocity[a][l]).into();
            bias[out + l] = next.bias[l];
        }
        first += group.len;
    }
    counts
}

/// `sums` with every candidate of the rows of cells around `group` added, counting the walk's
/// work into `counts`: per run of cells, its cells and its boids tested against each boid of
/// the group. The sums go through by value, so that they stay in registers.
#[inline(always)]
fn gather<S: Simd, G: Gather<S, D>, const D: usize, const PAIRWISE: bool, const VIEW: bool>(
    job: &Interaction<D>,
    group: &Group<D>,
    lanes: &Lanes<'_, S, D>,
    mut sums: G,
    counts: &mut ScanCounts,
) -> G
where
    Dim<D>: Dimension<D>,
{
    let columns = group.column[0] as u32..=group.column[group.len - 1] as u32;
    for run in job.geometry.runs_near(group.row, columns) {
        let boids = job.cell_start[run.cells.start as usize] as usize
            ..job.cell_start[run.cells.end as usize] as usize;
        counts.cells += u64::from(run.cells.end - run.cells.start);
        counts.candidates += (boids.len() * group.len) as u64;
        // Offsets across a seam take the shift off after the difference, as the minimum
        // image does (the same rounding as the brute-force reference); elsewhere there is
        // nothing to take off.
        sums = if run.shift == [0.0; D] {
            add_run::<S, G, D, PAIRWISE, false, VIEW>(job, lanes, sums, boids, &run)
        } else {
            add_run::<S, G, D, PAIRWISE, true, VIEW>(job, lanes, sums, boids, &run)
        };
    }
    sums
}

/// `sums` with the candidates `boids` of `run` added to every lane.
/// `SHIFTED`: the run's offsets take a torus shift off, and a lane mask keeps each lane to
/// the cells within its reach (see the module docs).
#[inline(always)]
fn add_run<
    S: Simd,
    G: Gather<S, D>,
    const D: usize,
    const PAIRWISE: bool,
    const SHIFTED: bool,
    const VIEW: bool,
>(
    job: &Interaction<D>,
    lanes: &Lanes<'_, S, D>,
    mut sums: G,
    boids: Range<usize>,
    run: &NearRun<D>,
) -> G
where
    Dim<D>: Dimension<D>,
{
    let (first, last) = (*run.columns.start() as f32, *run.columns.end() as f32);
    let near = S::lt(
        S::abs(S::sub(lanes.column, S::splat((first + last) / 2.0))),
        S::splat((last - first) / 2.0 + lanes.reach + 0.5),
    );
    let shift = run.shift.map(S::splat);
    for (slot, &[p, v]) in boids.clone().zip(&job.prev.boid[boids]) {
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
        let visible = match (SHIFTED, VIEW) {
            (true, true) => S::and(near, lanes.sees(d, d2)),
            (false, true) => lanes.sees(d, d2),
            _ => near,
        };
        let velocity = v;
        if SHIFTED || VIEW {
            let candidate = Candidate::<S, D, true> {
                slot,
                d,
                d2,
                velocity,
                visible,
            };
            sums.add(lanes, &candidate);
        } else {
            let candidate = Candidate::<S, D, false> {
                slot,
                d,
                d2,
                velocity,
                visible,
            };
            sums.add(lanes, &candidate);
        }
    }
    sums
}

/// [`space::minimum_image_axis`] in every lane, for the per-pair minimum image.
#[inline(always)]
fn minimum_image<S: Simd, const D: usize>(mut d: [S::F; D], wrap: [f32; D]) -> [S::F; D] {
    for (c, wrap) in d.iter_mut().zip(wrap) {
        let lanes = S::to_array(*c);
        *c = S::load(lanes.map(|x| space::minimum_image_axis(x, wrap)));
    }
    d
}
