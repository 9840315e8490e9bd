//! Grid geometry: how positions map to cells, and which cells (with their torus shifts) lie
//! near a cell or a row of columns, in two or three dimensions.
//!
//! Cells are at least as deep as the largest interaction radius along every axis but x, and at
//! least that radius over [`GridGeometry::reach`] wide along x, so every neighbour of a boid
//! lies in the block of cells one cell along y (and z) and `reach` columns along x around its
//! own. Cells are numbered x fastest, then y, then z, so a *row* (a line of cells along x at
//! one y, or one (y, z)) is a span of consecutive cells, and the cells of a row near a group of
//! boids are one span of boids ([`GridGeometry::runs_near`]). On a torus the block of cells
//! wraps, and each wrapped cell carries the shift (±world size, per axis) that turns its
//! positions into ghost positions beside the boid: minimum-image distances without a division
//! per pair. An axis too short for three cells is one cell, with the minimum image taken per
//! pair instead. In an open world the grid covers the flock's bounding box, and its cell count
//! is capped so a straggler far away cannot blow up memory (cells just get wider: still exact).
//!
//! **One code path for both dimensions.** The grid is generic over its dimension as a const
//! parameter, `GridGeometry<D>` with `D` 2 or 3, rather than over a `Space` trait: everything
//! it keeps per axis (origin, cell counts, reach, torus size, shifts) is an array `[T; D]`, and
//! every loop over the axes has a length known at compile time, which the compiler unrolls, so
//! the 2D instantiation is the straight-line code of a 2D grid (the step's scan, its hottest
//! caller, measured no slower). A trait would have to name an associated type for each of those
//! arrays, since stable Rust cannot size an array by a trait's associated constant. Positions
//! come in as anything that converts to `[f32; D]` ([`Position`]: glam's `Vec2` and `Vec3`), and
//! shifts go out as `[f32; D]`. The axes other than x always reach one cell each way, so the
//! rows near a cell are the (2·reach_y + 1)·(2·reach_z + 1) lines around it, listed by one
//! odometer ([`Rows`]): a 3D torus so has 26 neighbour images, each a combination of per-axis
//! shifts.

#[cfg(feature = "parallel")]
use rayon::prelude::*;

/// Relative slack that keeps a cell strictly wider than the radius despite rounding.
const CELL_SLACK: f64 = 1.0 + 1e-4;

/// A position in `D` dimensions, as the grid reads it: glam's `Vec2` for `D = 2`, `Vec3` for
/// `D = 3` (or a plain array).
pub trait Position<const D: usize>: Copy + Send + Sync + Into<[f32; D]> {}

impl<const D: usize, P: Copy + Send + Sync + Into<[f32; D]>> Position<D> for P {}

/// How positions map to cells, in `D` dimensions (2 or 3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridGeometry<const D: usize> {
    origin: [f64; D],
    inv_cell: [f64; D],
    dims: [u32; D],
    /// Cells each way along each axis that can hold a neighbour: cells are at least the radius
    /// divided by this wide, or the axis is one cell (reach 0).
    reach: [u32; D],
    /// World size on a torus, `None` in an open world.
    torus: Option<[f32; D]>,
}

impl<const D: usize> GridGeometry<D> {
    /// A grid over a torus `[origin, origin + size)` with cells at least `radius` deep along
    /// y (and z) and `radius / columns` wide along x (`columns` columns span the radius), at
    /// most about `max_cells` cells. An axis too short for the cells a boid reaches each way
    /// and its own, without a cell coming twice, is one cell.
    pub fn torus(
        origin: [f64; D],
        size: [f64; D],
        radius: f64,
        columns: u32,
        max_cells: usize,
    ) -> Self {
        let reach = cells_per_radius(columns);
        let mut dims = cell_counts(size, radius, reach, max_cells);
        for (d, each_way) in dims.iter_mut().zip(reach) {
            if *d < 2 * each_way + 1 {
                *d = 1;
            }
        }
        Self::new(origin, size, dims, reach, true)
    }

    /// A grid over the bounding box of `positions` (an open world), cells as in
    /// [`GridGeometry::torus`].
    pub fn bounding<P: Position<D>>(
        positions: &[P],
        radius: f64,
        columns: u32,
        max_cells: usize,
    ) -> Self {
        let (low, high) = bounding_box(positions);
        let size = std::array::from_fn(|a| (high[a] - low[a]).max(radius));
        let reach = cells_per_radius(columns);
        let dims = cell_counts(size, radius, reach, max_cells);
        Self::new(low, size, dims, reach, false)
    }

    fn new(origin: [f64; D], size: [f64; D], dims: [u32; D], reach: [u32; D], wraps: bool) -> Self {
        Self {
            origin,
            inv_cell: std::array::from_fn(|a| f64::from(dims[a]) / size[a]),
            dims,
            reach: std::array::from_fn(|a| if dims[a] == 1 { 0 } else { reach[a] }),
            torus: wraps.then(|| size.map(|s| s as f32)),
        }
    }

    /// Number of cells.
    pub fn cell_count(&self) -> usize {
        self.dims.iter().map(|&n| n as usize).product()
    }

    /// Cells along each axis.
    pub fn dims(&self) -> [u32; D] {
        self.dims
    }

    /// Cells each way from a boid's cell, along each axis, that can hold its neighbours.
    pub fn reach(&self) -> [u32; D] {
        self.reach
    }

    /// World size where an axis wraps with the minimum image taken per pair (single-cell torus
    /// axis), else zero for that axis.
    pub fn pairwise_wrap(&self) -> [f32; D] {
        match self.torus {
            Some(size) => std::array::from_fn(|a| if self.dims[a] == 1 { size[a] } else { 0.0 }),
            None => [0.0; D],
        }
    }

    /// The cell containing `p`.
    #[inline]
    pub fn cell_of(&self, p: impl Into<[f32; D]>) -> u32 {
        let p = p.into();
        (0..D)
            .rev()
            .fold(0, |cell, a| cell * self.dims[a] + self.axis_cell(a, p[a]))
    }

    /// The cell coordinate of `x` along axis `a`.
    #[inline(always)]
    fn axis_cell(&self, a: usize, x: f32) -> u32 {
        // Truncation after clamping at zero is the floor, without a libm call where the target
        // has no rounding instruction; `as u32` saturates, so a far straggler lands in the edge
        // cell instead of wrapping.
        let t = (f64::from(x) - self.origin[a]) * self.inv_cell[a];
        (t.max(0.0) as u32).min(self.dims[a] - 1)
    }

    /// Coordinates of `cell` along each axis (column, row along y, layer along z).
    #[inline]
    pub fn coords(&self, cell: u32) -> [u32; D] {
        let nx = self.dims[0];
        let mut coords = self.row_coords(cell / nx);
        coords[0] = cell % nx;
        coords
    }

    /// Coordinates along every axis but x (x is 0) of row `row`, the row of cells
    /// `row * nx..(row + 1) * nx`.
    #[inline(always)]
    fn row_coords(&self, row: u32) -> [u32; D] {
        let mut rest = row;
        std::array::from_fn(|a| match a {
            0 => 0,
            _ if a + 1 == D => rest,
            _ => {
                let c = rest % self.dims[a];
                rest /= self.dims[a];
                c
            }
        })
    }

    /// Every cell that can hold a neighbour of a boid in cell `cell`: the block of cells within
    /// [`GridGeometry::reach`] of it (wrapped on a torus, clipped in an open world), in
    /// ascending order of the unwrapped block (layers from the lowest, then rows from the
    /// lowest, then columns left to right). This order is the order in which a boid sums its
    /// neighbours.
    pub fn cells_near(&self, cell: u32) -> impl Iterator<Item = NearCell<D>> + '_ {
        let column = cell % self.dims[0];
        self.runs_near(cell / self.dims[0], column..=column)
            .flat_map(NearRun::near_cells)
    }

    /// The cells of [`GridGeometry::cells_near`] for every boid in row `row` (the cells
    /// `row * nx..(row + 1) * nx`: in 2D the row at y = `row`) and one of `columns` (the reach
    /// beyond them each way), as runs of consecutive cells of one row, in the order of
    /// `cells_near`. Within a row the cells inside the grid form one run; a cell across a torus
    /// seam in x, whose positions take a shift in x, is a run of its own. With several columns
    /// on a narrow torus a cell can come twice, at two unwrapped columns (once shifted); a boid
    /// takes it only at a column within reach of its own, which no two copies both are (an axis
    /// of at least twice the reach and one cells).
    #[inline(always)]
    pub fn runs_near(&self, row: u32, columns: std::ops::RangeInclusive<u32>) -> RunsNear<'_, D> {
        let reach_x = i64::from(self.reach[0]);
        let nx = self.dims[0];
        let first = i64::from(*columns.start()) - reach_x;
        let last = i64::from(*columns.end()) + reach_x;
        let centre = self.row_coords(row).map(i64::from);
        let reach = self.reach.map(i64::from);
        RunsNear {
            grid: self,
            rows: Rows::new(
                std::array::from_fn(|a| centre[a] - reach[a]),
                std::array::from_fn(|a| centre[a] + reach[a]),
            ),
            first,
            last,
            inside: first.max(0)..=last.min(i64::from(nx) - 1),
            row: None,
            column: first,
        }
    }

    /// The volume (in 2D the area) of a cell.
    pub fn cell_volume(&self) -> f64 {
        self.inv_cell.iter().map(|inv| 1.0 / inv).product()
    }

    /// The narrowest side of a cell.
    pub fn min_cell_width(&self) -> f64 {
        self.inv_cell
            .iter()
            .map(|inv| 1.0 / inv)
            .fold(f64::INFINITY, f64::min)
    }

    /// How far any point of a cell lies from every cell beyond its block (the cells within
    /// [`GridGeometry::reach`] along each axis of more than one cell): a search of the block
    /// holds every boid nearer than this. Infinite when every axis is one cell.
    pub fn block_radius(&self) -> f64 {
        (0..D)
            .filter(|&a| self.dims[a] > 1)
            .map(|a| f64::from(self.reach[a]) / self.inv_cell[a])
            .fold(f64::INFINITY, f64::min)
    }

    /// The world size if the grid wraps.
    pub fn torus_size(&self) -> Option<[f32; D]> {
        self.torus
    }

    /// Maps a possibly out-of-range cell coordinate along axis `a` onto the grid: wrapped with
    /// its shift on a torus, `None` off the edge of an open world.
    #[inline(always)]
    fn wrap_axis(&self, a: usize, c: i64) -> Option<(u32, f32)> {
        let n = i64::from(self.dims[a]);
        match self.torus {
            Some(size) => {
                let (shift, wrapped) = match c {
                    c if c < 0 => (-size[a], c.rem_euclid(n)),
                    c if c >= n => (size[a], c.rem_euclid(n)),
                    _ => (0.0, c),
                };
                Some((wrapped as u32, shift))
            }
            None => (0..n).contains(&c).then_some((c as u32, 0.0)),
        }
    }

    /// The first cell of the row at unwrapped coordinates `row` (x ignored), with the shift of
    /// its positions along every axis but x (x is 0): wrapped on a torus, `None` off the edge
    /// of an open world.
    #[inline(always)]
    fn wrap_row(&self, row: [i64; D]) -> Option<(u32, [f32; D])> {
        let mut shift = [0.0; D];
        let mut start = 0;
        for a in (1..D).rev() {
            let (c, s) = self.wrap_axis(a, row[a])?;
            (start, shift[a]) = (start * self.dims[a] + c, s);
        }
        Some((start * self.dims[0], shift))
    }
}

/// Cells per radius along each axis, which is also how many cells each way a neighbour can lie
/// in: `columns` along x, one along every other axis.
fn cells_per_radius<const D: usize>(columns: u32) -> [u32; D] {
    std::array::from_fn(|a| if a == 0 { columns } else { 1 })
}

/// Cells along each axis: at least `radius / per_radius` wide, at most about `max_cells` in all
/// (then wider along every axis alike).
fn cell_counts<const D: usize>(
    size: [f64; D],
    radius: f64,
    per_radius: [u32; D],
    max_cells: usize,
) -> [u32; D] {
    let mut counts: [f64; D] = std::array::from_fn(|a| {
        let width = radius / f64::from(per_radius[a]);
        let cells = (size[a] / (width * CELL_SLACK)).floor();
        // An infinite size over an infinite width (a flock gone infinite) is one cell, not none.
        if cells.is_nan() {
            1.0
        } else {
            cells.clamp(1.0, 1e6)
        }
    });
    let cap = max_cells.max(1) as f64;
    let total: f64 = counts.iter().product();
    if total > cap {
        let scale = root(cap / total, D);
        counts = counts.map(|n| (n * scale).floor().max(1.0));
    }
    counts.map(|n| n as u32)
}

/// The `d`th root of `x`.
fn root(x: f64, d: usize) -> f64 {
    match d {
        1 => x,
        2 => x.sqrt(),
        3 => x.cbrt(),
        _ => x.powf(1.0 / d as f64),
    }
}

/// Lowest and highest coordinate along each axis (`[0; D]` and `[1; D]` for no positions).
pub(crate) fn bounding_box<const D: usize, P: Position<D>>(
    positions: &[P],
) -> ([f64; D], [f64; D]) {
    type Bounds<const D: usize> = ([f32; D], [f32; D]);
    // The selects of glam's `min` and `max`.
    let merge = |(lo, hi): Bounds<D>, (low, high): Bounds<D>| -> Bounds<D> {
        (
            std::array::from_fn(|a| if lo[a] < low[a] { lo[a] } else { low[a] }),
            std::array::from_fn(|a| if hi[a] > high[a] { hi[a] } else { high[a] }),
        )
    };
    let fold = |bounds: Bounds<D>, p: &P| {
        let p = (*p).into();
        merge(bounds, (p, p))
    };
    let empty = ([f32::INFINITY; D], [f32::NEG_INFINITY; D]);
    #[cfg(feature = "parallel")]
    let (lo, hi) = positions
        .par_iter()
        .fold(|| empty, fold)
        .reduce(|| empty, merge);
    #[cfg(not(feature = "parallel"))]
    let (lo, hi) = positions.iter().fold(empty, fold);
    if positions.is_empty() {
        return ([0.0; D], [1.0; D]);
    }
    (lo.map(f64::from), hi.map(f64::from))
}

/// The rows of a block of cells, by their unwrapped coordinates along every axis but x (x is
/// left as given): y fastest, then z, which is the order of cell numbers in the block.
#[derive(Clone, Debug)]
struct Rows<const D: usize> {
    low: [i64; D],
    /// The block's last row; along the last axis only `left` bounds it.
    high: [i64; D],
    /// The next row, if `left` is not zero.
    next: [i64; D],
    /// Rows still to come.
    left: u64,
}

impl<const D: usize> Rows<D> {
    /// The rows of the block `low..=high` (along every axis but x).
    #[inline(always)]
    fn new(low: [i64; D], high: [i64; D]) -> Self {
        let left = (1..D)
            .map(|a| (high[a] - low[a] + 1).max(0) as u64)
            .product();
        Self {
            low,
            high,
            next: low,
            left,
        }
    }
}

impl<const D: usize> Iterator for Rows<D> {
    type Item = [i64; D];

    #[inline(always)]
    fn next(&mut self) -> Option<[i64; D]> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let row = self.next;
        // The last axis never turns over (`left` ends the block first), so it needs no bound:
        // in 2D, where y is the only axis counted, the odometer is one increment, as a range.
        for a in 1..D {
            if a + 1 == D || self.next[a] < self.high[a] {
                self.next[a] += 1;
                break;
            }
            self.next[a] = self.low[a];
        }
        Some(row)
    }
}

/// A cell near a boid ([`GridGeometry::cells_near`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NearCell<const D: usize> {
    /// Cell index.
    pub cell: u32,
    /// Unwrapped column: `-1` or `nx` across a torus seam.
    pub column: i64,
    /// World shift to take off `p_i - p_j` for a boid `j` of this cell: the minimum image
    /// without a division per pair (zero unless wrapped).
    pub shift: [f32; D],
}

/// Consecutive cells of one row near a row of cells ([`GridGeometry::runs_near`]): their
/// boids are one span of a [`CellIndex`](super::CellIndex).
#[derive(Clone, Debug, PartialEq)]
pub struct NearRun<const D: usize> {
    /// Cell indices.
    pub cells: std::ops::Range<u32>,
    /// Unwrapped columns of the cells: below `0` or from `nx` on across a torus seam.
    pub columns: std::ops::RangeInclusive<i64>,
    /// World shift to take off `p_i - p_j` for a boid `j` of these cells: the minimum image
    /// without a division per pair (zero unless wrapped). Only a single cell is shifted in x.
    pub shift: [f32; D],
}

impl<const D: usize> NearRun<D> {
    /// The run's cells one by one.
    pub fn near_cells(self) -> impl Iterator<Item = NearCell<D>> {
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
pub struct RunsNear<'a, const D: usize> {
    grid: &'a GridGeometry<D>,
    rows: Rows<D>,
    /// Unwrapped columns of every row.
    first: i64,
    last: i64,
    /// The columns of every row inside the grid: one run.
    inside: std::ops::RangeInclusive<i64>,
    /// The row being listed, wrapped: its first cell and its shift.
    row: Option<(u32, [f32; D])>,
    /// Next unwrapped column of that row.
    column: i64,
}

impl<const D: usize> Iterator for RunsNear<'_, D> {
    type Item = NearRun<D>;

    #[inline(always)]
    fn next(&mut self) -> Option<NearRun<D>> {
        loop {
            if let Some((row_start, row_shift)) = self.row {
                while self.column <= self.last {
                    let first = self.column;
                    let last = match first == *self.inside.start() {
                        true => *self.inside.end(),
                        false => first,
                    };
                    self.column = last + 1;
                    if let Some((x, shift_x)) = self.grid.wrap_axis(0, first) {
                        let start = row_start + x;
                        let mut shift = row_shift;
                        shift[0] = shift_x;
                        return Some(NearRun {
                            cells: start..start + (last - first) as u32 + 1,
                            columns: first..=last,
                            shift,
                        });
                    }
                }
            }
            let row = self.rows.next()?;
            self.row = self.grid.wrap_row(row);
            self.column = self.first;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    #[test]
    fn torus_cells_are_at_least_the_radius_wide() {
        let g = GridGeometry::torus([0.0, 0.0], [10.0, 7.0], 1.0, 1, usize::MAX);
        assert_eq!(g.dims(), [9, 6]);
        let g = GridGeometry::torus([0.0, 0.0], [10.0, 2.5], 1.0, 1, usize::MAX);
        assert_eq!(g.dims(), [9, 1], "an axis of two cells becomes one");
        assert_eq!(Vec2::from(g.pairwise_wrap()), Vec2::new(0.0, 2.5));
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
    fn near(g: &GridGeometry<2>, cell: u32) -> Vec<(u32, Vec2)> {
        g.cells_near(cell)
            .map(|near| (near.cell, Vec2::from(near.shift)))
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
                    let runs: Vec<NearRun<2>> = g.runs_near(row, first..=nx - 1).collect();
                    for run in &runs {
                        assert_eq!(run.cells.len(), run.columns.clone().count());
                        assert_eq!(run.cells.start / nx, (run.cells.end - 1) / nx, "one row");
                        assert!(run.shift[0] == 0.0 || run.cells.len() == 1, "{run:?}");
                    }
                    let unshifted = runs.iter().filter(|run| run.shift[0] == 0.0).count();
                    assert!(unshifted <= if ny == 1 { 1 } else { 3 }, "{runs:?}");
                    let joined: Vec<NearCell<2>> =
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
                        assert_eq!(shift[0] != 0.0, u != i64::from(wrapped));
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
