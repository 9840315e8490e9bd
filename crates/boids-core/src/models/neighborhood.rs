//! Exact neighbourhoods for the general path: metric (within a radius) or topological (the k
//! nearest), both limited to a boid's field of view.
//!
//! Starlings react to about seven nearest neighbours whatever their distance (Ballerini et al.,
//! PNAS 2008), and most animals cannot see straight behind them; the fast grid scan of
//! [`crate::sim`] assumes neither. This module answers both questions exactly, with the same
//! counting-sort grid ([`crate::grid`]) searched ring by ring outward from a boid's cell:
//!
//! - **Metric**: every boid `j != i` in view with `|p_i - p_j|^2 < below`; the rings out to the
//!   radius are scanned, whatever the cell width.
//! - **k nearest**: the `k` boids in view with the smallest distance (ties broken by the lower
//!   id, so the answer is unique). A ring search stops once the k-th distance is below the
//!   distance any unscanned cell could hold: cells at Chebyshev ring `r + 1` lie at least `r`
//!   cell widths away.
//!
//! The grid index and its rings are the ones [`crate::neighbors`] searches too
//! ([`crate::grid::GridIndex`]: on a torus each distinct cell once); distances are minimum
//! images taken per pair. Results are lists of ids in ascending order, the canonical order
//! every model sums in.
//!
//! **Field of view.** A boid sees a neighbour unless the neighbour lies in the blind region of
//! angular width `blind_angle` centred straight behind it: seen when the angle between its
//! heading and the direction to the neighbour is at most `pi - blind_angle / 2`. In 2D the
//! blind region is a sector; in 3D the same test makes it a cone of half-angle
//! `blind_angle / 2` around the backward heading. A boid at rest (no heading) and a neighbour at
//! the same point are always seen.
//!
//! Everything here is generic over the dimension: the rings of cells are the shells of cubes in
//! 3D as of squares in 2D.

use crate::grid::{GridGeometry, GridIndex, Rings, bounding_box};
use crate::params::Params;
use crate::space::{self, Coordinates, Dim, Dimension, VecN};
use crate::stats::ScanCounts;

/// A k-nearest cell's side over that of a cube holding k boids at the flock's mean density.
/// Narrower cells mean more rings to search, wider ones more candidates per cell: 0.75 stops
/// most searches after the first ring around a boid's cell (measured on `murmuration` before
/// it had a blind cone, 60 steps on one thread: 0.5 takes 11% longer, 1.0 20%).
pub(crate) const CELL_SCALE: f64 = 0.75;

/// Most cells a k-nearest grid may have per boid (a metric grid has two). Its cells are sized
/// to the flock's density rather than to a range, and a flock with stragglers far away spreads
/// its box wide: with two cells a boid, the cells in the flock itself would hold a hundred boids
/// or more. Each cell costs 4 bytes of index, so this is up to 256 bytes a boid, and only where
/// the flock fills little of its box (a flock that fills it has fewer cells than boids).
const K_NEAREST_CELLS_PER_BOID: usize = 64;

/// Most cells of any k-nearest grid beyond the metric grid's two a boid: 256 MB of index.
const K_NEAREST_MAX_CELLS: usize = 1 << 26;

/// Times a k-nearest grid's cells are sized again by the volume its cells with boids fill.
/// Each time shrinks the cells toward the flock's own density. Measured on the guide's
/// peregrine example (the `murmuration` preset of 4,000 birds, stragglers scattered over its
/// airspace by a predator; 400 steps, one thread): 31.0 s with cells sized by the box's mean
/// density, 11.5 s with two refinements and 16 cells a boid at most, 6.7 s with 64
/// ([`K_NEAREST_CELLS_PER_BOID`]). The full murmuration without a predator (nor, then, its
/// blind cone), 200 steps on two threads: 5.98 s against 5.45 s with the refinements, the
/// same again with 64 cells a boid.
const DENSITY_REFINEMENTS: usize = 2;

/// Which neighbours a boid sees: the blind sector (2D) or cone (3D) behind it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldOfView {
    /// `-cos(blind_angle / 2)`: a neighbour in direction `e` from a boid heading `h` is seen when
    /// `h . e >= limit * |e|`.
    limit: f32,
    blind: bool,
}

impl FieldOfView {
    /// The field of view with a blind sector or cone `blind_angle` radians wide.
    pub fn new(blind_angle: f64) -> Self {
        Self {
            limit: -((blind_angle / 2.0).cos() as f32),
            blind: blind_angle > 0.0,
        }
    }

    /// Whether a boid with unit heading `heading` (zero at rest) sees a neighbour at offset
    /// `d = p_i - p_j`.
    #[inline]
    pub fn sees<const D: usize, P: Coordinates<D>>(&self, heading: P, d: P) -> bool {
        if !self.blind || heading == P::ZERO || d == P::ZERO {
            return true;
        }
        let toward = -d;
        heading.dot(toward) >= self.limit * toward.length()
    }
}

/// An indexed flock (id order) of `D` dimensions answering metric and k-nearest queries in the
/// field of view.
pub struct Neighborhood<'a, const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    grid: GridIndex<'a, D, VecN<D>>,
    headings: Vec<VecN<D>>,
    wrap: VecN<D>,
    view: FieldOfView,
}

impl<'a, const D: usize> Neighborhood<'a, D>
where
    Dim<D>: Dimension<D>,
{
    /// Indexes a flock in id order under `params`: cells as wide as the visual range for
    /// metric neighbourhoods, those of `nearest_geometry` for `topological_k = k`.
    pub fn new(params: &Params, positions: &'a [VecN<D>], velocities: &[VecN<D>]) -> Self {
        let n = positions.len();
        let ids: Vec<u32> = (0..n as u32).collect();
        let geometry = match params.topological_k {
            0 => {
                let (width, max_cells) = (params.visual_range, 2 * n + 64);
                grid_over(params, positions, width, 1, max_cells)
            }
            _ => nearest_geometry(params, positions, (CELL_SCALE, 1), &mut Vec::new()),
        };
        Self {
            wrap: geometry
                .torus_size()
                .map_or(VecN::<D>::ZERO, VecN::<D>::from),
            grid: GridIndex::new(geometry, positions, &ids),
            headings: velocities.iter().map(|v| v.normalize_or_zero()).collect(),
            view: FieldOfView::new(params.blind_angle),
        }
    }

    /// Minimum-image offset `p_i - p_j`.
    #[inline]
    pub fn offset(&self, i: usize, j: usize) -> VecN<D> {
        let positions = self.grid.positions();
        space::minimum_image(positions[i] - positions[j], self.wrap)
    }

    /// Unit heading of boid `i` (zero at rest).
    #[inline]
    pub fn heading(&self, i: usize) -> VecN<D> {
        self.headings[i]
    }

    /// Whether boid `i` sees boid `j` at offset `d = p_i - p_j`.
    #[inline]
    pub fn sees(&self, i: usize, d: VecN<D>) -> bool {
        self.view.sees(self.headings[i], d)
    }

    /// Every boid `j != i` in view with squared distance below `below`, ascending ids.
    pub fn within(&self, i: usize, below: f32) -> Vec<u32> {
        self.within_counting(i, below, &mut ScanCounts::default())
    }

    /// [`Neighborhood::within`], adding the cells it visits and the candidates it tests to
    /// `counts`.
    pub fn within_counting(&self, i: usize, below: f32, counts: &mut ScanCounts) -> Vec<u32> {
        self.nearest_and_within_counting(i, 0, below, counts).1
    }

    /// The `k` boids `j != i` in view nearest to `i` (ties to the lower id), ascending ids.
    /// Fewer when fewer are in view.
    pub fn nearest(&self, i: usize, k: usize) -> Vec<u32> {
        self.nearest_counting(i, k, &mut ScanCounts::default())
    }

    /// [`Neighborhood::nearest`], adding the cells it visits and the candidates it tests to
    /// `counts`.
    pub fn nearest_counting(&self, i: usize, k: usize, counts: &mut ScanCounts) -> Vec<u32> {
        if k == 0 {
            return Vec::new();
        }
        self.nearest_and_within_counting(i, k, 0.0, counts).0
    }

    /// The `k` nearest in view ([`Neighborhood::nearest_counting`]) and every boid in view
    /// with squared distance below `below` ([`Neighborhood::within_counting`]), ascending ids,
    /// in one search: the rings the k nearest need and those the range needs, each cell once.
    pub fn nearest_and_within_counting(
        &self,
        i: usize,
        k: usize,
        below: f32,
        counts: &mut ScanCounts,
    ) -> (Vec<u32>, Vec<u32>) {
        let mut best: Vec<(f32, u32)> = Vec::with_capacity(k + 1);
        // No candidate farther than this can enter the k nearest: none with k = 0, any until k
        // are found, then none farther than the k-th nearest.
        let mut farthest = if k == 0 {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        };
        let mut within = Vec::new();
        // Other boids met so far.
        let mut seen = 0;
        let width = self.grid.geometry().min_cell_width();
        let reach = (f64::from(below).sqrt() / width).ceil();
        let rings = self.grid.rings_around(self.grid.positions()[i]);
        let last = rings.last();
        let range_rings = if reach.is_finite() {
            (reach as u32).min(last)
        } else {
            last
        };
        for ring in 0..=last {
            self.for_each_in_ring(i, &rings, ring, counts, |j, d| {
                let d2 = d.length_squared();
                if d2 < below && self.sees(i, d) {
                    within.push(j);
                }
                seen += 1;
                // Most candidates are farther than the k-th nearest so far: one comparison
                // rules them out before the exact order (distance, then id) is asked. A
                // distance that is not a number is farther than every other.
                if d2 > farthest || d2.is_nan() {
                    return;
                }
                let candidate = (d2, j);
                if (best.len() == k && !closer(candidate, best[k - 1])) || !self.sees(i, d) {
                    return;
                }
                if best.len() == k {
                    best.pop();
                }
                // Inserted from the far end: k is small, and the list stays sorted.
                let mut at = best.len();
                while at > 0 && closer(candidate, best[at - 1]) {
                    at -= 1;
                }
                best.insert(at, candidate);
                if best.len() == k {
                    farthest = best[k - 1].0;
                }
            });
            // Done when no cell farther out could hold a nearer boid, or when there is no
            // other boid left to find (which ends the walk where distances are not numbers).
            let searched_all = seen + 1 >= self.grid.positions().len();
            if (rings.done(ring, farthest) && ring >= range_rings) || searched_all {
                break;
            }
        }
        let mut ids: Vec<u32> = best.into_iter().map(|(_, j)| j).collect();
        ids.sort_unstable();
        within.sort_unstable();
        (ids, within)
    }

    /// Calls `f(j, p_i - p_j)` for every boid `j != i` in the cells of ring `ring` around boid
    /// `i`'s cell, counting those cells and calls into `counts`.
    fn for_each_in_ring(
        &self,
        i: usize,
        rings: &Rings<D>,
        ring: u32,
        counts: &mut ScanCounts,
        mut f: impl FnMut(u32, VecN<D>),
    ) {
        rings.for_each_cell(ring, |cell| {
            counts.cells += 1;
            for &j in self.grid.boids_in(cell) {
                if j as usize != i {
                    counts.candidates += 1;
                    f(j, self.offset(i, j as usize));
                }
            }
        });
    }
}

/// The grid of a k-nearest search (`topological_k = k > 0`) over `positions`: cubic cells
/// `columns` columns across about `scale` of a cube holding k boids at the density of the part of the box the
/// flock fills (`DENSITY_REFINEMENTS`), no narrower than the protected range, which stays
/// metric. The step's walk (`nearest.rs`) and [`Neighborhood`] share it; `held` is room for
/// the sizing's marks, which the step reuses from step to step.
pub(crate) fn nearest_geometry<const D: usize>(
    params: &Params,
    positions: &[VecN<D>],
    (scale, columns): (f64, u32),
    held: &mut Vec<bool>,
) -> GridGeometry<D>
where
    Dim<D>: Dimension<D>,
{
    let n = positions.len();
    let max_cells = (K_NEAREST_CELLS_PER_BOID * n)
        .min(K_NEAREST_MAX_CELLS)
        .max(2 * n + 64);
    let (_, size) = params.world_axes::<D>();
    // The side of a cell holding about k boids at the flock's mean density over `volume`,
    // scaled.
    let cell_width = |volume: f64| {
        let per_k = volume * params.topological_k as f64 / n.max(1) as f64;
        let typical = if D == 2 { per_k.sqrt() } else { per_k.cbrt() } * scale;
        let floor = 1e-6 * size.iter().sum::<f64>();
        typical.max(params.protected_range).max(floor)
    };
    let grid = |width: f64| grid_over(params, positions, width, columns, max_cells);
    let mut geometry = grid(cell_width(if params.is_torus() {
        size.iter().product()
    } else {
        let (low, high) = bounding_box(positions);
        (0..D).map(|a| high[a] - low[a]).product()
    }));
    // Stragglers far from the flock (or a small flock on a large torus) make the mean density
    // over the box far lower than the density most boids fly at, and cells sized by it would
    // each hold much of the flock. Sized again by the volume of the cells that hold boids,
    // twice, they come near k boids each where the boids are.
    for _ in 0..DENSITY_REFINEMENTS {
        geometry = grid(cell_width(occupied_volume(&geometry, positions, held)));
    }
    geometry
}

/// A grid of cells `width` deep and `width / columns` wide over the world (a torus) or the
/// flock's bounding box.
fn grid_over<const D: usize>(
    params: &Params,
    positions: &[VecN<D>],
    width: f64,
    columns: u32,
    max_cells: usize,
) -> GridGeometry<D>
where
    Dim<D>: Dimension<D>,
{
    if params.is_torus() {
        let (min, size) = params.world_axes::<D>();
        GridGeometry::torus(min, size, width, columns, max_cells)
    } else {
        GridGeometry::bounding(positions, width, columns, max_cells)
    }
}

/// The volume of the cells of `geometry` that hold a boid of `positions`: the part of the
/// grid's box the flock fills (`held` marks the cells that do).
fn occupied_volume<const D: usize>(
    geometry: &GridGeometry<D>,
    positions: &[VecN<D>],
    held: &mut Vec<bool>,
) -> f64
where
    Dim<D>: Dimension<D>,
{
    held.clear();
    held.resize(geometry.cell_count(), false);
    for &p in positions {
        held[geometry.cell_of(p) as usize] = true;
    }
    held.iter().filter(|&&h| h).count() as f64 * geometry.cell_volume()
}

/// Orders candidates by squared distance, then id.
#[inline]
fn closer(a: (f32, u32), b: (f32, u32)) -> bool {
    a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
}

#[cfg(test)]
mod tests {
    use glam::{Vec2, Vec3};

    use super::*;
    use crate::reference;
    use crate::rng::{self, Purpose};

    /// A random flock of `n` in `D` dimensions under `params`, drawn from keyed streams; a few
    /// boids sit on the torus seams, edges and corners, one in five is at rest, and two pairs
    /// share a position.
    fn random_flock<const D: usize>(
        params: &Params,
        n: usize,
        seed: u64,
    ) -> (Vec<VecN<D>>, Vec<VecN<D>>)
    where
        Dim<D>: Dimension<D>,
    {
        let (min, size) = params.world_box::<D>();
        let top = |a: usize| (min[a] + size[a]).next_down();
        let mut positions = Vec::new();
        let mut velocities = Vec::new();
        for id in 0..n {
            let mut s = rng::stream(seed, Purpose::Init, 0, id as u64);
            let mut p: [f32; D] = std::array::from_fn(|a| min[a] + size[a] * s.unit() as f32);
            match id % 17 {
                0 => p[0] = min[0],
                1 => p[0] = top(0),
                2 => p[1] = min[1],
                3 => p = min,
                4 => p[D - 1] = top(D - 1),
                5 => (p[0], p[D - 1]) = (top(0), min[D - 1]),
                _ => {}
            }
            positions.push(p.into());
            let v: [f32; D] = std::array::from_fn(|_| 2.0 * s.unit() as f32 - 1.0);
            velocities.push(VecN::<D>::from(v) * (id % 5) as f32);
        }
        positions[n - 1] = positions[n - 2];
        positions[7] = positions[8];
        (positions, velocities)
    }

    fn params(dimensions: usize, edit: impl FnOnce(&mut Params)) -> Params {
        let mut p = Params::preset("vicsek").unwrap();
        p.dimensions = dimensions;
        edit(&mut p);
        p
    }

    fn metric_neighbours_match_brute_force<const D: usize>()
    where
        Dim<D>: Dimension<D>,
    {
        for (blind, torus, seed) in [
            (0.0, true, 1),
            (1.5, true, 2),
            (std::f64::consts::PI, false, 3),
            (5.0, true, 4),
        ] {
            let p = params(D, |p| {
                p.blind_angle = blind;
                p.world_width = 12.0;
                p.world_height = 7.0;
                p.world_depth = 5.0;
                if !torus {
                    p.boundary = crate::params::Boundary::Margins;
                }
            });
            let (pos, vel) = random_flock::<D>(&p, 300, seed);
            let hood = Neighborhood::new(&p, &pos, &vel);
            for below in [1.0f32, 0.3, 2.7 * 2.7] {
                let brute = reference::neighbors_in_view(&p, &pos, &vel, below);
                for (i, want) in brute.iter().enumerate() {
                    assert_eq!(
                        &hood.within(i, below),
                        want,
                        "{D}D boid {i}, below {below}, blind {blind}"
                    );
                }
            }
        }
    }

    #[test]
    fn metric_neighbours_in_view_match_brute_force_across_seams() {
        metric_neighbours_match_brute_force::<2>();
        metric_neighbours_match_brute_force::<3>();
    }

    fn k_nearest_match_brute_force<const D: usize>()
    where
        Dim<D>: Dimension<D>,
    {
        for (k, blind, torus, n) in [
            (1, 0.0, true, 200),
            (7, 0.0, true, 400),
            (7, 1.2, true, 400),
            (6, 2.0, false, 300),
            (25, 0.5, true, 60),
            (80, 0.0, true, 50),
        ] {
            let p = params(D, |p| {
                p.topological_k = k;
                p.blind_angle = blind;
                p.protected_range = 0.2;
                p.world_width = 10.0;
                p.world_height = 6.0;
                p.world_depth = 4.0;
                if !torus {
                    p.boundary = crate::params::Boundary::Margins;
                }
            });
            let (pos, vel) = random_flock::<D>(&p, n, k + n as u64);
            let hood = Neighborhood::new(&p, &pos, &vel);
            let brute = reference::nearest_in_view(&p, &pos, &vel, k as usize);
            let mut across_seams = 0;
            for (i, want) in brute.iter().enumerate() {
                let got = hood.nearest(i, k as usize);
                assert_eq!(&got, want, "{D}D boid {i}, k {k}");
                assert!(got.len() <= k as usize);
                let seam = |&j: &u32| hood.offset(i, j as usize) != pos[i] - pos[j as usize];
                across_seams += got.iter().filter(|j| seam(j)).count();
            }
            assert_eq!(
                across_seams > 0,
                torus,
                "{D}D k {k}: neighbours across the seams"
            );
        }
    }

    /// A dense flock of 500 in a cube of side 4 and 20 stragglers over the rest of a world of
    /// side 12, in 3D: the k-nearest cells are sized to the flock, not to the box's mean density,
    /// so a search scans a few cells' worth of boids; and the neighbours are still exact, the k
    /// nearest alone and with those within a range in the same search.
    #[test]
    fn k_nearest_cells_fit_a_dense_flock_with_stragglers_and_stay_exact() {
        for torus in [false, true] {
            let p = params(3, |p| {
                p.topological_k = 7;
                p.protected_range = 0.1;
                (p.world_width, p.world_height, p.world_depth) = (12.0, 12.0, 12.0);
                if !torus {
                    p.boundary = crate::params::Boundary::Margins;
                }
            });
            let (mut pos, vel) = random_flock::<3>(&p, 520, 9);
            for q in &mut pos[..500] {
                *q = Vec3::splat(4.0) + (*q - Vec3::splat(4.0)) / 3.0;
            }
            let hood = Neighborhood::<3>::new(&p, &pos, &vel);
            let brute = reference::nearest_in_view(&p, &pos, &vel, 7);
            // Within 0.3 and nearest in one search, as the boids rules' separation asks.
            let below = 0.09;
            let near = reference::neighbors_in_view(&p, &pos, &vel, below);
            let mut counts = ScanCounts::default();
            for (i, want) in brute.iter().enumerate() {
                assert_eq!(&hood.nearest_counting(i, 7, &mut counts), want, "boid {i}");
                let both =
                    hood.nearest_and_within_counting(i, 7, below, &mut ScanCounts::default());
                assert_eq!((&both.0, &both.1), (want, &near[i]), "boid {i}");
            }
            let per_search = counts.candidates as f64 / pos.len() as f64;
            // 71 in the open world and 81 on the torus; cells sized by the box's mean density
            // alone make a search test about 500.
            assert!(per_search < 200.0, "{per_search} candidates a search");
        }
    }

    #[test]
    fn k_nearest_in_view_match_brute_force_across_seams() {
        k_nearest_match_brute_force::<2>();
        k_nearest_match_brute_force::<3>();
    }

    #[test]
    fn a_neighbour_straight_behind_is_hidden_by_any_blind_angle() {
        let fov = FieldOfView::new(0.1);
        let heading = Vec2::X;
        // d = p_i - p_j: a neighbour behind has d pointing forward.
        assert!(!fov.sees(heading, Vec2::new(1.0, 0.0)));
        assert!(fov.sees(heading, Vec2::new(-1.0, 0.0)));
        assert!(fov.sees(heading, Vec2::new(0.0, 1.0)));
        // 90 degrees of blindness: hidden within 45 degrees of straight behind.
        let fov = FieldOfView::new(std::f64::consts::FRAC_PI_2);
        assert!(!fov.sees(heading, Vec2::new(1.0, 0.9)));
        assert!(fov.sees(heading, Vec2::new(1.0, 1.1)));
        assert!(FieldOfView::new(0.0).sees(heading, Vec2::new(1.0, 0.0)));
        assert!(
            fov.sees(Vec2::ZERO, Vec2::new(1.0, 0.0)),
            "at rest: sees all"
        );
    }

    #[test]
    fn the_blind_region_in_3d_is_a_cone_behind_the_heading() {
        // 90 degrees of blindness: a cone of half-angle 45 degrees around -heading. A boid
        // heading +z; a neighbour behind it at polar angle t off -z (d = p_i - p_j points
        // along +z tilted by t), in any azimuth.
        let fov = FieldOfView::new(std::f64::consts::FRAC_PI_2);
        let heading = Vec3::Z;
        for azimuth in [0.0f32, 1.0, 2.5, 4.0, 5.5] {
            let (sin, cos) = azimuth.sin_cos();
            let behind = |tilt: f32| {
                let (s, c) = tilt.to_radians().sin_cos();
                Vec3::new(s * cos, s * sin, c)
            };
            assert!(!fov.sees(heading, behind(0.0)), "straight behind");
            assert!(
                !fov.sees(heading, behind(44.0)),
                "inside the cone, azimuth {azimuth}"
            );
            assert!(
                fov.sees(heading, behind(46.0)),
                "outside the cone, azimuth {azimuth}"
            );
            assert!(fov.sees(heading, behind(90.0)), "beside");
            assert!(fov.sees(heading, -behind(30.0)), "ahead");
        }
        assert!(fov.sees(Vec3::ZERO, Vec3::Z), "at rest: sees all");
        assert!(fov.sees(heading, Vec3::ZERO), "at the same point");
    }

    /// Positions that are not numbers (or infinite) end every search: the k nearest and the
    /// metric range find only boids at a number's distance, and the walk stops once every
    /// boid has been met, in an open world and on a torus, with k = 0 and k > 0.
    #[test]
    fn searches_among_positions_that_are_not_numbers_end_without_a_panic() {
        let mut positions: Vec<Vec2> = (0..40).map(|i| Vec2::new(i as f32 * 0.1, 0.5)).collect();
        positions[3] = Vec2::NAN;
        positions[7] = Vec2::new(f32::INFINITY, 1.0);
        positions[11] = Vec2::new(f32::NAN, f32::NEG_INFINITY);
        let velocities = vec![Vec2::X; positions.len()];
        for (torus, k) in [(true, 0), (true, 5), (false, 0), (false, 5)] {
            let p = params(2, |p| {
                p.world_width = 4.0;
                p.topological_k = k;
                if !torus {
                    p.boundary = crate::params::Boundary::Margins;
                }
            });
            let hood = Neighborhood::<2>::new(&p, &positions, &velocities);
            for i in 0..positions.len() {
                let (nearest, within) = hood.nearest_and_within_counting(
                    i,
                    k as usize,
                    0.05,
                    &mut ScanCounts::default(),
                );
                let odd = [3, 7, 11];
                assert!(nearest.iter().all(|j| !odd.contains(j)), "{i}: {nearest:?}");
                assert!(within.iter().all(|j| !odd.contains(j)), "{i}: {within:?}");
                if !odd.contains(&(i as u32)) && torus {
                    assert_eq!(nearest.len(), k as usize, "{i} finds its k nearest");
                }
            }
        }
    }
}
