//! Predators, attractors and perching in the step: what each does to the flock, and that runs
//! with them stay bit-identical on any thread count and resume exactly from a saved state.

mod common;

use boids_core::world::{Predator, captures};
use boids_core::{FlockState, Metrics, Params, Simulation, Vec2};
use common::{on_threads, params};

fn run(params: &Params, seed: u64, steps: u64) -> Simulation {
    let mut sim = Simulation::<2>::new(params.clone(), seed).unwrap();
    for _ in 0..steps {
        sim.step();
    }
    sim
}

/// Every world feature on each model: predators that catch, attractors, perching.
fn worlds() -> Vec<Params> {
    vec![
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
}

#[test]
fn world_runs_are_bit_identical_on_one_and_two_threads() {
    for p in worlds() {
        let state = |threads| on_threads(threads, || run(&p, 5, 150).state());
        let one = state(1);
        assert!(!one.predators.is_empty() || p.perch);
        assert_eq!(one, state(2), "{p:?}");
    }
}

#[test]
fn a_run_resumed_from_its_saved_state_equals_the_uninterrupted_run() {
    for p in worlds() {
        let whole = run(&p, 8, 200).state();
        let half = run(&p, 8, 100).state();
        let mut resumed = Simulation::<2>::from_state(p.clone(), 8, half, 100).unwrap();
        for _ in 0..100 {
            resumed.step();
        }
        assert_eq!(resumed.state(), whole, "{p:?}");
    }
}

#[test]
fn the_fast_path_pulls_boids_as_the_general_path_does() {
    // The fast path computes the pull lane by lane, the general path boid by boid (a blind
    // angle too narrow to hide anyone sends it there); both add it at the same point of the
    // rules, so one step agrees to the rounding of the neighbour sums.
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
    general.blind_angle = 1e-9;
    assert!(!general.uses_fast_path());
    let (fast, slow) = (run(&p, 2, 1).state(), run(&general, 2, 1).state());
    let still = run(&params("cornell", &["count=400"]), 2, 1).state();
    let mut pulled = 0;
    for ((a, b), c) in fast
        .velocities
        .iter()
        .zip(&slow.velocities)
        .zip(&still.velocities)
    {
        assert!((*a - *b).length() < 1e-4, "{a} vs {b}");
        pulled += usize::from((*a - *c).length() > 1e-3);
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
            sim.step();
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

#[test]
fn a_predator_turns_toward_the_nearest_boid_it_sees_and_catches_it() {
    let p = params(
        "predator",
        &[
            "count=2",
            "predator_count=1",
            "flee_factor=0",
            "min_speed=0",
            "max_speed=0.001",
            "turnfactor=0",
        ],
    );
    let state = FlockState {
        positions: vec![Vec2::new(320.0, 100.0), Vec2::new(320.0, 400.0)],
        velocities: vec![Vec2::ZERO; 2],
        groups: vec![0; 2],
        biases: vec![0.0; 2],
        predators: vec![Predator {
            position: Vec2::new(200.0, 100.0),
            velocity: Vec2::new(0.0, 5.0),
        }],
        resting: Vec::new(),
    };
    let mut sim = Simulation::<2>::from_state(p, 0, state, 0).unwrap();
    let mut caught_at = None;
    for step in 0..200 {
        sim.step();
        if sim.captures() > 0 {
            caught_at = Some(step);
            break;
        }
    }
    assert!(caught_at.is_some(), "the boid at 120 was never caught");
    let state = sim.state();
    // Boid 0 started again elsewhere; boid 1 (300 away, out of sight) was left alone.
    assert_ne!(state.positions[0], Vec2::new(320.0, 100.0));
    assert!((state.positions[1] - Vec2::new(320.0, 400.0)).length() < 1.0);
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

#[test]
fn a_flock_seeks_its_attractor() {
    let goal = Vec2::new(600.0, 440.0);
    let p = params(
        "cornell",
        &[
            "count=200",
            "attractors=[[600.0, 440.0]]",
            "attract_factor=0.001",
            "init_x=[0.0, 200.0]",
            "init_y=[0.0, 200.0]",
        ],
    );
    let mean_distance = |sim: &Simulation| {
        let d: f32 = sim.positions().iter().map(|&q| (q - goal).length()).sum();
        d / sim.len() as f32
    };
    let mut sim = Simulation::<2>::new(p, 4).unwrap();
    let before = mean_distance(&sim);
    for _ in 0..400 {
        sim.step();
    }
    assert!(
        mean_distance(&sim) < 0.5 * before,
        "{} vs {before}",
        mean_distance(&sim)
    );
}

#[test]
fn an_attractor_leads_a_couzin_group_like_an_informed_direction() {
    // No informed individuals: only the attractor far along +y sets the group's direction.
    let p = params(
        "couzin",
        &[
            "scout_group1_fraction=0",
            "attractors=[[10.0, 10000.0]]",
            "attract_factor=0.5",
        ],
    );
    let sim = run(&p, 1, 300);
    let heading: Vec2 =
        sim.velocities().iter().map(|v| v.normalize()).sum::<Vec2>() / sim.len() as f32;
    assert!(heading.y > 0.8, "{heading}");
}

#[test]
fn perched_boids_rest_below_the_ground_line_and_take_off_again() {
    let p = params("perching", &["count=300"]);
    let ground = (p.world_y_min + p.world_height - p.perch_height) as f32;
    let mut sim = Simulation::<2>::new(p.clone(), 6).unwrap();
    let (mut landed_ever, mut took_off) = (vec![false; 300], 0);
    let mut before = sim.state();
    for _ in 0..1500 {
        sim.step();
        let now = sim.state();
        for (id, landed) in landed_ever.iter_mut().enumerate() {
            let (was, is) = (before.resting[id], now.resting[id]);
            if is > 0 {
                *landed = true;
                assert!(
                    now.positions[id].y > ground,
                    "resting boid {id} above the ground line"
                );
                assert_eq!(now.velocities[id], Vec2::ZERO);
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
                assert!(now.velocities[id].y < 0.0, "boid {id} took off downward");
            }
        }
        before = now;
    }
    let landed = landed_ever.iter().filter(|&&l| l).count();
    assert!(landed > 30, "only {landed} boids ever landed");
    assert!(took_off > 30, "only {took_off} take-offs");
    assert!(Metrics::of(&sim).perched_fraction < 0.9);
}

#[test]
fn predators_never_end_a_step_inside_an_obstacle() {
    let p = params(
        "pillars",
        &[
            "count=200",
            "predator_count=6",
            "predator_speed=8",
            "predator_turn_rate=0.05",
        ],
    );
    let mut sim = Simulation::<2>::new(p.clone(), 2).unwrap();
    let obstacles = boids_core::world::ObstacleIndex::<2>::of(&p);
    for _ in 0..1500 {
        sim.step();
        for predator in sim.predators() {
            assert!(
                !obstacles.contains(predator.position),
                "{:?}",
                predator.position
            );
        }
    }
}

#[test]
fn predators_follow_predator_count_and_can_be_moved_removed_and_pointed() {
    let p = params("cornell", &["count=1000"]);
    let mut sim = Simulation::<2>::new(p.clone(), 3).unwrap();
    assert!(sim.predators().is_empty());
    let mut more = p.clone();
    more.predator_count = 3;
    sim.set_params(more).unwrap();
    assert_eq!(sim.predators().len(), 3);
    sim.move_predator(1, Vec2::new(10.0, 20.0)).unwrap();
    assert_eq!(sim.predators()[1].position, Vec2::new(10.0, 20.0));
    sim.remove_predator(0).unwrap();
    assert_eq!(sim.predators().len(), 2);
    assert_eq!(sim.params().predator_count, 2);
    assert_eq!(sim.predators()[0].position, Vec2::new(10.0, 20.0));
    assert!(sim.remove_predator(5).is_err());
    assert!(sim.move_predator(0, Vec2::new(f32::NAN, 0.0)).is_err());

    // Boids flee the pointer's predator as they flee the others.
    let mut pointed = Simulation::<2>::new(p.clone(), 3).unwrap();
    let mut alone = Simulation::<2>::new(p, 3).unwrap();
    pointed.set_pointer(Some(Vec2::new(320.0, 240.0))).unwrap();
    for _ in 0..30 {
        pointed.step();
        alone.step();
    }
    let near = |sim: &Simulation| {
        let centre = Vec2::new(320.0, 240.0);
        sim.positions()
            .iter()
            .filter(|&&q| (q - centre).length() < 50.0)
            .count()
    };
    assert!(
        near(&pointed) < near(&alone),
        "{} vs {}",
        near(&pointed),
        near(&alone)
    );
    pointed.set_pointer(None).unwrap();
    assert!(pointed.pointer().is_none());
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
