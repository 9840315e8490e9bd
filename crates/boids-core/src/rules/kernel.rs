//! The model's constants as the hot loop reads them: the parameters converted once to `f32`
//! (squared range bounds, factors, the world box, the scouts' preferred directions), so the
//! rules and the scan never touch [`Params`] or `f64`.

use super::group;
use crate::params::{Boundary, Params};
use crate::space::preferred_direction;

/// The model's constants in the hot loop's precision, for a world of `D` dimensions.
#[derive(Clone, Copy, Debug)]
pub struct Kernel<const D: usize = 2> {
    /// Strict upper bound on squared distance for the visual range.
    pub visual_below: f32,
    /// Strict upper bound on squared distance for the protected range.
    pub protected_below: f32,
    /// Couzin: strict upper bound on squared distance for the zone of orientation within the
    /// interaction zone (infinite when `orientation_range` is `inf`, the 2005 paper's one zone,
    /// where every neighbour taken orients, the k nearest at any distance too).
    pub orientation_below: f32,
    /// Couzin: squared distance from which neighbours attract: the zone of orientation's bound
    /// in the 2002 paper's nested zones, zero (every neighbour in range) in the 2005 paper's one.
    pub attraction_from: f32,
    /// Whether a boid is in its own averaging set.
    pub include_self: bool,
    /// Whether protected neighbours are left out of the averages.
    pub exclude_protected: bool,
    /// Cohesion weight (`centering_factor`).
    pub centering: f32,
    /// Alignment weight (`matching_factor`).
    pub matching: f32,
    /// Separation weight (`avoid_factor`), also the walls' push.
    pub avoid: f32,
    /// Gain on the summed steering (`steering_gain`).
    pub gain: f32,
    /// Factor on the velocity after steering (`speed_boost`).
    pub boost: f32,
    /// Lowest speed of a moving boid.
    pub min_speed: f32,
    /// Highest speed.
    pub max_speed: f32,
    /// Time step.
    pub dt: f32,
    /// What the world's edge does.
    pub boundary: Boundary,
    /// Lowest corner of the world box.
    pub world_min: [f32; D],
    /// Extent of the world box along each axis.
    pub world_size: [f32; D],
    /// Width of the margins where boids turn back.
    pub margin: f32,
    /// Velocity change a step in a margin.
    pub turnfactor: f32,
    /// Distance from a wall at which its push starts.
    pub wall_buffer: f32,
    /// Radius a boid keeps from a wall.
    pub boid_size: f32,
    /// The scouts' starting bias.
    pub bias_base: f32,
    /// Highest dynamic bias.
    pub max_bias: f32,
    /// Change of a dynamic bias a step.
    pub bias_increment: f32,
    /// Whether the scouts' bias changes as they move.
    pub dynamic_bias: bool,
    /// Weight of the shared wandering heading.
    pub wander_weight: f32,
    /// Preferred direction of each scout group (unit vectors, indexed by group).
    pub goal: [[f32; D]; 3],
}

impl<const D: usize> Kernel<D> {
    /// Converts validated parameters to the kernel's constants.
    pub fn new(p: &Params) -> Self {
        let squared_bound = |range: f64| {
            let r2 = (range * range) as f32;
            if p.inclusive_ranges { r2.next_up() } else { r2 }
        };
        let (world_min, world_size) = p.world_box::<D>();
        // Couzin's zones: one (the 2005 paper's) when `orientation_range` is `inf`, else the
        // 2002 paper's two, split at r_o.
        let (orientation_below, attraction_from) = match p.orientation_range {
            f64::INFINITY => (f32::INFINITY, 0.0),
            r_o => (squared_bound(r_o), squared_bound(r_o)),
        };
        Self {
            visual_below: squared_bound(p.visual_range),
            protected_below: squared_bound(p.protected_range),
            orientation_below,
            attraction_from,
            include_self: p.include_self,
            exclude_protected: p.exclude_protected,
            centering: p.centering_factor as f32,
            matching: p.matching_factor as f32,
            avoid: p.avoid_factor as f32,
            gain: p.steering_gain as f32,
            boost: p.speed_boost as f32,
            min_speed: p.min_speed as f32,
            max_speed: p.max_speed as f32,
            dt: p.dt as f32,
            boundary: p.boundary,
            world_min,
            world_size,
            margin: p.margin as f32,
            turnfactor: p.turnfactor as f32,
            wall_buffer: p.wall_buffer as f32,
            boid_size: p.boid_size as f32,
            bias_base: p.bias as f32,
            max_bias: p.max_bias as f32,
            bias_increment: p.bias_increment as f32,
            dynamic_bias: p.dynamic_bias,
            wander_weight: p.wander_weight as f32,
            goal: [
                [0.0; D],
                preferred_direction(p.preferred_angle1, p.preferred_elevation1),
                preferred_direction(p.preferred_angle2, p.preferred_elevation2),
            ],
        }
    }

    /// Which sums a candidate at squared distance `d2` joins: the averaging set (cohesion,
    /// alignment) and the separation set. `is_self`: the candidate is the boid itself.
    #[inline(always)]
    pub fn joins(&self, d2: f32, is_self: bool) -> (bool, bool) {
        let averaged =
            (d2 < self.visual_below) & (d2 >= self.unseen_below()) & (self.include_self | !is_self);
        (averaged, d2 < self.protected_below)
    }

    /// Squared distance below which a neighbour is left out of the averages: the protected
    /// range's bound if protected neighbours are, else zero (no squared distance is below it).
    pub fn unseen_below(&self) -> f32 {
        if self.exclude_protected {
            self.protected_below
        } else {
            0.0
        }
    }

    /// Whether a boid would land in its own averaging set unless told apart from the others:
    /// it is left out of it, and its distance, zero, is not below [`Kernel::unseen_below`].
    pub fn must_skip_self(&self) -> bool {
        !self.include_self && self.unseen_below() <= 0.0
    }

    /// The bias a boid of `group` starts with.
    pub fn initial_bias(&self, group: u8) -> f32 {
        if group == group::NONE {
            0.0
        } else {
            self.bias_base
        }
    }
}
