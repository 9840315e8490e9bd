//! A force given from outside the model (`Simulation::step_with_force`): added where the
//! world's pull is, before the speed limits; by boid id, so bit-identical on any thread count;
//! refused, leaving the flock as it was, when it does not fit the flock.

use boids_core::{Coordinates, Dim, Dimension, FlockState, Simulation, StateError, VecN};

mod common;
use common::params;

/// One boid of the cornell preset at the world's centre (no neighbour, no margin), moving
/// along +x at 4 px a frame, in `D` dimensions.
fn lone_boid<const D: usize>() -> Simulation<D>
where
    Dim<D>: Dimension<D>,
{
    let dimensions = format!("dimensions={D}");
    let p = params("cornell", &["count=1", &dimensions]);
    let centre: [f32; D] = std::array::from_fn(|a| [320.0, 240.0, 240.0][a]);
    let velocity: [f32; D] = std::array::from_fn(|a| if a == 0 { 4.0 } else { 0.0 });
    let state = FlockState::<D> {
        positions: vec![VecN::<D>::from(centre)],
        velocities: vec![VecN::<D>::from(velocity)],
        groups: vec![0],
        biases: vec![0.0],
        ..FlockState::default()
    };
    Simulation::from_state(p, 0, state, 0).unwrap()
}

fn a_force_adds_before_the_speed_limits<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    let push = |dv: f32| std::array::from_fn(|a| if a == D - 1 { dv } else { 0.0 });
    // Along the last axis: 4 px a frame along x and 0.5 across, within the limits [3, 6].
    let mut sim = lone_boid::<D>();
    sim.step_with_force(&[push(0.5)]).unwrap();
    let mut expected = push(0.5);
    expected[0] = 4.0;
    assert_eq!(sim.velocities()[0].to_array(), expected);
    // A push of 30 across makes a speed above 6: the max speed clamps it, direction kept.
    let mut sim = lone_boid::<D>();
    sim.step_with_force(&[push(30.0)]).unwrap();
    let v = sim.velocities()[0];
    assert!((v.length() - 6.0).abs() < 1e-5, "{v}");
    let expected_across = 30.0 * 6.0 / (16.0f32 + 900.0).sqrt();
    assert!((v.to_array()[D - 1] - expected_across).abs() < 1e-4, "{v}");
    assert_eq!(sim.step_count(), 1);
}

#[test]
fn a_force_adds_before_the_speed_limits_in_2d() {
    a_force_adds_before_the_speed_limits::<2>();
}

#[test]
fn a_force_adds_before_the_speed_limits_in_3d() {
    a_force_adds_before_the_speed_limits::<3>();
}

/// A force that depends on the boid's id only, run for `steps` on `threads` threads.
fn forced_run(preset: &str, sets: &[&str], threads: usize, steps: usize) -> Vec<u32> {
    let p = params(preset, sets);
    common::on_threads(threads, || {
        let mut sim = Simulation::<2>::new(p, 3).unwrap();
        let force: Vec<[f32; 2]> = (0..sim.len())
            .map(|id| [(id % 7) as f32 * 0.01, -((id % 5) as f32) * 0.01])
            .collect();
        for _ in 0..steps {
            sim.step_with_force(&force).unwrap();
        }
        let state = sim.state();
        state
            .positions
            .iter()
            .chain(&state.velocities)
            .flat_map(|v| v.to_array())
            .map(f32::to_bits)
            .collect()
    })
}

#[test]
fn a_force_acts_by_id_bit_identically_on_any_thread_count() {
    for (preset, sets) in [
        ("cornell", &["count=20000"][..]),
        ("vicsek", &["count=3000"][..]),
        ("predator", &[][..]),
    ] {
        let one = forced_run(preset, sets, 1, 10);
        assert_eq!(one, forced_run(preset, sets, 2, 10), "{preset}");
        let p = params(preset, sets);
        let mut free = Simulation::<2>::new(p, 3).unwrap();
        for _ in 0..10 {
            free.step().unwrap();
        }
        let free: Vec<u32> = (free.state().positions.iter())
            .flat_map(|v| v.to_array())
            .map(f32::to_bits)
            .collect();
        assert_ne!(
            one[..free.len()],
            free[..],
            "{preset}: the force changed nothing"
        );
    }
}

#[test]
fn a_force_that_does_not_fit_is_refused_and_the_flock_kept() {
    let mut sim = Simulation::<3>::new(params("vicsek", &["dimensions=3", "count=10"]), 0).unwrap();
    let before = sim.state();
    let err = sim.step_with_force(&[[0.0; 3]; 9]).unwrap_err();
    assert_eq!(
        err,
        StateError::ForceLength {
            found: 9,
            count: 10
        }
    );
    let mut force = [[0.0; 3]; 10];
    force[4][2] = f32::NAN;
    let err = sim.step_with_force(&force).unwrap_err().to_string();
    assert!(err.contains("boid 4") && err.contains("finite"), "{err}");
    assert_eq!(sim.step_count(), 0);
    assert_eq!(sim.state().positions, before.positions);
}
