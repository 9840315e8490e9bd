//! Predators: a few agents that hunt the flock. Each step, a predator turns (by at most
//! `predator_turn_rate`) toward the nearest boid within `predator_vision`, or, seeing none,
//! wanders by a random turn of at most `predator_wander/2` (in 2D an angle uniform in
//! `[-predator_wander/2, predator_wander/2]`, in 3D a direction uniform on the cap of that
//! half-angle around its heading, as the Vicsek noise); then it moves at
//! `predator_speed` through the boundary as the boids do (the margins' turn joins its desired
//! direction as it does for the heading models) and around obstacles (the boids' pass at the
//! predator's speed). With `capture_range > 0`, after the move each predator (in index order)
//! catches the nearest boid within that range that no earlier predator caught; the boid starts
//! again at a random free place.
//!
//! Everything a predator decides is read from the state at the start of the step and from the
//! counter-based streams (keyed by step and predator index, or boid id), so runs stay
//! bit-identical on any thread count. Nearest boids are found by one pass over the flock for
//! all predators (ties go to the lower id): a few predators cost a few distance tests a boid.
//! Everything is written once over the dimension; the turns are [`Dimension`]'s.

use super::ObstaclePass;
use crate::obstacles::{splat, zip_axes};
use crate::par;
use crate::params::{NoiseDistribution, Params};
use crate::rng::{self, Purpose};
use crate::rules::{self, Kernel};
use crate::space::{Coordinates, Dim, Dimension, VecN, box_reaches, image_within, minimum_image};

/// One predator in `D` dimensions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Predator<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// Position.
    pub position: VecN<D>,
    /// Velocity.
    pub velocity: VecN<D>,
}

/// How the predators of a simulation move.
#[derive(Clone, Debug)]
pub struct Hunt<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    vision: f32,
    turn_rate: f64,
    wander: f64,
    speed: f32,
    wrap: VecN<D>,
}

impl<const D: usize> Hunt<D>
where
    Dim<D>: Dimension<D>,
{
    /// The hunt of `params`.
    pub fn new(params: &Params) -> Self {
        Self {
            vision: params.predator_vision as f32,
            turn_rate: params.predator_turn_rate,
            wander: params.predator_wander,
            speed: params.predator_speed as f32,
            wrap: params.periods::<D>().into(),
        }
    }

    /// Every predator's next state from the predators and the flock (`boids` positions, `ids`
    /// their ids) as they were at the start of step number `step`, before obstacles
    /// ([`Self::avoid`]).
    pub fn step(
        &self,
        kernel: &Kernel<D>,
        seed: u64,
        step: u64,
        predators: &[Predator<D>],
        boids: &[VecN<D>],
        ids: &[u32],
    ) -> Vec<Predator<D>> {
        let points: Vec<VecN<D>> = predators.iter().map(|p| p.position).collect();
        let prey = nearest_boids(&points, self.vision, self.wrap, boids, ids);
        predators
            .iter()
            .zip(prey)
            .enumerate()
            .map(|(index, (&predator, prey))| {
                let target =
                    prey.map(|slot| minimum_image(boids[slot] - predator.position, self.wrap));
                let mut s = rng::stream(seed, Purpose::PredatorWander, step, index as u64);
                self.advance(kernel, predator, target, &mut s)
            })
            .collect()
    }

    /// One predator's move: toward `target` (the offset to its prey), or a wandering turn drawn
    /// from `stream`.
    fn advance(
        &self,
        kernel: &Kernel<D>,
        predator: Predator<D>,
        target: Option<VecN<D>>,
        stream: &mut rng::Stream,
    ) -> Predator<D> {
        let heading = predator.velocity.normalize_or_zero();
        let zero = VecN::<D>::ZERO;
        let wandering = || {
            if heading == zero {
                Dim::<D>::random_direction(stream)
            } else {
                let uniform = NoiseDistribution::Uniform;
                Dim::<D>::add_noise(heading, uniform, self.wander, Some(stream))
            }
        };
        let mut desired = target
            .and_then(Coordinates::try_normalize)
            .unwrap_or_else(wandering);
        let push = rules::boundary_steer(kernel, predator.position);
        if push != zero {
            desired = (desired * self.speed + push)
                .try_normalize()
                .unwrap_or(desired);
        }
        let heading = if heading == zero {
            desired
        } else {
            Dim::<D>::turn_toward(heading, desired, self.turn_rate)
        };
        let (position, velocity) =
            rules::move_boid(kernel, predator.position, heading * self.speed);
        Predator { position, velocity }
    }

    /// The obstacle pass on the predators' moves from `before` to `after`, at their own speed:
    /// they steer around obstacles and never enter one, as boids do.
    pub fn avoid(
        &self,
        pass: &ObstaclePass<D>,
        kernel: &Kernel<D>,
        before: &[Predator<D>],
        after: &mut [Predator<D>],
    ) {
        for (old, new) in before.iter().zip(after) {
            let speed = Some(self.speed);
            pass.apply_at_speed(
                kernel,
                speed,
                old.position,
                &mut new.position,
                &mut new.velocity,
            );
        }
    }
}

/// Boids per part of the parallel searches. In the fast path's storage order (cell order) a
/// part covers a few rows of cells, so most parts are far from every predator.
const SEARCH_PART: usize = 16_384;

/// A boid within range of a point: the point's index, the squared distance, the boid's id and
/// its slot.
type Near = (usize, f32, u32, usize);

/// Searches the flock in parallel parts for boids within `range` of `points` (minimum image
/// with periods `wrap`): each part starts from `init()`, and `visit` sees every boid within
/// range of a point, in slot order. A part whose bounding box no point reaches is skipped
/// without a distance computed.
fn search<const D: usize, R: Send>(
    points: &[VecN<D>],
    range: f32,
    wrap: VecN<D>,
    boids: &[VecN<D>],
    ids: &[u32],
    init: impl Fn() -> R + Sync,
    visit: impl Fn(&mut R, Near) + Sync,
) -> Vec<R>
where
    Dim<D>: Dimension<D>,
{
    let below = range * range;
    let parts = boids.len().div_ceil(SEARCH_PART);
    par::map_collect(parts, |part| {
        let slots = part * SEARCH_PART..((part + 1) * SEARCH_PART).min(boids.len());
        let mut result = init();
        let part = &boids[slots.clone()];
        let lo = (part.iter()).fold(splat(f32::INFINITY), |a, &p| zip_axes(a, p, f32::min));
        let hi = (part.iter()).fold(splat(f32::NEG_INFINITY), |a, &p| zip_axes(a, p, f32::max));
        let reaching: Vec<(usize, VecN<D>)> = (points.iter().copied().enumerate())
            .filter(|&(_, q)| box_reaches(lo, hi, q, wrap, range))
            .collect();
        if reaching.is_empty() {
            return result;
        }
        for slot in slots {
            for &(k, q) in &reaching {
                let Some(d) = image_within(boids[slot] - q, wrap, range) else {
                    continue;
                };
                let d2 = d.length_squared();
                if d2 <= below {
                    visit(&mut result, (k, d2, ids[slot], slot));
                }
            }
        }
        result
    })
}

/// For each of `points`, the slot of the nearest boid within `range` (minimum image with
/// periods `wrap`), ties to the lower id.
pub fn nearest_boids<const D: usize>(
    points: &[VecN<D>],
    range: f32,
    wrap: VecN<D>,
    boids: &[VecN<D>],
    ids: &[u32],
) -> Vec<Option<usize>>
where
    Dim<D>: Dimension<D>,
{
    let closer = |a: &Near, b: &Near| a.1.total_cmp(&b.1).then(a.2.cmp(&b.2));
    let found = search(
        points,
        range,
        wrap,
        boids,
        ids,
        || vec![None; points.len()],
        |best: &mut Vec<Option<Near>>, near| {
            let best = &mut best[near.0];
            if best.is_none_or(|b| closer(&near, &b).is_lt()) {
                *best = Some(near);
            }
        },
    );
    (0..points.len())
        .map(|k| {
            found
                .iter()
                .filter_map(|part| part[k])
                .min_by(closer)
                .map(|near| near.3)
        })
        .collect()
}

/// The boids the predators catch: for each predator in index order, the nearest boid within
/// `range` of it that no earlier predator caught (slots, in catching order).
pub fn captures<const D: usize>(
    predators: &[VecN<D>],
    range: f32,
    wrap: VecN<D>,
    boids: &[VecN<D>],
    ids: &[u32],
) -> Vec<usize>
where
    Dim<D>: Dimension<D>,
{
    // Every boid within range of a predator: few, as the range is short.
    let within = search(predators, range, wrap, boids, ids, Vec::new, Vec::push);
    let mut near: Vec<Near> = within.into_iter().flatten().collect();
    near.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut caught: Vec<usize> = Vec::new();
    for k in 0..predators.len() {
        let prey = near
            .iter()
            .filter(|entry| entry.0 == k)
            .map(|entry| entry.3)
            .find(|slot| !caught.contains(slot));
        caught.extend(prey);
    }
    caught
}
