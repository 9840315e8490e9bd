//! Debug overlays as data: what seed 000's debug view shows for chosen boids (why each one
//! turns), computed here once so that every front end shows the same thing. `boids render
//! --overlay` draws it (boids-render, through its `DebugDraw`); the live viewer encodes it for
//! the page (boids-server). Neither computes anything of its own: a neighbour seen across a seam
//! is the same neighbour, at the same place, in a picture and in the browser.
//!
//! An overlay holds, for each chosen boid, its position, velocity and scout group, its three
//! weighted rule vectors (exactly what the step steers it by), and optionally the neighbours it
//! sees (links, at their minimum images); the visual and protected ranges drawn around it; and
//! the ghosts: every neighbour that one of the chosen boids sees across a torus seam, once per
//! seam crossing, where it is seen.

use crate::neighbors::Neighbors;
use crate::par;
use crate::rules::RuleVectors;
use crate::sim::Simulation;
use crate::space::{Dim, Dimension, VecN};

/// The debug view of some boids of a flock (in 3D the circles are spheres).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overlay<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// Visual range (the radius of the circle drawn around each boid).
    pub visual_range: f32,
    /// Protected range.
    pub protected_range: f32,
    /// The chosen boids, in the order chosen.
    pub boids: Vec<OverlayBoid<D>>,
    /// The neighbours the chosen boids see across torus seams, ordered by index and then seam.
    pub ghosts: Vec<Ghost<D>>,
}

/// One chosen boid's debug data.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OverlayBoid<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// Position.
    pub position: VecN<D>,
    /// Velocity.
    pub velocity: VecN<D>,
    /// Scout group.
    pub group: u8,
    /// Weighted rule vectors.
    pub rules: RuleVectors<D>,
    /// Where it sees its neighbours (minimum images: outside the world across a seam), in the
    /// step's order, up to the number asked for.
    pub links: Vec<VecN<D>>,
}

/// A neighbour seen across a torus seam, where it is seen.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Ghost<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// Storage index of the neighbour.
    pub index: usize,
    /// Where it is seen: outside the world, beyond the seam from its true position.
    pub position: VecN<D>,
    /// Its velocity.
    pub velocity: VecN<D>,
    /// Its scout group.
    pub group: u8,
}

impl<const D: usize> Overlay<D>
where
    Dim<D>: Dimension<D>,
{
    /// The overlay of the boids at `chosen` (indices of `neighbors`' flock), each with the
    /// first `max_links` of its neighbours as links (0: none).
    pub fn new(neighbors: &Neighbors<D>, chosen: &[usize], max_links: usize) -> Self {
        let boids = par::map_collect(chosen.len(), |k| {
            let i = chosen[k];
            let links = match max_links {
                0 => Vec::new(),
                most => neighbors
                    .seen_by(i)
                    .iter()
                    .take(most)
                    .map(|seen| seen.position)
                    .collect(),
            };
            OverlayBoid {
                position: neighbors.positions()[i],
                velocity: neighbors.velocities()[i],
                group: neighbors.groups()[i],
                rules: neighbors.rule_vectors(i),
                links,
            }
        });
        let ghosts = neighbors
            .across_seams(chosen)
            .into_iter()
            .map(|seen| Ghost {
                index: seen.index,
                position: seen.position,
                velocity: neighbors.velocities()[seen.index],
                group: neighbors.groups()[seen.index],
            })
            .collect();
        let params = neighbors.params();
        Self {
            visual_range: params.visual_range as f32,
            protected_range: params.protected_range as f32,
            boids,
            ghosts,
        }
    }

    /// Every boid of `sim` in storage order, without links: the picture of `boids render
    /// --overlay`.
    pub fn of_all(sim: &Simulation<D>) -> Self {
        let all: Vec<usize> = (0..sim.len()).collect();
        Self::new(&Neighbors::of(sim), &all, 0)
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;
    use crate::params::Params;
    use crate::state::FlockState;

    /// Seed 000's torus [-8, 8]² with three boids around its corner, each seeing the other
    /// two across seams, and one alone in the middle.
    fn seam_flock() -> Simulation {
        let positions = vec![
            Vec2::new(-7.9, -7.9),
            Vec2::new(7.85, -7.8),
            Vec2::new(7.95, 7.9),
            Vec2::new(0.0, 0.0),
        ];
        let n = positions.len();
        let params = Params {
            count: n,
            ..Params::preset("functional").unwrap()
        };
        let state = FlockState {
            positions,
            velocities: vec![Vec2::new(0.01, 0.02); n],
            groups: vec![0, 1, 2, 0],
            biases: vec![0.0; n],
            ..FlockState::default()
        };
        Simulation::<2>::from_state(params, 0, state, 0).unwrap()
    }

    #[test]
    fn the_overlay_holds_each_boids_data_links_and_the_ghosts_seen_across_seams() {
        let sim = seam_flock();
        let neighbors = Neighbors::of(&sim);
        let overlay = Overlay::new(&neighbors, &[0, 3], 10);
        assert_eq!((overlay.visual_range, overlay.protected_range), (0.4, 0.1));
        let first = &overlay.boids[0];
        assert_eq!(first.position, sim.positions()[0]);
        assert_eq!(first.group, sim.groups()[0]);
        assert_eq!(first.rules, neighbors.rule_vectors(0));
        // Boid 0 sees boid 1 across the seam at x = -8, and boid 2 across both seams.
        let mut links = first.links.clone();
        links.sort_by(|a, b| a.y.total_cmp(&b.y));
        let expected = [Vec2::new(-8.05, -8.1), Vec2::new(-8.15, -7.8)];
        assert_eq!(links.len(), 2, "{links:?}");
        assert!(
            links
                .iter()
                .zip(expected)
                .all(|(got, want)| (*got - want).length() < 1e-5),
            "{links:?}"
        );
        assert!(overlay.boids[1].links.is_empty(), "boid 3 is alone");
        let ghosts: Vec<(usize, u8)> = overlay.ghosts.iter().map(|g| (g.index, g.group)).collect();
        assert_eq!(ghosts, [(1, 1), (2, 2)]);
        for (ghost, link) in overlay.ghosts.iter().zip([links[1], links[0]]) {
            assert_eq!(ghost.position, link);
            assert_eq!(ghost.velocity, sim.velocities()[ghost.index]);
        }
    }

    #[test]
    fn links_stop_at_the_number_asked_for() {
        let sim = seam_flock();
        let neighbors = Neighbors::of(&sim);
        assert_eq!(Overlay::new(&neighbors, &[0], 1).boids[0].links.len(), 1);
        assert!(Overlay::new(&neighbors, &[0], 0).boids[0].links.is_empty());
    }

    #[test]
    fn the_whole_flock_overlay_has_every_boids_rule_vectors() {
        let sim = seam_flock();
        let overlay = Overlay::of_all(&sim);
        let neighbors = Neighbors::of(&sim);
        assert_eq!(overlay.boids.len(), sim.len());
        for (i, boid) in overlay.boids.iter().enumerate() {
            assert_eq!(boid.rules, neighbors.rule_vectors(i));
            assert!(boid.links.is_empty());
        }
        // Each of boids 0, 1 and 2 is seen by the other two, across different seams.
        let seen: Vec<usize> = overlay.ghosts.iter().map(|g| g.index).collect();
        assert_eq!(seen, [0, 0, 1, 1, 2, 2]);
    }
}
