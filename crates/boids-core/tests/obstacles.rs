//! Obstacles in the step: no boid ever ends a step inside one or past a wall, on every model and
//! boundary, across torus seams; runs stay bit-identical on any thread count; and steering turns
//! boids before they reach an obstacle.

mod common;

use boids_core::world::Shape;
use boids_core::{Metrics, Params, Simulation, Vec2};
use common::params;

/// A dense, fast flock aimed at a circle and a rectangle that straddle the torus seams and a wall
/// across the middle.
fn crowded(preset: &str, boundary: &str, extra: &[&str]) -> Params {
    let mut sets = vec![
        "count=500",
        "world_x_min=0",
        "world_y_min=0",
        "world_width=100",
        "world_height=100",
        "init_x=[20, 60]",
        "init_y=[20, 80]",
        "init_vx=[-3, 3]",
        "init_vy=[-3, 3]",
        "visual_range=6",
        "protected_range=1",
        "dt=1",
        "speed=2.5",
        "min_speed=0",
        "max_speed=3",
        "margin=0",
        "turnfactor=0",
        "scout_group1_fraction=0.5",
        "bias=0.2",
        "informed_weight=2",
        "obstacle_lookahead=4",
        "obstacle_avoid_factor=0.3",
    ];
    let boundary = format!("boundary={boundary}");
    sets.push(&boundary);
    sets.extend_from_slice(extra);
    let mut p = params(preset, &sets);
    p.obstacles = vec![
        Shape::Circle {
            center: Vec2::new(2.0, 50.0),
            radius: 9.0,
        },
        Shape::Rect {
            min: Vec2::new(70.0, -5.0),
            max: Vec2::new(85.0, 10.0),
        },
        Shape::Wall {
            points: vec![
                Vec2::new(65.0, 20.0),
                Vec2::new(65.0, 80.0),
                Vec2::new(90.0, 85.0),
            ],
        },
    ];
    p.validate().unwrap();
    p
}

/// Every copy of the obstacles a boid at `p` could be inside, across the seams of a torus.
fn inside_any(params: &Params, p: Vec2) -> bool {
    let size = Vec2::new(params.world_width as f32, params.world_height as f32);
    let shifts: Vec<Vec2> = if params.is_torus() {
        (-1..=1)
            .flat_map(|i| (-1..=1).map(move |j| Vec2::new(i as f32, j as f32) * size))
            .collect()
    } else {
        vec![Vec2::ZERO]
    };
    params
        .obstacles
        .iter()
        .any(|s| shifts.iter().any(|&shift| s.contains(p - shift)))
}

/// Whether the straight move `from -> to` crosses a wall (or a copy of one).
fn crosses_a_wall(params: &Params, from: Vec2, to: Vec2) -> bool {
    let size = Vec2::new(params.world_width as f32, params.world_height as f32);
    let mut d = to - from;
    if params.is_torus() {
        d -= size * (d / size).round();
    }
    params.obstacles.iter().any(|s| {
        matches!(s, Shape::Wall { .. })
            && [-1.0f32, 0.0, 1.0].iter().any(|&i| {
                [-1.0f32, 0.0, 1.0].iter().any(|&j| {
                    let shift = Vec2::new(i, j) * size * f32::from(u8::from(params.is_torus()));
                    s.translated(shift)
                        .first_hit(from, from + d)
                        .is_some_and(|h| h.t < 1.0)
                })
            })
    })
}

#[test]
fn no_boid_ever_ends_a_step_inside_an_obstacle_or_past_a_wall() {
    let mut boid_steps = 0;
    for preset in ["cornell", "vicsek", "couzin"] {
        for boundary in ["torus", "margins"] {
            let params = crowded(preset, boundary, &[]);
            let mut sim = Simulation::<2>::new(params.clone(), 7).unwrap();
            for _ in 0..200 {
                let before = sim.state();
                sim.step();
                let after = sim.state();
                for (id, (&from, &to)) in before.positions.iter().zip(&after.positions).enumerate()
                {
                    assert!(
                        !inside_any(&params, to),
                        "{preset} {boundary}: boid {id} inside an obstacle at {to} after step {}",
                        sim.step_count()
                    );
                    assert!(
                        !crosses_a_wall(&params, from, to),
                        "{preset} {boundary}: boid {id} crossed a wall {from} -> {to}"
                    );
                }
                boid_steps += after.len();
            }
            let metrics = Metrics::measure(&params, &sim.state());
            assert_eq!(metrics.obstacle_penetrations, 0);
        }
    }
    assert!(boid_steps >= 100_000, "{boid_steps}");
}

#[test]
fn obstacles_keep_runs_bit_identical_on_any_thread_count() {
    for preset in ["cornell", "couzin"] {
        let params = crowded(preset, "torus", &[]);
        let run = |threads: usize| {
            common::on_threads(threads, || {
                let mut sim = Simulation::<2>::new(params.clone(), 3).unwrap();
                for _ in 0..60 {
                    sim.step();
                }
                sim.state()
            })
        };
        assert_eq!(run(1), run(2), "{preset}");
    }
}

/// Boids flying at a circle: with steering, a third as many or fewer ever come within a unit of
/// it, and most get past.
#[test]
fn steering_turns_boids_before_they_reach_an_obstacle() {
    let close_share = |avoid: &str| {
        let mut p = params(
            "cornell",
            &[
                "count=200",
                "boundary=margins",
                "margin=0",
                "turnfactor=0",
                "scout_group1_fraction=0",
                "scout_group2_fraction=0",
                "centering_factor=0",
                "matching_factor=0",
                "avoid_factor=0",
                "init_x=[0, 10]",
                "init_y=[200, 280]",
                "init_vx=[4, 4]",
                "init_vy=[0, 0]",
                "obstacle_lookahead=60",
                avoid,
            ],
        );
        p.obstacles = vec![Shape::Circle {
            center: Vec2::new(150.0, 240.0),
            radius: 30.0,
        }];
        let mut sim = Simulation::<2>::new(p, 1).unwrap();
        let mut close = [false; 200];
        for _ in 0..80 {
            sim.step();
            for (id, pos) in sim.state().positions.iter().enumerate() {
                close[id] |= pos.distance(Vec2::new(150.0, 240.0)) < 31.0;
            }
        }
        let past = sim.state().positions.iter().filter(|p| p.x > 180.0).count();
        (close.iter().filter(|&&c| c).count(), past)
    };
    let (close_without, _) = close_share("obstacle_avoid_factor=0");
    let (close_with, past_with) = close_share("obstacle_avoid_factor=1");
    assert!(close_without > 60, "{close_without}");
    assert!(
        close_with * 3 < close_without,
        "{close_with} vs {close_without}"
    );
    assert!(past_with > 150, "{past_with} of 200 got past the circle");
}

#[test]
fn a_state_with_a_boid_inside_an_obstacle_is_refused() {
    let params = crowded("cornell", "torus", &[]);
    let mut state = Simulation::<2>::new(params.clone(), 1).unwrap().state();
    state.positions[17] = Vec2::new(98.0, 50.0);
    let Err(err) = Simulation::<2>::from_state(params, 1, state, 0) else {
        panic!("a boid inside an obstacle was accepted");
    };
    let err = err.to_string();
    assert!(
        err.contains("boid 17") && err.contains("inside obstacle 1 (circle)"),
        "{err}"
    );
}

#[test]
fn obstacles_placed_on_a_running_flock_push_its_boids_out() {
    let mut params = crowded("cornell", "torus", &[]);
    let obstacles = std::mem::take(&mut params.obstacles);
    let mut sim = Simulation::<2>::new(params.clone(), 5).unwrap();
    sim.step();
    params.obstacles = obstacles;
    params.obstacles.push(Shape::Circle {
        center: Vec2::new(40.0, 50.0),
        radius: 15.0,
    });
    sim.set_params(params.clone()).unwrap();
    assert!(
        sim.state()
            .positions
            .iter()
            .all(|&p| !inside_any(&params, p))
    );
    sim.step();
    assert!(
        sim.state()
            .positions
            .iter()
            .all(|&p| !inside_any(&params, p))
    );
}

/// A start region two worlds beyond a torus's edge: the boids are stored wrapped, so that is
/// where they must be outside the obstacles (there, no copy of an obstacle is near the point
/// drawn).
#[test]
fn a_start_region_beyond_the_torus_edge_is_checked_where_boids_are_stored() {
    let mut params = crowded("cornell", "torus", &["init_x=[200, 260]"]);
    params.obstacles.push(Shape::Circle {
        center: Vec2::new(40.0, 50.0),
        radius: 15.0,
    });
    let mut sim = Simulation::<2>::new(params.clone(), 3).unwrap();
    let all_outside = |sim: &Simulation| {
        let params = sim.params();
        sim.state()
            .positions
            .iter()
            .all(|&p| !inside_any(params, p))
    };
    assert!(all_outside(&sim));
    params.count = 900;
    sim.set_params(params.clone()).unwrap();
    assert!(all_outside(&sim));

    params.obstacles.push(Shape::Rect {
        min: Vec2::new(-1.0, -1.0),
        max: Vec2::new(61.0, 101.0),
    });
    let err = params.validate().unwrap_err().to_string();
    assert!(err.contains("no free space"), "{err}");
}
