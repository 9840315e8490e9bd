//! Obstacle shapes and the three questions the step asks of them: is a point inside, where does a
//! straight move first enter, and which way is out.
//!
//! A [`Shape`] is written once over the dimension `D`: a ball (a disc in 2D, a sphere in 3D) and
//! an axis-aligned box (a rectangle in 2D) are solid; a wall, two-dimensional only, is a
//! polyline without thickness, which a boid may touch but never cross (in 3D, boxes make
//! walls). An [`Obstacle`] is a shape as the parameters hold it, with its dimension, so a
//! config of either dimension reads into one list and the checks can refuse a shape of the
//! other. Everything is computed in `f32`, the precision of the flock's state, so that
//! "outside" means the same here as for the positions the step stores; only which side of a
//! wall a point is on is decided in `f64`, where it is exact.

use glam::Vec2;

use crate::space::{self, Coordinates, Dim, Dimension, VecN};

/// One obstacle's geometry in `D` dimensions, in world units.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// A solid disc (2D) or sphere (3D).
    Ball {
        /// Centre.
        center: VecN<D>,
        /// Radius (> 0).
        radius: f32,
    },
    /// A solid axis-aligned rectangle (2D) or box (3D).
    AlignedBox {
        /// Corner with the smallest coordinates.
        min: VecN<D>,
        /// Corner with the largest coordinates.
        max: VecN<D>,
    },
    /// A polyline of at least two points that boids cannot cross (two dimensions only).
    Wall {
        /// The corners, in order.
        points: Vec<Vec2>,
    },
}

/// An obstacle as the parameters hold it: a shape of the plane (`circle`, `rect`, `wall`) or of
/// space (`sphere`, `box`). A flock of `D` dimensions takes the shapes of `D` dimensions
/// ([`Obstacle::shape`]); the parameter checks refuse the others by name.
#[derive(Clone, Debug, PartialEq)]
pub enum Obstacle {
    /// A circle, rectangle or wall.
    Plane(Shape<2>),
    /// A sphere or box.
    Space(Shape<3>),
}

impl Obstacle {
    /// The shape's name in a config.
    pub fn name(&self) -> &'static str {
        match self {
            Obstacle::Plane(shape) => shape.name(),
            Obstacle::Space(shape) => shape.name(),
        }
    }

    /// The dimensions of the world the shape lives in: 2 or 3.
    pub fn dimensions(&self) -> usize {
        match self {
            Obstacle::Plane(_) => 2,
            Obstacle::Space(_) => 3,
        }
    }

    /// The shape in `D` dimensions, or `None` when it has the other dimension.
    pub fn shape<const D: usize>(&self) -> Option<Shape<D>>
    where
        Dim<D>: Dimension<D>,
    {
        match self {
            Obstacle::Plane(shape) => shape.recast(),
            Obstacle::Space(shape) => shape.recast(),
        }
    }
}

/// Where a move first meets a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// Fraction of the move travelled before the contact, in `[0, 1]`.
    pub t: f32,
    /// Unit normal of the surface at the contact, pointing back toward where the move came from.
    pub normal: VecN<D>,
}

/// `f` applied axis by axis to `a` and `b`.
pub(crate) fn zip_axes<const D: usize>(
    a: VecN<D>,
    b: VecN<D>,
    f: impl Fn(f32, f32) -> f32,
) -> VecN<D>
where
    Dim<D>: Dimension<D>,
{
    let (a, b) = (a.to_array(), b.to_array());
    std::array::from_fn(|i| f(a[i], b[i])).into()
}

/// The vector with every coordinate `x`.
pub(crate) fn splat<const D: usize>(x: f32) -> VecN<D>
where
    Dim<D>: Dimension<D>,
{
    [x; D].into()
}

/// Whether `test` holds on every axis of `a` and `b`.
pub(crate) fn all_axes<const D: usize>(
    a: VecN<D>,
    b: VecN<D>,
    test: impl Fn(f32, f32) -> bool,
) -> bool
where
    Dim<D>: Dimension<D>,
{
    let (a, b) = (a.to_array(), b.to_array());
    (0..D).all(|i| test(a[i], b[i]))
}

/// The x-y part of a point (a wall's plane).
fn plane<const D: usize>(p: VecN<D>) -> Vec2
where
    Dim<D>: Dimension<D>,
{
    let p = p.to_array();
    Vec2::new(p[0], p[1])
}

impl<const D: usize> Shape<D>
where
    Dim<D>: Dimension<D>,
{
    /// The shape's name in a config.
    pub fn name(&self) -> &'static str {
        match (self, D) {
            (Shape::Ball { .. }, 2) => "circle",
            (Shape::Ball { .. }, _) => "sphere",
            (Shape::AlignedBox { .. }, 2) => "rect",
            (Shape::AlignedBox { .. }, _) => "box",
            (Shape::Wall { .. }, _) => "wall",
        }
    }

    /// The same shape in `E` dimensions when `E` is `D`, else `None`.
    fn recast<const E: usize>(&self) -> Option<Shape<E>>
    where
        Dim<E>: Dimension<E>,
    {
        if E != D {
            return None;
        }
        let same = |v: VecN<D>| {
            let v = v.to_array();
            VecN::<E>::from(std::array::from_fn(|i| v[i]))
        };
        Some(match self {
            Shape::Ball { center, radius } => Shape::Ball {
                center: same(*center),
                radius: *radius,
            },
            Shape::AlignedBox { min, max } => Shape::AlignedBox {
                min: same(*min),
                max: same(*max),
            },
            Shape::Wall { points } => Shape::Wall {
                points: points.clone(),
            },
        })
    }

    /// The smallest axis-aligned box holding the shape: `(min, max)`.
    pub fn bounds(&self) -> (VecN<D>, VecN<D>) {
        match self {
            Shape::Ball { center, radius } => (
                zip_axes(*center, splat(*radius), |c, r| c - r),
                zip_axes(*center, splat(*radius), |c, r| c + r),
            ),
            Shape::AlignedBox { min, max } => (*min, *max),
            Shape::Wall { points } => {
                let (lo, hi) = points.iter().fold(
                    (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
                    |(lo, hi), &p| (lo.min(p), hi.max(p)),
                );
                (space::in_plane(lo).into(), space::in_plane(hi).into())
            }
        }
    }

    /// The same shape moved by `offset` (a copy seen across a torus seam).
    pub fn translated(&self, offset: VecN<D>) -> Shape<D> {
        match self {
            Shape::Ball { center, radius } => Shape::Ball {
                center: *center + offset,
                radius: *radius,
            },
            Shape::AlignedBox { min, max } => Shape::AlignedBox {
                min: *min + offset,
                max: *max + offset,
            },
            Shape::Wall { points } => Shape::Wall {
                points: points.iter().map(|&p| p + plane(offset)).collect(),
            },
        }
    }

    /// Whether `p` is strictly inside (a point on the surface is outside; nothing is inside a
    /// wall).
    pub fn contains(&self, p: VecN<D>) -> bool {
        match self {
            Shape::Ball { center, radius } => (p - *center).length_squared() < radius * radius,
            Shape::AlignedBox { min, max } => {
                all_axes(p, *min, |p, lo| p > lo) && all_axes(p, *max, |p, hi| p < hi)
            }
            Shape::Wall { .. } => false,
        }
    }

    /// The nearest point just outside the shape from a point `p` inside it.
    pub fn exit(&self, p: VecN<D>) -> VecN<D> {
        // A margin relative to the coordinate, so the point is outside in `f32` too.
        let margin = |x: f32| x.abs().max(1.0) * 1e-5;
        match self {
            Shape::Ball { center, radius } => {
                let x_axis = VecN::<D>::from(std::array::from_fn(|a| f32::from(a == 0)));
                let out = (p - *center).try_normalize().unwrap_or(x_axis);
                let farthest = center
                    .to_array()
                    .iter()
                    .fold(f32::NEG_INFINITY, |m, c| m.max(c.abs()));
                let reach = *radius + margin(*radius) + margin(farthest);
                *center + out * reach
            }
            Shape::AlignedBox { min, max } => {
                let (lo, hi, mut out) = (min.to_array(), max.to_array(), p.to_array());
                // The gaps to the low and high face of each axis, in that order.
                let gap = |k: usize| match k % 2 {
                    0 => out[k / 2] - lo[k / 2],
                    _ => hi[k / 2] - out[k / 2],
                };
                let nearest = (0..2 * D)
                    .min_by(|&a, &b| gap(a).total_cmp(&gap(b)))
                    .unwrap_or(0);
                let axis = nearest / 2;
                out[axis] = match nearest % 2 {
                    0 => lo[axis] - margin(lo[axis]),
                    _ => hi[axis] + margin(hi[axis]),
                };
                out.into()
            }
            Shape::Wall { .. } => p,
        }
    }

    /// The point of the shape's surface nearest to `p`, a point outside it (walls are
    /// two-dimensional: their nearest point keeps any other coordinate of `p`).
    pub fn nearest_surface(&self, p: VecN<D>) -> VecN<D> {
        match self {
            Shape::Ball { center, radius } => *center + (p - *center).normalize_or_zero() * *radius,
            Shape::AlignedBox { min, max } => zip_axes(zip_axes(p, *min, f32::max), *max, f32::min),
            Shape::Wall { points } => {
                let at = plane(p);
                let nearest = points
                    .windows(2)
                    .map(|s| nearest_on_segment(s[0], s[1], at))
                    .min_by(|a, b| a.distance_squared(at).total_cmp(&b.distance_squared(at)))
                    .unwrap_or(at);
                let mut q = p.to_array();
                q[..2].copy_from_slice(&nearest.to_array());
                q.into()
            }
        }
    }

    /// The first contact of the straight move `from -> to` with the shape, for a move that
    /// starts outside it. `None` if the move stays clear.
    pub fn first_hit(&self, from: VecN<D>, to: VecN<D>) -> Option<Hit<D>> {
        let d = to - from;
        match self {
            Shape::Ball { center, radius } => ball_hit(*center, *radius, from, d),
            Shape::AlignedBox { min, max } => box_hit(*min, *max, from, d),
            Shape::Wall { points } => points
                .windows(2)
                .filter_map(|s| segment_hit(s[0], s[1], plane(from), plane(to)))
                .min_by(|a, b| a.t.total_cmp(&b.t))
                .map(|hit| Hit {
                    t: hit.t,
                    normal: space::in_plane(hit.normal).into(),
                }),
        }
    }
}

/// The point of the segment `a b` nearest to `p`.
fn nearest_on_segment(a: Vec2, b: Vec2, p: Vec2) -> Vec2 {
    let e = b - a;
    let along = e.length_squared();
    if along == 0.0 {
        return a;
    }
    a + e * ((p - a).dot(e) / along).clamp(0.0, 1.0)
}

/// Entry of `from + t d`, `t` in `[0, 1]`, into the ball.
fn ball_hit<const D: usize>(
    center: VecN<D>,
    radius: f32,
    from: VecN<D>,
    d: VecN<D>,
) -> Option<Hit<D>>
where
    Dim<D>: Dimension<D>,
{
    let m = from - center;
    let a = d.length_squared();
    let b = m.dot(d);
    let c = m.length_squared() - radius * radius;
    if a == 0.0 || b >= 0.0 || c < 0.0 {
        // Not moving, moving away, or already inside (the caller's invariant rules that out).
        return None;
    }
    let discriminant = b * b - a * c;
    if discriminant < 0.0 {
        return None;
    }
    let t = (-b - discriminant.sqrt()) / a;
    (0.0..=1.0).contains(&t).then(|| Hit {
        t,
        normal: (m + d * t)
            .try_normalize()
            .unwrap_or(-d.normalize_or_zero()),
    })
}

/// Entry of `from + t d` into the box (slab method). A move from a face into the box enters at
/// `t = 0` (else it could pass through a thin one unseen); one along a face, or away from it,
/// stays clear.
fn box_hit<const D: usize>(min: VecN<D>, max: VecN<D>, from: VecN<D>, d: VecN<D>) -> Option<Hit<D>>
where
    Dim<D>: Dimension<D>,
{
    let (min, max, from, d) = (
        min.to_array(),
        max.to_array(),
        from.to_array(),
        d.to_array(),
    );
    let mut enter = f32::NEG_INFINITY;
    let mut exit = f32::INFINITY;
    let mut normal = [0.0; D];
    for axis in 0..D {
        let (lo, hi, p, v) = (min[axis], max[axis], from[axis], d[axis]);
        if v == 0.0 {
            if p <= lo || p >= hi {
                return None;
            }
            continue;
        }
        let (t_lo, t_hi) = ((lo - p) / v, (hi - p) / v);
        let (near, far, side) = if v > 0.0 {
            (t_lo, t_hi, -1.0)
        } else {
            (t_hi, t_lo, 1.0)
        };
        if near > enter {
            enter = near;
            normal = [0.0; D];
            normal[axis] = side;
        }
        exit = exit.min(far);
    }
    ((0.0..=1.0).contains(&enter) && enter < exit).then(|| Hit {
        t: enter,
        normal: normal.into(),
    })
}

/// Contact of the move `from -> to` with the segment `a b`: the move starts off the segment's
/// line and ends on it or beyond, between the segment's ends (touching counts). A move that
/// starts on the line leaves it to either side.
///
/// The sides are decided in `f64`, where the differences of `f32` coordinates and their
/// products are exact or nearly so: in `f32` a move that ends a hair past the line could be
/// rounded to end short of it, and the step would store a position across the wall.
fn segment_hit(a: Vec2, b: Vec2, from: Vec2, to: Vec2) -> Option<Hit<2>> {
    let (a, b, p, q) = (a.as_dvec2(), b.as_dvec2(), from.as_dvec2(), to.as_dvec2());
    let e = b - a;
    let (side_from, side_to) = (e.perp_dot(p - a), e.perp_dot(q - a));
    if side_from == 0.0 || (side_to != 0.0 && (side_from > 0.0) == (side_to > 0.0)) {
        return None;
    }
    let m = q - p;
    let (end_a, end_b) = (m.perp_dot(a - p), m.perp_dot(b - p));
    if end_a != 0.0 && end_b != 0.0 && (end_a > 0.0) == (end_b > 0.0) {
        return None;
    }
    // `from` lies on the side of `e.perp()` where `side_from` is positive.
    let normal = e.perp().normalize_or_zero() * side_from.signum();
    Some(Hit {
        t: (side_from / (side_from - side_to)).clamp(0.0, 1.0) as f32,
        normal: normal.as_vec2(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    #[test]
    fn circle_entry_point_and_normal() {
        let c = Shape::<2>::Ball {
            center: v(0.0, 0.0),
            radius: 1.0,
        };
        let hit = c.first_hit(v(-3.0, 0.0), v(1.0, 0.0)).unwrap();
        assert!((hit.t - 0.5).abs() < 1e-6, "{hit:?}");
        assert!((hit.normal - v(-1.0, 0.0)).length() < 1e-6);
        assert!(c.first_hit(v(-3.0, 2.0), v(3.0, 2.0)).is_none());
        assert!(c.first_hit(v(-3.0, 0.0), v(-1.5, 0.0)).is_none());
        assert!(c.contains(v(0.5, 0.5)) && !c.contains(v(1.0, 0.0)));
    }

    #[test]
    fn nearest_surface_points_of_each_shape() {
        let circle = Shape::<2>::Ball {
            center: v(1.0, 1.0),
            radius: 2.0,
        };
        assert_eq!(circle.nearest_surface(v(1.0, 5.0)), v(1.0, 3.0));
        let rect = Shape::<2>::AlignedBox {
            min: v(0.0, 0.0),
            max: v(2.0, 1.0),
        };
        assert_eq!(rect.nearest_surface(v(3.0, 0.5)), v(2.0, 0.5));
        assert_eq!(rect.nearest_surface(v(-1.0, 4.0)), v(0.0, 1.0));
        let wall = Shape::<2>::Wall {
            points: vec![v(0.0, 0.0), v(4.0, 0.0), v(4.0, 4.0)],
        };
        assert_eq!(wall.nearest_surface(v(2.0, -1.0)), v(2.0, 0.0));
        assert_eq!(wall.nearest_surface(v(6.0, 3.0)), v(4.0, 3.0));
        assert_eq!(wall.nearest_surface(v(5.0, -2.0)), v(4.0, 0.0));
    }

    #[test]
    fn rect_entry_through_each_side() {
        let r = Shape::<2>::AlignedBox {
            min: v(0.0, 0.0),
            max: v(2.0, 1.0),
        };
        for (from, to, normal) in [
            (v(-1.0, 0.5), v(1.0, 0.5), v(-1.0, 0.0)),
            (v(3.0, 0.5), v(1.0, 0.5), v(1.0, 0.0)),
            (v(1.0, -1.0), v(1.0, 0.5), v(0.0, -1.0)),
            (v(1.0, 2.0), v(1.0, 0.5), v(0.0, 1.0)),
        ] {
            let hit = r.first_hit(from, to).unwrap();
            assert_eq!(hit.normal, normal, "{from} -> {to}");
            assert!(!r.contains(from + (to - from) * hit.t));
        }
        assert!(r.first_hit(v(-1.0, 2.0), v(3.0, 2.0)).is_none());
        // Sliding along a side touches nothing.
        assert!(r.first_hit(v(-1.0, 0.0), v(3.0, 0.0)).is_none());
    }

    #[test]
    fn a_move_from_a_rect_side_into_it_enters_at_once() {
        let r = Shape::<2>::AlignedBox {
            min: v(0.0, 0.0),
            max: v(0.5, 1.0),
        };
        // Straight through the thin rectangle, from its left side and from its corner.
        for from in [v(0.0, 0.5), v(0.0, 0.0)] {
            let hit = r.first_hit(from, from + v(2.0, 0.25)).unwrap();
            assert_eq!((hit.t, hit.normal), (0.0, v(-1.0, 0.0)), "from {from}");
        }
        // Away from the side, or along it, is clear.
        assert!(r.first_hit(v(0.0, 0.5), v(-2.0, 0.5)).is_none());
        assert!(r.first_hit(v(0.0, 0.5), v(0.0, 3.0)).is_none());
    }

    #[test]
    fn walls_stop_a_crossing_from_either_side() {
        let w = Shape::<2>::Wall {
            points: vec![v(0.0, 0.0), v(0.0, 2.0), v(2.0, 2.0)],
        };
        let hit = w.first_hit(v(-1.0, 1.0), v(1.0, 1.0)).unwrap();
        assert!((hit.t - 0.5).abs() < 1e-6 && hit.normal == v(-1.0, 0.0));
        let hit = w.first_hit(v(1.0, 1.0), v(-1.0, 1.0)).unwrap();
        assert_eq!(hit.normal, v(1.0, 0.0));
        // The nearer of two segments.
        let hit = w.first_hit(v(1.0, 3.0), v(-1.0, 1.0)).unwrap();
        assert!((hit.t - 0.5).abs() < 1e-6, "{hit:?}");
        assert!(!w.contains(v(0.0, 1.0)));
        assert_eq!(w.bounds(), (v(0.0, 0.0), v(2.0, 2.0)));
        // A move that ends on the wall touches it; one that starts on it leaves freely.
        assert_eq!(w.first_hit(v(-1.0, 1.0), v(0.0, 1.0)).unwrap().t, 1.0);
        assert!(w.first_hit(v(0.0, 1.0), v(1.0, 1.0)).is_none());
    }

    /// A move that ends a hair (about 1e-6 of its length) past a long wall: the crossing is at
    /// `t` just below 1, which `f32` arithmetic rounds to just above 1, missing it.
    #[test]
    fn a_move_ending_a_hair_past_a_wall_hits_it() {
        let w = Shape::<2>::Wall {
            points: vec![v(118.43956, 314.31775), v(546.79944, 96.808716)],
        };
        let (from, to) = (v(299.0056, 223.2574), v(297.9654, 223.1596));
        let hit = w.first_hit(from, to).expect("the move crosses the wall");
        assert!(hit.t > 0.99 && hit.t <= 1.0, "{hit:?}");
        // Stopping a little short of the contact is clear.
        assert!(
            w.first_hit(from, from + (to - from) * (hit.t * 0.999))
                .is_none()
        );
    }

    fn v3(x: f32, y: f32, z: f32) -> glam::Vec3 {
        glam::Vec3::new(x, y, z)
    }

    #[test]
    fn sphere_entry_point_normal_and_exit() {
        let sphere = Shape::<3>::Ball {
            center: v3(1.0, 2.0, 3.0),
            radius: 2.0,
        };
        let hit = sphere
            .first_hit(v3(1.0, 2.0, -3.0), v3(1.0, 2.0, 3.0))
            .unwrap();
        assert!((hit.t - 4.0 / 6.0).abs() < 1e-6, "{hit:?}");
        assert!((hit.normal - v3(0.0, 0.0, -1.0)).length() < 1e-6);
        // Passing beside it along z, 2.5 off in y, is clear.
        assert!(
            sphere
                .first_hit(v3(1.0, 4.5, -3.0), v3(1.0, 4.5, 9.0))
                .is_none()
        );
        assert!(sphere.contains(v3(1.0, 2.0, 4.9)) && !sphere.contains(v3(1.0, 2.0, 5.1)));
        let out = sphere.exit(v3(1.0, 2.5, 3.0));
        assert!(!sphere.contains(out) && (out - v3(1.0, 4.0, 3.0)).length() < 1e-3);
        assert_eq!(sphere.bounds(), (v3(-1.0, 0.0, 1.0), v3(3.0, 4.0, 5.0)));
        assert_eq!(sphere.name(), "sphere");
    }

    #[test]
    fn box_entry_through_each_of_its_six_faces() {
        let b = Shape::<3>::AlignedBox {
            min: v3(0.0, 0.0, 0.0),
            max: v3(2.0, 1.0, 3.0),
        };
        let centre = v3(1.0, 0.5, 1.5);
        for axis in 0..3 {
            for side in [-1.0f32, 1.0] {
                let mut normal = [0.0; 3];
                normal[axis] = side;
                let normal = glam::Vec3::from(normal);
                let from = centre + normal * 4.0;
                let hit = b.first_hit(from, centre).unwrap();
                assert_eq!(hit.normal, normal, "from {from}");
                assert!(!b.contains(from + (centre - from) * hit.t));
                let out = b.exit(centre + normal * 0.4);
                assert!(!b.contains(out), "{out}");
            }
        }
        // Above the top face, and sliding along it, is clear.
        assert!(b.first_hit(v3(-1.0, 0.5, 4.0), v3(3.0, 0.5, 4.0)).is_none());
        assert!(b.first_hit(v3(-1.0, 0.5, 3.0), v3(3.0, 0.5, 3.0)).is_none());
        assert_eq!(b.name(), "box");
    }

    #[test]
    fn an_obstacle_gives_its_shape_only_in_its_own_dimension() {
        let circle = Obstacle::Plane(Shape::Ball {
            center: v(1.0, 2.0),
            radius: 3.0,
        });
        assert_eq!(circle.dimensions(), 2);
        assert!(circle.shape::<2>().is_some() && circle.shape::<3>().is_none());
        let sphere = Obstacle::Space(Shape::Ball {
            center: v3(1.0, 2.0, 3.0),
            radius: 3.0,
        });
        assert_eq!(sphere.shape::<3>().unwrap().bounds().1, v3(4.0, 5.0, 6.0));
        assert!(sphere.shape::<2>().is_none());
        assert_eq!((circle.name(), sphere.name()), ("circle", "sphere"));
    }
}
