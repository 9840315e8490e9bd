//! What obstacles do to a step, applied to every boid after its model has moved it.
//!
//! 1. **Steer to avoid** (Reynolds 1999): the boid looks ahead from where it was, along its new
//!    velocity `v`, for `obstacle_lookahead`. If that probe meets an obstacle at fraction `t` of
//!    its length, with surface normal `n` there, the boid turns sideways, away from it:
//!
//!    ```text
//!    lateral = n - (n . u) u        u = v / |v|   (head-on, lateral = 0: the left side, u.perp())
//!    v      += obstacle_avoid_factor * (1 - t) * |v| * lateral / |lateral|
//!    ```
//!
//!    then the model's speed rule holds again (the boids' min/max clamp, or the heading models'
//!    constant speed) and the boid moves from where it was with that velocity, through the
//!    boundary as the model moves it.
//! 2. **Never inside**: the move (the minimum image across a torus seam) is tested against every
//!    obstacle near it. On contact the boid stops just short of it and its velocity slides along
//!    the surface (the part into the surface is dropped; a head-on velocity is reflected instead,
//!    so it keeps a heading). If the stopping point still tests inside an obstacle, through
//!    rounding or overlapping obstacles, the boid stays where it was, which was outside: every
//!    state starts outside (the random start draws again, a loaded state is checked), so by
//!    induction no boid ever ends a step inside an obstacle or past a wall.
//!
//! With no obstacles the step does not run this pass at all.

use glam::Vec2;

use super::index::ObstacleIndex;
use crate::params::{Model, Params};
use crate::rules::{self, Kernel};

/// Fraction of the way to a contact at which a stopped boid is placed, so that rounding cannot
/// put it on the far side of the surface.
const STOP_SHORT: f32 = 1.0 - 1.0 / 1024.0;

/// The obstacles of a simulation and how its model keeps its speed.
#[derive(Clone, Debug)]
pub struct ObstaclePass {
    index: ObstacleIndex,
    lookahead: f32,
    avoid: f32,
    /// `Some(speed)` for the heading models, which move at a constant speed.
    constant_speed: Option<f32>,
    /// The world's `(min, size)` on a torus.
    torus: Option<(Vec2, Vec2)>,
}

impl ObstaclePass {
    /// The pass for `params`, or `None` when there are no obstacles.
    pub fn new(params: &Params) -> Option<Self> {
        if params.obstacles.is_empty() {
            return None;
        }
        let torus = params.is_torus().then(|| {
            (
                Vec2::new(params.world_x_min as f32, params.world_y_min as f32),
                Vec2::new(params.world_width as f32, params.world_height as f32),
            )
        });
        Some(Self {
            index: ObstacleIndex::of(params),
            lookahead: params.obstacle_lookahead as f32,
            avoid: params.obstacle_avoid_factor as f32,
            constant_speed: (params.model != Model::Boids).then_some(params.speed as f32),
            torus,
        })
    }

    /// The obstacles, as the step tests them.
    pub fn index(&self) -> &ObstacleIndex {
        &self.index
    }

    /// Applies the pass to one boid that was at `from` and that its model moved to `position`
    /// with `velocity`.
    pub fn apply(&self, kernel: &Kernel, from: Vec2, position: &mut Vec2, velocity: &mut Vec2) {
        if let Some(steered) = self.steer(from, *velocity) {
            let steered = self.keep_speed(kernel, steered);
            (*position, *velocity) = rules::move_boid(kernel, from, steered);
        }
        let moved = self.displacement(from, *position);
        if let Some(hit) = self.index.first_hit(from, from + moved) {
            let stop = from + moved * (hit.t * STOP_SHORT);
            *position = self.wrapped(stop);
            *velocity = slide(*velocity, hit.normal);
        }
        let crossed = self
            .index
            .first_hit(from, from + self.displacement(from, *position))
            .is_some();
        if crossed || self.index.contains(*position) {
            *position = from;
        }
    }

    /// The avoidance turn for a boid at `from` with velocity `v`, if its probe meets anything.
    fn steer(&self, from: Vec2, v: Vec2) -> Option<Vec2> {
        let speed = v.length();
        if self.lookahead <= 0.0 || self.avoid <= 0.0 || speed == 0.0 {
            return None;
        }
        let u = v / speed;
        let hit = self.index.first_hit(from, from + u * self.lookahead)?;
        let lateral = hit.normal - hit.normal.dot(u) * u;
        let side = lateral.try_normalize().unwrap_or(u.perp());
        Some(v + side * (self.avoid * (1.0 - hit.t) * speed))
    }

    /// The model's speed rule, applied again after a turn.
    fn keep_speed(&self, kernel: &Kernel, v: Vec2) -> Vec2 {
        match self.constant_speed {
            Some(speed) => v.normalize_or_zero() * speed,
            None => rules::limit_speed(kernel, v),
        }
    }

    /// The move from `from` to `to`, across the seam on a torus.
    fn displacement(&self, from: Vec2, to: Vec2) -> Vec2 {
        match self.torus {
            Some((_, size)) => rules::minimum_image(to - from, size),
            None => to - from,
        }
    }

    fn wrapped(&self, p: Vec2) -> Vec2 {
        match self.torus {
            Some((min, size)) => rules::wrap(p, min, size),
            None => p,
        }
    }

    /// A point outside every obstacle near `p`: `p` itself if it is outside, else the nearest way
    /// out of the obstacles it is in, tried a few times (obstacles may overlap); `None` when that
    /// does not find one.
    pub fn way_out(&self, p: Vec2) -> Option<Vec2> {
        let mut at = p;
        for _ in 0..8 {
            let mut inside = None;
            self.index.for_each_near(at, at, |s| {
                if inside.is_none() && s.contains(at) {
                    inside = Some(s.exit(at));
                }
            });
            match inside {
                None => return Some(self.wrapped(at)),
                Some(out) => at = out,
            }
        }
        None
    }
}

/// The velocity after touching a surface with unit normal `n`: its part into the surface
/// dropped, or, head-on (nothing would be left), reflected.
fn slide(v: Vec2, n: Vec2) -> Vec2 {
    let into = v.dot(n).min(0.0);
    let along = v - into * n;
    if along.length_squared() <= 1e-12 * v.length_squared() {
        v - 2.0 * into * n
    } else {
        along
    }
}
