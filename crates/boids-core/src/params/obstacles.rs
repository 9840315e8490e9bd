//! Obstacles as parameters: read from a config file or a message, written back, and indexed
//! for the parameter set's world ([`ObstacleIndex::of`]). Reading shapes is parsing, so it
//! lives with the parameters, as every other value's reading does.
//!
//! A config spells obstacles as a list of tables, one per obstacle,
//! `shape = "circle" | "rect" | "wall"` (2D) or `"sphere" | "box"` (3D) with that shape's keys,
//! coordinates `[x, y]` in 2D and `[x, y, z]` in 3D. Every value is checked here, with a
//! message that names the obstacle (counted from 1), the key and what is allowed; whether the
//! shapes have the flock's dimension is a parameter check, as `dimensions` may be set later.

use glam::Vec2;

use super::{Params, Raw, Unit, show_number};
use crate::obstacles::{Obstacle, ObstacleIndex, Shape};
use crate::space::{Coordinates, Dim, Dimension, VecN};

/// The shapes a config may name, for messages.
const SHAPES: &str = "\"circle\", \"rect\" or \"wall\" (2D), \"sphere\" or \"box\" (3D)";

impl<const D: usize> ObstacleIndex<D>
where
    Dim<D>: Dimension<D>,
{
    /// The obstacles of `params` of `D` dimensions (with their torus copies when the world
    /// wraps).
    pub fn of(params: &Params) -> Self {
        let shapes: Vec<Shape<D>> = params.obstacles.iter().filter_map(|o| o.shape()).collect();
        let torus = params.is_torus().then(|| {
            let (min, size) = params.world_box::<D>();
            (min.into(), size.into())
        });
        Self::new(&shapes, torus)
    }
}

/// Reads a list of obstacle tables.
pub fn read_shapes(raw: &Raw) -> Result<Vec<Obstacle>, String> {
    let Raw::List(items) = raw else {
        return Err(format!(
            "a list of obstacle tables ([[obstacles]] in a config file), each with shape = {SHAPES}"
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            read_shape(item).map_err(|message| format!("obstacle {}: {message}", i + 1))
        })
        .collect()
}

fn read_shape(raw: &Raw) -> Result<Obstacle, String> {
    let Raw::Table(entries) = raw else {
        return Err(format!("{raw} is not a table with a `shape` key"));
    };
    let get = |key: &str| entries.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    let shape = match get("shape") {
        Some(Raw::Text(name)) => name.as_str(),
        Some(other) => {
            return Err(format!("shape = {other} is not allowed: expected {SHAPES}"));
        }
        None => return Err(format!("no `shape` key: expected shape = {SHAPES}")),
    };
    let keys: &[&str] = match shape {
        "circle" | "sphere" => &["shape", "center", "radius"],
        "rect" | "box" => &["shape", "min", "max"],
        "wall" => &["shape", "points"],
        other => {
            return Err(format!(
                "shape = \"{other}\" is not allowed: expected {SHAPES}"
            ));
        }
    };
    if let Some((unknown, _)) = entries.iter().find(|(k, _)| !keys.contains(&k.as_str())) {
        return Err(format!(
            "unknown key `{unknown}` for a {shape}: allowed keys are {}",
            keys.join(", ")
        ));
    }
    let need = |key: &str| get(key).ok_or_else(|| format!("a {shape} needs `{key}`"));
    match shape {
        "circle" => read_ball(need("center")?, need("radius")?).map(Obstacle::Plane),
        "sphere" => read_ball(need("center")?, need("radius")?).map(Obstacle::Space),
        "rect" => read_box(need("min")?, need("max")?).map(Obstacle::Plane),
        "box" => read_box(need("min")?, need("max")?).map(Obstacle::Space),
        _ => read_wall(need("points")?).map(Obstacle::Plane),
    }
}

/// A circle (`D` = 2) or sphere (3).
fn read_ball<const D: usize>(center: &Raw, radius: &Raw) -> Result<Shape<D>, String>
where
    Dim<D>: Dimension<D>,
{
    let center = point::<D>(center, "center")?;
    let radius = number(radius, "radius")?;
    if radius <= 0.0 {
        return Err(format!(
            "radius = {radius} is not allowed: expected a number > 0"
        ));
    }
    Ok(Shape::Ball {
        center,
        radius: radius as f32,
    })
}

/// A rectangle (`D` = 2) or box (3).
fn read_box<const D: usize>(min: &Raw, max: &Raw) -> Result<Shape<D>, String>
where
    Dim<D>: Dimension<D>,
{
    let (min, max) = (point::<D>(min, "min")?, point::<D>(max, "max")?);
    let (lo, hi) = (min.to_array(), max.to_array());
    if (0..D).any(|a| lo[a] >= hi[a]) {
        return Err(format!(
            "min = {} must be below max = {} on every axis",
            show(&lo),
            show(&hi)
        ));
    }
    Ok(Shape::AlignedBox { min, max })
}

/// A wall: a polyline of at least two `[x, y]` points.
fn read_wall(points: &Raw) -> Result<Shape<2>, String> {
    let Raw::List(items) = points else {
        return Err("points must be a list of [x, y] pairs".to_owned());
    };
    if items.len() < 2 {
        return Err(format!(
            "a wall needs at least 2 points, got {}",
            items.len()
        ));
    }
    let points = items
        .iter()
        .enumerate()
        .map(|(k, p)| point::<2>(p, &format!("points[{k}]")))
        .collect::<Result<Vec<Vec2>, _>>()?;
    Ok(Shape::Wall { points })
}

/// Coordinates as a message shows them: `[1, 2]`.
fn show(coordinates: &[f32]) -> String {
    let shown: Vec<String> = coordinates.iter().map(f32::to_string).collect();
    format!("[{}]", shown.join(", "))
}

fn number(raw: &Raw, key: &str) -> Result<f64, String> {
    let x = match *raw {
        Raw::Integer(i) => i as f64,
        Raw::Float(x) => x,
        _ => return Err(format!("{key} = {raw} is not a number")),
    };
    // Coordinates are lengths: within the world's own limit.
    let limit = Unit::Length.limit();
    if x.abs() <= limit {
        Ok(x)
    } else {
        Err(format!(
            "{key} = {x} is not allowed: expected a finite number within ±{}",
            show_number(limit)
        ))
    }
}

/// A point of `D` coordinates; a list of the other length is refused with the shape to use.
fn point<const D: usize>(raw: &Raw, key: &str) -> Result<VecN<D>, String>
where
    Dim<D>: Dimension<D>,
{
    let (form, other) = match D {
        2 => (
            "an [x, y] pair",
            "[x, y, z] points are for 3D shapes: sphere, box",
        ),
        _ => (
            "an [x, y, z] point",
            "[x, y] pairs are for 2D shapes: circle, rect, wall",
        ),
    };
    match raw {
        Raw::List(coordinates) if coordinates.len() == D => {
            let mut point = [0.0; D];
            for (c, raw) in point.iter_mut().zip(coordinates) {
                *c = number(raw, key)? as f32;
            }
            Ok(point.into())
        }
        Raw::List(coordinates) if (2..=3).contains(&coordinates.len()) => {
            Err(format!("{key} = {raw} is not {form} ({other})"))
        }
        _ => Err(format!("{key} = {raw} is not {form}")),
    }
}

/// The table of an obstacle, for writing (the inverse of [`read_shapes`]).
pub fn shape_entries(obstacle: &Obstacle) -> Vec<(&'static str, Raw)> {
    match obstacle {
        Obstacle::Plane(shape) => entries(shape),
        Obstacle::Space(shape) => entries(shape),
    }
}

/// The table of a shape of `D` dimensions.
fn entries<const D: usize>(shape: &Shape<D>) -> Vec<(&'static str, Raw)>
where
    Dim<D>: Dimension<D>,
{
    let point = |p: [f32; D]| Raw::List(p.iter().map(|&c| Raw::Float(f64::from(c))).collect());
    let name = ("shape", Raw::Text(shape.name().into()));
    match shape {
        Shape::Ball { center, radius } => vec![
            name,
            ("center", point(center.to_array())),
            ("radius", Raw::Float(f64::from(*radius))),
        ],
        Shape::AlignedBox { min, max } => vec![
            name,
            ("min", point(min.to_array())),
            ("max", point(max.to_array())),
        ],
        Shape::Wall { points } => vec![
            name,
            (
                "points",
                Raw::List(points.iter().map(|p| point(in_d(*p))).collect()),
            ),
        ],
    }
}

/// A wall's point as coordinates of `D` dimensions (walls exist in 2D only).
fn in_d<const D: usize>(p: Vec2) -> [f32; D] {
    crate::space::in_plane(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(entries: &[(&str, Raw)]) -> Raw {
        Raw::Table(
            entries
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        )
    }

    fn pair(x: f64, y: f64) -> Raw {
        Raw::List(vec![Raw::Float(x), Raw::Float(y)])
    }

    #[test]
    fn every_shape_reads_and_writes_back() {
        let shapes = vec![
            Obstacle::Plane(Shape::Ball {
                center: Vec2::new(320.0, 240.0),
                radius: 60.0,
            }),
            Obstacle::Plane(Shape::AlignedBox {
                min: Vec2::new(1.0, 2.0),
                max: Vec2::new(3.0, 4.0),
            }),
            Obstacle::Plane(Shape::Wall {
                points: vec![Vec2::ZERO, Vec2::new(5.0, 0.0), Vec2::new(5.0, 5.0)],
            }),
            Obstacle::Space(Shape::Ball {
                center: glam::Vec3::new(1.0, 2.0, 3.0),
                radius: 4.0,
            }),
            Obstacle::Space(Shape::AlignedBox {
                min: glam::Vec3::new(1.0, 2.0, 3.0),
                max: glam::Vec3::new(4.0, 5.0, 6.0),
            }),
        ];
        let raw = Raw::List(
            shapes
                .iter()
                .map(|s| {
                    Raw::Table(
                        shape_entries(s)
                            .into_iter()
                            .map(|(k, v)| (k.to_owned(), v))
                            .collect(),
                    )
                })
                .collect(),
        );
        assert_eq!(read_shapes(&raw).unwrap(), shapes);
    }

    #[test]
    fn bad_obstacles_name_the_obstacle_the_key_and_what_is_allowed() {
        let circle = |radius: Raw| {
            table(&[
                ("shape", Raw::Text("circle".into())),
                ("center", pair(0.0, 0.0)),
                ("radius", radius),
            ])
        };
        let cases = [
            (
                circle(Raw::Float(-1.0)),
                "obstacle 2: radius = -1 is not allowed: expected a number > 0",
            ),
            (
                circle(Raw::Float(f64::NAN)),
                "obstacle 2: radius = NaN is not allowed",
            ),
            (
                table(&[
                    ("shape", Raw::Text("rect".into())),
                    ("min", pair(2.0, 0.0)),
                    ("max", pair(1.0, 1.0)),
                ]),
                "obstacle 2: min = [2, 0] must be below max = [1, 1]",
            ),
            (
                table(&[
                    ("shape", Raw::Text("wall".into())),
                    ("points", Raw::List(vec![pair(0.0, 0.0)])),
                ]),
                "obstacle 2: a wall needs at least 2 points, got 1",
            ),
            (
                table(&[("shape", Raw::Text("blob".into()))]),
                "obstacle 2: shape = \"blob\" is not allowed",
            ),
            (
                table(&[
                    ("shape", Raw::Text("circle".into())),
                    ("centre", pair(0.0, 0.0)),
                    ("radius", Raw::Float(1.0)),
                ]),
                "obstacle 2: unknown key `centre` for a circle",
            ),
            (
                table(&[
                    ("shape", Raw::Text("circle".into())),
                    ("radius", Raw::Float(1.0)),
                ]),
                "obstacle 2: a circle needs `center`",
            ),
        ];
        for (bad, expected) in cases {
            let list = Raw::List(vec![circle(Raw::Float(1.0)), bad]);
            let err = read_shapes(&list).unwrap_err();
            assert!(err.starts_with(expected), "{err}");
        }
        assert!(read_shapes(&Raw::Float(1.0)).is_err());
    }
}
