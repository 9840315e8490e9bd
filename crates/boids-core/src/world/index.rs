//! Obstacles looked up through a grid: each cell lists the obstacles whose bounds touch it, so a
//! boid tests only the few obstacles near it.
//!
//! On a torus an obstacle that crosses a seam is also stored as copies shifted by the world's
//! size, so that a move that leaves the world on one side meets the part of the obstacle seen on
//! the other; the move itself is then tested without wrapping. Obstacles change only when the
//! world is edited, so the index is built then, not every step.

use glam::Vec2;

use super::shape::{Hit, Shape};

/// Most cells of the index: enough for thousands of obstacles, small enough to rebuild on every
/// edit without notice.
const MAX_CELLS: usize = 1 << 16;

/// The obstacles (and their torus copies) with a grid of the cells each touches.
#[derive(Clone, Debug, Default)]
pub struct ObstacleIndex {
    /// Every shape tested, torus copies included.
    shapes: Vec<Shape>,
    /// The obstacle each shape is (a copy's original), counted from 0.
    owner: Vec<u32>,
    /// Bounds of each shape.
    bounds: Vec<(Vec2, Vec2)>,
    cells: Lattice,
    /// Cell `c` lists `items[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    items: Vec<u32>,
    /// The world's `(min, size)` when it wraps.
    torus: Option<(Vec2, Vec2)>,
}

impl ObstacleIndex {
    /// Indexes `obstacles`. `torus` is the world's `(min, size)` when it wraps. (Queries name the
    /// exact box they need, so cells list an obstacle where its own bounds are.)
    pub fn new(obstacles: &[Shape], torus: Option<(Vec2, Vec2)>) -> Self {
        let (shapes, owner): (Vec<Shape>, Vec<u32>) = obstacles
            .iter()
            .enumerate()
            .flat_map(|(i, shape)| copies(shape, torus).into_iter().map(move |c| (c, i as u32)))
            .unzip();
        if shapes.is_empty() {
            return Self {
                torus,
                ..Self::default()
            };
        }
        let bounds: Vec<(Vec2, Vec2)> = shapes.iter().map(Shape::bounds).collect();
        let (lo, hi) = union(&bounds);
        let extent = (hi - lo).max(Vec2::splat(f32::MIN_POSITIVE));
        // About four cells per shape, square-ish, within the cap.
        let wanted = (4 * shapes.len()).clamp(1, MAX_CELLS) as f32;
        let side = (extent.x * extent.y / wanted).sqrt().max(f32::MIN_POSITIVE);
        let dims = [
            ((extent.x / side).ceil() as usize).clamp(1, MAX_CELLS),
            ((extent.y / side).ceil() as usize).clamp(1, MAX_CELLS),
        ];
        let dims = [dims[0], dims[1].min(MAX_CELLS / dims[0]).max(1)];
        let mut index = Self {
            shapes,
            owner,
            bounds,
            cells: Lattice::over(lo, extent, dims),
            starts: Vec::new(),
            items: Vec::new(),
            torus,
        };
        index.fill_cells();
        index
    }

    /// Counting sort of (cell, shape) pairs into the cell lists.
    fn fill_cells(&mut self) {
        let cells = self.cells.len();
        let mut counts = vec![0u32; cells + 1];
        let mut pairs = Vec::new();
        for (id, &(lo, hi)) in self.bounds.iter().enumerate() {
            for c in self.cells.cells_of_box(lo, hi) {
                counts[c + 1] += 1;
                pairs.push((c, id as u32));
            }
        }
        for c in 0..cells {
            counts[c + 1] += counts[c];
        }
        let mut next = counts.clone();
        let mut items = vec![0u32; pairs.len()];
        for (c, id) in pairs {
            items[next[c] as usize] = id;
            next[c] += 1;
        }
        self.starts = counts;
        self.items = items;
    }

    /// The obstacles of `params` (with their torus copies when the world wraps).
    pub fn of(params: &crate::params::Params) -> Self {
        Self::new(
            &params.obstacles,
            params.is_torus().then(|| params.world_rect()),
        )
    }

    /// `p` as the simulation stores it: wrapped into the world on a torus, else `p`. Wrapping
    /// may move a point by a unit in the last place, or by whole worlds, so whether a boid is
    /// inside an obstacle is asked of this point.
    pub fn as_stored(&self, p: Vec2) -> Vec2 {
        match self.torus {
            Some((min, size)) => crate::rules::wrap(p, min, size),
            None => p,
        }
    }

    /// Whether there is nothing to test.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    /// Calls `f` once for every shape whose bounds overlap the box `lo..hi`.
    pub fn for_each_near(&self, lo: Vec2, hi: Vec2, mut f: impl FnMut(&Shape)) {
        self.for_each_near_id(lo, hi, |_, shape| f(shape));
    }

    /// [`Self::for_each_near`], with the number of the obstacle each shape is.
    fn for_each_near_id(&self, lo: Vec2, hi: Vec2, mut f: impl FnMut(usize, &Shape)) {
        if self.is_empty() {
            return;
        }
        for c in self.cells.cells_of_box(lo, hi) {
            for &id in self.listed(c) {
                let id = id as usize;
                // A shape listed in several cells of the box is visited in the first only: the
                // cell of the overlap's lowest corner.
                let first = self
                    .cells
                    .index(self.cells.cell_of(self.bounds[id].0.max(lo)))
                    == c;
                if first && self.overlaps(id, lo, hi) {
                    f(self.owner[id] as usize, &self.shapes[id]);
                }
            }
        }
    }

    /// The shapes cell `c` lists.
    fn listed(&self, c: usize) -> &[u32] {
        &self.items[self.starts[c] as usize..self.starts[c + 1] as usize]
    }

    /// Whether shape `id`'s bounds overlap the box `lo..hi`.
    fn overlaps(&self, id: usize, lo: Vec2, hi: Vec2) -> bool {
        let (a, b) = self.bounds[id];
        a.cmple(hi).all() && b.cmpge(lo).all()
    }

    /// The bounds of every shape tested (torus copies included).
    pub fn shape_bounds(&self) -> &[(Vec2, Vec2)] {
        &self.bounds
    }

    /// Whether any obstacle's bounds overlap the box `lo..hi`.
    pub fn any_near(&self, lo: Vec2, hi: Vec2) -> bool {
        !self.is_empty()
            && self.cells.cells_of_box(lo, hi).any(|c| {
                self.listed(c)
                    .iter()
                    .any(|&id| self.overlaps(id as usize, lo, hi))
            })
    }

    /// Whether `p` (a position as stored, [`Self::as_stored`]) is inside any obstacle.
    pub fn contains(&self, p: Vec2) -> bool {
        self.obstacle_at(p).is_some()
    }

    /// The obstacle (counted from 0) that `p` is inside, if any.
    pub fn obstacle_at(&self, p: Vec2) -> Option<usize> {
        let mut inside = None;
        self.for_each_near_id(p, p, |id, s| {
            if inside.is_none() && s.contains(p) {
                inside = Some(id);
            }
        });
        inside
    }

    /// The first contact of the move `from -> to` with any obstacle.
    pub fn first_hit(&self, from: Vec2, to: Vec2) -> Option<Hit> {
        let mut first: Option<Hit> = None;
        self.for_each_near(from.min(to), from.max(to), |s| {
            if let Some(hit) = s.first_hit(from, to)
                && first.is_none_or(|f| hit.t < f.t)
            {
                first = Some(hit);
            }
        });
        first
    }
}

/// The smallest box holding every box of `bounds`.
pub(super) fn union(bounds: &[(Vec2, Vec2)]) -> (Vec2, Vec2) {
    bounds.iter().fold(
        (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
        |(lo, hi), &(a, b)| (lo.min(a), hi.max(b)),
    )
}

/// Rectangular cells over a box, numbered row by row; points off the box fall in its edge cells.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Lattice {
    origin: Vec2,
    cell: Vec2,
    dims: [usize; 2],
}

impl Lattice {
    /// `dims` cells over the box from `origin` with `extent`.
    pub(super) fn over(origin: Vec2, extent: Vec2, dims: [usize; 2]) -> Self {
        Self {
            origin,
            cell: extent / Vec2::new(dims[0] as f32, dims[1] as f32),
            dims,
        }
    }

    /// Number of cells.
    pub(super) fn len(&self) -> usize {
        self.dims[0] * self.dims[1]
    }

    /// The cell holding `p`, clamped to the lattice. (Truncating a clamped non-negative quotient
    /// is its floor, without a call to `floorf` on machines whose baseline lacks a rounding
    /// instruction.)
    pub(super) fn cell_of(&self, p: Vec2) -> [usize; 2] {
        let q = ((p - self.origin) / self.cell).max(Vec2::ZERO);
        [
            (q.x as usize).min(self.dims[0] - 1),
            (q.y as usize).min(self.dims[1] - 1),
        ]
    }

    /// The number of a cell.
    pub(super) fn index(&self, [x, y]: [usize; 2]) -> usize {
        y * self.dims[0] + x
    }

    /// The cell holding `p`, if `p` lies on the lattice (its far edges included).
    pub(super) fn cell_within(&self, p: Vec2) -> Option<usize> {
        let q = (p - self.origin) / self.cell;
        let far = Vec2::new(self.dims[0] as f32, self.dims[1] as f32);
        let on = q.cmpge(Vec2::ZERO).all() && q.cmple(far).all();
        on.then(|| self.index(self.cell_of(p)))
    }

    /// Every cell the box `lo..hi` touches (clamped to the lattice).
    pub(super) fn cells_of_box(&self, lo: Vec2, hi: Vec2) -> impl Iterator<Item = usize> + '_ {
        let ([x0, y0], [x1, y1]) = (self.cell_of(lo), self.cell_of(hi));
        (y0..=y1).flat_map(move |y| (x0..=x1).map(move |x| self.index([x, y])))
    }
}

/// A shape and, on a torus, its copies shifted by the world's size across every seam it comes
/// within reach of (all eight neighbours: a query near a corner needs the diagonal copy).
fn copies(shape: &Shape, torus: Option<(Vec2, Vec2)>) -> Vec<Shape> {
    let Some((_, size)) = torus else {
        return vec![shape.clone()];
    };
    let mut out = Vec::with_capacity(9);
    for sy in [-1.0f32, 0.0, 1.0] {
        for sx in [-1.0f32, 0.0, 1.0] {
            out.push(shape.translated(Vec2::new(sx, sy) * size));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn circle(x: f32, y: f32, r: f32) -> Shape {
        Shape::Circle {
            center: Vec2::new(x, y),
            radius: r,
        }
    }

    #[test]
    fn lookups_find_exactly_what_a_scan_finds() {
        let shapes: Vec<Shape> = (0..40)
            .map(|k| {
                circle(
                    (k * 37 % 100) as f32,
                    (k * 53 % 80) as f32,
                    1.0 + (k % 4) as f32,
                )
            })
            .collect();
        let index = ObstacleIndex::new(&shapes, None);
        for k in 0..400 {
            let from = Vec2::new((k * 7 % 110) as f32 - 5.0, (k * 11 % 90) as f32 - 5.0);
            let to = from + Vec2::new(((k % 9) as f32 - 4.0) * 1.7, ((k % 7) as f32 - 3.0) * 1.3);
            if shapes.iter().any(|s| s.contains(from)) {
                continue;
            }
            let scan = shapes
                .iter()
                .filter_map(|s| s.first_hit(from, to))
                .min_by(|a, b| a.t.total_cmp(&b.t));
            assert_eq!(index.first_hit(from, to), scan, "{from} -> {to}");
            assert_eq!(
                index.contains(to),
                shapes.iter().any(|s| s.contains(to)),
                "{to}"
            );
            let mut seen = 0;
            index.for_each_near(from.min(to), from.max(to), |_| seen += 1);
            assert!(seen <= shapes.len());
        }
    }

    #[test]
    fn a_torus_sees_obstacles_across_the_seam() {
        let size = Vec2::new(100.0, 100.0);
        let index = ObstacleIndex::new(&[circle(1.0, 50.0, 3.0)], Some((Vec2::ZERO, size)));
        // Leaving through the right edge meets the circle's part seen past it.
        let hit = index.first_hit(Vec2::new(96.0, 50.0), Vec2::new(102.0, 50.0));
        assert!(
            hit.is_some_and(|h| (h.t - 2.0 / 6.0).abs() < 1e-5),
            "{hit:?}"
        );
        assert!(index.contains(Vec2::new(99.5, 50.0)));
        let flat = ObstacleIndex::new(&[circle(1.0, 50.0, 3.0)], None);
        assert!(
            flat.first_hit(Vec2::new(96.0, 50.0), Vec2::new(102.0, 50.0))
                .is_none()
        );
    }
}
