//! Couzin's zonal model (Couzin, Krause, James, Ruxton and Franks, J. theor. Biol. 218, 2002;
//! in the form of Couzin, Krause, Franks and Levin, Nature 433, 513, 2005).
//!
//! Each individual `i` at `c_i` with unit heading `v_i` moves at constant speed `s` (`speed`).
//! Its desired direction `d_i` is, with `r_ij = (c_j - c_i) / |c_j - c_i|`:
//!
//! ```text
//! repulsion first:  d_i = - sum_{j != i, |c_j - c_i| < alpha} r_ij        if any such j
//! otherwise:        d_i =   sum_{j != i, |c_j - c_i| < rho} r_ij
//!                         + sum_{j, |c_j - c_i| < rho} v_j              (i itself included)
//! no neighbour:     d_i = v_i
//! ```
//!
//! with `alpha` = `protected_range` (1 in the paper) and `rho` = `visual_range` (6). Whether the
//! individual's own heading joins the orientation sum is `include_self` (the 2005 paper's sum
//! runs over all `j` in the zone, `i` included). With `topological_k = k` the `k` nearest in
//! view replace the zone of orientation and attraction; the zone of repulsion stays metric.
//!
//! **The 2002 paper's nested zones.** With a finite `orientation_range` `r_o` the zone splits
//! in two: orientation to the neighbours nearer than `r_o` (`d_o`, eq. 2), attraction to those
//! from `r_o` out to `r_a` = `visual_range` (`d_a`, eq. 3), and `d_i = (d_o + d_a) / 2` when both
//! zones hold neighbours (either alone when only one does). The halving does not change the
//! direction, which is all the step uses (it is normalised below), so the sum above serves
//! both papers: the zone of attraction is `r_o <= |c_j - c_i| < r_a`
//! ([`Kernel::attraction_from`]) and that of orientation `|c_j - c_i| < r_o`
//! ([`Kernel::orientation_below`]); `orientation_range = inf` gives back the 2005 form.
//!
//! Informed individuals, the turning limit, the noise and the move are shared with the Vicsek
//! model ([`super`]): `d_i` is normalised, informed individuals blend it with their preferred
//! direction `g` (`d' = (d + omega g) / |d + omega g|`), it is turned by the angular noise, and
//! the heading turns toward it by at most `turn_rate * dt`.
//!
//! The model was written for three dimensions (Couzin et al. 2002), and the same code runs
//! there: the zones are balls on the 3D distances, the blind angle is a cone behind the
//! heading, and the limited turn rotates the heading in the plane it spans with `d_i` (see
//! [`crate::space`]).

use super::neighborhood::Neighborhood;
use crate::params::Params;
use crate::rules::Kernel;
use crate::space::{Coordinates, Dim, Dimension, VecN};
use crate::stats::ScanCounts;

/// Boid `i`'s desired direction before normalisation (zero when it has no neighbour and no
/// heading; the caller then keeps its heading). The searches and the neighbours of the zone it
/// reacts to go into `counts`.
pub fn social_direction<const D: usize>(
    params: &Params,
    kernel: &Kernel<D>,
    hood: &Neighborhood<D>,
    i: usize,
    counts: &mut ScanCounts,
) -> VecN<D>
where
    Dim<D>: Dimension<D>,
{
    let away = |j: u32| {
        let d = hood.offset(i, j as usize);
        d.normalize_or_zero()
    };
    let repel = hood.within_counting(i, kernel.protected_below, counts);
    if !repel.is_empty() {
        counts.neighbors += repel.len() as u64;
        return repel
            .iter()
            .map(|&j| away(j))
            .fold(VecN::<D>::ZERO, |s, a| s + a);
    }
    let zone = super::interaction_set(params, hood, i, kernel.visual_below, counts);
    counts.neighbors += zone.len() as u64;
    if zone.is_empty() {
        return hood.heading(i);
    }
    let mut attraction = VecN::<D>::ZERO;
    let mut orientation = VecN::<D>::ZERO;
    let mut own = params.include_self.then_some(i as u32);
    for &j in &zone {
        if let Some(me) = own.filter(|&me| me < j) {
            orientation = orientation + hood.heading(me as usize);
            own = None;
        }
        let offset = hood.offset(i, j as usize);
        let d2 = offset.length_squared();
        if d2 >= kernel.attraction_from {
            attraction = attraction - offset.normalize_or_zero();
        }
        if d2 < kernel.orientation_below {
            orientation = orientation + hood.heading(j as usize);
        }
    }
    if let Some(me) = own {
        orientation = orientation + hood.heading(me as usize);
    }
    attraction + orientation
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;

    fn hood_of<'a>(p: &Params, positions: &'a [Vec2], velocities: &[Vec2]) -> Neighborhood<'a> {
        Neighborhood::new(p, positions, velocities)
    }

    #[test]
    fn repulsion_takes_priority_over_orientation_and_attraction() {
        let p = Params::preset("couzin").unwrap();
        let k = Kernel::new(&p);
        // Boid 0 at the origin heading +x; boid 1 at (0.5, 0) inside alpha = 1; boid 2 at
        // (0, 3) heading +y inside rho = 6. Only the repulsion counts: away from boid 1, -x.
        let positions = [Vec2::ZERO, Vec2::new(0.5, 0.0), Vec2::new(0.0, 3.0)];
        let velocities = [Vec2::X, Vec2::X, Vec2::Y];
        let hood = hood_of(&p, &positions, &velocities);
        let mut counts = ScanCounts::default();
        let d = social_direction(&p, &k, &hood, 0, &mut counts);
        assert!((d - Vec2::new(-1.0, 0.0)).length() < 1e-6, "{d}");
        assert_eq!(counts.neighbors, 1, "only the zone of repulsion counts");
    }

    #[test]
    fn orientation_and_attraction_within_rho_by_hand() {
        let p = Params::preset("couzin").unwrap();
        let k = Kernel::new(&p);
        // Boid 0 at the origin heading +x; boid 1 at (0, 3) heading +y; boid 2 at (4, 0)
        // heading -y; boid 3 at (10, 0) beyond rho. Attraction: (0, 1) + (1, 0); orientation
        // (self included): (1, 0) + (0, 1) + (0, -1).
        let positions = [
            Vec2::ZERO,
            Vec2::new(0.0, 3.0),
            Vec2::new(4.0, 0.0),
            Vec2::new(10.0, 0.0),
        ];
        let velocities = [Vec2::X, Vec2::Y, -Vec2::Y, Vec2::Y];
        let hood = hood_of(&p, &positions, &velocities);
        let mut counts = ScanCounts::default();
        let d = social_direction(&p, &k, &hood, 0, &mut counts);
        assert!((d - Vec2::new(2.0, 1.0)).length() < 1e-6, "{d}");
        assert_eq!(counts.neighbors, 2, "boids 1 and 2, within rho");
        // Boid 3 has no neighbour within rho: it keeps its heading.
        let d = social_direction(&p, &k, &hood, 3, &mut counts);
        assert_eq!(d, Vec2::Y);
    }

    #[test]
    fn nested_zones_orient_to_the_near_and_are_drawn_to_the_far() {
        // Couzin 2002: r_r = 1, r_o = 3, r_a = 10. Boid 0 at the origin heading +x; boid 1 at
        // (2, 0) heading +y, in the zone of orientation; boid 2 at (0, 5) heading -x, in the
        // zone of attraction; boid 3 at (0, -11) beyond r_a.
        let mut p = Params::preset("couzin").unwrap();
        (p.protected_range, p.orientation_range, p.visual_range) = (1.0, 3.0, 10.0);
        p.include_self = false;
        let k = Kernel::new(&p);
        let positions = [
            Vec2::ZERO,
            Vec2::new(2.0, 0.0),
            Vec2::new(0.0, 5.0),
            Vec2::new(0.0, -11.0),
        ];
        let velocities = [Vec2::X, Vec2::Y, -Vec2::X, Vec2::Y];
        let hood = hood_of(&p, &positions, &velocities);
        let mut counts = ScanCounts::default();
        // d_o = heading of boid 1 = (0, 1); d_a = unit vector to boid 2 = (0, 1).
        let d = social_direction(&p, &k, &hood, 0, &mut counts);
        assert!((d - Vec2::new(0.0, 2.0)).length() < 1e-6, "{d}");
        assert_eq!(counts.neighbors, 2, "boids 1 and 2, within r_a");
        // From boid 1: boid 0 (distance 2) orients, boid 2 (distance sqrt 29 > 3) attracts.
        let d = social_direction(&p, &k, &hood, 1, &mut counts);
        let toward_2 = Vec2::new(-2.0, 5.0).normalize();
        assert!((d - (Vec2::X + toward_2)).length() < 1e-6, "{d}");
        // The 2005 form (one zone): every neighbour within r_a both orients and attracts.
        p.orientation_range = f64::INFINITY;
        let k = Kernel::new(&p);
        // From boid 1: orientation X - X (boid 0's heading and boid 2's), attraction toward
        // both.
        let d = social_direction(&p, &k, &hood, 1, &mut counts);
        assert!((d - (-Vec2::X + toward_2)).length() < 1e-6, "{d}");
    }
}
