//! Who sees whom, outside the step: every neighbour question that metrics, workloads, debug
//! overlays and the live viewer ask, answered in one place and exactly (the tests hold each
//! answer to a brute-force scan, across torus seams and at exactly the visual range).
//!
//! The step finds neighbours in its own scan, over boid data it has moved into cell order
//! ([`crate::interact`]); nothing else should scan a grid or test a range by hand, because each
//! copy is a chance to disagree with the step about a boid on a seam or exactly at the range.
//! Two layers:
//!
//! - [`NeighborSearch`] indexes positions in any order on the step's grid and lists a boid's
//!   *candidates*: every boid of the block of cells around it, in the order and with the
//!   minimum-image arithmetic of the step's scan, so sums over them are the step's sums, bit
//!   for bit. It knows cells, not ranges.
//! - [`Neighbors`] is one flock state indexed once, with the model's ranges (the simulation's
//!   own [`Kernel`], so the inclusive or exclusive range rule is the step's). A boid's
//!   *neighbours* are the other boids within its visual range; the boid itself counts only where
//!   the model says so, in its rule vectors (`include_self`). It answers: how many neighbours a
//!   boid has, where it sees them (minimum images: outside the world across a torus seam), which
//!   neighbours are seen across a seam (the "ghosts" of the debug view), the boid's weighted rule
//!   vectors, the distance to its nearest boid, and which boid is nearest a point.

use crate::grid::GridIndex;
use crate::par;
use crate::params::Params;
use crate::rules::{self, Kernel, RuleVectors, Sums};
use crate::sim::Simulation;
use crate::space::{self, Coordinates, Dim, Dimension, VecN};
use crate::state::FlockState;

/// An exact neighbour search over positions in any order. The hot loop of
/// [`Simulation::step`] does the same scan on the boids' data moved into cell order instead.
pub struct NeighborSearch<'a, const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    grid: GridIndex<'a, D, VecN<D>>,
}

impl<'a, const D: usize> NeighborSearch<'a, D>
where
    Dim<D>: Dimension<D>,
{
    /// Indexes `positions` (with their `ids`, for the canonical order) under `params`.
    pub fn new(params: &Params, positions: &'a [VecN<D>], ids: &[u32]) -> Self {
        let geometry = Simulation::geometry(params, positions);
        Self {
            grid: GridIndex::new(geometry, positions, ids),
        }
    }

    /// Calls `f(j, d)` for every boid `j` in the block of cells around boid `i` (itself
    /// included), with `d = p_i - p_j` as the minimum image, in the order and with the
    /// arithmetic of the step's scan ([`crate::interact`]). Every boid within the visual range
    /// is among them; the caller applies the range test.
    #[inline]
    pub fn for_each_candidate(&self, i: usize, mut f: impl FnMut(usize, VecN<D>)) {
        let (geometry, positions) = (self.grid.geometry(), self.grid.positions());
        let p = positions[i];
        let wrap = VecN::<D>::from(geometry.pairwise_wrap());
        for near in geometry.cells_near(geometry.cell_of(p)) {
            let shift = VecN::<D>::from(near.shift);
            for &j in self.grid.boids_in(near.cell) {
                let j = j as usize;
                f(j, space::minimum_image(p - positions[j] - shift, wrap));
            }
        }
    }

    /// Distance from boid `i` to its nearest other boid (minimum image on a torus), or infinity
    /// when it is alone.
    pub fn nearest_distance(&self, i: usize) -> f32 {
        self.nearest(self.grid.positions()[i], Some(i), f32::INFINITY)
            .map_or(f32::INFINITY, |(_, d2)| d2.sqrt())
    }

    /// The boid nearest the point `p` (inside the grid's world on a torus) other than `skip`,
    /// with its squared distance (minimum image), among those at most `limit2` away squared;
    /// of boids equally near, the lowest index. Searches rings of cells outward from `p`'s
    /// cell until no cell left could hold a boid as near.
    fn nearest(&self, p: VecN<D>, skip: Option<usize>, limit2: f32) -> Option<(usize, f32)> {
        let positions = self.grid.positions();
        let wrap = self
            .grid
            .geometry()
            .torus_size()
            .map_or(VecN::<D>::ZERO, From::from);
        let rings = self.grid.rings_around(p);
        let mut best: Option<(usize, f32)> = None;
        for ring in 0..=rings.last() {
            rings.for_each_cell(ring, |cell| {
                for &j in self.grid.boids_in(cell) {
                    let j = j as usize;
                    let d2 = space::minimum_image(p - positions[j], wrap).length_squared();
                    let nearer = best.is_none_or(|(k, b)| (d2, j) < (b, k));
                    if Some(j) != skip && d2 <= limit2 && nearer {
                        best = Some((j, d2));
                    }
                }
            });
            if rings.done(ring, best.map_or(limit2, |(_, d2)| d2)) {
                break;
            }
        }
        best
    }
}

/// A neighbour as a boid sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Seen<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// Storage index of the neighbour.
    pub index: usize,
    /// World sizes added to the neighbour's position to get where it is seen, per axis: zero
    /// unless it is seen across a torus seam (then ±1 on the axes crossed).
    pub seam: [i32; D],
    /// Where it is seen: its position plus `seam` world sizes, the minimum image beside the
    /// boid (outside the world across a seam).
    pub position: VecN<D>,
}

/// One flock state indexed for every neighbour question, under the model's ranges.
pub struct Neighbors<'a, const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    params: &'a Params,
    kernel: Kernel<D>,
    search: NeighborSearch<'a, D>,
    positions: &'a [VecN<D>],
    velocities: &'a [VecN<D>],
    groups: &'a [u8],
}

impl<'a, const D: usize> Neighbors<'a, D>
where
    Dim<D>: Dimension<D>,
{
    /// The simulation's flock as it stands, in storage order, under the simulation's kernel.
    pub fn of(sim: &'a Simulation<D>) -> Self {
        Self {
            params: sim.params(),
            kernel: *sim.kernel(),
            search: NeighborSearch::new(sim.params(), sim.positions(), sim.ids()),
            positions: sim.positions(),
            velocities: sim.velocities(),
            groups: sim.groups(),
        }
    }

    /// A flock state in id order under `params` (a state measured away from its simulation,
    /// or one that never had one); indices are ids.
    pub fn of_state(params: &'a Params, state: &'a FlockState<D>) -> Self {
        let ids: Vec<u32> = (0..state.len() as u32).collect();
        Self {
            params,
            kernel: Kernel::new(params),
            search: NeighborSearch::new(params, &state.positions, &ids),
            positions: &state.positions,
            velocities: &state.velocities,
            groups: &state.groups,
        }
    }

    /// The parameters the flock runs under.
    pub fn params(&self) -> &Params {
        self.params
    }

    /// Number of boids.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the flock is empty.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Positions, by index.
    pub fn positions(&self) -> &[VecN<D>] {
        self.positions
    }

    /// Velocities, by index.
    pub fn velocities(&self) -> &[VecN<D>] {
        self.velocities
    }

    /// Scout groups, by index.
    pub fn groups(&self) -> &[u8] {
        self.groups
    }

    /// Calls `f(j, d)` for every neighbour `j` of boid `i` (every other boid within the visual
    /// range, inclusive or not as the parameters say) with `d = p_i - p_j` (minimum image), in
    /// the step's order.
    #[inline]
    pub fn for_each_neighbor(&self, i: usize, mut f: impl FnMut(usize, VecN<D>)) {
        self.search.for_each_candidate(i, |j, d| {
            if j != i && rules::in_visual_range(&self.kernel, d.length_squared()) {
                f(j, d);
            }
        });
    }

    /// Number of neighbours of boid `i`.
    pub fn count(&self, i: usize) -> usize {
        let mut count = 0;
        self.for_each_neighbor(i, |_, _| count += 1);
        count
    }

    /// The neighbours of boid `i` where it sees them, in the step's order.
    pub fn seen_by(&self, i: usize) -> Vec<Seen<D>> {
        let mut seen = Vec::new();
        self.for_each_neighbor(i, |j, d| seen.push(self.seen(i, j, d)));
        seen
    }

    /// Every neighbour that one of `boids` sees across a torus seam, once for each seam
    /// crossing however many of them see it there, ordered by index and then seam: the
    /// "ghosts" of the debug view. Empty off a torus.
    pub fn across_seams(&self, boids: &[usize]) -> Vec<Seen<D>> {
        if !self.params.is_torus() {
            return Vec::new();
        }
        let per_boid = par::map_collect(boids.len(), |k| {
            let i = boids[k];
            let mut crossing = Vec::new();
            self.for_each_neighbor(i, |j, d| {
                let seen = self.seen(i, j, d);
                if seen.seam != [0; D] {
                    crossing.push(seen);
                }
            });
            crossing
        });
        let mut ghosts: Vec<Seen<D>> = per_boid.into_iter().flatten().collect();
        let key = |s: &Seen<D>| (s.index, s.seam);
        ghosts.sort_unstable_by_key(key);
        ghosts.dedup_by_key(|s| key(s));
        ghosts
    }

    /// Neighbour `j` of boid `i` at minimum-image offset `d = p_i - p_j`, as `i` sees it.
    fn seen(&self, i: usize, j: usize, d: VecN<D>) -> Seen<D> {
        let at = self.positions[j];
        let Some(size) = self.search.grid.geometry().torus_size() else {
            return Seen {
                index: j,
                seam: [0; D],
                position: at,
            };
        };
        let apart = (self.positions[i] - d - at).to_array();
        let seam: [i32; D] = std::array::from_fn(|a| (apart[a] / size[a]).round() as i32);
        let shift: [f32; D] = std::array::from_fn(|a| seam[a] as f32 * size[a]);
        Seen {
            index: j,
            seam,
            position: at + shift.into(),
        }
    }

    /// The weighted rule vectors of boid `i`: its sums in the step's order and arithmetic, so
    /// bit for bit what the step steers it by.
    pub fn rule_vectors(&self, i: usize) -> RuleVectors<D> {
        let mut acc = Sums::<f32, D>::default();
        self.search.for_each_candidate(i, |j, d| {
            acc.add(&self.kernel, d, self.velocities[j], j == i)
        });
        RuleVectors::new(&self.kernel, &acc, self.velocities[i])
    }

    /// Distance from boid `i` to its nearest other boid (minimum image on a torus), or infinity
    /// when it is alone.
    pub fn nearest_distance(&self, i: usize) -> f32 {
        self.search.nearest_distance(i)
    }

    /// The boid nearest `point` at most `radius` from it (minimum image on a torus, where
    /// `point` may lie outside the world), the lowest index of boids equally near; `None` when
    /// no boid is that close.
    pub fn nearest_to(&self, point: VecN<D>, radius: f32) -> Option<usize> {
        let p = self.params;
        let point = if p.is_torus() {
            let (min, size) = p.world_box::<D>();
            space::wrap(point, min.into(), size.into())
        } else {
            point
        };
        self.search
            .nearest(point, None, radius * radius)
            .map(|(j, _)| j)
    }
}

#[cfg(test)]
mod tests {
    use glam::{IVec2, Vec2};
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;
    use crate::params::Boundary;
    use crate::reference;
    use crate::rules::group;

    fn params(preset: &str, edit: impl FnOnce(&mut Params)) -> Params {
        let mut p = Params::preset(preset).unwrap();
        edit(&mut p);
        p
    }

    /// Worlds with torus seams, an open world, walls, a torus too narrow for three cells a
    /// side, the inclusive range rule and the boid itself in its averages.
    fn worlds() -> Vec<Params> {
        vec![
            params("cornell", |p| p.boundary = Boundary::Torus),
            params("cornell", |p| {
                p.boundary = Boundary::Torus;
                p.inclusive_ranges = true;
                p.exclude_protected = false;
            }),
            params("cornell", |_| {}),
            params("canvas", |_| {}),
            params("functional", |_| {}),
            params("functional", |p| {
                (p.world_width, p.world_height, p.visual_range) = (1.5, 0.9, 0.4);
            }),
            params("allegheny", |p| p.include_self = false),
        ]
    }

    /// Random boids over the world and a little beyond it (open worlds), a third in a clump
    /// straddling the corner seams, and pairs exactly one visual range apart along an axis
    /// (whole numbers in the cornell worlds, so the distance is exact). Id order.
    fn flock(p: &Params, n: usize, seed: u64) -> FlockState {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let (min, size) = (
            Vec2::new(p.world_x_min as f32, p.world_y_min as f32),
            Vec2::new(p.world_width as f32, p.world_height as f32),
        );
        let r = p.visual_range as f32;
        let mut random = move |a: f32, b: f32| a + rng.random::<f32>() * (b - a);
        let mut positions: Vec<Vec2> = (0..n)
            .map(|i| match i % 3 {
                0 => min + Vec2::new(random(-r, r), random(-r, r)),
                _ => min + Vec2::new(random(-0.1, 1.1), random(-0.1, 1.1)) * size,
            })
            .collect();
        for k in 0..n / 10 {
            let at = positions[2 * k].round();
            positions[2 * k] = at;
            positions[2 * k + 1] = at + if k % 2 == 0 { Vec2::X } else { Vec2::Y } * r;
        }
        if p.is_torus() {
            for q in &mut positions {
                *q = space::wrap(*q, min, size);
            }
        }
        let velocities = (0..n)
            .map(|_| Vec2::new(random(-1.0, 1.0), random(-1.0, 1.0)))
            .collect();
        FlockState {
            positions,
            velocities,
            groups: vec![group::NONE; n],
            biases: vec![0.0; n],
            ..FlockState::default()
        }
    }

    /// The range rule written from the parameters, not from the kernel's bound: strictly
    /// within the visual range, or at it too with `inclusive_ranges`.
    fn within_range(p: &Params, d: Vec2) -> bool {
        let (d2, r2) = (d.length_squared(), (p.visual_range * p.visual_range) as f32);
        d2 < r2 || (p.inclusive_ranges && d2 == r2)
    }

    /// Every (neighbour, seam, where seen) of boid `i`, by brute force.
    fn brute_seen(p: &Params, positions: &[Vec2], i: usize) -> Vec<(usize, IVec2, Vec2)> {
        let size = Vec2::new(p.world_width as f32, p.world_height as f32);
        (0..positions.len())
            .filter_map(|j| {
                let d = reference::offset(p, positions[i], positions[j]);
                let seam = if p.is_torus() {
                    ((positions[i] - d - positions[j]) / size)
                        .round()
                        .as_ivec2()
                } else {
                    IVec2::ZERO
                };
                (j != i && within_range(p, d))
                    .then(|| (j, seam, positions[j] + seam.as_vec2() * size))
            })
            .collect()
    }

    #[test]
    fn neighbours_are_the_brute_force_neighbours_seen_where_they_are_seen() {
        for (case, p) in worlds().iter().enumerate() {
            let state = flock(p, 500, case as u64);
            let hood = Neighbors::of_state(p, &state);
            let mut at_range = 0;
            for i in 0..state.len() {
                let want = brute_seen(p, &state.positions, i);
                let mut got: Vec<_> = hood
                    .seen_by(i)
                    .into_iter()
                    .map(|s| (s.index, IVec2::from(s.seam), s.position))
                    .collect();
                got.sort_by_key(|s| s.0);
                assert_eq!(got, want, "case {case}, boid {i}");
                assert_eq!(hood.count(i), want.len(), "case {case}, boid {i}");
                at_range += want
                    .iter()
                    .filter(|s| (s.2 - state.positions[i]).length() == p.visual_range as f32)
                    .count();
            }
            if p.inclusive_ranges && p.visual_range.fract() == 0.0 {
                assert!(at_range > 0, "case {case}: no pair exactly at the range");
            }
        }
    }

    #[test]
    fn exactly_at_the_range_counts_only_when_ranges_are_inclusive() {
        for inclusive in [false, true] {
            let p = params("cornell", |p| {
                p.boundary = Boundary::Torus;
                p.inclusive_ranges = inclusive;
            });
            // 40 apart inside the world, and 40 apart across the seam at x = 0 = 640.
            let state = FlockState::<2> {
                positions: vec![
                    Vec2::new(300.0, 200.0),
                    Vec2::new(340.0, 200.0),
                    Vec2::new(20.0, 100.0),
                    Vec2::new(620.0, 100.0),
                ],
                velocities: vec![Vec2::X; 4],
                groups: vec![group::NONE; 4],
                biases: vec![0.0; 4],
                ..FlockState::<2>::default()
            };
            let hood = Neighbors::<2>::of_state(&p, &state);
            let counts: Vec<usize> = (0..4).map(|i| hood.count(i)).collect();
            let expected = usize::from(inclusive);
            assert_eq!(counts, [expected; 4], "inclusive {inclusive}");
            let ghosts = hood.across_seams(&[2, 3]);
            assert_eq!(ghosts.len(), 2 * expected, "inclusive {inclusive}");
            if inclusive {
                // Boid 2 seen by boid 3 beyond the right edge, boid 3 by boid 2 beyond the left.
                assert_eq!(ghosts[0].position, Vec2::new(660.0, 100.0));
                assert_eq!(ghosts[1].position, Vec2::new(-20.0, 100.0));
            }
        }
    }

    #[test]
    fn ghosts_are_the_brute_force_neighbour_and_seam_pairs() {
        for (case, p) in worlds().iter().enumerate() {
            let state = flock(p, 400, 50 + case as u64);
            let hood = Neighbors::of_state(p, &state);
            let lookers: Vec<usize> = (0..state.len()).step_by(2).collect();
            let mut want: Vec<(usize, IVec2)> = lookers
                .iter()
                .flat_map(|&i| brute_seen(p, &state.positions, i))
                .filter(|s| s.1 != IVec2::ZERO)
                .map(|s| (s.0, s.1))
                .collect();
            want.sort_by_key(|s| (s.0, s.1.x, s.1.y));
            want.dedup();
            let got: Vec<(usize, IVec2)> = hood
                .across_seams(&lookers)
                .iter()
                .map(|s| (s.index, IVec2::from(s.seam)))
                .collect();
            assert_eq!(got, want, "case {case}");
            assert_eq!(!want.is_empty(), p.is_torus(), "case {case}");
        }
    }

    #[test]
    fn rule_vectors_sum_the_brute_force_averaging_set() {
        for (case, p) in worlds().iter().enumerate() {
            let state = flock(p, 300, 90 + case as u64);
            let hood = Neighbors::of_state(p, &state);
            let kernel = Kernel::new(p);
            let kinds = |r: &RuleVectors| [r.cohesion, r.separation, r.alignment];
            let want: Vec<[Vec2; 3]> = (0..state.len())
                .map(|i| {
                    let mut acc = Sums::<f32, 2>::default();
                    for j in 0..state.len() {
                        let d = reference::offset(p, state.positions[i], state.positions[j]);
                        acc.add(&kernel, d, state.velocities[j], i == j);
                    }
                    kinds(&RuleVectors::new(&kernel, &acc, state.velocities[i]))
                })
                .collect();
            // Sums in another order round differently: allow for it against each kind's
            // largest vector, which is never zero here.
            let largest: [f32; 3] =
                std::array::from_fn(|k| want.iter().map(|w| w[k].length()).fold(0.0, f32::max));
            assert!(largest.iter().all(|&l| l > 0.0), "case {case}: {largest:?}");
            for (i, want) in want.iter().enumerate() {
                let got = kinds(&hood.rule_vectors(i));
                for k in 0..3 {
                    let off = (got[k] - want[k]).length();
                    assert!(
                        off <= 1e-4 * largest[k],
                        "case {case} boid {i} kind {k}: {off}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_boid_itself_is_in_its_averages_only_with_include_self() {
        // Two boids 10 apart: cohesion is the mean offset over the averaging set, so it halves
        // when the boid itself joins it.
        let pair = FlockState::<2> {
            positions: vec![Vec2::new(100.0, 100.0), Vec2::new(110.0, 100.0)],
            velocities: vec![Vec2::ZERO; 2],
            groups: vec![group::NONE; 2],
            biases: vec![0.0; 2],
            ..FlockState::default()
        };
        let cohesion = |include_self: bool| {
            let p = params("cornell", |p| {
                p.include_self = include_self;
                p.exclude_protected = false;
            });
            Neighbors::of_state(&p, &pair).rule_vectors(0).cohesion
        };
        let (alone, with_self) = (cohesion(false), cohesion(true));
        assert!(alone.x > 0.0 && alone.y == 0.0, "{alone}");
        assert_eq!(with_self, alone * 0.5);
    }

    #[test]
    fn nearest_queries_are_the_brute_force_nearest() {
        for (case, p) in worlds().iter().enumerate() {
            let state = flock(p, 300, 200 + case as u64);
            let hood = Neighbors::of_state(p, &state);
            let distance = |a: Vec2, b: Vec2| reference::offset(p, a, b).length();
            for i in 0..state.len() {
                let want = (0..state.len())
                    .filter(|&j| j != i)
                    .map(|j| distance(state.positions[i], state.positions[j]))
                    .fold(f32::INFINITY, f32::min);
                assert_eq!(hood.nearest_distance(i), want, "case {case}, boid {i}");
            }
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(case as u64);
            let size = Vec2::new(p.world_width as f32, p.world_height as f32);
            let min = Vec2::new(p.world_x_min as f32, p.world_y_min as f32);
            for k in 0..200 {
                // Points over and around the world, some exactly on a boid.
                let point = match k % 4 {
                    0 => state.positions[k],
                    _ => min + Vec2::new(rng.random(), rng.random()) * size * 1.4 - 0.2 * size,
                };
                let radius = [0.0, 0.05, 0.3, f32::INFINITY][k % 4] * size.x;
                let want = (0..state.len())
                    .map(|j| (distance(state.positions[j], point), j))
                    .filter(|&(d, _)| d <= radius)
                    .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
                    .map(|(_, j)| j);
                assert_eq!(hood.nearest_to(point, radius), want, "case {case}, {point}");
            }
        }
    }

    #[test]
    fn a_simulations_neighbours_use_its_storage_order() {
        let mut sim = Simulation::<2>::new(params("functional", |p| p.count = 200), 3).unwrap();
        for _ in 0..5 {
            sim.step().unwrap();
        }
        let hood = Neighbors::of(&sim);
        let state = sim.state();
        let by_id = Neighbors::of_state(sim.params(), &state);
        for (slot, &id) in sim.ids().iter().enumerate() {
            assert_eq!(hood.count(slot), by_id.count(id as usize));
            let ids = |seen: Vec<Seen>, to_id: &dyn Fn(usize) -> u32| {
                let mut ids: Vec<u32> = seen.iter().map(|s| to_id(s.index)).collect();
                ids.sort_unstable();
                ids
            };
            assert_eq!(
                ids(hood.seen_by(slot), &|k| sim.ids()[k]),
                ids(by_id.seen_by(id as usize), &|k| k as u32)
            );
        }
    }
}
