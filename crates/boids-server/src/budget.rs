//! How much work one change may ask of the server.
//!
//! A step costs about one unit of work per pair of a boid and a neighbour it examines, so a
//! client that sets `visual_range = 1e12` on a large flock turns every step into an all-pairs
//! loop (200,000 boids: 4e10 pairs, seconds a step) and every viewer freezes. The count cap
//! (`--max-count`) bounds memory, not this. So a `set` or `reset` whose flock would examine
//! more than [`DEFAULT_MAX_PAIRS`] (or the server's `--max-pairs`) neighbour pairs a step is
//! refused, with the estimate in the message, and a `step` request may take only a few steps'
//! worth of that budget ([`STEP_REQUEST_STEPS`]).
//!
//! The estimate is what a uniform spread would give: each boid sees the others in proportion to
//! the area of its visual disc over the area the flock occupies (its bounding box, and never
//! more than the world on a torus), capped at all of them; in three dimensions, the volume of
//! its visual ball over the volume of the box. It uses where the boids are rather
//! than the world's size alone, because a flock started in a small corner of a large world is as
//! dense as its corner. Flocks gather, so real counts run above the estimate; the budget leaves
//! room for that.

use std::f64::consts::PI;

use boids_core::{Coordinates, Flock, Params, on_flock};

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

/// The expected work of a flock: its boid count and expected neighbours per boid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Work {
    /// Boids.
    pub count: usize,
    /// Expected neighbours examined per boid.
    pub neighbours: f64,
}

impl Work {
    /// The work of a flock under `params` whose boids lie in `extent`.
    pub fn estimate(params: &Params, extent: Extent) -> Work {
        let others = params.count.saturating_sub(1) as f64;
        let dimensions = params.dimensions;
        let mut room = extent.content(dimensions);
        if params.is_torus() {
            let (_, size) = params.world_box::<3>();
            room = room.min(size[..dimensions].iter().map(|&s| f64::from(s)).product());
        }
        // The share of the others within `radius`: inside its disc, or its ball in 3D.
        let within = |radius: f64| {
            let reach = match dimensions {
                3 => 4.0 / 3.0 * PI * radius.powi(3),
                _ => PI * radius * radius,
            };
            if room > 0.0 {
                others * (reach / room).min(1.0)
            } else if reach > 0.0 {
                others
            } else {
                0.0
            }
        };
        let neighbours = match params.topological_k {
            // The k nearest for the averages; separation stays metric.
            0 => within(params.visual_range),
            k => (k as f64 + within(params.protected_range)).min(others),
        };
        Work {
            count: params.count,
            neighbours,
        }
    }

    /// Neighbour pairs examined a step.
    pub fn pairs(&self) -> f64 {
        self.count as f64 * self.neighbours
    }
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
        let empty = Extent {
            min: [f32::INFINITY; 3],
            max: [f32::NEG_INFINITY; 3],
        };
        positions
            .iter()
            .fold(empty, |e, &p| e.holding(&p.to_array()))
    }

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
        let far = params("cornell", &["count=200000", "visual_range=1e12"]);
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
        assert!(near.neighbours >= 7.0 && near.neighbours < 8.0, "{near:?}");
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
