//! Obstacle shapes and the three questions the step asks of them: is a point inside, where does a
//! straight move first enter, and which way is out.
//!
//! Circles and axis-aligned rectangles are solid; a wall is a polyline without thickness, which a
//! boid may touch but never cross. Everything is computed in `f32`, the precision of the flock's
//! state, so that "outside" means the same here as for the positions the step stores; only which
//! side of a wall a point is on is decided in `f64`, where it is exact.

use glam::Vec2;

/// One obstacle's geometry, in world units.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A solid disc.
    Circle {
        /// Centre.
        center: Vec2,
        /// Radius (> 0).
        radius: f32,
    },
    /// A solid axis-aligned rectangle.
    Rect {
        /// Corner with the smallest coordinates.
        min: Vec2,
        /// Corner with the largest coordinates.
        max: Vec2,
    },
    /// A polyline of at least two points that boids cannot cross.
    Wall {
        /// The corners, in order.
        points: Vec<Vec2>,
    },
}

/// Where a move first meets a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Fraction of the move travelled before the contact, in `[0, 1]`.
    pub t: f32,
    /// Unit normal of the surface at the contact, pointing back toward where the move came from.
    pub normal: Vec2,
}

impl Shape {
    /// The shape's name in a config.
    pub fn name(&self) -> &'static str {
        match self {
            Shape::Circle { .. } => "circle",
            Shape::Rect { .. } => "rect",
            Shape::Wall { .. } => "wall",
        }
    }

    /// The smallest axis-aligned box holding the shape: `(min, max)`.
    pub fn bounds(&self) -> (Vec2, Vec2) {
        match self {
            Shape::Circle { center, radius } => (*center - *radius, *center + *radius),
            Shape::Rect { min, max } => (*min, *max),
            Shape::Wall { points } => points.iter().fold(
                (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
                |(lo, hi), &p| (lo.min(p), hi.max(p)),
            ),
        }
    }

    /// The same shape moved by `offset` (a copy seen across a torus seam).
    pub fn translated(&self, offset: Vec2) -> Shape {
        match self {
            Shape::Circle { center, radius } => Shape::Circle {
                center: *center + offset,
                radius: *radius,
            },
            Shape::Rect { min, max } => Shape::Rect {
                min: *min + offset,
                max: *max + offset,
            },
            Shape::Wall { points } => Shape::Wall {
                points: points.iter().map(|&p| p + offset).collect(),
            },
        }
    }

    /// Whether `p` is strictly inside (a point on the surface is outside; nothing is inside a
    /// wall).
    pub fn contains(&self, p: Vec2) -> bool {
        match self {
            Shape::Circle { center, radius } => (p - *center).length_squared() < radius * radius,
            Shape::Rect { min, max } => p.cmpgt(*min).all() && p.cmplt(*max).all(),
            Shape::Wall { .. } => false,
        }
    }

    /// The nearest point just outside the shape from a point `p` inside it.
    pub fn exit(&self, p: Vec2) -> Vec2 {
        // A margin relative to the coordinate, so the point is outside in `f32` too.
        let margin = |x: f32| x.abs().max(1.0) * 1e-5;
        match self {
            Shape::Circle { center, radius } => {
                let out = (p - *center).try_normalize().unwrap_or(Vec2::X);
                let reach = *radius + margin(*radius) + margin(center.abs().max_element());
                *center + out * reach
            }
            Shape::Rect { min, max } => {
                let gaps = [p.x - min.x, max.x - p.x, p.y - min.y, max.y - p.y];
                let nearest = (0..4)
                    .min_by(|&a, &b| gaps[a].total_cmp(&gaps[b]))
                    .unwrap_or(0);
                let mut out = p;
                match nearest {
                    0 => out.x = min.x - margin(min.x),
                    1 => out.x = max.x + margin(max.x),
                    2 => out.y = min.y - margin(min.y),
                    _ => out.y = max.y + margin(max.y),
                }
                out
            }
            Shape::Wall { .. } => p,
        }
    }

    /// The first contact of the straight move `from -> to` with the shape, for a move that
    /// starts outside it. `None` if the move stays clear.
    pub fn first_hit(&self, from: Vec2, to: Vec2) -> Option<Hit> {
        let d = to - from;
        match self {
            Shape::Circle { center, radius } => circle_hit(*center, *radius, from, d),
            Shape::Rect { min, max } => rect_hit(*min, *max, from, d),
            Shape::Wall { points } => points
                .windows(2)
                .filter_map(|s| segment_hit(s[0], s[1], from, to))
                .min_by(|a, b| a.t.total_cmp(&b.t)),
        }
    }
}

/// Entry of `from + t d`, `t` in `[0, 1]`, into the disc.
fn circle_hit(center: Vec2, radius: f32, from: Vec2, d: Vec2) -> Option<Hit> {
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
        normal: (m + d * t).normalize_or(-d.normalize_or_zero()),
    })
}

/// Entry of `from + t d` into the rectangle (slab method). A move from a side into the
/// rectangle enters at `t = 0` (else it could pass through a thin one unseen); one along a
/// side, or away from it, stays clear.
fn rect_hit(min: Vec2, max: Vec2, from: Vec2, d: Vec2) -> Option<Hit> {
    let mut enter = f32::NEG_INFINITY;
    let mut exit = f32::INFINITY;
    let mut normal = Vec2::ZERO;
    for axis in 0..2 {
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
            normal = Vec2::ZERO;
            normal[axis] = side;
        }
        exit = exit.min(far);
    }
    ((0.0..=1.0).contains(&enter) && enter < exit).then_some(Hit { t: enter, normal })
}

/// Contact of the move `from -> to` with the segment `a b`: the move starts off the segment's
/// line and ends on it or beyond, between the segment's ends (touching counts). A move that
/// starts on the line leaves it to either side.
///
/// The sides are decided in `f64`, where the differences of `f32` coordinates and their
/// products are exact or nearly so: in `f32` a move that ends a hair past the line could be
/// rounded to end short of it, and the step would store a position across the wall.
fn segment_hit(a: Vec2, b: Vec2, from: Vec2, to: Vec2) -> Option<Hit> {
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
        let c = Shape::Circle {
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
    fn rect_entry_through_each_side() {
        let r = Shape::Rect {
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
        let r = Shape::Rect {
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
        let w = Shape::Wall {
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
        let w = Shape::Wall {
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
}
