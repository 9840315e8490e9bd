//! Benchmark workloads, shared by `boids bench` and `cargo bench` so that both time the same
//! world.
//!
//! **W3** (issue 4): a preset's rules on a square torus (a cubic one in three dimensions) sized
//! so that, with boids spread uniformly, each boid has on average `K` others within its visual
//! range, started uniformly at random. Density, not flock size, sets the work per boid, so W3 at 10k and at 1M boids should
//! cost the same per boid-step if the step scales linearly.

use std::f64::consts::PI;

use crate::error::ParamsError;
use crate::params::{Boundary, Params, ParamsBuilder, Source, Value};

/// The W3 world for `count` boids with mean neighbour count `neighbors`, keeping every other
/// parameter of `base` (its rules, speeds, scouts, initial velocities). `source` names where
/// `neighbors` came from, for messages.
///
/// The torus side is `sqrt((count - 1) * pi * r^2 / neighbors)` for visual range `r`, and in
/// three dimensions `cbrt((count - 1) * 4/3 pi * r^3 / neighbors)`; it must be at least three
/// visual ranges, so that a visual ball fits inside the torus and the grid has three cells a
/// side.
pub fn w3(
    base: &Params,
    count: usize,
    neighbors: f64,
    source: &str,
) -> Result<Params, ParamsError> {
    let r = base.visual_range;
    let others = count.saturating_sub(1) as f64;
    // The volume of the ball of radius 1, and the root that gives the side from the volume.
    let (unit_ball, root): (f64, fn(f64) -> f64) = match base.dimensions {
        3 => (4.0 * PI / 3.0, f64::cbrt),
        _ => (PI, f64::sqrt),
    };
    let axes = 0..base.dimensions;
    // Others per neighbour at the narrowest torus, three visual ranges a side.
    let per_neighbour = axes.clone().fold(1.0, |cube, _| cube * 3.0) / unit_ball;
    let most = others / per_neighbour;
    if !(neighbors > 0.0 && neighbors <= most) {
        let range = match count {
            0 | 1 => format!("empty for {count} boid (a lone boid has no neighbours)"),
            _ => format!("(0, {most:.1}] for {count} boids"),
        };
        let fewest = match neighbors > 0.0 && neighbors.is_finite() {
            true => format!(
                "; {neighbors} neighbours need at least {} boids",
                (neighbors * per_neighbour).ceil() + 1.0
            ),
            false => String::new(),
        };
        return Err(ParamsError::OutOfRange {
            key: "neighbors".to_owned(),
            value: neighbors.to_string(),
            range: format!("{range} (the torus must be at least 3 visual ranges wide){fewest}"),
            origin: source.to_owned(),
        });
    }
    let side = root(axes.fold(others * unit_ball, |ball, _| ball * r) / neighbors);
    let interval = Value::Interval([0.0, side]);
    let world = [
        ("count", Value::Integer(count as u64)),
        ("boundary", Value::Choice(Boundary::Torus.name())),
        ("world_x_min", Value::Number(0.0)),
        ("world_y_min", Value::Number(0.0)),
        ("world_z_min", Value::Number(0.0)),
        ("world_width", Value::Number(side)),
        ("world_height", Value::Number(side)),
        ("world_depth", Value::Number(side)),
        ("init_x", interval.clone()),
        ("init_y", interval.clone()),
        ("init_z", interval),
    ];
    // `base` is valid on its own, and on a torus no check relates its values to the world's, so
    // an error can only be about a value set here: each names `source`.
    let mut builder = ParamsBuilder::from_params(base.clone(), Source::Flag(source.to_owned()));
    for (name, value) in world {
        builder.set(name, value, Source::Flag(source.to_owned()));
    }
    builder.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FlockState;
    use crate::neighbors::Neighbors;

    #[test]
    fn uniform_start_has_the_asked_mean_neighbour_count() {
        let base = Params::preset("cornell").unwrap();
        let p = w3(&base, 20_000, 25.0, "test").unwrap();
        assert!(p.is_torus());
        assert_eq!(p.count, 20_000);
        let state = FlockState::<2>::initial(&p, 1);
        let neighbors = Neighbors::of_state(&p, &state);
        let total: usize = (0..p.count).map(|i| neighbors.count(i)).sum();
        let mean = total as f64 / p.count as f64;
        assert!((mean - 25.0).abs() < 0.5, "mean neighbours {mean}");
        let side = p.world_width as f32;
        assert!(
            state
                .positions
                .iter()
                .all(|q| q.min_element() >= 0.0 && q.max_element() < side)
        );
    }

    #[test]
    fn uniform_start_in_3d_has_the_asked_mean_neighbour_count() {
        let mut base = Params::preset("cornell").unwrap();
        base.dimensions = 3;
        let p = w3(&base, 20_000, 25.0, "test").unwrap();
        assert_eq!(
            (p.world_width, p.world_depth),
            (p.world_height, p.world_height)
        );
        let state = FlockState::<3>::initial(&p, 1);
        let pairs: usize = crate::reference::neighbors(&p, &state.positions, 1600.0)
            .iter()
            .map(Vec::len)
            .sum();
        let mean = pairs as f64 / p.count as f64;
        assert!((mean - 25.0).abs() < 0.5, "mean neighbours {mean}");
        let err = w3(&base, 100, 20.0, "--neighbors 20")
            .unwrap_err()
            .to_string();
        assert!(err.contains("(0, 15.4]"), "{err}");
    }

    #[test]
    fn too_many_neighbours_for_the_count_is_refused_with_the_range() {
        let base = Params::preset("cornell").unwrap();
        let err = w3(&base, 100, 500.0, "--neighbors 500")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--neighbors 500") && err.contains("(0, 34.6]"),
            "{err}"
        );
        assert!(
            err.contains("500 neighbours need at least 1434 boids"),
            "{err}"
        );
        // A lone boid: no range to offer, and what would do instead.
        let err = w3(&base, 1, 25.0, "--neighbors 25")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("empty for 1 boid (a lone boid has no neighbours)")
                && err.contains("25 neighbours need at least 73 boids")
                && !err.contains("0.0]"),
            "{err}"
        );
        assert!(w3(&base, 100, 0.0, "x").is_err());
        assert!(w3(&base, 100, f64::NAN, "x").is_err());
    }
}
