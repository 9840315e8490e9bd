//! A group of the walk: up to [`LANES`] consecutive boids of one row of cells, one per lane,
//! and what every candidate is tested against (their positions, columns, headings and the
//! kernel's range bounds, as vectors).

use super::{Frame, Interaction, LANES};
use crate::simd::Simd;
use crate::space::{Coordinates, Dim, Dimension, VecN};

/// Column of an unused lane: no cell is within reach of it.
const NO_COLUMN: i32 = -1 << 30;

/// The cell of each boid in turn, for boids visited in ascending (cell) order.
pub(crate) struct CellWalk<'a> {
    cell_start: &'a [u32],
    cell: usize,
}

impl<'a> CellWalk<'a> {
    /// A walk starting at boid `first`.
    pub fn new(cell_start: &'a [u32], first: usize) -> Self {
        // The cell holding boid `first`: the last one starting at or before it.
        let cell = cell_start.partition_point(|&s| s as usize <= first) - 1;
        Self { cell_start, cell }
    }

    /// The cell of boid `k`, at or after the last boid asked about.
    #[inline(always)]
    pub fn cell_of(&mut self, k: usize) -> u32 {
        while self.cell_start[self.cell + 1] as usize <= k {
            self.cell += 1;
        }
        self.cell as u32
    }
}

/// Up to [`LANES`] consecutive boids in one row of cells (a line of cells along x), one per
/// lane.
pub(crate) struct Group<const D: usize> {
    /// Index of lane 0's boid.
    pub first: usize,
    /// Lanes in use.
    pub len: usize,
    /// The row: its cells are `row * nx..(row + 1) * nx`.
    pub row: u32,
    /// Each lane's column ([`NO_COLUMN`] past `len`).
    pub column: [i32; LANES],
    /// Each lane's position, axis by axis.
    pub position: [[f32; LANES]; D],
}

impl<const D: usize> Group<D>
where
    Dim<D>: Dimension<D>,
{
    /// The group starting at boid `first`: as many boids as fit, stopping at `end` and at the
    /// end of the row.
    #[inline(always)]
    pub fn new(job: &Interaction<D>, walk: &mut CellWalk, first: usize, end: usize) -> Self {
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
    pub fn position_of(&self, l: usize) -> [f32; D] {
        std::array::from_fn(|a| self.position[a][l])
    }
}

/// A group's lanes and the walk's constants, as vectors.
pub(crate) struct Lanes<'a, S: Simd, const D: usize> {
    /// Index of lane 0's boid.
    pub first: usize,
    /// The lanes' positions; lanes past the group's boids at x = infinity, where no candidate
    /// is in range (their sums are not used, and they count no neighbours).
    pub position: [S::F; D],
    pub column: S::F,
    /// Columns each way a boid's neighbours can lie in ([`crate::grid::GridGeometry::reach`]).
    pub reach: f32,
    pub visual_below: S::F,
    pub protected_below: S::F,
    /// Couzin's zones ([`crate::rules::Kernel::orientation_below`] and
    /// [`crate::rules::Kernel::attraction_from`]).
    pub orientation_below: S::F,
    pub attraction_from: S::F,
    /// Neighbours closer than this (squared) are left out of the boids' averages: the
    /// protected range if protected neighbours are, else zero (nothing is closer than zero).
    pub unseen_below: S::F,
    /// 1.0, hidden from the compiler (see [`Simd::add_where_by_multiplier`]).
    pub opaque_one: S::F,
    /// The per-pair minimum image's world size (see [`super::Interaction::run_part`]).
    wrap: [f32; D],
    /// Each lane's unit heading (with a blind angle; else zero).
    heading: [S::F; D],
    /// The lanes at rest, which see all around.
    resting: S::M,
    /// `-cos(blind_angle / 2)` ([`crate::models::neighborhood::FieldOfView`]).
    view_limit: S::F,
    /// The unit heading of every boid of the frame ([`Frame::heading`]).
    headings: &'a [[f32; D]],
}

impl<'a, S: Simd, const D: usize> Lanes<'a, S, D>
where
    Dim<D>: Dimension<D>,
{
    /// The lanes of `group`; with `VIEW`, each lane's heading for its field of view.
    #[inline(always)]
    pub fn new<const VIEW: bool>(job: &Interaction<'a, D>, group: &Group<D>) -> Self {
        let mut position = group.position;
        for x in &mut position[0][group.len..] {
            *x = f32::INFINITY;
        }
        let mut heading = [[0.0; LANES]; D];
        if VIEW {
            let boids = &job.prev.boid[group.first..group.first + LANES];
            for (l, boid) in boids.iter().enumerate() {
                let v = boid[Frame::<D>::VELOCITY];
                let unit: [f32; D] = VecN::<D>::from(v).normalize_or_zero().into();
                for (axis, u) in heading.iter_mut().zip(unit) {
                    axis[l] = u;
                }
            }
        }
        let heading = heading.map(S::load);
        let zero = S::splat(0.0);
        let resting = (0..D).fold(S::not(S::lt(zero, zero)), |rest, a| {
            S::and(
                rest,
                S::not(S::or(S::lt(heading[a], zero), S::gt(heading[a], zero))),
            )
        });
        let kernel = job.kernel;
        Self {
            first: group.first,
            position: position.map(S::load),
            column: S::load(group.column.map(|c| c as f32)),
            reach: job.geometry.reach()[0] as f32,
            visual_below: S::splat(kernel.visual_below),
            protected_below: S::splat(kernel.protected_below),
            orientation_below: S::splat(kernel.orientation_below),
            attraction_from: S::splat(kernel.attraction_from),
            unseen_below: S::splat(kernel.unseen_below()),
            opaque_one: std::hint::black_box(S::splat(1.0)),
            wrap: job.geometry.pairwise_wrap(),
            heading,
            resting,
            view_limit: S::splat(-((job.params.blind_angle / 2.0).cos() as f32)),
            headings: &job.prev.heading,
        }
    }

    /// The unit heading of the candidate at `slot` (the heading models' frames only).
    #[inline(always)]
    pub fn heading_of(&self, slot: usize) -> [f32; D] {
        self.headings[slot]
    }

    /// The lanes whose own boid is the candidate at `slot`.
    #[inline(always)]
    pub fn own(&self, slot: usize) -> S::M {
        S::only_lane(slot.wrapping_sub(self.first) as i32)
    }

    /// The lanes that see a candidate at offset `d` (`d2 = d . d`) in their field of view.
    #[inline(always)]
    pub fn sees(&self, d: [S::F; D], d2: S::F) -> S::M {
        let mut toward = S::mul(self.heading[0], d[0]);
        for (&h, &c) in self.heading[1..].iter().zip(&d[1..]) {
            toward = S::add(toward, S::mul(h, c));
        }
        let seen = S::ge(S::neg(toward), S::mul(self.view_limit, S::sqrt(d2)));
        S::or(self.resting, seen)
    }

    /// [`crate::space::minimum_image`] in every lane.
    #[inline(always)]
    pub fn minimum_image(&self, d: [S::F; D]) -> [S::F; D] {
        super::minimum_image::<S, D>(d, self.wrap)
    }
}
