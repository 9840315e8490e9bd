//! Order metrics of a flock, measured on any state.
//!
//! Sums run in boid-id order in `f64`, so a metric does not depend on storage order or thread
//! count. Undefined values are `NaN` (milling on a torus, where the centre of mass has no meaning;
//! a scout group's share when the group is empty; nearest-neighbour distance of a lone boid).

use crate::neighbors::Neighbors;
use crate::obstacles::ObstacleIndex;
use crate::par;
use crate::params::Params;
use crate::sim::Simulation;
use crate::space::minimum_image;
use crate::space::{Coordinates, Dim, Dimension, VecN};
use crate::state::FlockState;

/// Column names of [`Metrics::values`], as written to metrics files.
pub const METRIC_COLUMNS: [&str; 13] = [
    "polarization",
    "milling",
    "mean_speed",
    "mean_neighbors",
    "nearest_neighbor_distance",
    "flocks",
    "share_right_group0",
    "share_right_group1",
    "share_right_group2",
    "obstacle_penetrations",
    "captures",
    "predator_distance",
    "perched_fraction",
];

/// Order metrics of one flock state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Metrics {
    /// |mean unit heading|: 1 when all boids fly the same way, near 0 when headings are random.
    pub polarization: f64,
    /// |mean normalised angular momentum about the centre of mass| (in 3D the length of the
    /// mean of the vectors `(r_i - c) x v_i / (|r_i - c| |v_i|)`): 1 for a perfect mill. `NaN` on
    /// a torus.
    pub milling: f64,
    /// Mean speed.
    pub mean_speed: f64,
    /// Mean number of other boids within the visual range.
    pub mean_neighbors: f64,
    /// Mean distance to the nearest other boid.
    pub nearest_neighbor_distance: f64,
    /// Number of flocks: groups of boids connected by chains of boids within visual range of
    /// each other.
    pub flocks: usize,
    /// Per scout group (0 none, 1 toward +x, 2 toward -x), the share moving toward +x.
    pub share_right: [f64; 3],
    /// Boids inside an obstacle: always 0 (the step guarantees it; a test holds it to that).
    pub obstacle_penetrations: usize,
    /// Boids caught by predators in the step that led to this state (0 for a state measured
    /// on its own; [`Metrics::of`] fills it in). Rows taken every k steps sample the per-step
    /// rate.
    pub captures: u64,
    /// Mean distance from a boid to its nearest predator (minimum image on a torus); `NaN`
    /// without predators.
    pub predator_distance: f64,
    /// Share of boids resting on the ground (perching).
    pub perched_fraction: f64,
}

impl Metrics {
    /// Measures `state` (id order) under `params`.
    pub fn measure<const D: usize>(params: &Params, state: &FlockState<D>) -> Self
    where
        Dim<D>: Dimension<D>,
    {
        Self::measure_with(&Neighbors::of_state(params, state), state)
    }

    /// Measures `state` (id order) with its neighbour search already built (a caller that asks
    /// the search more, like the viewer's camera focus, builds it once).
    pub fn measure_with<const D: usize>(neighbors: &Neighbors<D>, state: &FlockState<D>) -> Self
    where
        Dim<D>: Dimension<D>,
    {
        let (n, params) = (state.len(), neighbors.params());
        let per_boid = par::map_collect(n, |i| (neighbors.count(i), neighbors.nearest_distance(i)));
        let mean = |values: &mut dyn Iterator<Item = f64>| values.sum::<f64>() / n as f64;
        Self {
            polarization: polarization(&state.velocities),
            milling: if params.is_torus() {
                f64::NAN
            } else {
                milling(&state.positions, &state.velocities)
            },
            mean_speed: mean(&mut state.velocities.iter().map(|&v| speed(v))),
            mean_neighbors: mean(&mut per_boid.iter().map(|&(count, _)| count as f64)),
            nearest_neighbor_distance: if n < 2 {
                f64::NAN
            } else {
                mean(&mut per_boid.iter().map(|&(_, d)| f64::from(d)))
            },
            flocks: count_flocks(neighbors),
            share_right: share_right(state),
            obstacle_penetrations: penetrations(params, state),
            captures: 0,
            predator_distance: predator_distance(params, state),
            perched_fraction: state.resting.iter().filter(|&&r| r > 0).count() as f64 / n as f64,
        }
    }

    /// Measures a running simulation: its state, and the captures of its last step.
    pub fn of<const D: usize>(sim: &Simulation<D>) -> Self
    where
        Dim<D>: Dimension<D>,
    {
        Self {
            captures: sim.captures(),
            ..Self::measure(sim.params(), &sim.state())
        }
    }

    /// The metrics as numbers, in [`METRIC_COLUMNS`] order.
    pub fn values(&self) -> [f64; METRIC_COLUMNS.len()] {
        [
            self.polarization,
            self.milling,
            self.mean_speed,
            self.mean_neighbors,
            self.nearest_neighbor_distance,
            self.flocks as f64,
            self.share_right[0],
            self.share_right[1],
            self.share_right[2],
            self.obstacle_penetrations as f64,
            self.captures as f64,
            self.predator_distance,
            self.perched_fraction,
        ]
    }
}

/// A vector's coordinates in `f64`, where the metrics sum.
fn wide<const D: usize>(v: impl Coordinates<D>) -> [f64; D] {
    v.to_array().map(f64::from)
}

/// Euclidean length, the squares added from the first axis on (as glam does).
fn length<const D: usize>(v: [f64; D]) -> f64 {
    v.iter().fold(0.0, |sum, c| sum + c * c).sqrt()
}

/// `v` scaled to length 1, or zero where it has no direction (glam's `normalize_or_zero`).
fn normalize_or_zero<const D: usize>(v: [f64; D]) -> [f64; D] {
    let inverse = 1.0 / length(v);
    match inverse.is_finite() && inverse > 0.0 {
        true => v.map(|c| c * inverse),
        false => [0.0; D],
    }
}

/// The cross product `r x v` with z = 0 in 2D (there only its z component is not zero).
fn cross<const D: usize>(r: [f64; D], v: [f64; D]) -> [f64; 3] {
    let [r, v] = [r, v].map(|w| std::array::from_fn(|a| w.get(a).copied().unwrap_or(0.0)));
    let [rx, ry, rz]: [f64; 3] = r;
    let [vx, vy, vz]: [f64; 3] = v;
    [ry * vz - rz * vy, rz * vx - rx * vz, rx * vy - ry * vx]
}

/// The length of `v` in double precision: a finite velocity's length in `f32` overflows to
/// infinity from about 1.8e19 (its square does), where the flock is still finite.
fn speed<const D: usize, P: Coordinates<D>>(v: P) -> f64 {
    let squares: f64 = v.to_array().iter().map(|&c| f64::from(c).powi(2)).sum();
    squares.sqrt()
}

/// Mean distance from a boid to its nearest predator, `NaN` without predators.
fn predator_distance<const D: usize>(params: &Params, state: &FlockState<D>) -> f64
where
    Dim<D>: Dimension<D>,
{
    if state.predators.is_empty() {
        return f64::NAN;
    }
    let wrap: VecN<D> = params.periods::<D>().into();
    let nearest = par::map_collect(state.len(), |i| {
        let p = state.positions[i];
        state
            .predators
            .iter()
            .map(|q| minimum_image(p - q.position, wrap).length())
            .fold(f32::INFINITY, f32::min)
    });
    nearest.iter().map(|&d| f64::from(d)).sum::<f64>() / state.len() as f64
}

/// Boids inside an obstacle of `params`.
fn penetrations<const D: usize>(params: &Params, state: &FlockState<D>) -> usize
where
    Dim<D>: Dimension<D>,
{
    if params.obstacles.is_empty() {
        return 0;
    }
    let obstacles = ObstacleIndex::<D>::of(params);
    state
        .positions
        .iter()
        .filter(|&&p| obstacles.contains(p))
        .count()
}

/// `|mean unit heading|` of `velocities`: Couzin et al.'s (2002) group polarization
/// `p_group = |sum v_i| / N` over unit headings `v_i`, and Vicsek's `v_a` when every speed is
/// `v0`. A boid at rest adds nothing.
pub fn polarization<const D: usize>(velocities: &[VecN<D>]) -> f64
where
    Dim<D>: Dimension<D>,
{
    let unit_sum = velocities.iter().fold([0.0; D], |mut sum, &v| {
        let unit = normalize_or_zero(wide(v));
        for a in 0..D {
            sum[a] += unit[a];
        }
        sum
    });
    length(unit_sum) / velocities.len() as f64
}

/// The length of the mean normalised angular momentum about the centre of mass: Couzin et
/// al.'s (2002) group angular momentum `m_group = |sum r_ic x v_i| / N`, with `r_ic` the unit
/// vector from the group's centroid to boid `i` and `v_i` its unit heading.
pub fn milling<const D: usize>(positions: &[VecN<D>], velocities: &[VecN<D>]) -> f64
where
    Dim<D>: Dimension<D>,
{
    let n = positions.len() as f64;
    let mut centre = positions.iter().fold([0.0; D], |mut sum, &p| {
        let p = wide(p);
        for a in 0..D {
            sum[a] += p[a];
        }
        sum
    });
    for c in &mut centre {
        *c /= n;
    }
    let sum = positions
        .iter()
        .zip(velocities)
        .fold([0.0; 3], |mut sum, (&p, &v)| {
            let p = wide(p);
            let r: [f64; D] = std::array::from_fn(|a| p[a] - centre[a]);
            let v = wide(v);
            let norm = length(r) * length(v);
            if norm > 0.0 {
                let momentum = cross(r, v);
                for (s, m) in sum.iter_mut().zip(momentum) {
                    *s += m / norm;
                }
            }
            sum
        });
    length(sum.map(|s| s / n))
}

fn share_right<const D: usize>(state: &FlockState<D>) -> [f64; 3]
where
    Dim<D>: Dimension<D>,
{
    let mut moving_right = [0usize; 3];
    let mut members = [0usize; 3];
    for (v, &g) in state.velocities.iter().zip(&state.groups) {
        members[g as usize] += 1;
        moving_right[g as usize] += usize::from(v.to_array()[0] > 0.0);
    }
    std::array::from_fn(|g| {
        if members[g] == 0 {
            f64::NAN
        } else {
            moving_right[g] as f64 / members[g] as f64
        }
    })
}

/// Flocks: connected components of the "within visual range" graph.
fn count_flocks<const D: usize>(neighbors: &Neighbors<D>) -> usize
where
    Dim<D>: Dimension<D>,
{
    let flocks = flock_of_each(neighbors);
    flocks
        .iter()
        .enumerate()
        .filter(|&(i, &root)| root as usize == i)
        .count()
}

/// The flock of each boid of `neighbors`, named by its lowest index: boids linked by chains of
/// boids within visual range of each other share one. What [`Metrics::flocks`] counts and
/// [`crate::camera`] follows.
pub fn flock_of_each<const D: usize>(neighbors: &Neighbors<D>) -> Vec<u32>
where
    Dim<D>: Dimension<D>,
{
    component_roots(neighbors.len(), |i, link| {
        neighbors.for_each_neighbor(i, |j, _| {
            if j > i {
                link(j);
            }
        });
    })
}

/// The sizes of the connected components of a graph on nodes `0..n` (see [`component_roots`]),
/// in the order of their lowest nodes.
pub fn component_sizes(n: usize, links: impl FnMut(usize, &mut dyn FnMut(usize))) -> Vec<usize> {
    let mut sizes = vec![0usize; n];
    for root in component_roots(n, links) {
        sizes[root as usize] += 1;
    }
    sizes.retain(|&size| size > 0);
    sizes
}

/// The component of each node of a graph on nodes `0..n`, named by its lowest node, by
/// union-find (path halving, the smaller root kept, so a root is its component's lowest node).
/// `links(i, link)` calls `link(j)` for neighbours `j` of `i`; an edge reported from either
/// end, or from both, is enough. The one union-find of the crate: [`Metrics::flocks`] counts
/// the components, the camera follows the largest ([`crate::camera`]), the experiments' largest
/// group (boids-lab's `experiments::largest_share`) takes its size. Public for that crate.
pub fn component_roots(n: usize, mut links: impl FnMut(usize, &mut dyn FnMut(usize))) -> Vec<u32> {
    fn root(parent: &mut [u32], mut i: u32) -> u32 {
        while parent[i as usize] != i {
            parent[i as usize] = parent[parent[i as usize] as usize];
            i = parent[i as usize];
        }
        i
    }
    let mut parent: Vec<u32> = (0..n as u32).collect();
    for i in 0..n {
        links(i, &mut |j| {
            let (a, b) = (root(&mut parent, i as u32), root(&mut parent, j as u32));
            if a != b {
                parent[a.max(b) as usize] = a.min(b);
            }
        });
    }
    (0..n as u32).map(|i| root(&mut parent, i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::group;
    use glam::Vec2;

    fn state(points: &[(f32, f32, f32, f32)]) -> FlockState {
        FlockState {
            positions: points.iter().map(|p| Vec2::new(p.0, p.1)).collect(),
            velocities: points.iter().map(|p| Vec2::new(p.2, p.3)).collect(),
            groups: vec![group::NONE; points.len()],
            biases: vec![0.0; points.len()],
            ..FlockState::default()
        }
    }

    #[test]
    fn the_speed_of_a_fast_but_finite_flock_is_finite() {
        // 3e20 and 4e20: their squares overflow f32, where the speed once came out infinite.
        let params = Params::preset("cornell").unwrap();
        let m = Metrics::measure(&params, &state(&[(100.0, 100.0, 3e20, 4e20)]));
        assert!((m.mean_speed / 5e20 - 1.0).abs() < 1e-6, "{}", m.mean_speed);
    }

    #[test]
    fn aligned_flock_is_polarized_and_opposed_pairs_are_not() {
        let params = Params::preset("cornell").unwrap();
        let m = Metrics::measure(
            &params,
            &state(&[(100.0, 100.0, 3.0, 0.0), (110.0, 100.0, 5.0, 0.0)]),
        );
        assert!((m.polarization - 1.0).abs() < 1e-12);
        assert!((m.mean_speed - 4.0).abs() < 1e-12);
        assert_eq!(m.mean_neighbors, 1.0);
        assert!((m.nearest_neighbor_distance - 10.0).abs() < 1e-6);
        assert_eq!(m.flocks, 1);
        assert_eq!(m.share_right[0], 1.0);
        let m = Metrics::measure(
            &params,
            &state(&[(100.0, 100.0, 3.0, 0.0), (300.0, 100.0, -3.0, 0.0)]),
        );
        assert!(m.polarization < 1e-12);
        assert_eq!(m.flocks, 2);
        assert_eq!(m.mean_neighbors, 0.0);
        assert!((m.nearest_neighbor_distance - 200.0).abs() < 1e-4);
    }

    #[test]
    fn a_ring_circling_its_centre_mills() {
        let params = Params::preset("cornell").unwrap();
        let points: Vec<_> = (0..12)
            .map(|k| {
                let a = k as f32 * std::f32::consts::TAU / 12.0;
                (
                    320.0 + 50.0 * a.cos(),
                    240.0 + 50.0 * a.sin(),
                    -a.sin(),
                    a.cos(),
                )
            })
            .collect();
        let m = Metrics::measure(&params, &state(&points));
        assert!((m.milling - 1.0).abs() < 1e-6, "{}", m.milling);
        assert!(m.polarization < 1e-6);
    }

    #[test]
    fn flocks_and_neighbors_see_across_the_torus_seam() {
        let params = Params::preset("functional").unwrap();
        // (-7.9, 0) and (7.9, 0) are 0.2 apart across the seam at x = +-8.
        let m = Metrics::measure(
            &params,
            &state(&[
                (-7.9, 0.0, 0.01, 0.0),
                (7.9, 0.0, 0.01, 0.0),
                (0.0, 0.0, 0.01, 0.0),
            ]),
        );
        assert_eq!(m.flocks, 2);
        assert!((m.mean_neighbors - 2.0 / 3.0).abs() < 1e-12);
        assert!(m.milling.is_nan());
    }

    #[test]
    fn scout_shares_per_group() {
        let params = Params::preset("cornell").unwrap();
        let mut s = state(&[
            (0.0, 0.0, 1.0, 0.0),
            (50.0, 0.0, -1.0, 0.0),
            (99.0, 0.0, 1.0, 0.0),
        ]);
        s.groups = vec![group::RIGHT, group::RIGHT, group::NONE];
        let m = Metrics::measure(&params, &s);
        assert_eq!(m.share_right[1], 0.5);
        assert_eq!(m.share_right[0], 1.0);
        assert!(m.share_right[2].is_nan());
    }

    fn state_3d(points: &[([f32; 3], [f32; 3])]) -> FlockState<3> {
        FlockState {
            positions: points.iter().map(|p| p.0.into()).collect(),
            velocities: points.iter().map(|p| p.1.into()).collect(),
            groups: vec![group::NONE; points.len()],
            biases: vec![0.0; points.len()],
            ..FlockState::default()
        }
    }

    #[test]
    fn in_3d_a_tilted_ring_mills_and_an_aligned_flock_is_polarized() {
        let mut params = Params::preset("cornell").unwrap();
        params.dimensions = 3;
        // A ring in the plane through the centre spanned by (1, 0, 0) and (0, 0.6, 0.8),
        // each boid moving along it: the angular momentum is the same unit vector for all.
        let (u, w) = (glam::Vec3::X, glam::Vec3::new(0.0, 0.6, 0.8));
        let centre = glam::Vec3::new(320.0, 240.0, 240.0);
        let ring: Vec<_> = (0..12)
            .map(|k| {
                let a = k as f32 * std::f32::consts::TAU / 12.0;
                let p = centre + 50.0 * (a.cos() * u + a.sin() * w);
                let v = -a.sin() * u + a.cos() * w;
                (p.to_array(), v.to_array())
            })
            .collect();
        let m = Metrics::measure(&params, &state_3d(&ring));
        assert!((m.milling - 1.0).abs() < 1e-6, "{}", m.milling);
        assert!(m.polarization < 1e-6);
        let aligned = [
            ([100.0, 100.0, 100.0], [0.0, 0.0, 3.0]),
            ([100.0, 100.0, 130.0], [0.0, 0.0, 5.0]),
        ];
        let m = Metrics::measure(&params, &state_3d(&aligned));
        assert!((m.polarization - 1.0).abs() < 1e-12);
        assert!((m.mean_speed - 4.0).abs() < 1e-12);
        assert!((m.nearest_neighbor_distance - 30.0).abs() < 1e-5);
        assert_eq!((m.flocks, m.mean_neighbors), (1, 1.0));
    }

    #[test]
    fn in_3d_flocks_see_across_a_corner_of_the_torus() {
        let mut params = Params::preset("functional").unwrap();
        params.dimensions = 3;
        // (-7.9, -7.9, -7.9) and (7.9, 7.9, 7.9) are 0.35 apart across the corner at +-8.
        let m = Metrics::measure(
            &params,
            &state_3d(&[
                ([-7.9, -7.9, -7.9], [0.01, 0.0, 0.0]),
                ([7.9, 7.9, 7.9], [0.01, 0.0, 0.0]),
                ([0.0, 0.0, 0.0], [0.01, 0.0, 0.0]),
            ]),
        );
        assert_eq!(m.flocks, 2);
        assert!((m.mean_neighbors - 2.0 / 3.0).abs() < 1e-12);
        assert!(
            (m.nearest_neighbor_distance - (0.2f64 * 3f64.sqrt() * 2.0 + 7.9 * 3f64.sqrt()) / 3.0)
                .abs()
                < 1e-3
        );
    }

    #[test]
    fn in_3d_world_metrics_measure_predators_spheres_and_rest() {
        use crate::obstacles::{Obstacle, Shape};
        use crate::world::Predator;
        use glam::Vec3;
        let mut params = Params::preset("functional").unwrap();
        params.dimensions = 3;
        params.perch = true;
        params.perch_height = 1.0;
        params.obstacles = vec![Obstacle::Space(Shape::Ball {
            center: Vec3::new(0.0, 0.0, 7.5),
            radius: 1.0,
        })];
        let mut state = state_3d(&[
            ([0.0, 0.0, 0.0], [0.01, 0.0, 0.0]),
            ([0.0, 0.0, 3.0], [0.01, 0.0, 0.0]),
            // Inside the sphere's copy across the z seam at +-8: (0, 0, -8.5).
            ([0.0, 0.0, -7.8], [0.01, 0.0, 0.0]),
            ([0.0, 0.0, 7.0], [0.01, 0.0, 0.0]),
        ]);
        // Nearest predators: 2 away, 1 away, 0.7 across the z seam, 0.5.
        state.predators = vec![
            Predator {
                position: Vec3::new(0.0, 0.0, 2.0),
                velocity: Vec3::ZERO,
            },
            Predator {
                position: Vec3::new(0.0, 0.0, 7.5),
                velocity: Vec3::ZERO,
            },
        ];
        state.resting = vec![0, 4, 0, 1];
        let m = Metrics::measure(&params, &state);
        assert!(
            (m.predator_distance - (2.0 + 1.0 + 0.7 + 0.5) / 4.0).abs() < 1e-5,
            "{}",
            m.predator_distance
        );
        // The boid at z = 7.0 is inside the sphere (0.5 from its centre), the one at -7.8
        // inside its copy across the seam.
        assert_eq!(m.obstacle_penetrations, 2);
        assert_eq!(m.perched_fraction, 0.5);
        assert_eq!(m.captures, 0);
    }
}
