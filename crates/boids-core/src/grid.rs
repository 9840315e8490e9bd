//! The uniform-grid neighbour index, rebuilt every step by counting sort.
//!
//! Cells are at least as wide as the largest interaction radius, so every neighbour of a boid lies
//! in its own cell or one of the eight around it. The index is an `order` array listing boids
//! cell by cell (by id within a cell) and a `cell_start` array of span boundaries; the simulation
//! gathers boid data into that order so a neighbour scan reads contiguous memory.
//!
//! On a torus the block of cells wraps, and each wrapped cell carries the shift (±world size)
//! that turns its positions into ghost positions beside the boid: minimum-image distances without
//! a division per pair. An axis too short for three cells is one cell, with the minimum image
//! taken per pair instead. In an open world the grid covers the flock's bounding box, and its
//! cell count is capped so a straggler far away cannot blow up memory (cells just get wider:
//! still exact).

use glam::Vec2;

#[cfg(feature = "parallel")]
use rayon::prelude::*;

/// Relative slack that keeps a cell strictly wider than the radius despite rounding.
const CELL_SLACK: f64 = 1.0 + 1e-4;

/// How positions map to cells.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridGeometry {
    origin: [f64; 2],
    inv_cell: [f64; 2],
    dims: [u32; 2],
    /// World size on a torus, `None` in an open world.
    torus: Option<Vec2>,
}

/// A neighbouring cell of a boid's cell, and the shift to subtract from a neighbour's offset.
#[derive(Clone, Copy, Debug)]
pub struct NeighborCell {
    /// Cell index.
    pub cell: u32,
    /// Subtract from `p_i - p_j` to get the minimum-image offset (zero unless wrapped).
    pub shift: Vec2,
}

impl GridGeometry {
    /// A grid over a torus `[origin, origin + size)` with cells at least `radius` wide, at most
    /// about `max_cells` cells.
    pub fn torus(origin: [f64; 2], size: [f64; 2], radius: f64, max_cells: usize) -> Self {
        let mut dims = cell_counts(size, radius, max_cells);
        for d in &mut dims {
            if *d < 3 {
                *d = 1;
            }
        }
        Self {
            origin,
            inv_cell: [f64::from(dims[0]) / size[0], f64::from(dims[1]) / size[1]],
            dims,
            torus: Some(Vec2::new(size[0] as f32, size[1] as f32)),
        }
    }

    /// A grid over the bounding box of `positions` (an open world).
    pub fn bounding(positions: &[Vec2], radius: f64, max_cells: usize) -> Self {
        let (low, high) = bounding_box(positions);
        let size = [
            (high[0] - low[0]).max(radius),
            (high[1] - low[1]).max(radius),
        ];
        let dims = cell_counts(size, radius, max_cells);
        Self {
            origin: low,
            inv_cell: [f64::from(dims[0]) / size[0], f64::from(dims[1]) / size[1]],
            dims,
            torus: None,
        }
    }

    /// Number of cells.
    pub fn cell_count(&self) -> usize {
        self.dims[0] as usize * self.dims[1] as usize
    }

    /// Cells along x and y.
    pub fn dims(&self) -> [u32; 2] {
        self.dims
    }

    /// World size where an axis wraps with the minimum image taken per pair (single-cell torus
    /// axis), else zero for that axis.
    pub fn pairwise_wrap(&self) -> Vec2 {
        match self.torus {
            Some(size) => Vec2::new(
                if self.dims[0] == 1 { size.x } else { 0.0 },
                if self.dims[1] == 1 { size.y } else { 0.0 },
            ),
            None => Vec2::ZERO,
        }
    }

    /// The cell containing `p`.
    #[inline]
    pub fn cell_of(&self, p: Vec2) -> u32 {
        let axis = |a: usize, x: f32| {
            let i = ((f64::from(x) - self.origin[a]) * self.inv_cell[a]).floor();
            (i.max(0.0) as u32).min(self.dims[a] - 1)
        };
        axis(0, p.x) + self.dims[0] * axis(1, p.y)
    }

    /// The up to nine cells around `cell` (itself included), in a fixed order, each with its
    /// torus shift.
    #[inline]
    pub fn neighbor_cells(&self, cell: u32) -> ([NeighborCell; 9], usize) {
        let [nx, ny] = self.dims;
        let (cx, cy) = ((cell % nx) as i64, (cell / nx) as i64);
        let mut out = [NeighborCell {
            cell: 0,
            shift: Vec2::ZERO,
        }; 9];
        let mut len = 0;
        for oy in offsets(ny) {
            let Some((y, shift_y)) = self.wrap_axis(cy + oy, ny, 1) else {
                continue;
            };
            for ox in offsets(nx) {
                let Some((x, shift_x)) = self.wrap_axis(cx + ox, nx, 0) else {
                    continue;
                };
                out[len] = NeighborCell {
                    cell: x + nx * y,
                    shift: Vec2::new(shift_x, shift_y),
                };
                len += 1;
            }
        }
        (out, len)
    }

    /// Calls `f` for every cell at Chebyshev distance `ring` from `cell`: wrapped (possibly
    /// more than once) on a torus, clipped in an open world.
    pub fn for_each_cell_in_ring(&self, cell: u32, ring: u32, mut f: impl FnMut(u32)) {
        let [nx, ny] = self.dims;
        let (cx, cy, r) = (i64::from(cell % nx), i64::from(cell / nx), i64::from(ring));
        for oy in -r..=r {
            let Some((y, _)) = self.wrap_axis(cy + oy, ny, 1) else {
                continue;
            };
            let step = if oy.abs() == r {
                1
            } else {
                (2 * r).max(1) as usize
            };
            for ox in (-r..=r).step_by(step) {
                if let Some((x, _)) = self.wrap_axis(cx + ox, nx, 0) {
                    f(x + nx * y);
                }
            }
        }
    }

    /// Rings needed to reach every cell from any cell.
    pub fn max_ring(&self) -> u32 {
        self.dims[0].max(self.dims[1])
    }

    /// The narrower side of a cell.
    pub fn min_cell_width(&self) -> f64 {
        (1.0 / self.inv_cell[0]).min(1.0 / self.inv_cell[1])
    }

    /// The world size if the grid wraps.
    pub fn torus_size(&self) -> Option<Vec2> {
        self.torus
    }

    /// Maps a possibly out-of-range cell coordinate onto the grid: wrapped with its shift on a
    /// torus, `None` off the edge of an open world.
    fn wrap_axis(&self, c: i64, n: u32, axis: usize) -> Option<(u32, f32)> {
        let n = i64::from(n);
        match self.torus {
            Some(size) => {
                let extent = if axis == 0 { size.x } else { size.y };
                let shift = match c {
                    c if c < 0 => -extent,
                    c if c >= n => extent,
                    _ => 0.0,
                };
                Some((c.rem_euclid(n) as u32, shift))
            }
            None => (0..n).contains(&c).then_some((c as u32, 0.0)),
        }
    }
}

fn offsets(n: u32) -> std::ops::RangeInclusive<i64> {
    if n == 1 { 0..=0 } else { -1..=1 }
}

fn cell_counts(size: [f64; 2], radius: f64, max_cells: usize) -> [u32; 2] {
    let per_axis = |extent: f64| (extent / (radius * CELL_SLACK)).floor().clamp(1.0, 1e6);
    let (mut nx, mut ny) = (per_axis(size[0]), per_axis(size[1]));
    let cap = max_cells.max(1) as f64;
    if nx * ny > cap {
        let scale = (cap / (nx * ny)).sqrt();
        nx = (nx * scale).floor().max(1.0);
        ny = (ny * scale).floor().max(1.0);
    }
    [nx as u32, ny as u32]
}

fn bounding_box(positions: &[Vec2]) -> ([f64; 2], [f64; 2]) {
    let fold = |(lo, hi): (Vec2, Vec2), p: &Vec2| (lo.min(*p), hi.max(*p));
    let empty = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
    #[cfg(feature = "parallel")]
    let (lo, hi) = positions
        .par_iter()
        .fold(|| empty, fold)
        .reduce(|| empty, |a, b| (a.0.min(b.0), a.1.max(b.1)));
    #[cfg(not(feature = "parallel"))]
    let (lo, hi) = positions.iter().fold(empty, fold);
    if positions.is_empty() {
        return ([0.0; 2], [1.0; 2]);
    }
    (
        [f64::from(lo.x), f64::from(lo.y)],
        [f64::from(hi.x), f64::from(hi.y)],
    )
}

/// Boids listed cell by cell: the result of one counting sort.
#[derive(Clone, Debug, Default)]
pub struct CellIndex {
    /// `cell_start[c]..cell_start[c + 1]` is cell `c`'s span in `order`.
    pub cell_start: Vec<u32>,
    /// Storage indices of the boids, cell by cell, ascending id within a cell.
    pub order: Vec<u32>,
    cell_of: Vec<u32>,
    cursor: Vec<u32>,
}

impl CellIndex {
    /// Sorts `positions` into the cells of `geometry`. Within a cell, boids are ordered by
    /// `ids`, so the order is a function of the flock alone, never of how it was stored.
    pub fn rebuild(&mut self, geometry: &GridGeometry, positions: &[Vec2], ids: &[u32]) {
        let n = positions.len();
        let cells = geometry.cell_count();
        self.cell_of.resize(n, 0);
        #[cfg(feature = "parallel")]
        self.cell_of
            .par_iter_mut()
            .zip(positions.par_iter())
            .with_min_len(4096)
            .for_each(|(c, p)| *c = geometry.cell_of(*p));
        #[cfg(not(feature = "parallel"))]
        for (c, p) in self.cell_of.iter_mut().zip(positions) {
            *c = geometry.cell_of(*p);
        }

        self.cell_start.clear();
        self.cell_start.resize(cells + 1, 0);
        for &c in &self.cell_of {
            self.cell_start[c as usize + 1] += 1;
        }
        for c in 0..cells {
            self.cell_start[c + 1] += self.cell_start[c];
        }
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.cell_start[..cells]);
        self.order.resize(n, 0);
        for (i, &c) in self.cell_of.iter().enumerate() {
            let slot = &mut self.cursor[c as usize];
            self.order[*slot as usize] = i as u32;
            *slot += 1;
        }
        for c in 0..cells {
            let span = self.span(c as u32);
            sort_by_id(&mut self.order[span], ids);
        }
    }

    /// The span of cell `c` in `order` (and in data gathered into that order).
    #[inline]
    pub fn span(&self, c: u32) -> std::ops::Range<usize> {
        self.cell_start[c as usize] as usize..self.cell_start[c as usize + 1] as usize
    }
}

/// Insertion sort by id: spans are short and nearly sorted already.
fn sort_by_id(span: &mut [u32], ids: &[u32]) {
    for i in 1..span.len() {
        let mut j = i;
        while j > 0 && ids[span[j - 1] as usize] > ids[span[j] as usize] {
            span.swap(j - 1, j);
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torus_cells_are_at_least_the_radius_wide() {
        let g = GridGeometry::torus([0.0, 0.0], [10.0, 7.0], 1.0, usize::MAX);
        assert_eq!(g.dims(), [9, 6]);
        let g = GridGeometry::torus([0.0, 0.0], [10.0, 2.5], 1.0, usize::MAX);
        assert_eq!(g.dims(), [9, 1], "an axis of two cells becomes one");
        assert_eq!(g.pairwise_wrap(), Vec2::new(0.0, 2.5));
    }

    #[test]
    fn cell_count_is_capped() {
        let g = GridGeometry::torus([0.0, 0.0], [1000.0, 1000.0], 1.0, 100);
        assert!(
            g.cell_count() <= 100 && g.cell_count() >= 64,
            "{:?}",
            g.dims()
        );
    }

    #[test]
    fn wrapped_neighbor_cells_carry_the_world_shift() {
        let g = GridGeometry::torus([0.0, 0.0], [10.0, 10.0], 1.0, usize::MAX);
        let (cells, len) = g.neighbor_cells(0);
        assert_eq!(len, 9);
        let corner = cells.iter().find(|n| n.cell == 80).unwrap();
        assert_eq!(corner.shift, Vec2::new(-10.0, -10.0));
        let own = cells.iter().find(|n| n.cell == 0).unwrap();
        assert_eq!(own.shift, Vec2::ZERO);
    }

    #[test]
    fn open_grid_drops_cells_off_the_edge() {
        let pts = [Vec2::new(0.0, 0.0), Vec2::new(10.0, 10.0)];
        let g = GridGeometry::bounding(&pts, 1.0, usize::MAX);
        assert_eq!(g.neighbor_cells(0).1, 4);
        assert_eq!(g.cell_of(Vec2::new(10.0, 10.0)), g.cell_count() as u32 - 1);
    }

    #[test]
    fn counting_sort_lists_every_boid_once_by_cell_then_id() {
        let g = GridGeometry::torus([0.0, 0.0], [4.0, 4.0], 1.0, usize::MAX);
        let pts = [
            Vec2::new(3.5, 3.5),
            Vec2::new(0.5, 0.5),
            Vec2::new(0.6, 0.4),
            Vec2::new(3.9, 0.1),
        ];
        let ids = [0, 3, 1, 2];
        let mut index = CellIndex::default();
        index.rebuild(&g, &pts, &ids);
        assert_eq!(index.order, vec![2, 1, 3, 0]);
        assert_eq!(index.span(0), 0..2);
        assert_eq!(*index.cell_start.last().unwrap(), 4);
    }
}
