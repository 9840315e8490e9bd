//! Update rules against hand-worked values, and determinism of the general path, in two and
//! three dimensions.

use crate::space::turn_toward;
use glam::{Vec2, Vec3};

use super::*;
use crate::params::Boundary;
use crate::sim::Simulation;

fn preset(name: &str, edit: impl FnOnce(&mut Params)) -> Params {
    let mut p = Params::preset(name).unwrap();
    edit(&mut p);
    p.validate().unwrap();
    p
}

fn flock(points: &[(f32, f32, f32, f32)], groups: &[u8]) -> FlockState {
    FlockState {
        positions: points.iter().map(|p| Vec2::new(p.0, p.1)).collect(),
        velocities: points.iter().map(|p| Vec2::new(p.2, p.3)).collect(),
        groups: groups.to_vec(),
        biases: vec![0.0; points.len()],
        ..FlockState::default()
    }
}

fn close(a: Vec2, b: Vec2) -> bool {
    (a - b).length() < 1e-6
}

#[test]
fn vicsek_step_by_hand() {
    let p = preset("vicsek", |p| p.noise = 0.0);
    // Boid 0 heading +x and boid 1 (0.6 away) heading +y align to 45 degrees; boid 2 is alone
    // and keeps heading -x. Every speed becomes v0 = 0.03 and positions move by the new
    // velocity; boid 2 wraps across the seam at x = 0.
    let s = flock(
        &[
            (5.0, 5.0, 1.0, 0.0),
            (5.0, 5.6, 0.0, 2.0),
            (0.01, 2.0, -0.5, 0.0),
        ],
        &[0, 0, 0],
    );
    let next = super::step(&p, &Kernel::new(&p), 7, 0, &s, None).0;
    let diagonal = Vec2::new(1.0, 1.0).normalize() * 0.03;
    assert!(
        close(next.velocities[0], diagonal),
        "{}",
        next.velocities[0]
    );
    assert!(close(next.velocities[1], diagonal));
    assert!(close(next.positions[0], Vec2::new(5.0, 5.0) + diagonal));
    assert!(close(next.velocities[2], Vec2::new(-0.03, 0.0)));
    assert!(
        close(next.positions[2], Vec2::new(9.98, 2.0)),
        "{}",
        next.positions[2]
    );
}

#[test]
fn vicsek_noise_is_uniform_in_half_eta() {
    // Lone particles all heading +x: the new heading angle is exactly the noise.
    let eta = 2.0;
    let p = preset("vicsek", |p| {
        p.noise = eta;
        p.count = 2000;
        p.world_width = 1000.0;
        p.world_height = 1000.0;
    });
    let points: Vec<_> = (0..2000)
        .map(|i| ((i % 40) as f32 * 20.0, (i / 40) as f32 * 20.0, 1.0, 0.0))
        .collect();
    let next = super::step(
        &p,
        &Kernel::new(&p),
        3,
        11,
        &flock(&points, &[0; 2000]),
        None,
    )
    .0;
    let angles: Vec<f64> = next
        .velocities
        .iter()
        .map(|v| f64::from(v.y.atan2(v.x)))
        .collect();
    assert!(angles.iter().all(|a| a.abs() <= eta / 2.0 + 1e-6));
    let mean = angles.iter().sum::<f64>() / angles.len() as f64;
    let var = angles.iter().map(|a| a * a).sum::<f64>() / angles.len() as f64;
    assert!(mean.abs() < 0.05, "mean {mean}");
    // Uniform on [-1, 1]: variance 1/3.
    assert!((var - 1.0 / 3.0).abs() < 0.03, "variance {var}");
}

#[test]
fn couzin_gaussian_noise_has_its_standard_deviation() {
    let sigma = 0.3;
    let p = preset("couzin", |p| {
        p.noise = sigma;
        p.scout_group1_fraction = 0.0;
        p.turn_rate = f64::INFINITY;
    });
    let points: Vec<_> = (0..2000)
        .map(|i| ((i % 40) as f32 * 20.0, (i / 40) as f32 * 20.0, 1.0, 0.0))
        .collect();
    let next = super::step(
        &p,
        &Kernel::new(&p),
        5,
        2,
        &flock(&points, &[0; 2000]),
        None,
    )
    .0;
    let angles: Vec<f64> = next
        .velocities
        .iter()
        .map(|v| f64::from(v.y.atan2(v.x)))
        .collect();
    let sd = (angles.iter().map(|a| a * a).sum::<f64>() / angles.len() as f64).sqrt();
    assert!((sd - sigma).abs() < 0.02, "s.d. {sd}");
}

#[test]
fn couzin_step_by_hand_turn_limit_and_informed_blend() {
    let p = preset("couzin", |p| {
        p.noise = 0.0;
        p.turn_rate = 2.0;
        p.dt = 0.2;
    });
    // Boid 0 heads +x; boid 1 sits 0.5 ahead of it (repulsion: desired -x, a half turn); the
    // turn is limited to 2 * 0.2 = 0.4 rad, counter-clockwise (angle_to of an exact reversal).
    // Boid 1 heads +y with boid 0 behind it: repulsion away, +x, a right turn, limited to 0.4.
    // Boid 2, alone and informed (g = +x, omega = 0.5) heading +y, wants (0.5, 1) / |(0.5, 1)|:
    // 0.4636 rad, more than 0.4, so it turns 0.4.
    let s = flock(
        &[
            (0.0, 0.0, 1.0, 0.0),
            (0.5, 0.0, 0.0, 1.0),
            (50.0, 50.0, 0.0, 1.0),
        ],
        &[0, 0, group::RIGHT],
    );
    let next = super::step(&p, &Kernel::new(&p), 1, 0, &s, None).0;
    let angle = |v: Vec2| f64::from(v.y.atan2(v.x));
    assert!((angle(next.velocities[0]).abs() - 0.4).abs() < 1e-5);
    assert!((angle(next.velocities[1]) - (std::f64::consts::FRAC_PI_2 - 0.4)).abs() < 1e-5);
    assert!((angle(next.velocities[2]) - (std::f64::consts::FRAC_PI_2 - 0.4)).abs() < 1e-5);
    for v in &next.velocities {
        assert!((v.length() - 1.0).abs() < 1e-6);
    }
    // The move is v' dt.
    assert!(close(
        next.positions[2],
        Vec2::new(50.0, 50.0) + next.velocities[2] * 0.2
    ));
    // Without the limit the informed boid takes the blended direction exactly.
    let free = preset("couzin", |p| {
        p.noise = 0.0;
        p.turn_rate = f64::INFINITY;
    });
    let next = super::step(&free, &Kernel::new(&free), 1, 0, &s, None).0;
    assert!(close(next.velocities[2], Vec2::new(0.5, 1.0).normalize()));
}

#[test]
fn turn_toward_stops_at_the_limit_and_reaches_close_targets() {
    let to = Vec2::new(0.0, 1.0);
    assert!(close(
        turn_toward(Vec2::X, to, 0.1),
        Vec2::new(0.1f32.cos(), 0.1f32.sin())
    ));
    assert!(close(turn_toward(Vec2::X, to, 2.0), to));
    let right = Vec2::new(0.0, -1.0);
    assert!(close(
        turn_toward(Vec2::X, right, 0.1),
        Vec2::new(0.1f32.cos(), -0.1f32.sin())
    ));
}

#[test]
fn general_boids_path_matches_the_brute_force_reference() {
    // Metric neighbours and no blind angle: the same rules as the fast path, summed in another
    // order, so equal up to rounding.
    for name in ["cornell", "functional", "occoids"] {
        let p = Params::preset(name).unwrap();
        let mut state = FlockState::<2>::initial(&p, 9);
        for step in 0..5 {
            let general = super::step(&p, &Kernel::new(&p), 9, step, &state, None).0;
            let brute = crate::reference::step(&p, &state, step);
            for i in 0..state.len() {
                let scale = p.max_speed.min(1e3) as f32 + 1.0;
                assert!(
                    (general.velocities[i] - brute.velocities[i]).length() < 1e-4 * scale,
                    "{name} boid {i}"
                );
            }
            state = brute;
        }
    }
}

#[test]
fn blind_angle_hides_a_neighbour_behind_from_the_boids_rules() {
    // Boid 0 heads +x; boid 1 is behind it (27 degrees off straight behind) and fast. With a
    // tiny blind angle boid 0 sees it and matches its velocity; with a 90 degree blind angle
    // (45 degrees each side of straight behind) it does not.
    let s = flock(
        &[(300.0, 200.0, 4.0, 0.0), (290.0, 205.0, 6.0, 0.0)],
        &[0, 0],
    );
    let seeing = preset("cornell", |p| {
        p.count = 2;
        p.blind_angle = 1e-3;
        p.scout_group1_fraction = 0.0;
        p.scout_group2_fraction = 0.0;
    });
    let next = super::step(&seeing, &Kernel::new(&seeing), 0, 0, &s, None).0;
    // cohesion (-10, 5) * 0.0005 = (-0.005, 0.0025), matching (6 - 4, 0) * 0.05 = (0.1, 0).
    assert!(
        close(next.velocities[0], Vec2::new(4.095, 0.0025)),
        "{}",
        next.velocities[0]
    );
    let blind = Params {
        blind_angle: std::f64::consts::FRAC_PI_2,
        ..seeing
    };
    let next = super::step(&blind, &Kernel::new(&blind), 0, 0, &s, None).0;
    assert_eq!(next.velocities[0], Vec2::new(4.0, 0.0));
}

#[test]
fn topological_boids_average_over_the_k_nearest_at_any_distance() {
    // Boid 0 with neighbours at 100 px (beyond the visual range of 40) and 200 px: with k = 1
    // only the nearer one counts, wherever it is.
    let s = flock(
        &[
            (300.0, 200.0, 4.0, 0.0),
            (400.0, 200.0, 4.0, 2.0),
            (300.0, 400.0, 4.0, -2.0),
        ],
        &[0, 0, 0],
    );
    let p = preset("cornell", |p| {
        p.count = 3;
        p.topological_k = 1;
        p.scout_group1_fraction = 0.0;
        p.scout_group2_fraction = 0.0;
    });
    let next = super::step(&p, &Kernel::new(&p), 0, 0, &s, None).0;
    // cohesion (100, 0) * 0.0005 = (0.05, 0); matching (0, 2) * 0.05 = (0, 0.1).
    assert!(
        close(next.velocities[0], Vec2::new(4.05, 0.1)),
        "{}",
        next.velocities[0]
    );
}

#[test]
fn scout_bias_toward_any_preferred_direction() {
    // Seed 001's rule along g = +y: vy = (1 - b) vy + b; vx untouched.
    let p = preset("cornell", |p| {
        p.count = 1;
        p.preferred_angle1 = std::f64::consts::FRAC_PI_2;
        p.bias = 0.5;
    });
    let s = FlockState {
        biases: vec![0.5],
        ..flock(&[(300.0, 200.0, 3.0, 4.0)], &[group::RIGHT])
    };
    let mut sim = Simulation::<2>::from_state(p, 0, s, 0).unwrap();
    sim.step().unwrap();
    assert!(
        close(sim.velocities()[0], Vec2::new(3.0, 2.5)),
        "{}",
        sim.velocities()[0]
    );
}

fn run_in_pool<const D: usize>(threads: usize, params: &Params, steps: u64) -> FlockState<D>
where
    Dim<D>: Dimension<D>,
{
    let run = || {
        let mut sim = Simulation::<D>::new(params.clone(), 42).unwrap();
        for _ in 0..steps {
            sim.step().unwrap();
        }
        sim.state()
    };
    #[cfg(feature = "parallel")]
    {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(run)
    }
    #[cfg(not(feature = "parallel"))]
    {
        let _ = threads;
        run()
    }
}

#[test]
fn noisy_models_are_bit_identical_across_thread_counts_and_restarts() {
    let cases = [
        preset("vicsek", |p| {
            p.count = 5000;
            p.world_width = 35.0;
            p.world_height = 35.0;
            p.noise = 3.0;
        }),
        preset("couzin", |p| {
            p.count = 4200;
            p.init_x = [0.0, 130.0];
            p.init_y = [0.0, 130.0];
            p.blind_angle = 1.0;
            p.noise = 0.2;
        }),
        preset("functional", |p| {
            p.count = 4200;
            p.topological_k = 7;
            p.blind_angle = 0.8;
        }),
    ];
    for p in cases {
        same_on_any_thread_count_and_resumed::<2>(&p);
    }
}

/// 1, 2 and 3 threads give the same 3 steps of `p`, and so does stopping after 2 steps on 2
/// threads and continuing from the saved state.
fn same_on_any_thread_count_and_resumed<const D: usize>(p: &Params)
where
    Dim<D>: Dimension<D>,
{
    let one = run_in_pool::<D>(1, p, 3);
    for threads in [2, 3] {
        let other = run_in_pool::<D>(threads, p, 3);
        assert_eq!(one, other, "{D}D {:?} on {threads} threads", p.model);
    }
    let two = run_in_pool::<D>(2, p, 2);
    let mut resumed = Simulation::<D>::from_state(p.clone(), 42, two, 2).unwrap();
    resumed.step().unwrap();
    assert_eq!(resumed.state(), one, "{D}D {:?} resumed", p.model);
}

#[test]
fn vicsek_orders_without_noise_and_not_with_full_noise() {
    let quiet = preset("vicsek", |p| {
        p.count = 100;
        p.world_width = 5.0;
        p.world_height = 5.0;
        p.noise = 0.1;
    });
    let polarization = |p: &Params| {
        let mut sim = Simulation::<2>::new(p.clone(), 1).unwrap();
        for _ in 0..300 {
            sim.step().unwrap();
        }
        crate::Metrics::measure(sim.params(), &sim.state()).polarization
    };
    assert!(polarization(&quiet) > 0.95);
    let loud = Params {
        noise: std::f64::consts::TAU,
        ..quiet
    };
    assert!(polarization(&loud) < 0.35);
}

#[test]
fn walls_keep_heading_models_inside() {
    let p = preset("couzin", |p| {
        p.boundary = Boundary::Walls;
        p.wall_buffer = 3.0;
        p.avoid_factor = 0.5;
        p.count = 30;
    });
    let mut sim = Simulation::<2>::new(p, 4).unwrap();
    for _ in 0..500 {
        sim.step().unwrap();
    }
    for q in sim.positions() {
        assert!(
            q.x >= 0.0 && q.x <= 20.0 && q.y >= 0.0 && q.y <= 20.0,
            "{q}"
        );
    }
}

// Three dimensions.

fn flock3(points: &[([f32; 3], [f32; 3])], groups: &[u8]) -> FlockState<3> {
    FlockState {
        positions: points.iter().map(|p| Vec3::from(p.0)).collect(),
        velocities: points.iter().map(|p| Vec3::from(p.1)).collect(),
        groups: groups.to_vec(),
        biases: vec![0.0; points.len()],
        ..FlockState::default()
    }
}

fn close3(a: Vec3, b: Vec3) -> bool {
    (a - b).length() < 1e-6
}

fn preset3(name: &str, edit: impl FnOnce(&mut Params)) -> Params {
    preset(name, |p| {
        p.dimensions = 3;
        p.world_depth = p.world_height;
        p.init_z = p.init_y;
        p.init_vz = p.init_vy;
        edit(p);
    })
}

/// `n` boids heading along `heading`, 20 apart on a grid: none sees another.
fn lone_boids(n: usize, heading: Vec3) -> FlockState<3> {
    let points: Vec<_> = (0..n)
        .map(|i| {
            let at = [(i % 10) as f32, (i / 10 % 10) as f32, (i / 100) as f32];
            (at.map(|c| 20.0 * c), heading.to_array())
        })
        .collect();
    flock3(&points, &vec![0; n])
}

#[test]
fn vicsek_3d_step_by_hand() {
    let p = preset3("vicsek", |p| p.noise = 0.0);
    // Boid 0 heading +x and boid 1 (0.6 away along z) heading +z align to the mean heading
    // (1, 0, 1) / sqrt 2; boid 2, alone, keeps heading -z and wraps across the z = 0 seam.
    let s = flock3(
        &[
            ([5.0, 5.0, 5.0], [1.0, 0.0, 0.0]),
            ([5.0, 5.0, 5.6], [0.0, 0.0, 2.0]),
            ([2.0, 8.0, 0.01], [0.0, 0.0, -0.5]),
        ],
        &[0, 0, 0],
    );
    let next = super::step(&p, &Kernel::<3>::new(&p), 7, 0, &s, None).0;
    let diagonal = Vec3::new(1.0, 0.0, 1.0).normalize() * 0.03;
    assert!(
        close3(next.velocities[0], diagonal),
        "{}",
        next.velocities[0]
    );
    assert!(close3(next.velocities[1], diagonal));
    assert!(close3(
        next.positions[0],
        Vec3::new(5.0, 5.0, 5.0) + diagonal
    ));
    assert!(close3(next.velocities[2], Vec3::new(0.0, 0.0, -0.03)));
    assert!(
        close3(next.positions[2], Vec3::new(2.0, 8.0, 9.98)),
        "{}",
        next.positions[2]
    );
}

#[test]
fn vicsek_3d_noise_is_uniform_on_the_cap_of_half_eta() {
    // Lone particles heading along a tilted direction: the new heading is the noise's turn of
    // it, within the cap of half-angle eta / 2 = 1 rad, uniform by solid angle: cos of the
    // polar angle uniform in [cos 1, 1], every azimuth alike.
    let eta = 2.0;
    let n = 4000;
    let p = preset3("vicsek", |p| {
        p.noise = eta;
        p.count = n;
        p.world_width = 1000.0;
        p.world_height = 1000.0;
        p.world_depth = 1000.0;
    });
    let axis = Vec3::new(1.0, 2.0, -0.5).normalize();
    let next = super::step(&p, &Kernel::<3>::new(&p), 3, 11, &lone_boids(n, axis), None).0;
    let (across, across_too) = axis.any_orthonormal_pair();
    let mut cosines = Vec::new();
    let mut quadrants = [0usize; 4];
    for v in &next.velocities {
        let u = v.normalize();
        assert!((v.length() - 0.03).abs() < 1e-6);
        let cos = f64::from(u.dot(axis));
        assert!(cos >= (eta / 2.0).cos() - 1e-6, "outside the cap: {u}");
        cosines.push(cos);
        let azimuth = u.dot(across_too).atan2(u.dot(across));
        quadrants[((azimuth + std::f32::consts::PI) / std::f32::consts::FRAC_PI_2) as usize % 4] +=
            1;
    }
    let low = (eta / 2.0).cos();
    let mean = cosines.iter().sum::<f64>() / n as f64;
    let var = cosines.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / n as f64;
    assert!((mean - (1.0 + low) / 2.0).abs() < 0.01, "mean cos {mean}");
    assert!(
        (var - (1.0 - low).powi(2) / 12.0).abs() < 0.004,
        "variance of cos {var}"
    );
    // Covered up to its rim: some draws within 0.02 of the cap's edge, some near the centre.
    assert!(cosines.iter().any(|&c| c < low + 0.01));
    assert!(cosines.iter().any(|&c| c > 1.0 - 0.01));
    for q in quadrants {
        assert!(
            (q as f64 / n as f64 - 0.25).abs() < 0.03,
            "azimuths {quadrants:?}"
        );
    }
}

#[test]
fn full_noise_in_3d_covers_the_sphere() {
    // eta = 2 pi: the cap is the whole sphere, so the new headings average to about zero.
    let n = 4000;
    let p = preset3("vicsek", |p| {
        p.noise = std::f64::consts::TAU;
        p.count = n;
        p.world_width = 1000.0;
        p.world_height = 1000.0;
        p.world_depth = 1000.0;
    });
    let next = super::step(
        &p,
        &Kernel::<3>::new(&p),
        5,
        1,
        &lone_boids(n, Vec3::X),
        None,
    )
    .0;
    let mean = next.velocities.iter().map(|v| v.normalize()).sum::<Vec3>() / n as f32;
    assert!(mean.length() < 0.05, "{mean}");
    assert!(
        next.velocities.iter().any(|v| v.x < -0.029),
        "some turn right round"
    );
}

#[test]
fn couzin_3d_gaussian_noise_has_its_standard_deviation_across_the_heading() {
    // The spherically wrapped Gaussian: the turn's offset across the heading is normal with
    // standard deviation sigma along each of the two axes across it.
    let sigma = 0.2;
    let n = 4000;
    let p = preset3("couzin", |p| {
        p.noise = sigma;
        p.count = n;
        p.scout_group1_fraction = 0.0;
        p.turn_rate = f64::INFINITY;
    });
    let next = super::step(
        &p,
        &Kernel::<3>::new(&p),
        5,
        2,
        &lone_boids(n, Vec3::X),
        None,
    )
    .0;
    let sd = |axis: fn(&Vec3) -> f32| {
        let angles = next
            .velocities
            .iter()
            .map(|v| f64::from(axis(v).atan2(v.x)));
        (angles.map(|a| a * a).sum::<f64>() / n as f64).sqrt()
    };
    assert!(
        (sd(|v| v.y) - sigma).abs() < 0.01,
        "s.d. along y {}",
        sd(|v| v.y)
    );
    assert!(
        (sd(|v| v.z) - sigma).abs() < 0.01,
        "s.d. along z {}",
        sd(|v| v.z)
    );
}

#[test]
fn couzin_3d_zones_by_hand() {
    let p = preset3("couzin", |_| {});
    let k = Kernel::<3>::new(&p);
    let social = |s: &FlockState<3>, i| {
        let hood = Neighborhood::<3>::new(&p, &s.positions, &s.velocities);
        couzin::social_direction(&p, &k, &hood, i, &mut ScanCounts::default())
    };
    // Repulsion first: boid 1 within alpha = 1 (straight above, along z) pushes boid 0 down,
    // whatever boid 2 within rho does.
    let s = flock3(
        &[
            ([0.0; 3], [1.0, 0.0, 0.0]),
            ([0.0, 0.0, 0.8], [1.0, 0.0, 0.0]),
            ([0.0, 3.0, 0.0], [0.0, 1.0, 0.0]),
        ],
        &[0; 3],
    );
    assert!(close3(social(&s, 0), Vec3::new(0.0, 0.0, -1.0)));
    // Orientation and attraction within rho = 6 on the 3D distance: boid 1 at (0, 0, 3)
    // heading +z and boid 2 at (2, 2, 1) heading -y; boid 3 at (0, 0, 6.5) is beyond rho.
    // Attraction (0, 0, 1) + (2, 2, 1) / 3; orientation (self included) (1, 0, 0) + (0, 0, 1)
    // + (0, -1, 0); in all (2, 2, 1) / 3 + (1, -1, 2).
    let s = flock3(
        &[
            ([0.0; 3], [1.0, 0.0, 0.0]),
            ([0.0, 0.0, 3.0], [0.0, 0.0, 1.0]),
            ([2.0, 2.0, 1.0], [0.0, -1.0, 0.0]),
            ([0.0, 0.0, 6.5], [0.0, 1.0, 0.0]),
        ],
        &[0; 4],
    );
    let want = Vec3::new(2.0, 2.0, 1.0) / 3.0 + Vec3::new(1.0, -1.0, 2.0);
    assert!(close3(social(&s, 0), want), "{}", social(&s, 0));
}

#[test]
fn couzin_3d_turning_rate_and_informed_direction_by_hand() {
    let p = preset3("couzin", |p| {
        p.noise = 0.0;
        p.turn_rate = 2.0;
        p.dt = 0.2;
        p.preferred_elevation1 = std::f64::consts::FRAC_PI_2;
        p.informed_weight = 1.0;
    });
    // Boid 0 heads +x with boid 1 straight ahead within alpha: it wants -x, a half turn; the
    // turn is limited to 0.4 rad, about a fixed axis across +x. Boid 2, alone and informed with
    // g = +z (elevation pi/2), heads +y: it wants (0, 1, 1) / sqrt 2, 45 degrees away, and
    // turns 0.4 rad toward it in the y-z plane.
    let s = flock3(
        &[
            ([0.0; 3], [1.0, 0.0, 0.0]),
            ([0.5, 0.0, 0.0], [0.0, 0.0, 1.0]),
            ([50.0, 50.0, 50.0], [0.0, 1.0, 0.0]),
        ],
        &[0, 0, group::RIGHT],
    );
    let next = super::step(&p, &Kernel::<3>::new(&p), 1, 0, &s, None).0;
    let v0 = next.velocities[0];
    assert!(
        (f64::from(v0.angle_between(Vec3::X)) - 0.4).abs() < 1e-5,
        "{v0}"
    );
    let (sin, cos) = 0.4f32.sin_cos();
    assert!(
        close3(next.velocities[2], Vec3::new(0.0, cos, sin)),
        "{}",
        next.velocities[2]
    );
    for v in &next.velocities {
        assert!((v.length() - 1.0).abs() < 1e-6);
    }
    // Without the limit the informed boid takes the blended direction exactly.
    let free = Params {
        turn_rate: f64::INFINITY,
        ..p
    };
    let next = super::step(&free, &Kernel::<3>::new(&free), 1, 0, &s, None).0;
    assert!(close3(
        next.velocities[2],
        Vec3::new(0.0, 1.0, 1.0).normalize()
    ));
}

#[test]
fn turn_toward_in_3d_stays_in_the_plane_and_stops_at_the_limit() {
    let turn = <Dim<3> as Dimension<3>>::turn_toward;
    let from = Vec3::new(1.0, 1.0, 0.0).normalize();
    let to = Vec3::new(0.0, 0.0, 1.0);
    let got = turn(from, to, 0.3);
    assert!((got.angle_between(from) - 0.3).abs() < 1e-6);
    assert!((got.angle_between(to) - (std::f32::consts::FRAC_PI_2 - 0.3)).abs() < 1e-6);
    assert!(
        got.dot(from.cross(to)).abs() < 1e-6,
        "in the plane of from and to"
    );
    assert_eq!(turn(from, to, 2.0), to, "close enough: the target itself");
    // Exactly behind: a fixed perpendicular, the same every time.
    let back = turn(Vec3::X, -Vec3::X, 0.3);
    assert!((back.angle_between(Vec3::X) - 0.3).abs() < 1e-6, "{back}");
    assert_eq!(back, turn(Vec3::X, -Vec3::X, 0.3));
}

#[test]
fn blind_cone_hides_a_neighbour_behind_from_the_boids_rules_in_3d() {
    // Boid 0 heads +x; boid 1 is behind it, 27 degrees off straight behind (tilted along z),
    // and fast. A tiny blind cone lets boid 0 see it and match its velocity; a cone of
    // half-angle 45 degrees hides it.
    let s = flock3(
        &[
            ([300.0, 200.0, 200.0], [4.0, 0.0, 0.0]),
            ([290.0, 200.0, 205.0], [6.0, 0.0, 0.0]),
        ],
        &[0, 0],
    );
    let seeing = preset3("cornell", |p| {
        p.count = 2;
        p.blind_angle = 1e-3;
        p.scout_group1_fraction = 0.0;
        p.scout_group2_fraction = 0.0;
    });
    let next = super::step(&seeing, &Kernel::<3>::new(&seeing), 0, 0, &s, None).0;
    // cohesion (-10, 0, 5) * 0.0005, matching (6 - 4, 0, 0) * 0.05.
    assert!(
        close3(next.velocities[0], Vec3::new(4.095, 0.0, 0.0025)),
        "{}",
        next.velocities[0]
    );
    let blind = Params {
        blind_angle: std::f64::consts::FRAC_PI_2,
        ..seeing
    };
    let next = super::step(&blind, &Kernel::<3>::new(&blind), 0, 0, &s, None).0;
    assert_eq!(next.velocities[0], Vec3::new(4.0, 0.0, 0.0));
}

#[test]
fn topological_boids_in_3d_average_over_the_k_nearest_at_any_distance() {
    // Boid 0 with neighbours 100 away along z (beyond the visual range of 40) and 150 away
    // along y: with k = 1 only the nearer one counts.
    let s = flock3(
        &[
            ([300.0, 200.0, 150.0], [4.0, 0.0, 0.0]),
            ([300.0, 200.0, 250.0], [4.0, 0.0, 2.0]),
            ([300.0, 350.0, 150.0], [4.0, -2.0, 0.0]),
        ],
        &[0; 3],
    );
    let p = preset3("cornell", |p| {
        p.count = 3;
        p.topological_k = 1;
        p.scout_group1_fraction = 0.0;
        p.scout_group2_fraction = 0.0;
    });
    let next = super::step(&p, &Kernel::<3>::new(&p), 0, 0, &s, None).0;
    // cohesion (0, 0, 100) * 0.0005; matching (0, 0, 2) * 0.05.
    assert!(
        close3(next.velocities[0], Vec3::new(4.0, 0.0, 0.15)),
        "{}",
        next.velocities[0]
    );
}

#[test]
fn general_boids_path_in_3d_matches_the_brute_force_reference() {
    for name in ["cornell", "functional", "occoids"] {
        let p = preset3(name, |_| {});
        let mut state = FlockState::<3>::initial(&p, 9);
        for step in 0..5 {
            let general = super::step(&p, &Kernel::<3>::new(&p), 9, step, &state, None).0;
            let brute = crate::reference::step(&p, &state, step);
            for i in 0..state.len() {
                let scale = p.max_speed.min(1e3) as f32 + 1.0;
                assert!(
                    (general.velocities[i] - brute.velocities[i]).length() < 1e-4 * scale,
                    "{name} boid {i}"
                );
            }
            state = brute;
        }
    }
}

#[test]
fn every_model_in_3d_is_bit_identical_across_thread_counts_and_restarts() {
    let cases = [
        preset3("vicsek", |p| {
            p.count = 5000;
            p.world_width = 14.0;
            p.world_height = 14.0;
            p.world_depth = 14.0;
            p.noise = 3.0;
        }),
        preset3("couzin", |p| {
            p.count = 4200;
            p.init_x = [0.0, 40.0];
            p.init_y = [0.0, 40.0];
            p.init_z = [0.0, 40.0];
            p.blind_angle = 1.0;
            p.noise = 0.2;
        }),
        preset3("functional", |p| {
            p.count = 4200;
            p.topological_k = 7;
            p.blind_angle = 0.8;
        }),
    ];
    for p in cases {
        same_on_any_thread_count_and_resumed::<3>(&p);
    }
}

#[test]
fn scouts_in_3d_bias_toward_a_raised_preferred_direction() {
    // Group 1's preferred direction raised to +z: seed 001's rule along g = +z pulls vz toward
    // 1 and leaves vx and vy untouched.
    let p = preset3("cornell", |p| {
        p.count = 1;
        p.preferred_elevation1 = std::f64::consts::FRAC_PI_2;
        p.bias = 0.5;
    });
    let s = FlockState {
        biases: vec![0.5],
        ..flock3(&[([300.0, 200.0, 200.0], [3.0, 1.0, 4.0])], &[group::RIGHT])
    };
    let mut sim = Simulation::<3>::from_state(p, 0, s, 0).unwrap();
    sim.step().unwrap();
    assert!(
        close3(sim.velocities()[0], Vec3::new(3.0, 1.0, 2.5)),
        "{}",
        sim.velocities()[0]
    );
}
