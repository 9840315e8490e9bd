//! The Vicsek model (Vicsek, Czirók, Ben-Jacob, Cohen and Shochet, PRL 75, 1226, 1995).
//!
//! Every particle moves at the constant speed `v0` (`speed`); each step its heading becomes the
//! mean heading of the particles within radius `r` (`visual_range`), itself included, turned by
//! a random angle uniform in `[-eta/2, eta/2]` (`noise`):
//!
//! ```text
//! theta_i(t+1) = arg( sum_{|x_j - x_i| < r} e^{i theta_j(t)} ) + xi_i(t)
//! x_i(t+1)     = x_i(t) + v0 (cos theta_i(t+1), sin theta_i(t+1)) dt
//! ```
//!
//! The update is synchronous and the world a torus of side `L`. The order parameter
//! `v_a = |sum v_i| / (N v0)` (our polarization) goes from near 1 at low noise to about
//! `1/sqrt(N)` at high noise, the drop sharpening as `N` grows at fixed density `N / L^2`.
//! With `topological_k = k` the `k` nearest particles in view replace the radius.
//!
//! In three dimensions (Czirók, Vicsek et al. 1999; Grégoire and Chaté 2004; Chaté, Ginelli,
//! Grégoire and Raynaud 2008) the heading is a unit vector: the new one is the neighbours' mean
//! direction turned by a random direction uniform on the sphere's cap of half-angle `eta/2`
//! around it (the "vectorial" noise; see [`crate::space`]). The same code computes the mean
//! in both dimensions.
//!
//! The noise and the rest of the heading pipeline (informed scouts, boundaries, turning limit)
//! are shared with the Couzin model: see [`super`].

use super::neighborhood::Neighborhood;
use crate::params::Params;
use crate::space::{Coordinates, Dim, Dimension, VecN};
use crate::stats::ScanCounts;

/// The sum of the unit headings of boid `i` and its neighbours: the direction Vicsek's rule
/// aligns with (its length does not matter). Boids at rest add nothing. The search and the
/// neighbours go into `counts`.
pub fn social_direction<const D: usize>(
    params: &Params,
    hood: &Neighborhood<D>,
    i: usize,
    below: f32,
    counts: &mut ScanCounts,
) -> VecN<D>
where
    Dim<D>: Dimension<D>,
{
    let neighbours = super::interaction_set(params, hood, i, below, counts);
    counts.neighbors += neighbours.len() as u64;
    let mut sum = VecN::<D>::ZERO;
    let mut own = Some(i as u32);
    for &j in &neighbours {
        // The boid itself joins the sum in id order, like every neighbour.
        if let Some(me) = own.filter(|&me| me < j) {
            sum = sum + hood.heading(me as usize);
            own = None;
        }
        sum = sum + hood.heading(j as usize);
    }
    if let Some(me) = own {
        sum = sum + hood.heading(me as usize);
    }
    sum
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;
    use crate::params::Params;

    #[test]
    fn mean_heading_of_neighbours_within_r_self_included() {
        let p = Params::preset("vicsek").unwrap();
        // Boid 0 at (1, 1) heading +x; boid 1 at distance 0.5 heading +y; boid 2 at distance
        // 1.5 (outside r = 1) heading -x.
        let positions = [
            Vec2::new(1.0, 1.0),
            Vec2::new(1.0, 1.5),
            Vec2::new(2.5, 1.0),
        ];
        let velocities = [
            Vec2::new(0.03, 0.0),
            Vec2::new(0.0, 0.03),
            Vec2::new(-0.03, 0.0),
        ];
        let hood = Neighborhood::<2>::new(&p, &positions, &velocities);
        let below = crate::rules::Kernel::<2>::new(&p).visual_below;
        let mut counts = ScanCounts::default();
        let d = social_direction(&p, &hood, 0, below, &mut counts);
        // (1, 0) + (0, 1): the mean heading is 45 degrees.
        assert!((d - Vec2::new(1.0, 1.0)).length() < 1e-6, "{d}");
        // Boid 2 sees no one within r: it keeps its own heading.
        let d = social_direction(&p, &hood, 2, below, &mut counts);
        assert!((d - Vec2::new(-1.0, 0.0)).length() < 1e-6, "{d}");
        assert_eq!(counts.neighbors, 1, "boid 0 took boid 1, boid 2 none");
    }
}
