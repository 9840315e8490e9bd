//! Grid geometry: how positions map to cells, and which cells (with their torus shifts) lie
//! near a cell or a row of columns.
//!
//! Cells are at least as high as the largest interaction radius and at least that radius over
//! [`GridGeometry::reach`] wide, so every neighbour of a boid lies in the block of cells one row
//! and `reach` columns around its own. Cells are numbered row by row, so the cells of a row near
//! a group of boids are one span of boids ([`GridGeometry::runs_near`]). On a torus the block of
//! cells wraps, and each wrapped cell carries the shift (±world size) that turns its positions
//! into ghost positions beside the boid: minimum-image distances without a division per pair. An
//! axis too short for three cells is one cell, with the minimum image taken per pair instead. In
//! an open world the grid covers the flock's bounding box, and its cell count is capped so a
//! straggler far away cannot blow up memory (cells just get wider: still exact).

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
    /// Columns and rows each way that can hold a neighbour: cells are at least the radius
    /// divided by this wide (high), or the axis is one cell (reach 0).
    reach: [u32; 2],
    /// World size on a torus, `None` in an open world.
    torus: Option<Vec2>,
}

impl GridGeometry {
    /// A grid over a torus `[origin, origin + size)` with cells at least `radius` high and
    /// `radius / columns` wide (`columns` columns span the radius), at most about `max_cells`
    /// cells. An axis too short for the cells a boid reaches each way and its own, without a
    /// cell coming twice, is one cell.
    pub fn torus(
        origin: [f64; 2],
        size: [f64; 2],
        radius: f64,
        columns: u32,
        max_cells: usize,
    ) -> Self {
        let mut dims = cell_counts(size, radius, columns, max_cells);
        let reach = [columns, 1];
        for (d, each_way) in dims.iter_mut().zip(reach) {
            if *d < 2 * each_way + 1 {
                *d = 1;
            }
        }
        Self::new(origin, size, dims, reach, true)
    }

    /// A grid over the bounding box of `positions` (an open world), cells as in
    /// [`GridGeometry::torus`].
    pub fn bounding(positions: &[Vec2], radius: f64, columns: u32, max_cells: usize) -> Self {
        let (low, high) = bounding_box(positions);
        let size = [
            (high[0] - low[0]).max(radius),
            (high[1] - low[1]).max(radius),
        ];
        let dims = cell_counts(size, radius, columns, max_cells);
        Self::new(low, size, dims, [columns, 1], false)
    }

    fn new(origin: [f64; 2], size: [f64; 2], dims: [u32; 2], reach: [u32; 2], wraps: bool) -> Self {
        Self {
            origin,
            inv_cell: [f64::from(dims[0]) / size[0], f64::from(dims[1]) / size[1]],
            dims,
            reach: [0, 1].map(|a| if dims[a] == 1 { 0 } else { reach[a] }),
            torus: wraps.then(|| Vec2::new(size[0] as f32, size[1] as f32)),
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

    /// Columns and rows each way from a boid's cell that can hold its neighbours.
    pub fn reach(&self) -> [u32; 2] {
        self.reach
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
        // Truncation after clamping at zero is the floor, without a libm call where the target
        // has no rounding instruction; `as u32` saturates, so a far straggler lands in the edge
        // cell instead of wrapping.
        let axis = |a: usize, x: f32| {
            let t = (f64::from(x) - self.origin[a]) * self.inv_cell[a];
            (t.max(0.0) as u32).min(self.dims[a] - 1)
        };
        axis(0, p.x) + self.dims[0] * axis(1, p.y)
    }

    /// Column and row of `cell`.
    #[inline]
    pub fn coords(&self, cell: u32) -> [u32; 2] {
        [cell % self.dims[0], cell / self.dims[0]]
    }

    /// Every cell that can hold a neighbour of a boid in cell `cell`: the block of cells within
    /// [`GridGeometry::reach`] of it (wrapped on a torus, clipped in an open world), rows from
    /// the lowest, columns left to right. This order is the order in which a boid sums its
    /// neighbours.
    pub fn cells_near(&self, cell: u32) -> impl Iterator<Item = NearCell> + '_ {
        let [column, row] = self.coords(cell);
        self.runs_near(row, column..=column)
            .flat_map(NearRun::near_cells)
    }

    /// The cells of [`GridGeometry::cells_near`] for every boid in row `row` and one of
    /// `columns` (the reach beyond them each way), as runs of consecutive cells of one row,
    /// rows from the lowest, columns left to right. Within a row the cells inside the grid
    /// form one run; a cell across a torus seam, whose positions take a shift in x, is a run of
    /// its own. With several columns on a narrow torus a cell can come twice, at two unwrapped
    /// columns (once shifted); a boid takes it only at a column within reach of its own, which
    /// no two copies both are (an axis of at least twice the reach and one cells).
    #[inline(always)]
    pub fn runs_near(&self, row: u32, columns: std::ops::RangeInclusive<u32>) -> RunsNear<'_> {
        let [reach_x, reach_y] = self.reach.map(i64::from);
        let nx = self.dims[0];
        let row = i64::from(row);
        let first = i64::from(*columns.start()) - reach_x;
        let last = i64::from(*columns.end()) + reach_x;
        RunsNear {
            grid: self,
            rows: row - reach_y..=row + reach_y,
            first,
            last,
            inside: first.max(0)..=last.min(i64::from(nx) - 1),
            row: None,
            column: first,
        }
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
    #[inline(always)]
    fn wrap_axis(&self, c: i64, n: u32, axis: usize) -> Option<(u32, f32)> {
        let n = i64::from(n);
        match self.torus {
            Some(size) => {
                let extent = if axis == 0 { size.x } else { size.y };
                let (shift, wrapped) = match c {
                    c if c < 0 => (-extent, c.rem_euclid(n)),
                    c if c >= n => (extent, c.rem_euclid(n)),
                    _ => (0.0, c),
                };
                Some((wrapped as u32, shift))
            }
            None => (0..n).contains(&c).then_some((c as u32, 0.0)),
        }
    }
}

/// Cells along each axis: at least `radius` high and `radius / columns` wide, at most about
/// `max_cells` in all (then wider and higher alike).
fn cell_counts(size: [f64; 2], radius: f64, columns: u32, max_cells: usize) -> [u32; 2] {
    let per_axis =
        |extent: f64, width: f64| (extent / (width * CELL_SLACK)).floor().clamp(1.0, 1e6);
    let (mut nx, mut ny) = (
        per_axis(size[0], radius / f64::from(columns)),
        per_axis(size[1], radius),
    );
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

/// A cell near a boid ([`GridGeometry::cells_near`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NearCell {
    /// Cell index.
    pub cell: u32,
    /// Unwrapped column: `-1` or `nx` across a torus seam.
    pub column: i64,
    /// World shift to take off `p_i - p_j` for a boid `j` of this cell: the minimum image
    /// without a division per pair (zero unless wrapped).
    pub shift: Vec2,
}

/// Consecutive cells of one row near a row of cells ([`GridGeometry::runs_near`]): their
/// boids are one span of a [`CellIndex`](super::CellIndex).
#[derive(Clone, Debug, PartialEq)]
pub struct NearRun {
    /// Cell indices.
    pub cells: std::ops::Range<u32>,
    /// Unwrapped columns of the cells: below `0` or from `nx` on across a torus seam.
    pub columns: std::ops::RangeInclusive<i64>,
    /// World shift to take off `p_i - p_j` for a boid `j` of these cells: the minimum image
    /// without a division per pair (zero unless wrapped). Only a single cell is shifted in x.
    pub shift: Vec2,
}

impl NearRun {
    /// The run's cells one by one.
    pub fn near_cells(self) -> impl Iterator<Item = NearCell> {
        let shift = self.shift;
        let cells = self.cells.zip(self.columns);
        cells.map(move |(cell, column)| NearCell {
            cell,
            column,
            shift,
        })
    }
}

/// The iterator of [`GridGeometry::runs_near`] (a plain struct, so that it inlines into the
/// vector loops that use it).
#[derive(Clone, Debug)]
pub struct RunsNear<'a> {
    grid: &'a GridGeometry,
    rows: std::ops::RangeInclusive<i64>,
    /// Unwrapped columns of every row.
    first: i64,
    last: i64,
    /// The columns of every row inside the grid: one run.
    inside: std::ops::RangeInclusive<i64>,
    /// The row being listed, wrapped, with its shift.
    row: Option<(u32, f32)>,
    /// Next unwrapped column of that row.
    column: i64,
}

impl Iterator for RunsNear<'_> {
    type Item = NearRun;

    #[inline(always)]
    fn next(&mut self) -> Option<NearRun> {
        let [nx, ny] = self.grid.dims;
        loop {
            if let Some((y, shift_y)) = self.row {
                while self.column <= self.last {
                    let first = self.column;
                    let last = match first == *self.inside.start() {
                        true => *self.inside.end(),
                        false => first,
                    };
                    self.column = last + 1;
                    if let Some((x, shift_x)) = self.grid.wrap_axis(first, nx, 0) {
                        let start = x + nx * y;
                        return Some(NearRun {
                            cells: start..start + (last - first) as u32 + 1,
                            columns: first..=last,
                            shift: Vec2::new(shift_x, shift_y),
                        });
                    }
                }
            }
            let row = self.rows.next()?;
            self.row = self.grid.wrap_axis(row, ny, 1);
            self.column = self.first;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torus_cells_are_at_least_the_radius_wide() {
        let g = GridGeometry::torus([0.0, 0.0], [10.0, 7.0], 1.0, 1, usize::MAX);
        assert_eq!(g.dims(), [9, 6]);
        let g = GridGeometry::torus([0.0, 0.0], [10.0, 2.5], 1.0, 1, usize::MAX);
        assert_eq!(g.dims(), [9, 1], "an axis of two cells becomes one");
        assert_eq!(g.pairwise_wrap(), Vec2::new(0.0, 2.5));
    }

    #[test]
    fn cell_count_is_capped() {
        let g = GridGeometry::torus([0.0, 0.0], [1000.0, 1000.0], 1.0, 1, 100);
        assert!(
            g.cell_count() <= 100 && g.cell_count() >= 64,
            "{:?}",
            g.dims()
        );
    }

    /// The cells near `cell` with their shifts, as `cells_near` lists them.
    fn near(g: &GridGeometry, cell: u32) -> Vec<(u32, Vec2)> {
        g.cells_near(cell)
            .map(|near| (near.cell, near.shift))
            .collect()
    }

    #[test]
    fn wrapped_neighbor_cells_carry_the_world_shift() {
        let g = GridGeometry::torus([0.0, 0.0], [10.0, 10.0], 1.0, 1, usize::MAX);
        let cells = near(&g, 0);
        assert_eq!(cells.len(), 9);
        assert_eq!(
            cells[0],
            (80, Vec2::new(-10.0, -10.0)),
            "lowest row, leftmost first"
        );
        assert_eq!(cells[4], (0, Vec2::ZERO));
        assert_eq!(cells[5], (1, Vec2::ZERO));
    }

    /// Every cell's neighbourhood is its block of cells within reach, each cell once, in every
    /// kind of grid; a run of columns lists the union, each column in place, with one run per
    /// row inside the grid and a run of one cell across each seam.
    #[test]
    fn cells_near_a_row_of_columns() {
        let mut grids = vec![];
        for columns in [1, 2] {
            grids.extend([
                GridGeometry::torus([0.0, 0.0], [10.0, 7.0], 1.0, columns, usize::MAX),
                GridGeometry::torus([0.0, 0.0], [3.5, 3.5], 1.0, columns, usize::MAX),
                GridGeometry::torus([0.0, 0.0], [10.0, 2.5], 1.0, columns, usize::MAX),
                GridGeometry::torus([0.0, 0.0], [2.2, 10.0], 1.0, columns, usize::MAX),
                GridGeometry::bounding(&[Vec2::ZERO, Vec2::new(6.0, 4.5)], 1.0, columns, 1000),
                GridGeometry::bounding(&[Vec2::ZERO, Vec2::new(1.5, 0.5)], 1.0, columns, 1000),
            ]);
        }
        assert_eq!(grids[6].reach(), [2, 1]);
        assert_eq!(
            grids[9].reach(),
            [0, 1],
            "4 columns cannot reach 2 each way once"
        );
        for g in grids {
            let [nx, ny] = g.dims();
            let reach = g.reach();
            for cell in 0..g.cell_count() as u32 {
                let cells = near(&g, cell);
                let mut distinct: Vec<u32> = cells.iter().map(|&(c, _)| c).collect();
                distinct.sort_unstable();
                distinct.dedup();
                assert_eq!(distinct.len(), cells.len(), "{:?} cell {cell}", g.dims());
                let [column, row] = g.coords(cell);
                let span = |n: u32, c: u32, r: u32| (c + r + 1).min(n) - c.saturating_sub(r);
                if g.torus_size().is_some() {
                    let [wx, wy] = reach.map(|r| 2 * r + 1);
                    assert_eq!(cells.len() as u32, wx * wy);
                } else {
                    let [sx, sy] = [span(nx, column, reach[0]), span(ny, row, reach[1])];
                    assert_eq!(cells.len() as u32, sx * sy);
                }
            }
            for row in 0..ny {
                for first in 0..nx {
                    let runs: Vec<NearRun> = g.runs_near(row, first..=nx - 1).collect();
                    for run in &runs {
                        assert_eq!(run.cells.len(), run.columns.clone().count());
                        assert_eq!(run.cells.start / nx, (run.cells.end - 1) / nx, "one row");
                        assert!(run.shift.x == 0.0 || run.cells.len() == 1, "{run:?}");
                    }
                    let unshifted = runs.iter().filter(|run| run.shift.x == 0.0).count();
                    assert!(unshifted <= if ny == 1 { 1 } else { 3 }, "{runs:?}");
                    let joined: Vec<NearCell> =
                        runs.into_iter().flat_map(NearRun::near_cells).collect();
                    assert!(
                        joined
                            .windows(2)
                            .all(|w| w[0].column != w[1].column || nx == 1)
                    );
                    for NearCell {
                        cell: c,
                        column: u,
                        shift,
                    } in joined
                    {
                        let wrapped = u.rem_euclid(i64::from(nx)) as u32;
                        assert_eq!(g.coords(c)[0], wrapped);
                        assert_eq!(shift.x != 0.0, u != i64::from(wrapped));
                    }
                }
            }
        }
    }

    #[test]
    fn open_grid_drops_cells_off_the_edge() {
        let pts = [Vec2::new(0.0, 0.0), Vec2::new(10.0, 10.0)];
        let g = GridGeometry::bounding(&pts, 1.0, 1, usize::MAX);
        assert_eq!(near(&g, 0).len(), 4);
        assert_eq!(g.cell_of(Vec2::new(10.0, 10.0)), g.cell_count() as u32 - 1);
    }
}
