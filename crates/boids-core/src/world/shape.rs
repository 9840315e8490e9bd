//! Obstacle shapes and the three questions the step asks of them: is a point inside, where does a
//! straight move first enter, and which way is out.
//!
//! Circles and axis-aligned rectangles are solid; a wall is a polyline without thickness, which a
//! boid may touch but never cross. Everything is computed in `f32`, the precision of the flock's
//! state, so that "outside" means the same here as for the positions the step stores.

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
                .filter_map(|s| segment_hit(s[0], s[1], from, d))
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

/// Entry of `from + t d` into the rectangle (slab method).
fn rect_hit(min: Vec2, max: Vec2, from: Vec2, d: Vec2) -> Option<Hit> {
    let mut enter = 0.0f32;
    let mut exit = 1.0f32;
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
        let (near, far, side) = if t_lo < t_hi {
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
        if enter >= exit {
            return None;
        }
    }
    (normal != Vec2::ZERO).then_some(Hit { t: enter, normal })
}

/// Contact of `from + t d` with the segment `a b` (touching counts).
fn segment_hit(a: Vec2, b: Vec2, from: Vec2, d: Vec2) -> Option<Hit> {
    let e = b - a;
    let denominator = d.perp_dot(e);
    if denominator == 0.0 {
        return None;
    }
    let w = a - from;
    let t = w.perp_dot(e) / denominator;
    let s = w.perp_dot(d) / denominator;
    if !((0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&s)) {
        return None;
    }
    let perpendicular = e.perp().normalize_or_zero();
    let normal = if perpendicular.dot(d) > 0.0 {
        -perpendicular
    } else {
        perpendicular
    };
    Some(Hit { t, normal })
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
    }
}
