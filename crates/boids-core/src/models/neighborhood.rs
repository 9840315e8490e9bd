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
//! On a torus each distinct cell is visited once: ring offsets are limited, per axis, to a
//! window of as many offsets as there are cells, and distances are minimum images taken per
//! pair. Results are lists of ids in ascending order, the canonical order every model sums in.
//!
//! **Field of view.** A boid sees a neighbour unless the neighbour lies in the blind sector of
//! width `blind_angle` centred straight behind it: seen when the angle between its heading and
//! the direction to the neighbour is at most `pi - blind_angle / 2`. A boid at rest (no heading)
//! and a neighbour at the same point are always seen.

use glam::Vec2;

use crate::grid::{CellIndex, GridGeometry};
use crate::params::Params;
use crate::rules;
use crate::stats::ScanCounts;

/// Slack on the ring-search stopping bound, far above `f32` rounding of squared distances.
const BOUND_SLACK: f64 = 1.0 + 1e-5;

/// Which neighbours a boid sees: the blind sector behind it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldOfView {
    /// `-cos(blind_angle / 2)`: a neighbour in direction `e` from a boid heading `h` is seen when
    /// `h . e >= limit * |e|`.
    limit: f32,
    blind: bool,
}

impl FieldOfView {
    /// The field of view with a blind sector `blind_angle` radians wide.
    pub fn new(blind_angle: f64) -> Self {
        Self {
            limit: -((blind_angle / 2.0).cos() as f32),
            blind: blind_angle > 0.0,
        }
    }

    /// Whether a boid with unit heading `heading` (zero at rest) sees a neighbour at offset
    /// `d = p_i - p_j`.
    #[inline]
    pub fn sees(&self, heading: Vec2, d: Vec2) -> bool {
        if !self.blind || heading == Vec2::ZERO || d == Vec2::ZERO {
            return true;
        }
        let toward = -d;
        heading.dot(toward) >= self.limit * toward.length()
    }
}

/// An indexed flock (id order) answering metric and k-nearest queries in the field of view.
pub struct Neighborhood<'a> {
    geometry: GridGeometry<2>,
    index: CellIndex,
    positions: &'a [Vec2],
    headings: Vec<Vec2>,
    wrap: Vec2,
    view: FieldOfView,
}

impl<'a> Neighborhood<'a> {
    /// Indexes a flock in id order under `params`: cells as wide as the visual range for
    /// metric neighbourhoods; for `topological_k = k` about two cells per k-nearest radius
    /// (and no narrower than the protected range, which stays metric).
    pub fn new(params: &Params, positions: &'a [Vec2], velocities: &[Vec2]) -> Self {
        let n = positions.len();
        let ids: Vec<u32> = (0..n as u32).collect();
        let max_cells = 2 * n + 64;
        let cell_width = |area: f64| {
            if params.topological_k == 0 {
                return params.visual_range;
            }
            let typical = (area * params.topological_k as f64 / n.max(1) as f64).sqrt() / 2.0;
            let floor = 1e-6 * (params.world_width + params.world_height);
            typical.max(params.protected_range).max(floor)
        };
        let geometry = if params.is_torus() {
            let size = [params.world_width, params.world_height];
            GridGeometry::torus(
                [params.world_x_min, params.world_y_min],
                size,
                cell_width(size[0] * size[1]),
                1,
                max_cells,
            )
        } else {
            let (low, high) = positions.iter().fold(
                (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
                |(lo, hi), p| (lo.min(*p), hi.max(*p)),
            );
            let extent = (high - low).as_dvec2();
            GridGeometry::bounding(positions, cell_width(extent.x * extent.y), 1, max_cells)
        };
        let mut index = CellIndex::default();
        index.rebuild(&geometry, positions, &ids);
        Self {
            wrap: geometry.torus_size().map_or(Vec2::ZERO, Vec2::from),
            geometry,
            index,
            positions,
            headings: velocities.iter().map(|v| v.normalize_or_zero()).collect(),
            view: FieldOfView::new(params.blind_angle),
        }
    }

    /// Minimum-image offset `p_i - p_j`.
    #[inline]
    pub fn offset(&self, i: usize, j: usize) -> Vec2 {
        rules::minimum_image(self.positions[i] - self.positions[j], self.wrap)
    }

    /// Unit heading of boid `i` (zero at rest).
    #[inline]
    pub fn heading(&self, i: usize) -> Vec2 {
        self.headings[i]
    }

    /// Whether boid `i` sees boid `j` at offset `d = p_i - p_j`.
    #[inline]
    pub fn sees(&self, i: usize, d: Vec2) -> bool {
        self.view.sees(self.headings[i], d)
    }

    /// Every boid `j != i` in view with squared distance below `below`, ascending ids.
    pub fn within(&self, i: usize, below: f32) -> Vec<u32> {
        self.within_counting(i, below, &mut ScanCounts::default())
    }

    /// [`Neighborhood::within`], adding the cells it visits and the candidates it tests to
    /// `counts`.
    pub fn within_counting(&self, i: usize, below: f32, counts: &mut ScanCounts) -> Vec<u32> {
        let mut found = Vec::new();
        let width = self.geometry.min_cell_width();
        let reach = (f64::from(below).sqrt() / width).ceil();
        let rings = if reach.is_finite() {
            (reach as u32).min(self.max_ring(i))
        } else {
            self.max_ring(i)
        };
        for ring in 0..=rings {
            self.for_each_in_ring(i, ring, counts, |j, d| {
                if d.length_squared() < below && self.sees(i, d) {
                    found.push(j);
                }
            });
        }
        found.sort_unstable();
        found
    }

    /// The `k` boids `j != i` in view nearest to `i` (ties to the lower id), ascending ids.
    /// Fewer when fewer are in view.
    pub fn nearest(&self, i: usize, k: usize) -> Vec<u32> {
        self.nearest_counting(i, k, &mut ScanCounts::default())
    }

    /// [`Neighborhood::nearest`], adding the cells it visits and the candidates it tests to
    /// `counts`.
    pub fn nearest_counting(&self, i: usize, k: usize, counts: &mut ScanCounts) -> Vec<u32> {
        let mut best: Vec<(f32, u32)> = Vec::with_capacity(k + 1);
        if k == 0 {
            return Vec::new();
        }
        let width = self.geometry.min_cell_width();
        for ring in 0..=self.max_ring(i) {
            self.for_each_in_ring(i, ring, counts, |j, d| {
                let candidate = (d.length_squared(), j);
                let full = best.len() == k;
                if (full && !closer(candidate, best[k - 1])) || !self.sees(i, d) {
                    return;
                }
                let at = best.partition_point(|&b| closer(b, candidate));
                best.insert(at, candidate);
                best.truncate(k);
            });
            let bound = f64::from(ring) * width;
            if best.len() == k && f64::from(best[k - 1].0) * BOUND_SLACK < bound * bound {
                break;
            }
        }
        let mut ids: Vec<u32> = best.into_iter().map(|(_, j)| j).collect();
        ids.sort_unstable();
        ids
    }

    /// Cell coordinates of boid `i`'s cell.
    fn home(&self, i: usize) -> [i64; 2] {
        let nx = self.geometry.dims()[0];
        let cell = self.geometry.cell_of(self.positions[i]);
        [i64::from(cell % nx), i64::from(cell / nx)]
    }

    /// The offsets along an axis of `n` cells that reach each distinct cell once: a centred
    /// window on a torus, the cells inside the grid in an open world.
    fn window(&self, home: i64, n: u32) -> (i64, i64) {
        let n = i64::from(n);
        if self.geometry.torus_size().is_some() {
            (-((n - 1) / 2), n / 2)
        } else {
            (-home, n - 1 - home)
        }
    }

    /// The last ring that holds a cell for boid `i`.
    fn max_ring(&self, i: usize) -> u32 {
        let home = self.home(i);
        let dims = self.geometry.dims();
        (0..2)
            .map(|a| {
                let (lo, hi) = self.window(home[a], dims[a]);
                lo.abs().max(hi) as u32
            })
            .max()
            .unwrap_or(0)
    }

    /// Calls `f(j, p_i - p_j)` for every boid `j != i` in the distinct cells at Chebyshev
    /// distance `ring` from boid `i`'s cell, counting those cells and calls into `counts`.
    fn for_each_in_ring(
        &self,
        i: usize,
        ring: u32,
        counts: &mut ScanCounts,
        mut f: impl FnMut(u32, Vec2),
    ) {
        let home = self.home(i);
        let [nx, ny] = self.geometry.dims();
        let (x_lo, x_hi) = self.window(home[0], nx);
        let (y_lo, y_hi) = self.window(home[1], ny);
        let r = i64::from(ring);
        for oy in (-r..=r).filter(|oy| (y_lo..=y_hi).contains(oy)) {
            let step = if oy.abs() == r { 1 } else { (2 * r).max(1) };
            for ox in (-r..=r)
                .step_by(step as usize)
                .filter(|ox| (x_lo..=x_hi).contains(ox))
            {
                let x = (home[0] + ox).rem_euclid(i64::from(nx)) as u32;
                let y = (home[1] + oy).rem_euclid(i64::from(ny)) as u32;
                counts.cells += 1;
                for &j in &self.index.order[self.index.span(x + nx * y)] {
                    if j as usize != i {
                        counts.candidates += 1;
                        f(j, self.offset(i, j as usize));
                    }
                }
            }
        }
    }
}

/// Orders candidates by squared distance, then id.
#[inline]
fn closer(a: (f32, u32), b: (f32, u32)) -> bool {
    a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference;
    use crate::rng::{self, Purpose};

    /// A random flock of `n` under `params`, drawn from keyed streams; a few boids sit on the
    /// torus seams and corners, and two pairs share a position.
    fn random_flock(params: &Params, n: usize, seed: u64) -> (Vec<Vec2>, Vec<Vec2>) {
        let (x0, y0) = (params.world_x_min as f32, params.world_y_min as f32);
        let (w, h) = (params.world_width as f32, params.world_height as f32);
        let mut positions = Vec::new();
        let mut velocities = Vec::new();
        for id in 0..n {
            let mut s = rng::stream(seed, Purpose::Init, 0, id as u64);
            let p = Vec2::new(x0 + w * s.unit() as f32, y0 + h * s.unit() as f32);
            positions.push(match id % 17 {
                0 => Vec2::new(x0, p.y),
                1 => Vec2::new((x0 + w).next_down(), p.y),
                2 => Vec2::new(p.x, y0),
                3 => Vec2::new(x0, y0),
                _ => p,
            });
            let a = std::f64::consts::TAU * s.unit();
            velocities.push(Vec2::new(a.cos() as f32, a.sin() as f32) * (id % 5) as f32);
        }
        positions[n - 1] = positions[n - 2];
        positions[5] = positions[6];
        (positions, velocities)
    }

    fn params(edit: impl FnOnce(&mut Params)) -> Params {
        let mut p = Params::preset("vicsek").unwrap();
        edit(&mut p);
        p
    }

    #[test]
    fn metric_neighbours_in_view_match_brute_force_across_seams() {
        for (blind, torus, seed) in [
            (0.0, true, 1),
            (1.5, true, 2),
            (std::f64::consts::PI, false, 3),
            (5.0, true, 4),
        ] {
            let p = params(|p| {
                p.blind_angle = blind;
                p.world_width = 12.0;
                p.world_height = 7.0;
                if !torus {
                    p.boundary = crate::params::Boundary::Margins;
                }
            });
            let (pos, vel) = random_flock(&p, 300, seed);
            let hood = Neighborhood::new(&p, &pos, &vel);
            for below in [1.0f32, 0.3, 2.7 * 2.7] {
                let brute = reference::neighbors_in_view(&p, &pos, &vel, below);
                for (i, want) in brute.iter().enumerate() {
                    assert_eq!(
                        &hood.within(i, below),
                        want,
                        "boid {i}, below {below}, blind {blind}"
                    );
                }
            }
        }
    }

    #[test]
    fn k_nearest_in_view_match_brute_force_across_seams() {
        for (k, blind, torus, n) in [
            (1, 0.0, true, 200),
            (7, 0.0, true, 400),
            (7, 1.2, true, 400),
            (6, 2.0, false, 300),
            (25, 0.5, true, 60),
            (80, 0.0, true, 50),
        ] {
            let p = params(|p| {
                p.topological_k = k;
                p.blind_angle = blind;
                p.protected_range = 0.2;
                p.world_width = 10.0;
                p.world_height = 6.0;
                if !torus {
                    p.boundary = crate::params::Boundary::Margins;
                }
            });
            let (pos, vel) = random_flock(&p, n, k + n as u64);
            let hood = Neighborhood::new(&p, &pos, &vel);
            let brute = reference::nearest_in_view(&p, &pos, &vel, k as usize);
            for (i, want) in brute.iter().enumerate() {
                let got = hood.nearest(i, k as usize);
                assert_eq!(&got, want, "boid {i}, k {k}");
                assert!(got.len() <= k as usize);
            }
        }
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
}
