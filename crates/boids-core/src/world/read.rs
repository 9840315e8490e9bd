//! Obstacles as a config file or a message spells them: a list of tables, one per obstacle,
//! `shape = "circle" | "rect" | "wall"` with that shape's keys. Every value is checked here,
//! with a message that names the obstacle (counted from 1), the key and what is allowed.

use glam::Vec2;

use super::shape::Shape;
use crate::params::Raw;

/// Largest coordinate magnitude of an obstacle (the world's own limit).
const MAX_COORDINATE: f64 = 1e12;

/// Reads a list of obstacle tables.
pub fn read_shapes(raw: &Raw) -> Result<Vec<Shape>, String> {
    let Raw::List(items) = raw else {
        return Err(
            "a list of obstacle tables ([[obstacles]] in a config file), each with shape = \"circle\", \"rect\" or \"wall\""
                .to_owned(),
        );
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            read_shape(item).map_err(|message| format!("obstacle {}: {message}", i + 1))
        })
        .collect()
}

fn read_shape(raw: &Raw) -> Result<Shape, String> {
    let Raw::Table(entries) = raw else {
        return Err(format!("{raw} is not a table with a `shape` key"));
    };
    let get = |key: &str| entries.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    let shape = match get("shape") {
        Some(Raw::Text(name)) => name.as_str(),
        Some(other) => {
            return Err(format!(
                "shape = {other} is not allowed: expected \"circle\", \"rect\" or \"wall\""
            ));
        }
        None => {
            return Err(
                "no `shape` key: expected shape = \"circle\", \"rect\" or \"wall\"".to_owned(),
            );
        }
    };
    let keys: &[&str] = match shape {
        "circle" => &["shape", "center", "radius"],
        "rect" => &["shape", "min", "max"],
        "wall" => &["shape", "points"],
        other => {
            return Err(format!(
                "shape = \"{other}\" is not allowed: expected \"circle\", \"rect\" or \"wall\""
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
        "circle" => {
            let center = point(need("center")?, "center")?;
            let radius = number(need("radius")?, "radius")?;
            if radius <= 0.0 {
                return Err(format!(
                    "radius = {radius} is not allowed: expected a number > 0"
                ));
            }
            Ok(Shape::Circle {
                center,
                radius: radius as f32,
            })
        }
        "rect" => {
            let (min, max) = (point(need("min")?, "min")?, point(need("max")?, "max")?);
            if min.x >= max.x || min.y >= max.y {
                return Err(format!(
                    "min = [{}, {}] must be below max = [{}, {}] on both axes",
                    min.x, min.y, max.x, max.y
                ));
            }
            Ok(Shape::Rect { min, max })
        }
        _ => {
            let Raw::List(items) = need("points")? else {
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
                .map(|(k, p)| point(p, &format!("points[{k}]")))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Shape::Wall { points })
        }
    }
}

fn number(raw: &Raw, key: &str) -> Result<f64, String> {
    let x = match *raw {
        Raw::Integer(i) => i as f64,
        Raw::Float(x) => x,
        _ => return Err(format!("{key} = {raw} is not a number")),
    };
    if x.is_finite() && x.abs() <= MAX_COORDINATE {
        Ok(x)
    } else {
        Err(format!(
            "{key} = {x} is not allowed: expected a finite number within ±1e12"
        ))
    }
}

fn point(raw: &Raw, key: &str) -> Result<Vec2, String> {
    match raw {
        Raw::List(pair) if pair.len() == 2 => Ok(Vec2::new(
            number(&pair[0], key)? as f32,
            number(&pair[1], key)? as f32,
        )),
        _ => Err(format!("{key} = {raw} is not an [x, y] pair")),
    }
}

/// The obstacle tables of `shapes`, for writing (the inverse of [`read_shapes`]).
pub fn shape_entries(shape: &Shape) -> Vec<(&'static str, Raw)> {
    let pair = |p: Vec2| Raw::List(vec![Raw::Float(f64::from(p.x)), Raw::Float(f64::from(p.y))]);
    match shape {
        Shape::Circle { center, radius } => vec![
            ("shape", Raw::Text("circle".into())),
            ("center", pair(*center)),
            ("radius", Raw::Float(f64::from(*radius))),
        ],
        Shape::Rect { min, max } => vec![
            ("shape", Raw::Text("rect".into())),
            ("min", pair(*min)),
            ("max", pair(*max)),
        ],
        Shape::Wall { points } => vec![
            ("shape", Raw::Text("wall".into())),
            (
                "points",
                Raw::List(points.iter().map(|&p| pair(p)).collect()),
            ),
        ],
    }
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
            Shape::Circle {
                center: Vec2::new(320.0, 240.0),
                radius: 60.0,
            },
            Shape::Rect {
                min: Vec2::new(1.0, 2.0),
                max: Vec2::new(3.0, 4.0),
            },
            Shape::Wall {
                points: vec![Vec2::ZERO, Vec2::new(5.0, 0.0), Vec2::new(5.0, 5.0)],
            },
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
