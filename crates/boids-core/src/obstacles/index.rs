//! Obstacles looked up through a grid: each cell lists the obstacles whose bounds touch it, so a
//! boid tests only the few obstacles near it. The grid has the world's dimensions: squares in
//! 2D, cubes in 3D.
//!
//! On a torus an obstacle that crosses a seam is also stored as copies shifted by the world's
//! size, so that a move that leaves the world on one side meets the part of the obstacle seen on
//! the other; the move itself is then tested without wrapping. Obstacles change only when the
//! world is edited, so the index is built then, not every step.

use super::shape::{Hit, Shape, all_axes, splat, zip_axes};
use crate::space::{Coordinates, Dim, Dimension, VecN};

/// Most cells of the index: enough for thousands of obstacles, small enough to rebuild on every
/// edit without notice.
const MAX_CELLS: usize = 1 << 16;

/// The obstacles (and their torus copies) with a grid of the cells each touches.
#[derive(Clone, Debug, Default)]
pub struct ObstacleIndex<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// Every shape tested, torus copies included.
    shapes: Vec<Shape<D>>,
    /// The obstacle each shape is (a copy's original), counted from 0.
    owner: Vec<u32>,
    /// Bounds of each shape.
    bounds: Vec<(VecN<D>, VecN<D>)>,
    cells: Lattice<D>,
    /// Cell `c` lists `items[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    items: Vec<u32>,
    /// The world's `(min, size)` when it wraps.
    torus: Option<(VecN<D>, VecN<D>)>,
}

impl<const D: usize> ObstacleIndex<D>
where
    Dim<D>: Dimension<D>,
{
    /// Indexes `obstacles`. `torus` is the world's `(min, size)` when it wraps. (Queries name the
    /// exact box they need, so cells list an obstacle where its own bounds are.)
    pub fn new(obstacles: &[Shape<D>], torus: Option<(VecN<D>, VecN<D>)>) -> Self {
        let (shapes, owner): (Vec<Shape<D>>, Vec<u32>) = obstacles
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
        let bounds: Vec<(VecN<D>, VecN<D>)> = shapes.iter().map(Shape::bounds).collect();
        let (lo, hi) = union(&bounds);
        let extent = zip_axes(hi - lo, splat(f32::MIN_POSITIVE), f32::max);
        // About four cells per shape, square-ish, within the cap.
        let wanted = (4 * shapes.len()).clamp(1, MAX_CELLS) as f32;
        let side = side_for(extent, wanted);
        let extents = extent.to_array();
        let mut dims = extents.map(|e| ((e / side).ceil() as usize).clamp(1, MAX_CELLS));
        for a in 1..D {
            let below: usize = dims[..a].iter().product();
            dims[a] = dims[a].min(MAX_CELLS / below).max(1);
        }
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

    /// `p` as the simulation stores it: wrapped into the world on a torus, else `p`. Wrapping
    /// may move a point by a unit in the last place, or by whole worlds, so whether a boid is
    /// inside an obstacle is asked of this point.
    pub fn as_stored(&self, p: VecN<D>) -> VecN<D> {
        match self.torus {
            Some((min, size)) => crate::space::wrap(p, min, size),
            None => p,
        }
    }

    /// Whether there is nothing to test.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    /// Calls `f` once for every shape whose bounds overlap the box `lo..hi`.
    pub fn for_each_near(&self, lo: VecN<D>, hi: VecN<D>, mut f: impl FnMut(&Shape<D>)) {
        self.for_each_near_id(lo, hi, |_, shape| f(shape));
    }

    /// [`Self::for_each_near`], with the number of the obstacle each shape is.
    fn for_each_near_id(&self, lo: VecN<D>, hi: VecN<D>, mut f: impl FnMut(usize, &Shape<D>)) {
        if self.is_empty() {
            return;
        }
        for c in self.cells.cells_of_box(lo, hi) {
            for &id in self.listed(c) {
                let id = id as usize;
                // A shape listed in several cells of the box is visited in the first only: the
                // cell of the overlap's lowest corner.
                let corner = zip_axes(self.bounds[id].0, lo, f32::max);
                let first = self.cells.index(self.cells.cell_of(corner)) == c;
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
    fn overlaps(&self, id: usize, lo: VecN<D>, hi: VecN<D>) -> bool {
        let (a, b) = self.bounds[id];
        all_axes(a, hi, |a, hi| a <= hi) && all_axes(b, lo, |b, lo| b >= lo)
    }

    /// The bounds of every shape tested (torus copies included).
    pub fn shape_bounds(&self) -> &[(VecN<D>, VecN<D>)] {
        &self.bounds
    }

    /// Whether any obstacle's bounds overlap the box `lo..hi`.
    pub fn any_near(&self, lo: VecN<D>, hi: VecN<D>) -> bool {
        !self.is_empty()
            && self.cells.cells_of_box(lo, hi).any(|c| {
                self.listed(c)
                    .iter()
                    .any(|&id| self.overlaps(id as usize, lo, hi))
            })
    }

    /// Whether `p` (a position as stored, [`Self::as_stored`]) is inside any obstacle.
    pub fn contains(&self, p: VecN<D>) -> bool {
        self.obstacle_at(p).is_some()
    }

    /// The obstacle (counted from 0) that `p` is inside, if any.
    pub fn obstacle_at(&self, p: VecN<D>) -> Option<usize> {
        let mut inside = None;
        self.for_each_near_id(p, p, |id, s| {
            if inside.is_none() && s.contains(p) {
                inside = Some(id);
            }
        });
        inside
    }

    /// The first contact of the move `from -> to` with any obstacle.
    pub fn first_hit(&self, from: VecN<D>, to: VecN<D>) -> Option<Hit<D>> {
        let mut first: Option<Hit<D>> = None;
        let (lo, hi) = (zip_axes(from, to, f32::min), zip_axes(from, to, f32::max));
        self.for_each_near(lo, hi, |s| {
            if let Some(hit) = s.first_hit(from, to)
                && first.is_none_or(|f| hit.t < f.t)
            {
                first = Some(hit);
            }
        });
        first
    }

    /// The nearest surface within `reach` of `p`, a point outside every obstacle: its
    /// distance and the unit normal pointing from it to `p`. `None` when none is that near (or
    /// `p` lies on a surface, where the normal is not known).
    pub fn nearest_within(&self, p: VecN<D>, reach: f32) -> Option<(f32, VecN<D>)> {
        let mut nearest: Option<(f32, VecN<D>)> = None;
        let grow = splat::<D>(reach);
        self.for_each_near(p - grow, p + grow, |s| {
            let away = p - s.nearest_surface(p);
            let distance = away.length();
            if distance > 0.0 && distance < reach && nearest.is_none_or(|(d, _)| distance < d) {
                nearest = Some((distance, away * (1.0 / distance)));
            }
        });
        nearest
    }
}

/// The side of a square (2D) or cube (3D) cell that splits `extent` into about `cells` cells.
pub(crate) fn side_for<const D: usize>(extent: VecN<D>, cells: f32) -> f32
where
    Dim<D>: Dimension<D>,
{
    let volume = extent.to_array().iter().product::<f32>() / cells;
    let side = if D == 2 { volume.sqrt() } else { volume.cbrt() };
    side.max(f32::MIN_POSITIVE)
}

/// The smallest box holding every box of `bounds`.
pub(crate) fn union<const D: usize>(bounds: &[(VecN<D>, VecN<D>)]) -> (VecN<D>, VecN<D>)
where
    Dim<D>: Dimension<D>,
{
    bounds.iter().fold(
        (splat(f32::INFINITY), splat(f32::NEG_INFINITY)),
        |(lo, hi), &(a, b)| (zip_axes(lo, a, f32::min), zip_axes(hi, b, f32::max)),
    )
}

/// Box-shaped cells over a box, numbered x first, then y, then z; points off the box fall in
/// its edge cells.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lattice<const D: usize>
where
    Dim<D>: Dimension<D>,
{
    origin: VecN<D>,
    cell: VecN<D>,
    dims: [usize; D],
}

impl<const D: usize> Default for Lattice<D>
where
    Dim<D>: Dimension<D>,
{
    fn default() -> Self {
        Self {
            origin: VecN::<D>::ZERO,
            cell: VecN::<D>::ZERO,
            dims: [0; D],
        }
    }
}

impl<const D: usize> Lattice<D>
where
    Dim<D>: Dimension<D>,
{
    /// `dims` cells over the box from `origin` with `extent`.
    pub(crate) fn over(origin: VecN<D>, extent: VecN<D>, dims: [usize; D]) -> Self {
        Self {
            origin,
            cell: zip_axes(extent, dims.map(|n| n as f32).into(), |e, n| e / n),
            dims,
        }
    }

    /// Number of cells.
    pub(crate) fn len(&self) -> usize {
        self.dims.iter().product()
    }

    /// The cell holding `p`, clamped to the lattice. (Truncating a clamped non-negative quotient
    /// is its floor, without a call to `floorf` on machines whose baseline lacks a rounding
    /// instruction.)
    pub(crate) fn cell_of(&self, p: VecN<D>) -> [usize; D] {
        let q = self.quotient(p).to_array();
        std::array::from_fn(|a| (q[a].max(0.0) as usize).min(self.dims[a] - 1))
    }

    /// `p` in cells from the origin along each axis.
    fn quotient(&self, p: VecN<D>) -> VecN<D> {
        zip_axes(p - self.origin, self.cell, |d, c| d / c)
    }

    /// The number of a cell.
    pub(crate) fn index(&self, cell: [usize; D]) -> usize {
        (0..D)
            .rev()
            .fold(0, |number, a| number * self.dims[a] + cell[a])
    }

    /// The cell holding `p`, if `p` lies on the lattice (its far edges included).
    pub(crate) fn cell_within(&self, p: VecN<D>) -> Option<usize> {
        let q = self.quotient(p).to_array();
        let on = (0..D).all(|a| q[a] >= 0.0 && q[a] <= self.dims[a] as f32);
        on.then(|| self.index(self.cell_of(p)))
    }

    /// Every cell the box `lo..hi` touches (clamped to the lattice), in number order.
    pub(crate) fn cells_of_box(
        &self,
        lo: VecN<D>,
        hi: VecN<D>,
    ) -> impl Iterator<Item = usize> + '_ {
        let (first, last) = (self.cell_of(lo), self.cell_of(hi));
        let span: [usize; D] = std::array::from_fn(|a| (last[a] + 1).saturating_sub(first[a]));
        let count: usize = span.iter().product();
        (0..count).map(move |k| {
            let mut rest = k;
            self.index(std::array::from_fn(|a| {
                let at = first[a] + rest % span[a];
                rest /= span[a];
                at
            }))
        })
    }
}

/// A shape and, on a torus, its copies shifted by the world's size across every seam it comes
/// within reach of (every neighbour: 8 in 2D, 26 in 3D; a query near a corner needs the
/// diagonal copies).
fn copies<const D: usize>(shape: &Shape<D>, torus: Option<(VecN<D>, VecN<D>)>) -> Vec<Shape<D>>
where
    Dim<D>: Dimension<D>,
{
    let Some((_, size)) = torus else {
        return vec![shape.clone()];
    };
    let count = 3usize.pow(D as u32);
    let size = size.to_array();
    (0..count)
        .map(|k| {
            let shift: [f32; D] = std::array::from_fn(|a| {
                let step = (k / 3usize.pow(a as u32)) % 3;
                (step as f32 - 1.0) * size[a]
            });
            shape.translated(shift.into())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    fn circle(x: f32, y: f32, r: f32) -> Shape {
        Shape::<2>::Ball {
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
            let nearest = shapes
                .iter()
                .map(|s| from.distance(s.nearest_surface(from)))
                .filter(|&d| d > 0.0 && d < 6.0)
                .min_by(f32::total_cmp);
            assert_eq!(index.nearest_within(from, 6.0).map(|(d, _)| d), nearest);
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

    #[test]
    fn a_torus_sees_a_sphere_across_every_seam_and_corner() {
        use glam::Vec3;
        let size = Vec3::splat(100.0);
        let sphere = Shape::<3>::Ball {
            center: Vec3::new(1.0, 1.0, 1.0),
            radius: 3.0,
        };
        let index = ObstacleIndex::new(&[sphere], Some((Vec3::ZERO, size)));
        // The corner diagonally opposite the sphere is inside its copy across three seams.
        assert!(index.contains(Vec3::new(99.5, 99.5, 99.5)));
        assert_eq!(index.obstacle_at(Vec3::new(99.5, 1.0, 99.5)), Some(0));
        assert!(!index.contains(Vec3::new(50.0, 50.0, 50.0)));
        // Leaving through the far z face meets the part seen past it.
        let hit = index.first_hit(Vec3::new(1.0, 1.0, 94.0), Vec3::new(1.0, 1.0, 100.0));
        assert!(
            hit.is_some_and(|h| (h.t - 4.0 / 6.0).abs() < 1e-5 && h.normal.z == -1.0),
            "{hit:?}"
        );
    }

    #[test]
    fn lookups_in_3d_find_exactly_what_a_scan_finds() {
        use glam::Vec3;
        let shapes: Vec<Shape<3>> = (0..30)
            .map(|k| {
                let at = Vec3::new(
                    (k * 37 % 100) as f32,
                    (k * 53 % 80) as f32,
                    (k * 29 % 60) as f32,
                );
                if k % 2 == 0 {
                    Shape::Ball {
                        center: at,
                        radius: 2.0 + (k % 3) as f32,
                    }
                } else {
                    Shape::AlignedBox {
                        min: at,
                        max: at + Vec3::new(3.0, 5.0, 2.0),
                    }
                }
            })
            .collect();
        let index = ObstacleIndex::new(&shapes, None);
        for k in 0..600 {
            let from = Vec3::new(
                (k * 7 % 110) as f32 - 5.0,
                (k * 11 % 90) as f32 - 5.0,
                (k * 13 % 70) as f32 - 5.0,
            );
            let to = from
                + Vec3::new(
                    ((k % 9) as f32 - 4.0) * 1.7,
                    ((k % 7) as f32 - 3.0) * 1.3,
                    ((k % 5) as f32 - 2.0) * 1.9,
                );
            if shapes.iter().any(|s| s.contains(from)) {
                continue;
            }
            let scan = shapes
                .iter()
                .filter_map(|s| s.first_hit(from, to))
                .min_by(|a, b| a.t.total_cmp(&b.t));
            assert_eq!(index.first_hit(from, to), scan, "{from} -> {to}");
            assert_eq!(index.contains(to), shapes.iter().any(|s| s.contains(to)));
        }
    }
}
