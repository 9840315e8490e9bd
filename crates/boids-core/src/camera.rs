//! Where to look at a flock: the *focus* of the largest flock (what the "follow" camera keeps
//! in the middle of the picture) and of the whole flock (what "fit" frames), and a [`Follower`]
//! that smooths the focus from frame to frame.
//!
//! It is here, not in a front end, so that `boids render` and the live viewer look at the same
//! place, and so that "a flock" means what [`crate::Metrics::flocks`] counts: boids linked by
//! chains of boids within visual range ([`metrics::flock_of_each`]).
//!
//! On a torus a flock that straddles a seam has members at both edges of the world, and plain
//! averages would put its centre mid-world, where no boid is. So the members are first unwrapped
//! around one of them (the lowest index) by minimum image, averaged, and the centre wrapped back
//! into the world. The follower likewise moves by the minimum-image difference, across the seam
//! rather than back through the world.
//!
//! Sums run in `f64` in index order (id order for a state from [`Neighbors::of_state`]), so the
//! focus does not depend on storage order or thread count.

use crate::metrics;
use crate::neighbors::Neighbors;
use crate::params::Params;
use crate::space::{self, Coordinates, Dim, Dimension, VecN};

/// Where a group of boids is: its centroid and how far it reaches from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Focus<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// The centroid (inside the world on a torus).
    pub center: VecN<D>,
    /// Half-width and half-height (and half-depth) of the smallest box centred on `center`
    /// that holds every member (unwrapped on a torus).
    pub half_extent: VecN<D>,
}

/// The two foci a camera needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Framing<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// The largest flock (of equally large ones, the one with the lowest index).
    pub largest: Focus<D>,
    /// Every boid; on a torus unwrapped around the largest flock's centre, so that the box is
    /// centred where most boids are.
    pub whole: Focus<D>,
}

impl<const D: usize> Framing<D>
where
    Dim<D>: Dimension<D>,
{
    /// The framing of the flock `neighbors` indexes; `None` when it has no boid.
    pub fn of(neighbors: &Neighbors<D>) -> Option<Self> {
        let n = neighbors.len();
        if n == 0 {
            return None;
        }
        let flocks = metrics::flock_of_each(neighbors);
        let mut sizes = vec![0usize; n];
        for &root in &flocks {
            sizes[root as usize] += 1;
        }
        // `max_by_key` keeps the last of equal maxima: scan roots downward to keep the lowest.
        let largest = (0..n).rev().max_by_key(|&root| sizes[root])?;
        let params = neighbors.params();
        let positions = neighbors.positions();
        let members = (0..n).filter(|&i| flocks[i] as usize == largest);
        let largest = focus(params, positions, members, positions[largest]);
        let whole = focus(params, positions, 0..n, largest.center);
        Some(Self { largest, whole })
    }
}

/// The focus of the boids `members` (not empty) of `positions`, unwrapped around `anchor` on a
/// torus.
fn focus<const D: usize>(
    params: &Params,
    positions: &[VecN<D>],
    members: impl Iterator<Item = usize> + Clone,
    anchor: VecN<D>,
) -> Focus<D>
where
    Dim<D>: Dimension<D>,
{
    let torus = Torus::<D>::of(params);
    let unwrapped = |i: usize| {
        let p = torus.nearest_image(positions[i], anchor).to_array();
        p.map(f64::from)
    };
    let (sum, count) = members
        .clone()
        .fold(([0.0; D], 0usize), |(mut sum, count), i| {
            let p = unwrapped(i);
            for a in 0..D {
                sum[a] += p[a];
            }
            (sum, count + 1)
        });
    let centroid = sum.map(|s| s / count as f64);
    let half_extent = members.fold([0.0f64; D], |mut half, i| {
        let p = unwrapped(i);
        for a in 0..D {
            half[a] = half[a].max((p[a] - centroid[a]).abs());
        }
        half
    });
    Focus {
        center: torus.into_world(centroid.map(|c| c as f32).into()),
        half_extent: half_extent.map(|h| h as f32).into(),
    }
}

/// The world box `(min, size)` where it wraps around; `None` off a torus, where points stay as
/// they are. Renderers draw a boid at its image nearest the camera with it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Torus<const D: usize = 2>(Option<(VecN<D>, VecN<D>)>)
where
    Dim<D>: Dimension<D>;

impl<const D: usize> Torus<D>
where
    Dim<D>: Dimension<D>,
{
    /// The world of `params`.
    pub fn of(params: &Params) -> Self {
        let (min, size) = params.world_box::<D>();
        Self(params.is_torus().then(|| (min.into(), size.into())))
    }

    /// The image of `p` nearest `anchor`.
    pub fn nearest_image(self, p: VecN<D>, anchor: VecN<D>) -> VecN<D> {
        anchor + self.difference(p, anchor)
    }

    /// `to - from` as the minimum image.
    fn difference(self, to: VecN<D>, from: VecN<D>) -> VecN<D> {
        let wrap = self.0.map_or(VecN::<D>::ZERO, |(_, size)| size);
        space::minimum_image(to - from, wrap)
    }

    /// `p` wrapped into the world.
    fn into_world(self, p: VecN<D>) -> VecN<D> {
        self.0.map_or(p, |(min, size)| space::wrap(p, min, size))
    }
}

/// Share of the way to the target focus a [`Follower`] moves each frame by default: the
/// picture settles within about 20 frames (0.9^20 ≈ 0.12), smoothly enough that a flock
/// splitting or merging does not make it jump.
pub const FOLLOW_RATE: f32 = 0.1;

/// A focus smoothed from frame to frame by exponential smoothing of its centre and extent.
#[derive(Clone, Debug, PartialEq)]
pub struct Follower<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    rate: f32,
    torus: Torus<D>,
    focus: Option<Focus<D>>,
}

impl<const D: usize> Follower<D>
where
    Dim<D>: Dimension<D>,
{
    /// A follower in the world of `params` that moves the share `rate` (in (0, 1]; 1 jumps
    /// straight to the target) of the way to its target each frame.
    pub fn new(params: &Params, rate: f32) -> Self {
        Self {
            rate: rate.clamp(f32::MIN_POSITIVE, 1.0),
            torus: Torus::of(params),
            focus: None,
        }
    }

    /// Moves toward `target` and returns the smoothed focus; the first call returns `target`.
    /// On a torus the centre moves by the minimum-image difference and is wrapped back into the
    /// world.
    pub fn follow(&mut self, target: Focus<D>) -> Focus<D> {
        let next = match self.focus {
            None => target,
            Some(last) => {
                let step = self.torus.difference(target.center, last.center);
                Focus {
                    center: self.torus.into_world(last.center + step * self.rate),
                    half_extent: last.half_extent
                        + (target.half_extent - last.half_extent) * self.rate,
                }
            }
        };
        self.focus = Some(next);
        next
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;
    use crate::rules::group;
    use crate::state::FlockState;

    fn state(positions: &[Vec2]) -> FlockState {
        let n = positions.len();
        FlockState {
            positions: positions.to_vec(),
            velocities: vec![Vec2::X; n],
            groups: vec![group::NONE; n],
            biases: vec![0.0; n],
            ..FlockState::default()
        }
    }

    fn framing(params: &Params, positions: &[Vec2]) -> Framing {
        let state = state(positions);
        Framing::of(&Neighbors::of_state(params, &state)).unwrap()
    }

    fn near(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-4
    }

    #[test]
    fn the_largest_flock_is_the_focus_and_the_whole_flock_holds_every_boid() {
        // Visual range 40: a pair at (100, 100) and a trio at (400, 300), far apart.
        let params = Params::preset("cornell").unwrap();
        let pair = [Vec2::new(90.0, 100.0), Vec2::new(110.0, 100.0)];
        let trio = [
            Vec2::new(400.0, 290.0),
            Vec2::new(400.0, 310.0),
            Vec2::new(430.0, 300.0),
        ];
        let f = framing(&params, &[pair[0], trio[0], pair[1], trio[1], trio[2]]);
        assert!(near(f.largest.center, Vec2::new(410.0, 300.0)), "{f:?}");
        assert!(near(f.largest.half_extent, Vec2::new(20.0, 10.0)), "{f:?}");
        assert!(near(f.whole.center, Vec2::new(286.0, 220.0)), "{f:?}");
        assert!(near(f.whole.half_extent, Vec2::new(196.0, 120.0)), "{f:?}");
    }

    #[test]
    fn of_equally_large_flocks_the_lowest_index_wins() {
        let params = Params::preset("cornell").unwrap();
        let f = framing(&params, &[Vec2::new(500.0, 50.0), Vec2::new(100.0, 50.0)]);
        assert_eq!(f.largest.center, Vec2::new(500.0, 50.0));
        assert_eq!(f.largest.half_extent, Vec2::ZERO);
    }

    #[test]
    fn a_flock_straddling_a_torus_seam_is_centred_on_the_seam() {
        // World [-8, 8]^2, visual range 0.4: boids at x = 7.8, 7.9 and -7.9, -7.7 are one flock
        // across the seam at x = +-8; unwrapped around the first, its centroid is at x = 8.
        let params = Params::preset("functional").unwrap();
        let positions = [
            Vec2::new(7.8, 1.0),
            Vec2::new(-7.9, 1.0),
            Vec2::new(7.9, 1.2),
            Vec2::new(-7.8, 1.2),
        ];
        let f = framing(&params, &positions);
        assert!(
            f.largest.center.x.abs() > 7.99 && (f.largest.center.y - 1.1).abs() < 1e-5,
            "{f:?}"
        );
        assert!(near(f.largest.half_extent, Vec2::new(0.2, 0.1)), "{f:?}");
        assert!(near(f.whole.center, f.largest.center), "{f:?}");
        assert!(near(f.whole.half_extent, f.largest.half_extent), "{f:?}");
    }

    #[test]
    fn the_follower_converges_and_crosses_a_seam_the_short_way() {
        let params = Params::preset("functional").unwrap();
        let start = Focus {
            center: Vec2::new(7.0, 0.0),
            half_extent: Vec2::ONE,
        };
        let target = Focus {
            center: Vec2::new(-7.0, 2.0),
            half_extent: Vec2::splat(3.0),
        };
        let mut follower = Follower::<2>::new(&params, FOLLOW_RATE);
        assert_eq!(follower.follow(start), start);
        let first = follower.follow(target);
        assert!(first.center.x > 7.0, "moves right, across x = 8: {first:?}");
        let mut last = first;
        for _ in 0..200 {
            let next = follower.follow(target);
            let (before, after) = (
                (last.center - target.center).length(),
                (next.center - target.center).length(),
            );
            assert!(
                before > 1.0 || after <= before + 1e-6,
                "never moves away once near: {last:?} -> {next:?}"
            );
            last = next;
        }
        assert!(near(last.center, target.center), "{last:?}");
        assert!(near(last.half_extent, target.half_extent), "{last:?}");
        assert!(last.center.x >= -8.0 && last.center.x < 8.0);
    }
}
