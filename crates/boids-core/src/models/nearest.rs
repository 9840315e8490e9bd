//! k nearest neighbours on the walk ([`crate::walk`]): while the walk passes the candidates of
//! a group's block of cells, every lane keeps the nearest few it has met, sorted, in vector
//! registers (one register per rank, a lane per boid), and a candidate sinks into every
//! lane's list at once by compares and selects, with no branch; then every model sums what it
//! needs from the `k` nearest.
//!
//! **The grid.** A k-nearest step bins the flock on cubic cells sized for about `k` boids a
//! cell block (`nearest_geometry`), so the block around a boid (rings 0 and 1 of the ring
//! search, [`crate::grid::Rings`]) nearly always holds its `k` nearest. A lane takes only
//! candidates within one cell width: the bound under which the ring search stops after ring 1
//! ([`crate::grid::rings_hold`]), so it meets few of them.
//!
//! **Exact, whatever the group.** A lane's list holds the nearest in view, not itself, among
//! the candidates it met within that bound, which include its whole block (and perhaps some
//! of the group's other columns). When its `k`-th is below the ring search's bound, nothing
//! outside the block is as near, so these are the `k` nearest of the whole flock. Otherwise (a
//! sparse place, a straggler, fewer than `k` in view, a tie at the `k`-th distance, whose
//! order by id the registers do not keep, or a `k` above [`MOST_K`]) that boid takes the ring
//! search of the general path, ring by ring until it holds. Either way the set is the one the
//! reference finds: the `k` nearest in view, ties to the lower id.
//!
//! **Canonical sums.** The members are summed nearest first (ties by id), after the boid
//! itself, so the sums do not depend on the order the walk met them; their offsets are the
//! minimum images, whichever path found them. Separation (and Couzin's repulsion) stay
//! metric: every boid in view within the protected range, which the block always holds (cells
//! are no narrower than that range), summed in the walk's order under its range mask, as the
//! metric models sum ([`crate::walk`]).
//!
//! No allocation per boid: a part of the step reuses one list for the ring search.

use super::lanes::steer_boid;
use super::neighborhood::FieldOfView;
use crate::grid::{Rings, rings_hold};
use crate::params::Model;
use crate::rules::{self, BoidState, Kernel, Sums};
use crate::simd::Simd;
use crate::space::{self, Coordinates, Dim, Dimension, VecN};
use crate::stats::ScanCounts;
use crate::walk::{Candidate, Frame, Gather, Group, Interaction, LANES, LaneModel, Lanes, Next};

/// A neighbour in a list: its squared distance, id, slot and offset `p_i - p_j`.
#[derive(Clone, Copy, Debug)]
struct Entry<const D: usize> {
    d2: f32,
    id: u32,
    slot: u32,
    d: [f32; D],
}

impl<const D: usize> Entry<D> {
    /// Whether `self` is nearer than `other`: by squared distance, then id.
    #[inline(always)]
    fn before(&self, other: &Entry<D>) -> bool {
        self.d2 < other.d2 || (self.d2 == other.d2 && self.id < other.id)
    }
}

/// Up to `k` entries, nearest first: in room of its own for a `k` up to [`MOST_K`], on the
/// heap (made once per part of the step) for a larger `k`.
#[derive(Clone, Debug)]
pub(crate) struct List<const D: usize> {
    inline: [Entry<D>; MOST_K],
    heap: Vec<Entry<D>>,
    len: usize,
    k: usize,
}

impl<const D: usize> Default for List<D> {
    fn default() -> Self {
        Self::new(0)
    }
}

impl<const D: usize> List<D> {
    fn new(k: usize) -> Self {
        // The entry of a list's unused room.
        let none = Entry {
            d2: f32::INFINITY,
            id: 0,
            slot: 0,
            d: [0.0; D],
        };
        Self {
            inline: [none; MOST_K],
            heap: if k > MOST_K {
                vec![none; k]
            } else {
                Vec::new()
            },
            len: 0,
            k,
        }
    }

    /// The entries, nearest first.
    fn entries(&self) -> &[Entry<D>] {
        let room = if self.k > MOST_K {
            &self.heap
        } else {
            &self.inline[..]
        };
        &room[..self.len]
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    /// The squared distance a candidate must not exceed to enter: the `k`-th's when full.
    #[inline(always)]
    fn farthest(&self) -> f32 {
        match self.len == self.k {
            true => self.entries()[self.k - 1].d2,
            false => f32::INFINITY,
        }
    }

    /// Takes `e` if it is among the `k` nearest so far.
    #[inline(always)]
    fn offer(&mut self, e: Entry<D>) {
        let (k, len) = (self.k, self.len);
        let room = if k > MOST_K {
            &mut self.heap[..]
        } else {
            &mut self.inline[..]
        };
        let full = len == k;
        if full && !e.before(&room[k - 1]) {
            return;
        }
        // Inserted from the far end (k is small), entry by entry rather than by a memmove.
        let mut at = if full { k - 1 } else { len };
        while at > 0 && e.before(&room[at - 1]) {
            room[at] = room[at - 1];
            at -= 1;
        }
        room[at] = e;
        self.len += usize::from(!full);
    }
}

/// The walk's k-nearest cells in `D` dimensions: their depth over the side of a square (cube)
/// holding k boids at the flock's density, and the columns across that depth (the general
/// path's ring search takes square cells of [`super::neighborhood::CELL_SCALE`]).
pub(crate) const fn cells<const D: usize>() -> (f64, u32) {
    match D {
        2 => (0.85, 2),
        _ => (1.0, 2),
    }
}

/// The ranks of a lane's list for `k` up to 8, and for `k` up to [`MOST_K`].
const SHORT_LIST: usize = 8;

/// Most neighbours the walk's lists hold; a larger `k` takes the ring search for every boid.
pub(crate) const MOST_K: usize = 16;

/// A slot of a list that holds no boid.
const EMPTY: u32 = u32::MAX;

/// The k-nearest step of every model, with lists of `RANKS` entries in the walk.
pub(crate) struct Nearest<const D: usize, const RANKS: usize> {
    /// `topological_k`.
    k: usize,
    /// The boids rules' kernel with no range for the averaging set: every member is averaged.
    averaging: Kernel<D>,
    /// How far a lane's block of cells reaches around it ([`GridGeometry::block_radius`]).
    ///
    /// [`GridGeometry::block_radius`]: crate::grid::GridGeometry::block_radius
    radius: f64,
    /// The squared distance within which the walk takes candidates: that radius's.
    within: f32,
}

/// The new state of every boid (cell order) under k nearest neighbours, and what the walk
/// did.
pub(crate) fn step<const D: usize>(
    job: &Interaction<D>,
    pos: &mut [VecN<D>],
    vel: &mut [VecN<D>],
    bias: &mut [f32],
) -> ScanCounts
where
    Dim<D>: Dimension<D>,
{
    match Nearest::<D, SHORT_LIST>::new(job) {
        short if short.k <= SHORT_LIST => job.run(&short, pos, vel, bias),
        _ => job.run(&Nearest::<D, MOST_K>::new(job), pos, vel, bias),
    }
}

impl<const D: usize, const RANKS: usize> Nearest<D, RANKS>
where
    Dim<D>: Dimension<D>,
{
    fn new(job: &Interaction<D>) -> Self {
        let mut averaging = *job.kernel;
        averaging.visual_below = f32::INFINITY;
        let radius = job.geometry.block_radius();
        Self {
            k: usize::try_from(job.params.topological_k).unwrap_or(usize::MAX),
            averaging,
            radius,
            within: (radius * radius) as f32,
        }
    }
}

/// A group's sums: every lane's list (the squared distances of rank `r` in `near[r]`, nearest
/// first, and their slots as bits in `slot[r]`), whether a lane met a candidate as near as its
/// last rank (a tie the registers cannot order by id), and the metric separation (the count,
/// the offsets, and for Couzin the unit vectors away) over the boids in view within the
/// protected range.
pub(crate) struct NearestSums<'s, S: Simd, const D: usize, const RANKS: usize> {
    near: [S::F; RANKS],
    slot: [S::F; RANKS],
    tie: S::M,
    protected: S::F,
    separation: [S::F; D],
    away: [S::F; D],
    list: &'s mut List<D>,
}

impl<S: Simd, const D: usize, const RANKS: usize> Gather<S, D> for NearestSums<'_, S, D, RANKS>
where
    Dim<D>: Dimension<D>,
{
    #[inline(always)]
    fn add<const MASKED: bool>(&mut self, lanes: &Lanes<'_, S, D>, c: &Candidate<S, D, MASKED>) {
        let own = lanes.own(c.slot);
        let protected = S::and_not(c.within(lanes.protected_below), own);
        // Few candidates are that close: most skip the division.
        if S::any(protected) {
            self.protected = S::add_where(protected, self.protected, S::splat(1.0));
            let (e, unit) = c.unit();
            let unit = S::and(protected, unit);
            let sums = self.separation.iter_mut().zip(&mut self.away);
            for (((separation, away), d), e) in sums.zip(c.d).zip(e) {
                *separation = S::add_where(protected, *separation, d);
                *away = S::add_where(unit, *away, e);
            }
        }
        let eligible = S::and_not(c.visible(), own);
        let mut near = S::select(eligible, c.d2, S::splat(f32::INFINITY));
        // No lane has it as near as its last rank: the common case, one compare.
        if !S::any(S::not(S::lt(self.near[RANKS - 1], near))) {
            return;
        }
        // It sinks to its rank in every lane; what falls off the end is the last rank's.
        let mut slot = S::splat(f32::from_bits(c.slot as u32));
        for r in 0..RANKS {
            let nearer = S::lt(near, self.near[r]);
            let (kept, kept_slot) = (self.near[r], self.slot[r]);
            self.near[r] = S::select(nearer, near, kept);
            self.slot[r] = S::select(nearer, slot, kept_slot);
            near = S::select(nearer, kept, near);
            slot = S::select(nearer, kept_slot, slot);
        }
        let last = self.near[RANKS - 1];
        let tied = S::and(S::ge(near, last), S::ge(last, near));
        self.tie = S::or(self.tie, tied);
    }
}

impl<const D: usize, const RANKS: usize> LaneModel<D> for Nearest<D, RANKS>
where
    Dim<D>: Dimension<D>,
{
    type Scratch = List<D>;
    type Sums<'s, S: Simd> = NearestSums<'s, S, D, RANKS>;

    #[inline(always)]
    fn empty<'s, S: Simd>(&self, _: &Lanes<'_, S, D>, list: &'s mut List<D>) -> Self::Sums<'s, S> {
        if list.k != self.k {
            *list = List::new(self.k);
        }
        let zero = S::splat(0.0);
        NearestSums {
            near: [S::splat(self.within); RANKS],
            slot: [S::splat(f32::from_bits(EMPTY)); RANKS],
            tie: S::lt(zero, zero),
            protected: zero,
            separation: [zero; D],
            away: [zero; D],
            list,
        }
    }

    #[inline(always)]
    fn finish<S: Simd>(
        &self,
        job: &Interaction<D>,
        group: &Group<D>,
        sums: Self::Sums<'_, S>,
        counts: &mut ScanCounts,
    ) -> Next<D> {
        let near = sums.near.map(S::to_array);
        let slots = sums.slot.map(|s| S::to_array(s).map(f32::to_bits));
        let tie = S::bits(sums.tie);
        let protected = S::to_array(sums.protected);
        let separation = sums.separation.map(S::to_array);
        let away = sums.away.map(S::to_array);
        let list = sums.list;
        let mut next = Next::new();
        for l in 0..group.len {
            let slot = group.first + l;
            if !self.take_lane(job, slot, l, &near, &slots, tie, list) {
                ring_search(job, slot, list, counts);
            }
            let metric = Metric {
                count: protected[l] as u64,
                separation: std::array::from_fn::<f32, D, _>(|a| separation[a][l]).into(),
                away: std::array::from_fn::<f32, D, _>(|a| away[a][l]).into(),
            };
            next.set(l, self.advance(job, slot, list.entries(), &metric, counts));
        }
        next
    }
}

/// What the metric zone around a boid holds: the boids in view within the protected range.
struct Metric<const D: usize>
where
    Dim<D>: Dimension<D>,
{
    count: u64,
    /// Sum of `p_i - p_j` over them.
    separation: VecN<D>,
    /// Sum of the unit vectors `(p_i - p_j) / |p_i - p_j|` over them.
    away: VecN<D>,
}

impl<const D: usize, const RANKS: usize> Nearest<D, RANKS>
where
    Dim<D>: Dimension<D>,
{
    /// Lane `l`'s `k` nearest (`near` and `slots`, by rank) into `list`, nearest first, ties
    /// by id, when they are the flock's: `k` of them, the `k`-th under the ring search's bound,
    /// and no tie at the `k`-th distance. `false`: the boid takes the ring search.
    #[allow(clippy::too_many_arguments)]
    fn take_lane(
        &self,
        job: &Interaction<D>,
        slot: usize,
        l: usize,
        near: &[[f32; LANES]; RANKS],
        slots: &[[u32; LANES]; RANKS],
        tie: u32,
        list: &mut List<D>,
    ) -> bool {
        let k = self.k;
        if k > RANKS || slots[k - 1][l] == EMPTY {
            return false;
        }
        let kth = near[k - 1][l];
        let tied = match k < RANKS {
            true => near[k][l] == kth,
            false => tie & (1 << l) != 0,
        };
        if tied || !rings_hold(self.radius, 1, kth) {
            return false;
        }
        list.clear();
        let p = VecN::<D>::from(job.prev.boid[slot][Frame::<D>::POSITION]);
        let wrap = job.geometry.torus_size().unwrap_or([0.0; D]);
        for r in 0..k {
            let j = slots[r][l] as usize;
            let q = VecN::<D>::from(job.prev.boid[j][Frame::<D>::POSITION]);
            let d = space::minimum_image(p - q, wrap.into());
            list.offer(Entry {
                d2: near[r][l],
                id: job.ids[j],
                slot: j as u32,
                d: d.into(),
            });
        }
        true
    }

    /// The next state of the boid at `slot` from its `members` (nearest first) and its metric
    /// zone, counting its neighbours.
    fn advance(
        &self,
        job: &Interaction<D>,
        slot: usize,
        members: &[Entry<D>],
        metric: &Metric<D>,
        counts: &mut ScanCounts,
    ) -> BoidState<D> {
        let prev = job.prev;
        let heading = |s: usize| VecN::<D>::from(prev.heading[s]);
        match job.params.model {
            Model::Boids => {
                let velocity = |s: usize| VecN::<D>::from(prev.boid[s][Frame::<D>::VELOCITY]);
                let mut acc = Sums::<f32, D>::default();
                acc.add(&self.averaging, VecN::<D>::ZERO, velocity(slot), true);
                for e in members {
                    acc.add(
                        &self.averaging,
                        e.d.into(),
                        velocity(e.slot as usize),
                        false,
                    );
                }
                // Separation is metric: the protected boids in view, members or not.
                acc.separation = crate::real::Vector(metric.separation.into());
                let protected_members = members
                    .iter()
                    .filter(|e| e.d2 < job.kernel.protected_below)
                    .count();
                counts.neighbors +=
                    (members.len() + metric.count as usize - protected_members) as u64;
                let boid = job.boid(slot);
                let pull = job.pull_on(slot, boid.position);
                let wander = job.wander.into();
                rules::advance(job.kernel, &acc, boid, job.groups[slot], wander, pull)
            }
            Model::Vicsek => {
                counts.neighbors += members.len() as u64;
                let d = members
                    .iter()
                    .fold(heading(slot), |d, e| d + heading(e.slot as usize));
                steer_boid(job, slot, d)
            }
            Model::Couzin => {
                let d = if metric.count > 0 {
                    counts.neighbors += metric.count;
                    metric.away
                } else if members.is_empty() {
                    heading(slot)
                } else {
                    counts.neighbors += members.len() as u64;
                    let own = job.params.include_self.then(|| heading(slot));
                    members.iter().fold(own.unwrap_or(VecN::<D>::ZERO), |d, e| {
                        let toward = -VecN::<D>::from(e.d).normalize_or_zero();
                        d + toward + heading(e.slot as usize)
                    })
                };
                steer_boid(job, slot, d)
            }
        }
    }
}

/// The `k` nearest in view of the boid at `slot` into `list`, by the ring search of the
/// general path ([`super::neighborhood::Neighborhood`]) over the frame: ring by ring until no
/// cell farther out can hold a nearer boid. Its cells and candidates go into `counts`.
fn ring_search<const D: usize>(
    job: &Interaction<D>,
    slot: usize,
    list: &mut List<D>,
    counts: &mut ScanCounts,
) where
    Dim<D>: Dimension<D>,
{
    list.clear();
    let prev = job.prev;
    let geometry = job.geometry;
    let wrap = geometry.torus_size().unwrap_or([0.0; D]);
    let view = FieldOfView::new(job.params.blind_angle);
    let [p, v] = prev.boid[slot];
    let (p, heading) = (VecN::<D>::from(p), VecN::<D>::from(v).normalize_or_zero());
    let rings = Rings::around(geometry, geometry.cell_of(p));
    let others = job.ids.len() - 1;
    let mut seen = 0;
    for ring in 0..=rings.last() {
        rings.for_each_cell(ring, |cell| {
            counts.cells += 1;
            let boids =
                job.cell_start[cell as usize] as usize..job.cell_start[cell as usize + 1] as usize;
            for j in boids.filter(|&j| j != slot) {
                counts.candidates += 1;
                seen += 1;
                let q = VecN::<D>::from(prev.boid[j][Frame::<D>::POSITION]);
                let d = space::minimum_image(p - q, wrap.into());
                let d2 = d.length_squared();
                // Not a number: farther than every other.
                if d2 > list.farthest() || d2.is_nan() || !view.sees(heading, d) {
                    continue;
                }
                let (id, slot) = (job.ids[j], j as u32);
                list.offer(Entry {
                    d2,
                    id,
                    slot,
                    d: d.into(),
                });
            }
        });
        if rings.done(ring, list.farthest()) || seen >= others {
            break;
        }
    }
}
