//! How much work one change may ask of the server.
//!
//! A step costs about one unit of work per pair of a boid and a neighbour it examines, so a
//! client that sets `visual_range = 1e9` on a large flock turns every step into an all-pairs
//! loop (200,000 boids: 4e10 pairs, seconds a step) and every viewer freezes. The count cap
//! (`--max-count`) bounds memory, not this. So a `set` or `reset` whose flock would cost more
//! than [`DEFAULT_MAX_PAIRS`] (or the server's `--max-pairs`) pairs a step is refused, with the
//! estimate in the message, and a `step` request may take only a few steps' worth of that
//! budget ([`STEP_REQUEST_STEPS`]).
//!
//! The unit is a neighbour pair of the grid's fast path (the boids model, metric, nothing
//! blind). Everything else a step does is priced in that unit, by the ratio of its measured
//! cost to a pair's: a boid's own share of the step ([`BOID_PAIRS`]), a candidate the general path tests ([`GENERAL_CANDIDATE_PAIRS`]; the k
//! nearest test about [`K_NEAREST_CANDIDATES_PER_K`] candidates for each of the k), and each
//! world object a boid is weighed against ([`ATTRACTOR_PAIRS`], [`PREDATOR_PAIRS`],
//! [`OBSTACLE_PAIRS`]). Without these, `topological_k = 10000` at 50,000 boids or 4,000
//! attractors were priced like a plain flock and froze the viewer for minutes.
//!
//! The estimate is what a uniform spread would give: each boid sees the others in proportion to
//! the area of its visual disc over the area the flock occupies (its bounding box, and never
//! more than the world on a torus), capped at all of them; in three dimensions, the volume of
//! its visual ball over the volume of the box. It uses where the boids are rather
//! than the world's size alone, because a flock started in a small corner of a large world is as
//! dense as its corner. Flocks gather, so real counts run above the estimate: the server also
//! prices each step from what it measured ([`Work::measured`]) and acts when one overruns.
//!
//! The count cap has one rule for a preset's own count ([`lower_preset_count`]), so that the
//! flock the server starts with and a page's reset agree.
//!
//! The ratios were measured in one run on an Intel Xeon with 2 vCPUs, `boids bench --count 20000
//! --neighbors 50 --steps 3 --warmup 1` with the `--set`s named at each constant, against
//! `--neighbors 3000` (4.3 ns a pair in that run; the machine was shared, so every figure of
//! that run is several times today's idle figure, and only their ratios are kept).

use std::f64::consts::PI;

use boids_core::params::Value;
use boids_core::{Coordinates, Flock, Params, ParamsBuilder, ScanCounts, Source, on_flock};

/// Default budget of neighbour pairs a step: 0.1 to 0.3 s a step on two cores.
///
/// Measured on two cores: `boids bench --count 200000 --neighbors 3000 --steps 5` (W3, a torus
/// spread evenly) takes 158 ms a step for 6e8 pairs, 0.26 ns a pair; the viewer's default flock
/// at the default cap, `boids serve --count 200000` (the `cornell` preset, 640 x 480, visual
/// range 40: about 3,300 neighbours each, 6.5e8 pairs), makes 13.4 steps a second (the
/// `measure` example over 15 s), 0.11 ns a pair. So the budget lets that flock run, with room
/// for flocks that gather, and refuses the all-pairs loops that freeze the viewer (200,000 boids
/// that all see each other: 4e10 pairs, seconds a step).
pub const DEFAULT_MAX_PAIRS: f64 = 1e9;

/// A `step` request may ask for this many steps' worth of the pair budget (about a second at
/// the default budget on two cores), and always for one step.
pub const STEP_REQUEST_STEPS: f64 = 4.0;

/// Pairs a candidate costs on the general path (perching), which searches each boid's cells
/// ring by ring and applies its rules one boid at a time: 72 ns a candidate for
/// `--set model=vicsek` (before that model went onto the walk), 189 ns for
/// `--preset murmuration` (k nearest in a blind cone, in 3D).
pub const GENERAL_CANDIDATE_PAIRS: f64 = 40.0;

/// Pairs a candidate of a k-nearest step on the walk costs, where each lane keeps its own list
/// of the k nearest: about a quarter of a general-path candidate (3.6 ns a candidate for
/// `--set topological_k=7`, 2.7 ns for `--preset murmuration`, against 13.7 ns on the general
/// path for `--preset vicsek` in the same session; `boids bench --count 100000 --neighbors
/// 25`, Intel Xeon, 2 vCPUs).
pub const NEAREST_CANDIDATE_PAIRS: f64 = 10.0;

/// Candidates a k-nearest search tests for each of the k: its cells are sized to hold a few k
/// and it reads the rings around a boid's (`--preset murmuration --set topological_k=K`: 104
/// candidates for k = 7, 740 for 50, 2,500 for 200).
pub const K_NEAREST_CANDIDATES_PER_K: f64 = 15.0;

/// Pairs a boid's look at one attractor costs: every boid weighs every attractor (39 ns,
/// `--set attractors=[...200...] --set attract_factor=0.001`).
pub const ATTRACTOR_PAIRS: f64 = 10.0;

/// Pairs one predator costs a boid in its sight or fear range: the hunt, fleeing and the catch
/// (70 ns, `--set predator_count=100 --set predator_vision=1e9`).
pub const PREDATOR_PAIRS: f64 = 16.0;

/// Pairs a boid's own share of a step costs, whatever it sees: its cell, its place in cell
/// order, its rules and its move. Without it a flock whose boids see almost nobody was priced
/// at almost nothing, and ten million boids in a large world were taken without a word (a
/// step of 40 s on the GPU engine's CPU emulation). Measured in one run on an Intel Xeon with
/// 2 vCPUs: `boids bench --count 200000 --neighbors 1 --steps 10 --warmup 2` takes 4.15 ms a
/// step (21 ns a boid), and `--neighbors 3000` against `--neighbors 300` gives 0.32 ns a pair.
pub const BOID_PAIRS: f64 = 60.0;

/// Pairs one obstacle costs a boid whose look-ahead probe may reach it (355 ns, 50 circles with
/// `--set obstacle_lookahead=1e9 --set obstacle_avoid_factor=0.1`).
pub const OBSTACLE_PAIRS: f64 = 80.0;

/// Lowers a preset's own boid count above the server's cap (`--max-count`) to the cap, the
/// new value from `source`, and says so: one rule for the flock the server starts with and
/// for a page's reset to a preset. A count asked for (a flag, a file, a message) is never
/// lowered; above the cap it is refused.
pub fn lower_preset_count(
    layers: &mut ParamsBuilder,
    max_count: usize,
    source: Source,
) -> Option<String> {
    let count = layers.params().count;
    let from = layers.source_of("count");
    if count <= max_count || !matches!(from, Source::Preset(_)) {
        return None;
    }
    let note = format!(
        "count = {count} from {from} is over this server's cap of {max_count} (--max-count): \
         lowered to {max_count}"
    );
    layers.set("count", Value::Integer(max_count as u64), source);
    Some(note)
}

/// The work of a flock a step, in neighbour pairs of the fast path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Work {
    /// Boids.
    pub count: usize,
    /// Pairs a boid's neighbour search costs: its neighbours on the fast path; on the general
    /// path the candidates it tests, [`GENERAL_CANDIDATE_PAIRS`] each.
    pub neighbours: f64,
    /// Pairs the world's objects (attractors, predators, obstacles) cost a boid.
    pub objects: f64,
}

impl Work {
    /// The expected work of a flock under `params` whose boids lie in `extent`.
    pub fn estimate(params: &Params, extent: Extent) -> Work {
        let spread = Spread::new(params, extent);
        let neighbours = match candidate_pairs(params) {
            None => spread.within(params.visual_range),
            Some(pairs) => pairs * candidates(params, &spread),
        };
        Work {
            count: params.count,
            neighbours,
            objects: world_objects(params, &spread),
        }
    }

    /// The work of the step `flock` has just taken: the neighbour search from the counts the
    /// step made (exact and the same on any thread count), the world's objects as estimated
    /// where the boids are now.
    pub fn measured(flock: &Flock) -> Work {
        let params = flock.params();
        let counts: ScanCounts = on_flock!(flock, sim => sim.stats().counts);
        let boids = flock.len().max(1) as f64;
        let neighbours = match candidate_pairs(params) {
            None => counts.neighbors as f64 / boids,
            Some(pairs) => pairs * counts.candidates as f64 / boids,
        };
        let estimate = Work::estimate(params, Extent::of_flock(flock));
        Work {
            neighbours,
            ..estimate
        }
    }

    /// Pairs a boid costs: its own share of the step, its neighbour search and the world's
    /// objects.
    pub fn each(&self) -> f64 {
        BOID_PAIRS + self.neighbours + self.objects
    }

    /// Pairs a step.
    pub fn pairs(&self) -> f64 {
        self.count as f64 * self.each()
    }
}

impl std::fmt::Display for Work {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "about {:.2e} neighbour pairs a step ({} boids x {:.3e} each: {BOID_PAIRS:.0} for \
             its own step, {:.3e} for its neighbours, {:.3e} for the world's objects)",
            self.pairs(),
            self.count,
            self.each(),
            self.neighbours,
            self.objects
        )
    }
}

/// How the others spread around a boid, as a uniform spread over the room the flock occupies.
struct Spread {
    others: f64,
    dimensions: usize,
    room: f64,
}

impl Spread {
    fn new(params: &Params, extent: Extent) -> Spread {
        let dimensions = params.dimensions;
        let mut room = extent.content(dimensions);
        if params.is_torus() {
            let (_, size) = params.world_box::<3>();
            room = room.min(size[..dimensions].iter().map(|&s| f64::from(s)).product());
        }
        Spread {
            others: params.count.saturating_sub(1) as f64,
            dimensions,
            room,
        }
    }

    /// The disc of `radius`, or its ball in 3D.
    fn reach(&self, radius: f64) -> f64 {
        match self.dimensions {
            3 => 4.0 / 3.0 * PI * radius.powi(3),
            _ => PI * radius * radius,
        }
    }

    /// The share of the room within `radius` of a point, from 0 to 1.
    fn share(&self, radius: f64) -> f64 {
        self.share_of(self.reach(radius))
    }

    /// The share of the room a region of `volume` (an area in 2D) holds, from 0 to 1.
    fn share_of(&self, volume: f64) -> f64 {
        if self.room > 0.0 {
            (volume / self.room).min(1.0)
        } else if volume > 0.0 {
            1.0
        } else {
            0.0
        }
    }

    /// The others within `radius` of a boid.
    fn within(&self, radius: f64) -> f64 {
        self.others * self.share(radius)
    }

    /// The others a ring search out to `radius` tests: those in the cells of that width around
    /// a boid's (3 x 3, or 3 x 3 x 3).
    fn scanned(&self, radius: f64) -> f64 {
        self.others * self.share_of((3.0 * radius).powi(self.dimensions as i32))
    }
}

/// Pairs a candidate costs where a step is priced by its candidates (k nearest, the general
/// path); `None` where it is priced by its neighbours (the metric models on the walk).
fn candidate_pairs(params: &Params) -> Option<f64> {
    if !params.uses_fast_path() {
        Some(GENERAL_CANDIDATE_PAIRS)
    } else if params.topological_k > 0 {
        Some(NEAREST_CANDIDATE_PAIRS)
    } else {
        None
    }
}

/// Candidates a boid tests: the k nearest's, plus the cells out to the metric range (the
/// protected range beside the k nearest); or the cells out to the visual range.
fn candidates(params: &Params, spread: &Spread) -> f64 {
    match params.topological_k {
        0 => spread.scanned(params.visual_range),
        k => {
            let nearest = (K_NEAREST_CANDIDATES_PER_K * k as f64).min(spread.others);
            (nearest + spread.scanned(params.protected_range)).min(spread.others)
        }
    }
}

/// Pairs the world's objects cost a boid: every attractor; each predator as far as it sees or
/// is feared; each obstacle as far as the look-ahead probe reaches.
fn world_objects(params: &Params, spread: &Spread) -> f64 {
    let attractors = if params.attract_factor > 0.0 {
        params.attractors.len() as f64
    } else {
        0.0
    };
    let fear = if params.flee_factor > 0.0 {
        params.fear_range
    } else {
        0.0
    };
    let predators = params.predator_count as f64 * spread.share(params.predator_vision.max(fear));
    let probe = if params.obstacle_avoid_factor > 0.0 {
        params.obstacle_lookahead
    } else {
        0.0
    };
    let obstacles = params.obstacles.len() as f64 * spread.share(probe);
    attractors * ATTRACTOR_PAIRS + predators * PREDATOR_PAIRS + obstacles * OBSTACLE_PAIRS
}

/// An axis-aligned box that boids occupy, in up to three dimensions (a flat flock's z is 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Extent {
    min: [f32; 3],
    max: [f32; 3],
}

impl Extent {
    /// The bounding box of `positions` (empty for none), of 2 or 3 dimensions.
    pub fn of<const D: usize, P: Coordinates<D>>(positions: &[P]) -> Extent {
        positions
            .iter()
            .fold(Extent::EMPTY, |e, &p| e.holding(&p.to_array()))
    }

    /// The box of no boids.
    const EMPTY: Extent = Extent {
        min: [f32::INFINITY; 3],
        max: [f32::NEG_INFINITY; 3],
    };

    /// The box the boids of `flock` occupy, whichever its dimension.
    pub fn of_flock(flock: &Flock) -> Extent {
        on_flock!(flock, sim => Extent::of(sim.positions()))
    }

    /// The box that also holds `point` (its missing axes at 0).
    fn holding(mut self, point: &[f32]) -> Extent {
        for (a, &v) in point.iter().enumerate() {
            self.min[a] = self.min[a].min(v);
            self.max[a] = self.max[a].max(v);
        }
        self
    }

    /// The initial box of `params`, where a new flock's boids are drawn: a flock's room
    /// before it is drawn (`boids serve --events` prices a saved session's changes in it).
    pub fn initial(params: &Params) -> Extent {
        Extent::EMPTY.with_initial(params)
    }

    /// The box that also holds the initial box of `params`, where added boids start.
    pub fn with_initial(self, params: &Params) -> Extent {
        let ranges = [params.init_x, params.init_y, params.init_z];
        let ranges = &ranges[..params.dimensions];
        let corner = |end: usize| ranges.iter().map(|r| r[end] as f32).collect::<Vec<_>>();
        self.holding(&corner(0)).holding(&corner(1))
    }

    /// Area in 2D, volume in 3D; zero for an empty box or a point.
    fn content(&self, dimensions: usize) -> f64 {
        let side = |a: usize| (f64::from(self.max[a]) - f64::from(self.min[a])).max(0.0);
        (0..dimensions).map(side).product()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use boids_core::{ParamsBuilder, Simulation, Source};

    fn params(preset: &str, assignments: &[&str]) -> Params {
        let mut builder = ParamsBuilder::preset(preset).unwrap();
        for a in assignments {
            builder = builder.apply_assignment(a, Source::Message).unwrap();
        }
        builder.build().unwrap()
    }

    fn work(p: &Params) -> Work {
        let sim = Simulation::<2>::new(p.clone(), 1).unwrap();
        Work::estimate(p, Extent::of(sim.positions()))
    }

    #[test]
    fn the_default_flock_at_the_default_cap_fits_and_all_pairs_do_not() {
        let p = params("cornell", &["count=200000"]);
        let w = work(&p);
        // 199,999 others x pi 40^2 / (640 x 480), over the flock's box (a hair inside the world).
        let uniform = 199_999.0 * PI * 1600.0 / (640.0 * 480.0);
        assert!((w.neighbours / uniform - 1.0).abs() < 0.01, "{w:?}");
        assert!(w.pairs() < DEFAULT_MAX_PAIRS, "{w:?}");
        let far = params("cornell", &["count=200000", "visual_range=1e9"]);
        let w = work(&far);
        assert_eq!(w.neighbours, 199_999.0);
        assert!(w.pairs() > 10.0 * DEFAULT_MAX_PAIRS);
    }

    #[test]
    fn a_flock_in_a_corner_of_a_large_world_is_as_dense_as_its_corner() {
        let corner = params(
            "functional",
            &["count=1000", "init_x=[0,1]", "init_y=[0,1]"],
        );
        let large = params(
            "functional",
            &[
                "count=1000",
                "world_width=1e6",
                "world_height=1e6",
                "init_x=[0,1]",
                "init_y=[0,1]",
            ],
        );
        let (a, b) = (work(&corner), work(&large));
        assert!(
            (a.neighbours / b.neighbours - 1.0).abs() < 1e-9,
            "{a:?} {b:?}"
        );
        // About 999 x pi 0.4^2 / 1 (a 1 x 1 corner).
        assert!(a.neighbours > 400.0 && a.neighbours < 520.0, "{a:?}");
    }

    #[test]
    fn topological_neighbours_do_not_depend_on_the_visual_range() {
        let near = work(&params("vicsek", &["topological_k=7"]));
        let far = work(&params("vicsek", &["topological_k=7", "visual_range=5"]));
        assert_eq!(near, far);
        let nearest = 7.0 * K_NEAREST_CANDIDATES_PER_K * NEAREST_CANDIDATE_PAIRS;
        assert!(
            near.neighbours >= nearest && near.neighbours < 1.1 * nearest,
            "{near:?}"
        );
    }

    #[test]
    fn a_flock_in_three_dimensions_sees_the_others_in_its_ball() {
        let p = params("cornell", &["count=20000", "dimensions=3"]);
        let sim = Simulation::<3>::new(p.clone(), 1).unwrap();
        let w = Work::estimate(&p, Extent::of(sim.positions()));
        // 19,999 others x 4/3 pi 40^3 / (640 x 480 x 480), over the flock's box.
        let uniform = 19_999.0 * 4.0 / 3.0 * PI * 40f64.powi(3) / (640.0 * 480.0 * 480.0);
        assert!((w.neighbours / uniform - 1.0).abs() < 0.02, "{w:?}");
        let flat = work(&params("cornell", &["count=20000"]));
        assert!(w.neighbours < flat.neighbours / 5.0, "{w:?} {flat:?}");
    }

    fn flock_work(p: &Params) -> Work {
        let flock = Flock::new(p.clone(), 1, boids_core::EngineKind::Cpu).unwrap();
        Work::estimate(p, Extent::of_flock(&flock))
    }

    #[test]
    fn every_preset_fits_the_default_budget_at_its_own_count() {
        for preset in boids_core::PRESETS {
            let w = flock_work(&params(preset.name, &[]));
            assert!(w.pairs() < DEFAULT_MAX_PAIRS / 2.0, "{}: {w}", preset.name);
        }
    }

    #[test]
    fn the_k_nearest_cost_the_candidates_their_search_tests() {
        let seven = flock_work(&params("murmuration", &[]));
        // 20,000 birds x 7 x 15 candidates, at 10 pairs each (the protected range adds little).
        let nearest = 7.0 * K_NEAREST_CANDIDATES_PER_K * NEAREST_CANDIDATE_PAIRS;
        assert!(
            seven.neighbours >= nearest && seven.neighbours < 1.1 * nearest,
            "{seven}"
        );
        let many = flock_work(&params(
            "murmuration",
            &["count=50000", "topological_k=10000"],
        ));
        // Every other bird is a candidate: 50,000 x 49,999 x 10.
        assert_eq!(many.neighbours, 49_999.0 * NEAREST_CANDIDATE_PAIRS);
        assert!(many.pairs() > 20.0 * DEFAULT_MAX_PAIRS, "{many}");
    }

    #[test]
    fn the_general_path_pays_for_each_candidate_it_tests() {
        let fast = work(&params("cornell", &["count=20000"]));
        let perching = work(&params("cornell", &["count=20000", "perch=true"]));
        // The fast path's neighbours; the general path's 3 x 3 cells over the disc, 40 each.
        let ratio = perching.neighbours / fast.neighbours;
        let expected = 9.0 / PI * GENERAL_CANDIDATE_PAIRS;
        assert!((ratio / expected - 1.0).abs() < 1e-9, "{fast} {perching}");
        // A blind angle is a mask of the walk: priced as the neighbours it could see.
        let blind = work(&params("cornell", &["count=20000", "blind_angle=0.5"]));
        assert_eq!(blind, fast);
    }

    #[test]
    fn world_objects_cost_each_boid_as_far_as_they_reach() {
        let plain = work(&params("cornell", &["count=1000"]));
        assert_eq!(plain.objects, 0.0);
        let attractors: Vec<String> = (0..4000).map(|k| format!("[{}, 100]", k % 600)).collect();
        let attractors = format!("attractors=[{}]", attractors.join(","));
        let pulled = work(&params("cornell", &["count=1000", &attractors]));
        assert_eq!(
            pulled.objects, 0.0,
            "attractors that do not attract cost nothing"
        );
        let pulled = work(&params(
            "cornell",
            &["count=1000", &attractors, "attract_factor=0.001"],
        ));
        assert_eq!(pulled.objects, 4000.0 * ATTRACTOR_PAIRS);
        let hunted = work(&params(
            "cornell",
            &["count=1000", "predator_count=1000", "predator_vision=1e9"],
        ));
        assert_eq!(hunted.objects, 1000.0 * PREDATOR_PAIRS);
        let near = work(&params("cornell", &["count=1000", "predator_count=1000"]));
        assert!(near.objects < hunted.objects / 5.0, "{near}");
        let circles: Vec<String> = (0..1000)
            .map(|k| {
                format!(
                    "{{shape = \"circle\", center = [{}, 50], radius = 1}}",
                    k % 600
                )
            })
            .collect();
        let circles = format!("obstacles=[{}]", circles.join(","));
        let probed = work(&params(
            "cornell",
            &[
                "count=1000",
                &circles,
                "obstacle_lookahead=1e9",
                "obstacle_avoid_factor=0.1",
            ],
        ));
        assert_eq!(probed.objects, 1000.0 * OBSTACLE_PAIRS);
    }

    #[test]
    fn added_boids_count_where_they_start() {
        let p = params("cornell", &["count=10"]);
        let point = Extent::of(&[boids_core::Vec2::new(5.0, 5.0); 10]);
        assert_eq!(Work::estimate(&p, point).neighbours, 9.0);
        let spread = point.with_initial(&p);
        assert!(Work::estimate(&p, spread).neighbours < 1.0);
        let refusal = crate::RequestError::TooCostly {
            what: "x = 1".into(),
            work: Work::estimate(&p, point),
            max_pairs: 50.0,
        };
        assert!(refusal.to_string().contains("9.000e0"), "{refusal}");
    }
}
