//! Obstacles placed in any preset's flock are avoided: a circle (a sphere in a preset of three
//! dimensions) in the middle of the world is streamed around, not rammed. Every preset is
//! covered, from the preset list, so a new preset is checked as soon as it exists.

use boids_core::obstacles::{Obstacle, Shape};
use boids_core::space::minimum_image;
use boids_core::{
    Coordinates, Dim, Dimension, PRESETS, Params, Simulation, Vec2, Vec3, VecN, with_dimensions,
};

/// Steps each preset's flock runs beside the obstacle.
const STEPS: u64 = 1_000;

/// The largest flock run here: the murmuration's 20,000 birds take the general path (k nearest
/// neighbours) and would make this test take minutes; a tenth of them still forms a dense flock
/// that the roost pulls onto the sphere.
const MOST_BOIDS: usize = 2_000;

/// The obstacle's radius as a share of the world's smallest extent: big enough that a flock
/// meets it (it covers 3% of a square world, 0.4% of a cube's volume), small enough that it
/// leaves room around it to stream past.
const RADIUS_SHARE: f32 = 0.1;

/// The band around the surface a boid should keep out of, as a share of the world's largest
/// extent (the "1% of the world's size").
const BAND_SHARE: f32 = 0.01;

/// Most boid-steps allowed in that band.
const MOST_IN_BAND: f64 = 0.001;

/// What a flock did beside the ball: boid-steps inside it, and in the band around it.
struct Outcome {
    inside: usize,
    in_band: usize,
    boid_steps: usize,
}

/// The ball placed in the middle of the world of `params`: a circle in 2D, a sphere in 3D, of
/// radius [`RADIUS_SHARE`] of the world's smallest extent.
fn ball_in_the_middle(params: &Params) -> Obstacle {
    fn middle<const D: usize>(params: &Params) -> ([f32; D], f32) {
        let (min, size) = params.world_box::<D>();
        let smallest = size.iter().copied().fold(f32::INFINITY, f32::min);
        (
            std::array::from_fn(|a| min[a] + 0.5 * size[a]),
            RADIUS_SHARE * smallest,
        )
    }
    match params.dimensions {
        2 => {
            let (centre, radius) = middle::<2>(params);
            Obstacle::Plane(Shape::Ball {
                center: Vec2::from(centre),
                radius,
            })
        }
        _ => {
            let (centre, radius) = middle::<3>(params);
            Obstacle::Space(Shape::Ball {
                center: Vec3::from(centre),
                radius,
            })
        }
    }
}

/// Runs `params` with a ball in the middle of its world for [`STEPS`] steps, measuring every
/// boid's distance to the surface after every step (across the seams on a torus).
fn run_beside_a_ball<const D: usize>(mut params: Params) -> Outcome
where
    Dim<D>: Dimension<D>,
{
    let largest = params.world_box::<D>().1.into_iter().fold(0.0, f32::max);
    let band = BAND_SHARE * largest;
    params.obstacles = vec![ball_in_the_middle(&params)];
    let Some(Shape::Ball { center, radius }) = params.obstacles[0].shape::<D>() else {
        unreachable!("a ball of the flock's dimensions");
    };
    params.validate().unwrap();
    let periods = VecN::<D>::from(params.periods::<D>());
    let mut sim = Simulation::<D>::new(params, 0).unwrap();
    let mut outcome = Outcome {
        inside: 0,
        in_band: 0,
        boid_steps: 0,
    };
    for _ in 0..STEPS {
        sim.step().unwrap();
        for &p in sim.positions() {
            let gap = minimum_image(p - center, periods).length() - radius;
            outcome.inside += usize::from(gap < 0.0);
            outcome.in_band += usize::from((0.0..band).contains(&gap));
        }
        outcome.boid_steps += sim.len();
    }
    outcome
}

#[test]
fn every_preset_streams_around_a_ball_in_the_middle_of_its_world() {
    let mut failures = Vec::new();
    for preset in PRESETS {
        let mut params = Params::preset(preset.name).unwrap();
        params.count = params.count.min(MOST_BOIDS);
        let outcome = with_dimensions!(params.dimensions, D, { run_beside_a_ball::<D>(params) });
        let share = outcome.in_band as f64 / outcome.boid_steps as f64;
        let figures = format!(
            "{}: {} boid-steps inside the ball, {:.3}% in the band around it (at most {}%)",
            preset.name,
            outcome.inside,
            100.0 * share,
            100.0 * MOST_IN_BAND
        );
        // With --nocapture, each preset's figures.
        println!("{figures}");
        if outcome.inside > 0 || share >= MOST_IN_BAND {
            failures.push(figures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
