//! Predators, attractors and perching in the step: what each does to the flock, and that runs
//! with them stay bit-identical on any thread count and resume exactly from a saved state, in
//! two dimensions and three (the same worlds lifted into 3D: see [`lifted`]).

mod common;

use boids_core::obstacles::{Obstacle, Shape};
use boids_core::world::{Predator, captures};
use boids_core::{
    Coordinates, Dim, Dimension, FlockState, Metrics, Params, Simulation, Vec2, VecN,
};
use common::{on_threads, params};

fn run<const D: usize>(params: &Params, seed: u64, steps: u64) -> Simulation<D>
where
    Dim<D>: Dimension<D>,
{
    let mut sim = Simulation::<D>::new(params.clone(), seed).unwrap();
    for _ in 0..steps {
        sim.step().unwrap();
    }
    sim
}

/// `params` in `D` dimensions: in 3D each circle becomes a sphere and each rectangle a box
/// through the world's depth, and each attractor a point, all halfway through the depth (the
/// presets are as deep as they are high).
fn lifted<const D: usize>(mut params: Params) -> Params {
    if D == 2 {
        return params;
    }
    let (near, depth) = (params.world_z_min as f32, params.world_depth as f32);
    let middle = near + depth / 2.0;
    params.dimensions = 3;
    params.obstacles = (params.obstacles.iter())
        .map(|obstacle| match obstacle.shape::<2>() {
            Some(Shape::Ball { center, radius }) => Obstacle::Space(Shape::Ball {
                center: center.extend(middle),
                radius,
            }),
            Some(Shape::AlignedBox { min, max }) => Obstacle::Space(Shape::AlignedBox {
                min: min.extend(near),
                max: max.extend(near + depth),
            }),
            _ => panic!("no 3D form for {obstacle:?}"),
        })
        .collect();
    for point in &mut params.attractors {
        point.push(f64::from(middle));
    }
    params.validate().unwrap();
    params
}

/// A point of the x-y plane in `D` dimensions, halfway through the depth in 3D.
fn at<const D: usize>(params: &Params, x: f32, y: f32) -> VecN<D>
where
    Dim<D>: Dimension<D>,
{
    let middle = (params.world_z_min + params.world_depth / 2.0) as f32;
    VecN::<D>::from(std::array::from_fn(|a| [x, y, middle][a]))
}

/// Every world feature on each model: predators that catch, attractors, perching.
fn worlds<const D: usize>() -> Vec<Params> {
    [
        params("predator", &["count=300"]),
        params(
            "pillars",
            &["count=300", "predator_count=2", "capture_range=8"],
        ),
        params("perching", &["count=200", "predator_count=1"]),
        params(
            "couzin",
            &[
                "predator_count=1",
                "predator_speed=1.2",
                "attractors=[[30.0, 10.0]]",
                "attract_factor=0.5",
                "capture_range=0.5",
                "fear_range=4",
            ],
        ),
        params(
            "vicsek",
            &[
                "predator_count=2",
                "predator_speed=0.04",
                "predator_vision=2",
                "fear_range=1",
                "capture_range=0.1",
            ],
        ),
    ]
    .into_iter()
    .map(lifted::<D>)
    .collect()
}

fn bit_identical_on_one_and_two_threads<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    for p in worlds::<D>() {
        let state = |threads| on_threads(threads, || run::<D>(&p, 5, 150).state());
        let one = state(1);
        assert!(!one.predators.is_empty() || p.perch);
        assert_eq!(one, state(2), "{D}D {p:?}");
    }
}

#[test]
fn world_runs_are_bit_identical_on_one_and_two_threads() {
    bit_identical_on_one_and_two_threads::<2>();
    bit_identical_on_one_and_two_threads::<3>();
}

fn resumed_equals_uninterrupted<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    for p in worlds::<D>() {
        let whole = run::<D>(&p, 8, 200).state();
        let half = run::<D>(&p, 8, 100).state();
        let mut resumed = Simulation::<D>::from_state(p.clone(), 8, half, 100).unwrap();
        for _ in 0..100 {
            resumed.step().unwrap();
        }
        assert_eq!(resumed.state(), whole, "{D}D {p:?}");
    }
}

#[test]
fn a_run_resumed_from_its_saved_state_equals_the_uninterrupted_run() {
    resumed_equals_uninterrupted::<2>();
    resumed_equals_uninterrupted::<3>();
}

#[test]
fn the_fast_path_pulls_boids_as_the_general_path_does() {
    // The fast path computes the pull lane by lane, the general path boid by boid (perching
    // sends it there; with the ground at the world's bottom edge few boids land, and those
    // are left out); both add it at the same point of the rules, so one step agrees to the
    // rounding of the neighbour sums.
    let p = params(
        "predator",
        &[
            "count=400",
            "attractors=[[100.0, 100.0]]",
            "attract_factor=0.001",
            "fear_range=200",
        ],
    );
    assert!(p.uses_fast_path());
    let mut general = p.clone();
    (general.perch, general.perch_height) = (true, 0.0);
    assert!(!general.uses_fast_path());
    let (fast, slow) = (run::<2>(&p, 2, 1).state(), run::<2>(&general, 2, 1).state());
    let landed = slow.resting.iter().filter(|&&r| r > 0).count();
    assert!(landed < 10, "{landed} boids landed");
    let still = run::<2>(&params("cornell", &["count=400"]), 2, 1).state();
    let mut pulled = 0;
    let flying = (0..fast.len()).filter(|&i| slow.resting[i] == 0);
    for (a, b, c) in flying.map(|i| (fast.velocities[i], slow.velocities[i], still.velocities[i])) {
        assert!((a - b).length() < 1e-4, "{a} vs {b}");
        pulled += usize::from((a - c).length() > 1e-3);
    }
    assert!(pulled > 200, "only {pulled} boids pulled");
    assert_eq!(fast.predators, slow.predators);
}

#[test]
fn boids_that_flee_keep_farther_from_predators_and_are_caught_less() {
    let outcome = |flee: &str| {
        let p = params("predator", &["count=300", flee]);
        let mut sim = Simulation::<2>::new(p, 11).unwrap();
        let (mut caught, mut distance) = (0, 0.0);
        for step in 0..1500 {
            sim.step().unwrap();
            caught += sim.captures();
            if step >= 500 && step % 50 == 0 {
                distance += Metrics::of(&sim).predator_distance;
            }
        }
        (caught, distance / 20.0)
    };
    let (caught_still, near_still) = outcome("flee_factor=0");
    let (caught_fleeing, near_fleeing) = outcome("flee_factor=1");
    assert!(
        caught_fleeing * 2 < caught_still,
        "{caught_fleeing} caught fleeing, {caught_still} not fleeing"
    );
    assert!(near_fleeing > near_still, "{near_fleeing} vs {near_still}");
}

fn predator_turns_and_catches<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    let p = lifted::<D>(params(
        "predator",
        &[
            "count=2",
            "predator_count=1",
            "flee_factor=0",
            "min_speed=0",
            "max_speed=0.001",
            "turnfactor=0",
        ],
    ));
    let (near, far) = (at::<D>(&p, 320.0, 100.0), at::<D>(&p, 320.0, 400.0));
    let state = FlockState {
        positions: vec![near, far],
        velocities: vec![VecN::<D>::ZERO; 2],
        groups: vec![0; 2],
        biases: vec![0.0; 2],
        predators: vec![Predator {
            position: at::<D>(&p, 200.0, 100.0),
            velocity: VecN::<D>::from(std::array::from_fn(|a| [0.0, 5.0, 0.0][a])),
        }],
        resting: Vec::new(),
    };
    let mut sim = Simulation::<D>::from_state(p, 0, state, 0).unwrap();
    let mut caught_at = None;
    for step in 0..200 {
        sim.step().unwrap();
        if sim.captures() > 0 {
            caught_at = Some(step);
            break;
        }
    }
    assert!(
        caught_at.is_some(),
        "{D}D: the boid at 120 was never caught"
    );
    let state = sim.state();
    // Boid 0 started again elsewhere; boid 1 (300 away, out of sight) was left alone.
    assert_ne!(state.positions[0], near);
    assert!((state.positions[1] - far).length() < 1.0, "{D}D");
}

#[test]
fn a_predator_turns_toward_the_nearest_boid_it_sees_and_catches_it() {
    predator_turns_and_catches::<2>();
    predator_turns_and_catches::<3>();
}

#[test]
fn two_predators_never_catch_the_same_boid() {
    let boids = [
        Vec2::new(0.0, 0.0),
        Vec2::new(3.0, 0.0),
        Vec2::new(50.0, 0.0),
    ];
    let ids = [0, 1, 2];
    let hunters = [
        Vec2::new(1.0, 0.0),
        Vec2::new(0.5, 0.0),
        Vec2::new(40.0, 0.0),
    ];
    // The first takes boid 0 (nearest), the second the next nearest (1), the third none.
    assert_eq!(
        captures::<2>(&hunters, 5.0, Vec2::ZERO, &boids, &ids),
        vec![0, 1]
    );
}

fn flock_seeks_its_attractor<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    let p = lifted::<D>(params(
        "cornell",
        &[
            "count=200",
            "attractors=[[600.0, 440.0]]",
            "attract_factor=0.001",
            "init_x=[0.0, 200.0]",
            "init_y=[0.0, 200.0]",
            "init_z=[0.0, 200.0]",
        ],
    ));
    let goal = at::<D>(&p, 600.0, 440.0);
    let mean_distance = |sim: &Simulation<D>| {
        let d: f32 = sim.positions().iter().map(|&q| (q - goal).length()).sum();
        d / sim.len() as f32
    };
    let mut sim = Simulation::<D>::new(p, 4).unwrap();
    let before = mean_distance(&sim);
    for _ in 0..400 {
        sim.step().unwrap();
    }
    assert!(
        mean_distance(&sim) < 0.5 * before,
        "{D}D: {} vs {before}",
        mean_distance(&sim)
    );
}

#[test]
fn a_flock_seeks_its_attractor() {
    flock_seeks_its_attractor::<2>();
    flock_seeks_its_attractor::<3>();
}

fn attractor_leads_a_couzin_group<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    // No informed individuals: only the attractor far along +y sets the group's direction.
    let p = lifted::<D>(params(
        "couzin",
        &[
            "scout_group1_fraction=0",
            "attractors=[[10.0, 10000.0]]",
            "attract_factor=0.5",
        ],
    ));
    let sim = run::<D>(&p, 1, 300);
    let heading = sim
        .velocities()
        .iter()
        .fold(VecN::<D>::ZERO, |sum, v| sum + v.normalize_or_zero())
        * (1.0 / sim.len() as f32);
    assert!(heading.to_array()[1] > 0.8, "{D}D: {heading}");
}

#[test]
fn an_attractor_leads_a_couzin_group_like_an_informed_direction() {
    attractor_leads_a_couzin_group::<2>();
    attractor_leads_a_couzin_group::<3>();
}

/// Perching in `D` dimensions: boids land below the ground line (the ground plane in 3D), rest
/// still, and take off upward.
fn perched_boids_rest_and_take_off<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    let p = lifted::<D>(params("perching", &["count=300"]));
    let ground = (p.world_y_min + p.world_height - p.perch_height) as f32;
    let mut sim = Simulation::<D>::new(p.clone(), 6).unwrap();
    let (mut landed_ever, mut took_off) = (vec![false; 300], 0);
    let mut before = sim.state();
    for _ in 0..1500 {
        sim.step().unwrap();
        let now = sim.state();
        for (id, landed) in landed_ever.iter_mut().enumerate() {
            let (was, is) = (before.resting[id], now.resting[id]);
            if is > 0 {
                *landed = true;
                assert!(
                    now.positions[id].to_array()[1] > ground,
                    "{D}D: resting boid {id} above the ground line"
                );
                assert_eq!(now.velocities[id], VecN::<D>::ZERO);
                assert!(is <= p.perch_max as u32);
                if was > 0 {
                    assert_eq!(
                        now.positions[id], before.positions[id],
                        "a resting boid moved"
                    );
                    assert_eq!(is, was - 1);
                }
            } else if was > 0 {
                took_off += 1;
                let velocity = now.velocities[id].to_array();
                assert!(velocity[1] < 0.0, "{D}D: boid {id} took off downward");
            }
        }
        before = now;
    }
    let landed = landed_ever.iter().filter(|&&l| l).count();
    assert!(landed > 30, "{D}D: only {landed} boids ever landed");
    assert!(took_off > 30, "{D}D: only {took_off} take-offs");
    assert!(Metrics::of(&sim).perched_fraction < 0.9);
}

#[test]
fn perched_boids_rest_below_the_ground_line_and_take_off_again() {
    perched_boids_rest_and_take_off::<2>();
    perched_boids_rest_and_take_off::<3>();
}

fn predators_stay_out_of_obstacles<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    let p = lifted::<D>(params(
        "pillars",
        &[
            "count=200",
            "predator_count=6",
            "predator_speed=8",
            "predator_turn_rate=0.05",
        ],
    ));
    let mut sim = Simulation::<D>::new(p.clone(), 2).unwrap();
    let obstacles = boids_core::obstacles::ObstacleIndex::<D>::of(&p);
    for _ in 0..1500 {
        sim.step().unwrap();
        for predator in sim.predators() {
            assert!(
                !obstacles.contains(predator.position),
                "{D}D: {:?}",
                predator.position
            );
        }
    }
}

#[test]
fn predators_never_end_a_step_inside_an_obstacle() {
    predators_stay_out_of_obstacles::<2>();
    predators_stay_out_of_obstacles::<3>();
}

fn predator_edits<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    let p = lifted::<D>(params("cornell", &["count=1000"]));
    let mut sim = Simulation::<D>::new(p.clone(), 3).unwrap();
    assert!(sim.predators().is_empty());
    let mut more = p.clone();
    more.predator_count = 3;
    sim.set_params(more).unwrap();
    assert_eq!(sim.predators().len(), 3);
    let spot = at::<D>(&p, 10.0, 20.0);
    sim.move_predator(1, spot).unwrap();
    assert_eq!(sim.predators()[1].position, spot);
    sim.remove_predator(0).unwrap();
    assert_eq!(sim.predators().len(), 2);
    assert_eq!(sim.params().predator_count, 2);
    assert_eq!(sim.predators()[0].position, spot);
    assert!(sim.remove_predator(5).is_err());
    let nowhere = VecN::<D>::from(std::array::from_fn(|a| [f32::NAN, 0.0, 0.0][a]));
    assert!(sim.move_predator(0, nowhere).is_err());
    sim.add_predator(spot).unwrap();
    assert_eq!(sim.predators().len(), 3);

    // Boids flee the pointer's predator as they flee the others.
    let mut pointed = Simulation::<D>::new(p.clone(), 3).unwrap();
    let mut alone = Simulation::<D>::new(p.clone(), 3).unwrap();
    let centre = at::<D>(&p, 320.0, 240.0);
    pointed.set_pointer(Some(centre)).unwrap();
    for _ in 0..30 {
        pointed.step().unwrap();
        alone.step().unwrap();
    }
    let near = |sim: &Simulation<D>| {
        sim.positions()
            .iter()
            .filter(|&&q| (q - centre).length() < 50.0)
            .count()
    };
    assert!(
        near(&pointed) < near(&alone),
        "{D}D: {} vs {}",
        near(&pointed),
        near(&alone)
    );
    pointed.set_pointer(None).unwrap();
    assert!(pointed.pointer().is_none());
}

#[test]
fn predators_follow_predator_count_and_can_be_moved_removed_and_pointed() {
    predator_edits::<2>();
    predator_edits::<3>();
}

#[test]
fn a_state_whose_predators_do_not_match_predator_count_is_refused() {
    let p = params("predator", &["count=50"]);
    let mut state = FlockState::<2>::initial(&p, 0);
    state.predators.pop();
    let error = Simulation::<2>::from_state(p.clone(), 0, state, 0).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("1 predators but predator_count = 2"),
        "{error}"
    );
    let mut bare = FlockState::<2>::initial(&p, 0);
    bare.predators.clear();
    let sim = Simulation::<2>::from_state(p, 0, bare, 0).unwrap();
    assert_eq!(
        sim.predators().len(),
        2,
        "a state without predators gets fresh ones"
    );
}
