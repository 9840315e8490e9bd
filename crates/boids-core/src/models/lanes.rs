//! The heading models on the walk ([`crate::walk`]): Vicsek's sum of headings and Couzin's
//! zones, gathered in lanes, then each boid steered as on the general path ([`super::steer`]:
//! the informed direction, the pull, the boundary, the keyed noise, the limited turn).
//!
//! Each lane adds its candidates in the walk's order (rows of cells, ascending id within a
//! cell): the canonical order of these sums, the same whichever group, chunk or thread a boid
//! lands in. Couzin's own heading, when it joins the zone of orientation (`include_self`),
//! is added after the candidates.

use super::{noise_stream, steer};
use crate::rules::BoidState;
use crate::simd::Simd;
use crate::space::{Dim, Dimension, VecN};
use crate::stats::ScanCounts;
use crate::walk::{Candidate, Gather, Group, Interaction, LaneModel, Lanes, Next};

/// The Vicsek model on the walk: the sum of the unit headings within the radius, the boid's
/// own among them (at distance zero, in the walk's order).
pub(crate) struct VicsekRule;

/// The Couzin model on the walk: repulsion within `protected_range` first, else orientation
/// and attraction within `visual_range` (each in its own zone with a finite
/// `orientation_range`).
pub(crate) struct CouzinRule;

/// Lane `l` of each axis of `v`.
#[inline(always)]
fn lane<S: Simd, const D: usize>(v: &[S::F; D], l: usize) -> VecN<D>
where
    Dim<D>: Dimension<D>,
{
    std::array::from_fn::<f32, D, _>(|a| S::to_array(v[a])[l]).into()
}

/// The next state of every boid of `group` from its social direction (`direction(l)` for
/// lane `l`): [`steer`], keyed by the boid's id.
#[inline(always)]
fn steer_group<const D: usize>(
    job: &Interaction<D>,
    group: &Group<D>,
    direction: impl Fn(usize) -> VecN<D>,
) -> Next<D>
where
    Dim<D>: Dimension<D>,
{
    let mut next = Next::new();
    for l in 0..group.len {
        next.set(l, steer_boid(job, group.first + l, direction(l)));
    }
    next
}

/// The next state of the boid at `slot` from its social direction `d`: [`steer`], keyed by
/// the boid's id.
#[inline(always)]
pub(crate) fn steer_boid<const D: usize>(
    job: &Interaction<D>,
    slot: usize,
    d: VecN<D>,
) -> BoidState<D>
where
    Dim<D>: Dimension<D>,
{
    let boid = job.boid(slot);
    let pull = job.pull_on(slot, boid.position);
    let noise = noise_stream(job.params, job.seed, job.step, job.ids[slot] as usize);
    steer(
        job.params,
        job.kernel,
        boid,
        job.groups[slot],
        d,
        pull,
        noise,
    )
}

/// Vicsek's sums: the headings within the radius, and how many.
pub(crate) struct HeadingSum<S: Simd, const D: usize> {
    in_range: u32,
    heading: [S::F; D],
}

impl<S: Simd, const D: usize> Gather<S, D> for HeadingSum<S, D>
where
    Dim<D>: Dimension<D>,
{
    #[inline(always)]
    fn add<const MASKED: bool>(&mut self, lanes: &Lanes<'_, S, D>, c: &Candidate<S, D, MASKED>) {
        let seen = c.within(lanes.visual_below);
        self.in_range += S::count(seen);
        let heading = lanes.heading_of(c.slot);
        for (sum, h) in self.heading.iter_mut().zip(heading) {
            *sum = S::add_where(seen, *sum, S::splat(h));
        }
    }
}

impl<const D: usize> LaneModel<D> for VicsekRule
where
    Dim<D>: Dimension<D>,
{
    type Scratch = ();
    type Sums<'s, S: Simd> = HeadingSum<S, D>;

    #[inline(always)]
    fn empty<'s, S: Simd>(&self, _: &Lanes<'_, S, D>, _: &'s mut ()) -> Self::Sums<'s, S> {
        HeadingSum {
            in_range: 0,
            heading: [S::splat(0.0); D],
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
        // Every lane found its own boid in range once.
        counts.neighbors += u64::from(sums.in_range) - group.len as u64;
        steer_group(job, group, |l| lane::<S, D>(&sums.heading, l))
    }
}

/// Couzin's sums, lane by lane: the zone of repulsion (how many, and the unit vectors away
/// from them), the zones of orientation and attraction together (how many), the unit vectors
/// toward those in the zone of attraction and the headings of those in the zone of
/// orientation.
pub(crate) struct Zones<S: Simd, const D: usize> {
    repelled: S::F,
    away: [S::F; D],
    zoned: S::F,
    toward: [S::F; D],
    heading: [S::F; D],
}

impl<S: Simd, const D: usize> Gather<S, D> for Zones<S, D>
where
    Dim<D>: Dimension<D>,
{
    #[inline(always)]
    fn add<const MASKED: bool>(&mut self, lanes: &Lanes<'_, S, D>, c: &Candidate<S, D, MASKED>) {
        let own = lanes.own(c.slot);
        let repelled = S::and_not(c.within(lanes.protected_below), own);
        let zoned = S::and_not(c.within(lanes.visual_below), own);
        let one = S::splat(1.0);
        self.repelled = S::add_where(repelled, self.repelled, one);
        self.zoned = S::add_where(zoned, self.zoned, one);
        // The 2002 paper's nested zones ([`crate::models::couzin`]); in the 2005 paper's one
        // zone both masks are `zoned`.
        let oriented = S::and(zoned, S::lt(c.d2, lanes.orientation_below));
        let attracted = S::and_not(zoned, S::lt(c.d2, lanes.attraction_from));
        let (e, unit) = c.unit();
        let (repelled, attracted) = (S::and(repelled, unit), S::and(attracted, unit));
        let sums = self.away.iter_mut().zip(&mut self.toward);
        for ((away, toward), e) in sums.zip(e) {
            *away = S::add_where(repelled, *away, e);
            *toward = S::sub_where(attracted, *toward, e);
        }
        let heading = lanes.heading_of(c.slot);
        for (sum, h) in self.heading.iter_mut().zip(heading) {
            *sum = S::add_where(oriented, *sum, S::splat(h));
        }
    }
}

impl<const D: usize> LaneModel<D> for CouzinRule
where
    Dim<D>: Dimension<D>,
{
    type Scratch = ();
    type Sums<'s, S: Simd> = Zones<S, D>;

    #[inline(always)]
    fn empty<'s, S: Simd>(&self, _: &Lanes<'_, S, D>, _: &'s mut ()) -> Self::Sums<'s, S> {
        let zero = S::splat(0.0);
        Zones {
            repelled: zero,
            away: [zero; D],
            zoned: zero,
            toward: [zero; D],
            heading: [zero; D],
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
        let (repelled, zoned) = (S::to_array(sums.repelled), S::to_array(sums.zoned));
        for l in 0..group.len {
            // The zone the boid reacts to.
            let taken = if repelled[l] > 0.0 {
                repelled[l]
            } else {
                zoned[l]
            };
            counts.neighbors += taken as u64;
        }
        let include_self = job.params.include_self;
        steer_group(job, group, |l| {
            if repelled[l] > 0.0 {
                return lane::<S, D>(&sums.away, l);
            }
            let own = VecN::<D>::from(job.prev.heading[group.first + l]);
            if zoned[l] == 0.0 {
                return own;
            }
            let orientation = lane::<S, D>(&sums.heading, l);
            let orientation = if include_self {
                orientation + own
            } else {
                orientation
            };
            lane::<S, D>(&sums.toward, l) + orientation
        })
    }
}

macro_rules! copy_sums {
    ($($name:ident),*) => {$(
        impl<S: Simd, const D: usize> Clone for $name<S, D> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<S: Simd, const D: usize> Copy for $name<S, D> {}
    )*};
}

copy_sums!(HeadingSum, Zones);
