//! Obstacles in the step: no boid ever ends a step inside one or past a wall, on every model and
//! boundary, across torus seams, in two dimensions and three; runs stay bit-identical on any
//! thread count; and steering turns boids before they reach an obstacle.

mod common;

use boids_core::obstacles::{Obstacle, Shape};
use boids_core::{Coordinates, Dim, Dimension, Metrics, Params, Simulation, Vec2, Vec3, VecN};
use common::params;

/// The obstacles of the crowded world: in 2D a circle and a rectangle that straddle the torus
/// seams and a wall across the middle; in 3D a sphere and a box straddling the seams and a box
/// standing where the wall is.
fn crowded_obstacles(dimensions: usize) -> Vec<Obstacle> {
    match dimensions {
        2 => [
            Shape::Ball {
                center: Vec2::new(2.0, 50.0),
                radius: 9.0,
            },
            Shape::AlignedBox {
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
        ]
        .map(Obstacle::Plane)
        .to_vec(),
        _ => [
            Shape::Ball {
                center: Vec3::new(2.0, 50.0, 98.0),
                radius: 9.0,
            },
            Shape::AlignedBox {
                min: Vec3::new(70.0, -5.0, 20.0),
                max: Vec3::new(85.0, 10.0, 60.0),
            },
            Shape::AlignedBox {
                min: Vec3::new(64.0, 20.0, 0.0),
                max: Vec3::new(66.0, 80.0, 100.0),
            },
        ]
        .map(Obstacle::Space)
        .to_vec(),
    }
}

/// A dense, fast flock of `D` dimensions aimed at obstacles ([`crowded_obstacles`]).
fn crowded<const D: usize>(preset: &str, boundary: &str, extra: &[&str]) -> Params {
    let mut sets = vec![
        "count=500",
        "world_x_min=0",
        "world_y_min=0",
        "world_z_min=0",
        "world_width=100",
        "world_height=100",
        "world_depth=100",
        "init_x=[20, 60]",
        "init_y=[20, 80]",
        "init_z=[20, 80]",
        "init_vx=[-3, 3]",
        "init_vy=[-3, 3]",
        "init_vz=[-3, 3]",
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
    let dimensions = format!("dimensions={D}");
    sets.push(&boundary);
    sets.push(&dimensions);
    sets.extend_from_slice(extra);
    let mut p = params(preset, &sets);
    p.obstacles = crowded_obstacles(D);
    p.validate().unwrap();
    p
}

/// The world's shifts a copy of an obstacle may have: every neighbour across the seams of a
/// torus, none otherwise.
fn shifts<const D: usize>(params: &Params) -> Vec<VecN<D>>
where
    Dim<D>: Dimension<D>,
{
    if !params.is_torus() {
        return vec![VecN::<D>::ZERO];
    }
    let size = params.world_box::<D>().1;
    (0..3usize.pow(D as u32))
        .map(|k| {
            let shift: [f32; D] =
                std::array::from_fn(|a| ((k / 3usize.pow(a as u32)) % 3) as f32 - 1.0);
            VecN::<D>::from(std::array::from_fn(|a| shift[a] * size[a]))
        })
        .collect()
}

/// Whether a boid at `p` is inside an obstacle or a copy of one across the seams of a torus
/// (each copy the obstacle moved by the world's size, as the step's index holds it: shifting
/// the point instead would round differently, a hair from the surface).
fn inside_any<const D: usize>(params: &Params, p: VecN<D>) -> bool
where
    Dim<D>: Dimension<D>,
{
    let shifts = shifts::<D>(params);
    params
        .obstacles
        .iter()
        .filter_map(Obstacle::shape::<D>)
        .any(|s| shifts.iter().any(|&shift| s.translated(shift).contains(p)))
}

/// Whether the straight move `from -> to` crosses a wall (or a copy of one).
fn crosses_a_wall<const D: usize>(params: &Params, from: VecN<D>, to: VecN<D>) -> bool
where
    Dim<D>: Dimension<D>,
{
    let d = boids_core::space::minimum_image(to - from, params.periods::<D>().into());
    let shifts = shifts::<D>(params);
    params
        .obstacles
        .iter()
        .filter_map(Obstacle::shape::<D>)
        .any(|s| {
            matches!(s, Shape::Wall { .. })
                && shifts.iter().any(|&shift| {
                    s.translated(shift)
                        .first_hit(from, from + d)
                        .is_some_and(|h| h.t < 1.0)
                })
        })
}

/// Steps a crowded flock of `D` dimensions 200 times on every model and boundary, checking
/// every boid after every step; returns the boid-steps checked.
fn never_inside<const D: usize>() -> usize
where
    Dim<D>: Dimension<D>,
{
    let mut boid_steps = 0;
    for preset in ["cornell", "vicsek", "couzin"] {
        for boundary in ["torus", "margins"] {
            let params = crowded::<D>(preset, boundary, &[]);
            let mut sim = Simulation::<D>::new(params.clone(), 7).unwrap();
            for _ in 0..200 {
                let before = sim.state();
                sim.step().unwrap();
                let after = sim.state();
                for (id, (&from, &to)) in before.positions.iter().zip(&after.positions).enumerate()
                {
                    assert!(
                        !inside_any::<D>(&params, to),
                        "{D}D {preset} {boundary}: boid {id} inside an obstacle at {to} after step {}",
                        sim.step_count()
                    );
                    assert!(
                        !crosses_a_wall::<D>(&params, from, to),
                        "{preset} {boundary}: boid {id} crossed a wall {from} -> {to}"
                    );
                }
                boid_steps += after.len();
            }
            let metrics = Metrics::measure(&params, &sim.state());
            assert_eq!(metrics.obstacle_penetrations, 0);
        }
    }
    boid_steps
}

#[test]
fn no_boid_ever_ends_a_step_inside_an_obstacle_or_past_a_wall() {
    let boid_steps = never_inside::<2>();
    assert!(boid_steps >= 100_000, "{boid_steps}");
}

#[test]
fn no_boid_ever_ends_a_step_inside_a_sphere_or_a_box() {
    let boid_steps = never_inside::<3>();
    assert!(boid_steps >= 100_000, "{boid_steps}");
}

/// A flock of `D` dimensions among obstacles runs the same on one and two threads.
fn bit_identical_on_any_thread_count<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    for preset in ["cornell", "couzin"] {
        let params = crowded::<D>(preset, "torus", &[]);
        let run = |threads: usize| {
            common::on_threads(threads, || {
                let mut sim = Simulation::<D>::new(params.clone(), 3).unwrap();
                for _ in 0..60 {
                    sim.step().unwrap();
                }
                sim.state()
            })
        };
        assert_eq!(run(1), run(2), "{D}D {preset}");
    }
}

#[test]
fn obstacles_keep_runs_bit_identical_on_any_thread_count() {
    bit_identical_on_any_thread_count::<2>();
    bit_identical_on_any_thread_count::<3>();
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
        p.obstacles = vec![Obstacle::Plane(Shape::Ball {
            center: Vec2::new(150.0, 240.0),
            radius: 30.0,
        })];
        let mut sim = Simulation::<2>::new(p, 1).unwrap();
        let mut close = [false; 200];
        for _ in 0..80 {
            sim.step().unwrap();
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
    let params = crowded::<2>("cornell", "torus", &[]);
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

/// A ball of radius 15 in the middle of the flock's start region.
fn ball_on_the_flock(dimensions: usize) -> Obstacle {
    match dimensions {
        2 => Obstacle::Plane(Shape::Ball {
            center: Vec2::new(40.0, 50.0),
            radius: 15.0,
        }),
        _ => Obstacle::Space(Shape::Ball {
            center: Vec3::new(40.0, 50.0, 50.0),
            radius: 15.0,
        }),
    }
}

fn placed_obstacles_push_boids_out<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    let mut params = crowded::<D>("cornell", "torus", &[]);
    let obstacles = std::mem::take(&mut params.obstacles);
    let mut sim = Simulation::<D>::new(params.clone(), 5).unwrap();
    sim.step().unwrap();
    params.obstacles = obstacles;
    params.obstacles.push(ball_on_the_flock(D));
    let inside = |sim: &Simulation<D>| {
        let positions = sim.state().positions;
        positions
            .iter()
            .filter(|&&p| inside_any::<D>(&params, p))
            .count()
    };
    let covered = Simulation::<D>::new(crowded::<D>("cornell", "torus", &[]), 5)
        .unwrap()
        .state()
        .positions
        .iter()
        .filter(|&&p| {
            let ball = ball_on_the_flock(D).shape::<D>().unwrap();
            ball.contains(p)
        })
        .count();
    assert!(
        covered > 10,
        "{D}D: the ball covers {covered} boids of a fresh flock"
    );
    sim.set_params(params.clone()).unwrap();
    assert_eq!(inside(&sim), 0, "{D}D");
    sim.step().unwrap();
    assert_eq!(inside(&sim), 0, "{D}D");
}

#[test]
fn obstacles_placed_on_a_running_flock_push_its_boids_out() {
    placed_obstacles_push_boids_out::<2>();
    placed_obstacles_push_boids_out::<3>();
}

#[test]
fn a_3d_state_with_a_boid_inside_a_sphere_is_refused_by_position() {
    let params = crowded::<3>("cornell", "torus", &[]);
    let mut state = Simulation::<3>::new(params.clone(), 1).unwrap().state();
    state.positions[17] = Vec3::new(98.0, 50.0, 97.0);
    let Err(err) = Simulation::<3>::from_state(params, 1, state, 0) else {
        panic!("a boid inside a sphere was accepted");
    };
    let err = err.to_string();
    assert!(
        err.contains("boid 17 at (98, 50, 97)") && err.contains("inside obstacle 1 (sphere)"),
        "{err}"
    );
}

#[test]
fn boxes_covering_a_3d_start_region_leave_no_free_space() {
    let mut params = crowded::<3>("cornell", "margins", &[]);
    params.obstacles.push(Obstacle::Space(Shape::AlignedBox {
        min: Vec3::new(19.0, 19.0, 19.0),
        max: Vec3::new(61.0, 81.0, 81.0),
    }));
    let err = params.validate().unwrap_err().to_string();
    assert!(
        err.contains("no free space") && err.contains("z in [20, 80]"),
        "{err}"
    );
}

/// A start region two worlds beyond a torus's edge: the boids are stored wrapped, so that is
/// where they must be outside the obstacles (there, no copy of an obstacle is near the point
/// drawn).
#[test]
fn a_start_region_beyond_the_torus_edge_is_checked_where_boids_are_stored() {
    let mut params = crowded::<2>("cornell", "torus", &["init_x=[200, 260]"]);
    params.obstacles.push(Obstacle::Plane(Shape::Ball {
        center: Vec2::new(40.0, 50.0),
        radius: 15.0,
    }));
    let mut sim = Simulation::<2>::new(params.clone(), 3).unwrap();
    let all_outside = |sim: &Simulation| {
        let params = sim.params();
        sim.state()
            .positions
            .iter()
            .all(|&p| !inside_any::<2>(params, p))
    };
    assert!(all_outside(&sim));
    params.count = 900;
    sim.set_params(params.clone()).unwrap();
    assert!(all_outside(&sim));

    params.obstacles.push(Obstacle::Plane(Shape::AlignedBox {
        min: Vec2::new(-1.0, -1.0),
        max: Vec2::new(61.0, 101.0),
    }));
    let err = params.validate().unwrap_err().to_string();
    assert!(err.contains("no free space"), "{err}");
}
