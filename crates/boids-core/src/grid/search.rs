//! Positions in any order indexed on a grid, and the ring-by-ring walk outward from a cell
//! that searches without a fixed range use: the nearest boid to a point
//! ([`crate::neighbors`]) and the k nearest in a field of view ([`crate::models`]).
//!
//! Both searches grow ring by ring until no cell not yet searched can hold a boid nearer than
//! the ones found. One walk and one stopping bound serve them, so they agree about which cells
//! a ring holds and when a search is done; the step's scan does not need them (its range is
//! fixed, and it reads boid data moved into cell order instead).
//!
//! A ring is the shell of the square (cube in 3D) of cells at Chebyshev distance `ring` from
//! the home cell. On a torus each distinct cell is visited once: the offsets along an axis are
//! limited to a centred window of as many offsets as the axis has cells, so a cell's offset is
//! its nearest image's and the stopping bound holds; in an open world the rings are clipped to
//! the grid.

use super::{CellIndex, GridGeometry, Position};

/// Slack on the ring search's stopping bound, far above `f32` rounding of squared distances:
/// a boid in a cell not yet searched is never taken for farther than it is.
const BOUND_SLACK: f64 = 1.0 + 1e-5;

/// Whether the rings up to `ring` around a cell of a grid whose narrowest cell side is `width`
/// hold every boid at squared distance `wanted` or nearer from a boid in that cell: cells
/// beyond ring `ring` lie at least `ring` cell widths away.
pub fn rings_hold(width: f64, ring: u32, wanted: f32) -> bool {
    let searched = f64::from(ring) * width;
    f64::from(wanted) * BOUND_SLACK < searched * searched
}

/// Positions in any order sorted into the cells of a grid (by id within a cell).
pub struct GridIndex<'a, const D: usize, P> {
    geometry: GridGeometry<D>,
    index: CellIndex,
    positions: &'a [P],
}

impl<'a, const D: usize, P: Position<D>> GridIndex<'a, D, P> {
    /// Sorts `positions` (with their `ids`, for the canonical order within a cell) into the
    /// cells of `geometry`.
    pub fn new(geometry: GridGeometry<D>, positions: &'a [P], ids: &[u32]) -> Self {
        let mut index = CellIndex::default();
        index.rebuild(&geometry, positions, ids);
        Self {
            geometry,
            index,
            positions,
        }
    }

    /// The grid.
    #[inline]
    pub fn geometry(&self) -> &GridGeometry<D> {
        &self.geometry
    }

    /// The indexed positions, by index.
    #[inline]
    pub fn positions(&self) -> &'a [P] {
        self.positions
    }

    /// The boids of `cell`, ascending id.
    #[inline]
    pub fn boids_in(&self, cell: u32) -> &[u32] {
        &self.index.order[self.index.span(cell)]
    }

    /// The rings of cells around the cell holding `p`.
    pub fn rings_around(&self, p: P) -> Rings<'_, D> {
        let home = self.geometry.coords(self.geometry.cell_of(p));
        Rings::new(&self.geometry, home.map(i64::from))
    }
}

/// The rings of cells around one home cell.
pub struct Rings<'g, const D: usize> {
    grid: &'g GridGeometry<D>,
    home: [i64; D],
    /// The offsets along each axis that reach each distinct cell once from `home`.
    windows: [(i64, i64); D],
    /// The narrowest side of a cell.
    width: f64,
}

impl<'g, const D: usize> Rings<'g, D> {
    /// The rings around cell `cell` of `grid`.
    pub fn around(grid: &'g GridGeometry<D>, cell: u32) -> Self {
        Self::new(grid, grid.coords(cell).map(i64::from))
    }

    fn new(grid: &'g GridGeometry<D>, home: [i64; D]) -> Self {
        let dims = grid.dims();
        let windows = std::array::from_fn(|a| {
            let n = i64::from(dims[a]);
            if grid.torus_size().is_some() {
                (-((n - 1) / 2), n / 2)
            } else {
                (-home[a], n - 1 - home[a])
            }
        });
        Self {
            grid,
            home,
            windows,
            width: grid.min_cell_width(),
        }
    }

    /// The last ring that holds a cell.
    pub fn last(&self) -> u32 {
        self.windows
            .iter()
            .map(|&(lo, hi)| lo.abs().max(hi) as u32)
            .max()
            .unwrap_or(0)
    }

    /// Whether a search that has visited the rings up to `ring` is done: no cell beyond it can
    /// hold a boid at squared distance `wanted` or nearer (cells beyond ring `ring` lie at
    /// least `ring` cell widths from the home cell).
    pub fn done(&self, ring: u32, wanted: f32) -> bool {
        rings_hold(self.width, ring, wanted)
    }

    /// Calls `f` for every distinct cell at Chebyshev distance `ring` from the home cell,
    /// layer by layer (z), row by row (y), then along x.
    pub fn for_each_cell(&self, ring: u32, mut f: impl FnMut(u32)) {
        let dims = self.grid.dims();
        let home = self.home;
        // A window keeps `home + offset` within one wrap of the grid: a compare, not a division.
        let wrapped = |a: usize, offset: i64| {
            let (c, n) = (home[a] + offset, i64::from(dims[a]));
            (if c < 0 {
                c + n
            } else if c >= n {
                c - n
            } else {
                c
            }) as u32
        };
        let r = i64::from(ring);
        // Offsets along every axis but x, the last axis slowest; clipped to the windows.
        let clip = |a: usize| (-r).max(self.windows[a].0)..=r.min(self.windows[a].1);
        let mut offset: [i64; D] = std::array::from_fn(|a| match a {
            0 => 0,
            _ => *clip(a).start(),
        });
        if (1..D).any(|a| clip(a).is_empty()) {
            return;
        }
        let (x_lo, x_hi) = self.windows[0];
        loop {
            // The first cell of this line's row: the row's cells are consecutive along x.
            let row_start = (1..D)
                .rev()
                .fold(0, |cell, a| cell * dims[a] + wrapped(a, offset[a]))
                * dims[0];
            // A line of cells on a face of the ring's box lies on the ring; inside, its ends.
            let on_face = (1..D).any(|a| offset[a].abs() == r);
            let step = if on_face { 1 } else { (2 * r).max(1) };
            for ox in (-r..=r)
                .step_by(step as usize)
                .filter(|ox| (x_lo..=x_hi).contains(ox))
            {
                f(row_start + wrapped(0, ox));
            }
            // The next line: count up along y, carrying into z.
            let mut a = 1;
            loop {
                if a == D {
                    return;
                }
                if offset[a] < *clip(a).end() {
                    offset[a] += 1;
                    break;
                }
                offset[a] = *clip(a).start();
                a += 1;
            }
        }
    }
}
