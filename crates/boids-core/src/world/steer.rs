//! The pull of the world on a boid: fleeing the predators it fears and seeking the nearest
//! attractor. One [`WorldSteer`] is built per step from the predators as they were at its
//! start, so every boid reacts to the same snapshot (the synchronous update) whatever the order
//! or thread that computes it.
//!
//! For a boid at `p`, with `d` the minimum-image offset from a predator to it:
//!
//! ```text
//! flee    = sum over predators with |d| <= fear_range of  (1 - |d| / fear_range) d / |d|
//! boids:    v += flee_factor * flee + attract_factor * (a - p)            (a: nearest attractor)
//! heading:  d' = d + flee_factor * flee + attract_factor * (a - p) / |a - p|
//! ```
//!
//! The boids add it to the velocity with the boundary's turn, before the scouts' bias and the
//! speed limits (seed 001's order for every added rule). The heading models (Vicsek, Couzin)
//! add it to the unit social direction before the boundary and the turning limit, so an
//! attractor plays the part of an informed direction and `attract_factor` its weight. The same
//! sums hold in 2D and 3D (an attractor is then a point `[x, y, z]`).

use super::Predator;
use crate::params::{Model, Params};
use crate::space::{self, Coordinates, Dim, Dimension, VecN, box_reaches, image_within};

/// What predators and attractors do to boids in one step (see the module docs).
#[derive(Clone, Debug)]
pub struct WorldSteer<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// Predators' positions at the start of the step.
    predators: Vec<VecN<D>>,
    fear_range: f32,
    flee: f32,
    /// Attractors, wrapped into the world on a torus (so [`image_within`] may test them).
    attractors: Vec<VecN<D>>,
    attract_range: f32,
    attract: f32,
    /// Whether the pull toward an attractor is a unit direction (heading models).
    unit_attraction: bool,
    wrap: VecN<D>,
}

impl<const D: usize> WorldSteer<D>
where
    Dim<D>: Dimension<D>,
{
    /// The steer of `params` with `predators` where they are now (extra ones, like the
    /// viewer's pointer, may follow), or `None` when nothing pulls: no predator to flee
    /// (none, or `flee_factor` or `fear_range` zero) and no attractor that attracts.
    pub fn new<'a>(
        params: &Params,
        predators: impl IntoIterator<Item = &'a Predator<D>>,
    ) -> Option<Self> {
        let flees = params.flee_factor > 0.0 && params.fear_range > 0.0;
        let predators: Vec<VecN<D>> = if flees {
            predators.into_iter().map(|p| p.position).collect()
        } else {
            Vec::new()
        };
        let attracts = params.attract_factor > 0.0 && !params.attractors.is_empty();
        if predators.is_empty() && !attracts {
            return None;
        }
        let (min, size) = params.world_box::<D>();
        let (min, size) = (VecN::<D>::from(min), VecN::<D>::from(size));
        let stored = |p: VecN<D>| {
            if params.is_torus() {
                space::wrap(p, min, size)
            } else {
                p
            }
        };
        let attractors = if attracts {
            let point =
                |a: &Vec<f64>| stored(VecN::<D>::from(std::array::from_fn(|i| a[i] as f32)));
            params.attractors.iter().map(point).collect()
        } else {
            Vec::new()
        };
        Some(Self {
            predators,
            fear_range: params.fear_range as f32,
            flee: params.flee_factor as f32,
            attractors,
            attract_range: params.attract_range as f32,
            attract: params.attract_factor as f32,
            unit_attraction: params.model != Model::Boids,
            wrap: params.periods::<D>().into(),
        })
    }

    /// The change of velocity (boids) or of the unit social direction (heading models) of a
    /// boid at `p`.
    pub fn pull(&self, p: VecN<D>) -> VecN<D> {
        self.flee(p) * self.flee + self.attraction(p)
    }

    /// Whether the pull may be other than zero somewhere in the box `[lo, hi]`: a group of boids
    /// far from every feared predator, with no attractor, needs no [`Self::pull`] of its own.
    pub fn reaches(&self, lo: VecN<D>, hi: VecN<D>) -> bool {
        !self.attractors.is_empty()
            || self
                .predators
                .iter()
                .any(|&q| box_reaches(lo, hi, q, self.wrap, self.fear_range))
    }

    /// Whether a predator is within `fear_range` of `p` (a resting boid takes off).
    pub fn threatens(&self, p: VecN<D>) -> bool {
        self.predators.iter().any(|&q| {
            image_within(p - q, self.wrap, self.fear_range)
                .is_some_and(|d| d.length() <= self.fear_range)
        })
    }

    /// The sum of unit vectors away from every feared predator, each weighted by how close it
    /// is (1 on top of it, 0 at `fear_range`).
    fn flee(&self, p: VecN<D>) -> VecN<D> {
        let mut away = VecN::<D>::ZERO;
        for &q in &self.predators {
            let Some(d) = image_within(p - q, self.wrap, self.fear_range) else {
                continue;
            };
            let distance = d.length();
            if distance <= self.fear_range && distance > 0.0 {
                away = away + d * ((1.0 - distance / self.fear_range) / distance);
            }
        }
        away
    }

    /// The pull toward the nearest attractor within range (the first of equally near ones).
    fn attraction(&self, p: VecN<D>) -> VecN<D> {
        let nearest = self
            .attractors
            .iter()
            .filter_map(|&a| image_within(a - p, self.wrap, self.attract_range))
            .filter(|to| to.length_squared() <= self.attract_range * self.attract_range)
            .min_by(|a, b| a.length_squared().total_cmp(&b.length_squared()));
        match nearest {
            Some(to) if self.unit_attraction => to.normalize_or_zero() * self.attract,
            Some(to) => to * self.attract,
            None => VecN::<D>::ZERO,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    fn params(edit: impl FnOnce(&mut Params)) -> Params {
        let mut p = Params::default();
        edit(&mut p);
        p
    }

    fn at(x: f32, y: f32) -> Predator {
        Predator {
            position: Vec2::new(x, y),
            velocity: Vec2::ZERO,
        }
    }

    #[test]
    fn nothing_pulls_without_predators_to_fear_or_attractors() {
        assert!(WorldSteer::<2>::new(&params(|_| {}), &[]).is_none());
        let no_flee = params(|p| {
            p.flee_factor = 0.0;
            p.attractors = vec![vec![1.0, 1.0]];
        });
        assert!(WorldSteer::<2>::new(&no_flee, &[at(0.0, 0.0)]).is_none());
    }

    #[test]
    fn boids_flee_harder_the_closer_the_predator() {
        let p = params(|p| {
            p.fear_range = 10.0;
            p.flee_factor = 2.0;
            p.world_width = 1000.0;
            p.world_height = 1000.0;
        });
        let steer = WorldSteer::<2>::new(&p, &[at(500.0, 500.0)]).unwrap();
        // 2.5 to the right: (1 - 0.25) * 2 along +x.
        assert_eq!(steer.pull(Vec2::new(502.5, 500.0)), Vec2::new(1.5, 0.0));
        assert_eq!(steer.pull(Vec2::new(500.0, 492.5)), Vec2::new(0.0, -0.5));
        assert_eq!(steer.pull(Vec2::new(520.0, 500.0)), Vec2::ZERO);
        assert!(steer.threatens(Vec2::new(509.0, 500.0)));
        assert!(!steer.threatens(Vec2::new(511.0, 500.0)));
    }

    #[test]
    fn fleeing_sees_across_a_torus_seam() {
        let p = params(|p| {
            p.fear_range = 10.0;
            p.flee_factor = 1.0;
            p.world_width = 100.0;
            p.world_height = 100.0;
        });
        let steer = WorldSteer::<2>::new(&p, &[at(99.0, 50.0)]).unwrap();
        // The boid at x = 4 is 5 to the right of the predator across the seam.
        assert_eq!(steer.pull(Vec2::new(4.0, 50.0)), Vec2::new(0.5, 0.0));
    }

    #[test]
    fn boids_seek_the_nearest_attractor_in_range_like_cohesion() {
        let p = params(|p| {
            p.boundary = crate::Boundary::Margins;
            p.attractors = vec![vec![0.0, 0.0], vec![100.0, 0.0]];
            p.attract_factor = 0.5;
            p.attract_range = 50.0;
        });
        let steer = WorldSteer::<2>::new(&p, &[]).unwrap();
        assert_eq!(steer.pull(Vec2::new(90.0, 0.0)), Vec2::new(5.0, 0.0));
        assert_eq!(steer.pull(Vec2::new(10.0, 0.0)), Vec2::new(-5.0, 0.0));
        assert_eq!(steer.pull(Vec2::new(50.0, 60.0)), Vec2::ZERO);
    }

    #[test]
    fn heading_models_seek_an_attractor_as_a_unit_direction() {
        let p = params(|p| {
            p.boundary = crate::Boundary::Margins;
            p.model = Model::Couzin;
            p.attractors = vec![vec![0.0, 300.0]];
            p.attract_factor = 0.5;
        });
        let steer = WorldSteer::<2>::new(&p, &[]).unwrap();
        assert_eq!(steer.pull(Vec2::new(0.0, 100.0)), Vec2::new(0.0, 0.5));
    }
}
