//! k nearest neighbours on the walk ([`crate::walk`]): each lane keeps its own list of the `k`
//! nearest in view, in a fixed array, while the walk passes the candidates of its block of
//! cells; then every model sums what it needs from that list.
//!
//! **The grid.** A k-nearest step bins the flock on cubic cells sized for about `k` boids a
//! cell block ([`super::neighborhood::nearest_geometry`]), so the walk's block around a boid,
//! rings 0 and 1 of the ring search ([`crate::grid::Rings`]), nearly always holds its `k`
//! nearest.
//!
//! **Exact, whatever the group.** A lane takes a candidate when it is in view, not itself, and
//! no farther than the lane's `k`-th so far (ties by the lower id, checked in scalar code for
//! the few candidates the vector test lets through). A lane may meet candidates beyond its own
//! block (the group's other columns): its list is the k nearest of a superset of the block.
//! When that list's `k`-th distance is below the bound the ring search stops at after ring 1
//! ([`crate::grid::rings_hold`]), nothing outside the block is as near, so the list is the k
//! nearest of the whole flock. Otherwise (a sparse place, a straggler, fewer than `k` in view)
//! that boid takes the ring search of the general path, ring by ring until it holds. Either
//! way the set is the one the reference finds: the `k` nearest in view, ties by id.
//!
//! **Canonical sums.** The members are summed nearest first (ties by id), after the boid
//! itself, so the sums do not depend on the order the walk met them. Separation (and
//! Couzin's repulsion) stay metric: every boid in view within the protected range, which the
//! block always holds (cells are no narrower than that range), summed in the walk's order
//! under its range mask, as the metric models sum ([`crate::walk`]).
//!
//! The lists are buffers of `k` entries that a part of the step reuses from group to group:
//! no allocation per boid.

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

/// Up to `k` entries, nearest first.
#[derive(Clone, Debug)]
struct List<const D: usize> {
    entries: Vec<Entry<D>>,
    k: usize,
}

impl<const D: usize> List<D> {
    fn new(k: usize) -> Self {
        Self {
            entries: Vec::with_capacity(k + 1),
            k,
        }
    }

    /// The squared distance a candidate must not exceed to enter: the `k`-th's when full.
    #[inline(always)]
    fn farthest(&self) -> f32 {
        match self.entries.len() == self.k {
            true => self.entries[self.k - 1].d2,
            false => f32::INFINITY,
        }
    }

    /// Takes `e` if it is among the `k` nearest so far.
    #[inline(always)]
    fn offer(&mut self, e: Entry<D>) {
        let entries = &mut self.entries;
        if entries.len() == self.k {
            if !e.before(&entries[self.k - 1]) {
                return;
            }
            entries.pop();
        }
        // Inserted from the far end (k is small), entry by entry rather than by a memmove.
        entries.push(e);
        let mut at = entries.len() - 1;
        while at > 0 && e.before(&entries[at - 1]) {
            entries[at] = entries[at - 1];
            at -= 1;
        }
        entries[at] = e;
    }
}

/// Each lane's list, reused from group to group of a part of the step.
#[derive(Debug)]
pub(crate) struct Lists<const D: usize> {
    lanes: [List<D>; LANES],
}

impl<const D: usize> Default for Lists<D> {
    fn default() -> Self {
        Self {
            lanes: std::array::from_fn(|_| List::new(0)),
        }
    }
}

/// The k-nearest step of every model.
pub(crate) struct Nearest<const D: usize> {
    /// `topological_k`.
    k: usize,
    /// The boids rules' kernel with no range for the averaging set: every member is averaged.
    averaging: Kernel<D>,
    /// The squared distance within which the walk takes candidates: about the bound under
    /// which the ring search stops after ring 1 ([`rings_hold`]), so that a lane takes few of
    /// its candidates; a boid with fewer than `k` in view that near takes the ring search.
    within: f32,
}

/// A lane's sums: its list, and the metric separation (the count, the offsets, and for
/// Couzin the unit vectors away) over the boids in view within the protected range.
pub(crate) struct NearestSums<'s, S: Simd, const D: usize> {
    /// Each lane's bound on a candidate's squared distance: its `k`-th so far, or
    /// [`Nearest::within`].
    farthest: S::F,
    within: f32,
    protected: S::F,
    separation: [S::F; D],
    away: [S::F; D],
    lists: &'s mut Lists<D>,
}

impl<const D: usize> Nearest<D>
where
    Dim<D>: Dimension<D>,
{
    /// The k-nearest step of the flock `job` steps.
    pub fn new(job: &Interaction<D>) -> Self {
        let mut averaging = *job.kernel;
        averaging.visual_below = f32::INFINITY;
        let width = job.geometry.min_cell_width();
        Self {
            k: usize::try_from(job.params.topological_k).unwrap_or(usize::MAX),
            averaging,
            within: (width * width) as f32,
        }
    }
}

impl<S: Simd, const D: usize> Gather<S, D> for NearestSums<'_, S, D>
where
    Dim<D>: Dimension<D>,
{
    #[inline(always)]
    fn add<const MASKED: bool>(&mut self, lanes: &Lanes<'_, S, D>, c: &Candidate<S, D, MASKED>) {
        let own = lanes.own(c.slot);
        let protected = S::and_not(c.within(lanes.protected_below), own);
        // Few candidates are that close: most skip the division.
        if S::any(protected) {
            let one = S::splat(1.0);
            self.protected = S::add_where(protected, self.protected, one);
            let rcp = S::div(one, S::sqrt(c.d2));
            let finite = S::and(
                S::lt(rcp, S::splat(f32::INFINITY)),
                S::gt(rcp, S::splat(0.0)),
            );
            let unit = S::and(protected, finite);
            for a in 0..D {
                self.separation[a] = S::add_where(protected, self.separation[a], c.d[a]);
                self.away[a] = S::add_where(unit, self.away[a], S::mul(c.d[a], rcp));
            }
        }
        let near = S::and_not(S::and(S::ge(self.farthest, c.d2), c.visible()), own);
        let mut taken = S::bits(near);
        if taken == 0 {
            return;
        }
        let (d2, d) = (S::to_array(c.d2), c.d.map(S::to_array));
        let id = lanes.id_of(c.slot);
        let mut farthest = S::to_array(self.farthest);
        let within = self.within;
        while taken != 0 {
            let l = taken.trailing_zeros() as usize;
            taken &= taken - 1;
            let list = &mut self.lists.lanes[l];
            list.offer(Entry {
                d2: d2[l],
                id,
                slot: c.slot as u32,
                d: std::array::from_fn(|a| d[a][l]),
            });
            farthest[l] = list.farthest().min(within);
        }
        self.farthest = S::load(farthest);
    }
}

impl<const D: usize> LaneModel<D> for Nearest<D>
where
    Dim<D>: Dimension<D>,
{
    type Scratch = Lists<D>;
    type Sums<'s, S: Simd> = NearestSums<'s, S, D>;

    #[inline(always)]
    fn empty<'s, S: Simd>(
        &self,
        _: &Lanes<'_, S, D>,
        lists: &'s mut Lists<D>,
    ) -> Self::Sums<'s, S> {
        for list in &mut lists.lanes {
            if list.k != self.k {
                *list = List::new(self.k);
            }
            list.entries.clear();
        }
        let zero = S::splat(0.0);
        NearestSums {
            farthest: S::splat(self.within),
            within: self.within,
            protected: zero,
            separation: [zero; D],
            away: [zero; D],
            lists,
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
        let protected = S::to_array(sums.protected);
        let separation = sums.separation.map(S::to_array);
        let away = sums.away.map(S::to_array);
        let width = job.geometry.min_cell_width();
        let whole_grid = Rings::around(job.geometry, 0).last() <= 1;
        let mut next = Next::new();
        for l in 0..group.len {
            let slot = group.first + l;
            let list = &mut sums.lists.lanes[l];
            if list.entries.len() < self.k || !(whole_grid || rings_hold(width, 1, list.farthest()))
            {
                ring_search(job, slot, list, counts);
            }
            let metric = Metric {
                count: protected[l] as u64,
                separation: std::array::from_fn::<f32, D, _>(|a| separation[a][l]).into(),
                away: std::array::from_fn::<f32, D, _>(|a| away[a][l]).into(),
            };
            next.set(l, self.advance(job, slot, &list.entries, &metric, counts));
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

impl<const D: usize> Nearest<D>
where
    Dim<D>: Dimension<D>,
{
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
                let [position, velocity] = prev.boid[slot];
                let boid = BoidState {
                    position: position.into(),
                    velocity: velocity.into(),
                    bias: prev.bias[slot],
                };
                let pull = job.world.map(|w| w.pull(job.ids[slot], boid.position));
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
    list.entries.clear();
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
