//! What a parameter set must satisfy: every value within its catalogue range, and the
//! cross-checks between parameters, each a typed function over [`Params`] that names the two
//! parameters it is about, so the error can say where each value came from.

use super::catalogue::{PARAMS, Params};

use super::kinds::{Boundary, Model, Value};
use crate::error::ParamsError;
use crate::obstacles::{Obstacle, ObstacleIndex};
use crate::space::{Dim, Dimension};

/// Checks `params`; `source_of` names where a parameter's value came from.
pub(super) fn check<'a, S: std::fmt::Display + 'a>(
    params: &Params,
    source_of: impl Fn(&str) -> &'a S,
) -> Result<(), ParamsError> {
    for info in PARAMS {
        let value = params
            .get(info.name)
            .expect("every catalogue entry is a field of Params");
        info.kind
            .check(&value)
            .map_err(|range| ParamsError::OutOfRange {
                key: info.name.to_owned(),
                value: show(&value),
                range,
                origin: source_of(info.name).to_string(),
            })?;
    }
    for cross_check in CROSS_CHECKS {
        if let Some(Conflict { message, keys }) = cross_check(params) {
            return Err(ParamsError::Conflict {
                message,
                sources: format!(
                    "{} from {}; {} from {}",
                    keys[0],
                    source_of(keys[0]),
                    keys[1],
                    source_of(keys[1])
                ),
            });
        }
    }
    Ok(())
}

/// A value as the range error shows it.
fn show(value: &Value) -> String {
    match *value {
        Value::Number(x) => super::kinds::show_number(x),
        Value::Interval([low, high]) => format!("[{low:?}, {high:?}]"),
        _ => value.to_string(),
    }
}

/// Two parameters that contradict each other, and why.
struct Conflict {
    message: String,
    keys: [&'static str; 2],
}

/// Every cross-check, in the order they are tried.
const CROSS_CHECKS: &[fn(&Params) -> Option<Conflict>] = &[
    protected_within_visual,
    orientation_between_repulsion_and_attraction,
    orientation_zone_is_metric,
    min_speed_within_max,
    boost_has_a_max_speed,
    bias_increment_within_max_bias,
    scouts_within_flock,
    margins_do_not_cross,
    boid_fits_between_walls,
    obstacles_have_the_worlds_dimensions,
    attractors_have_the_worlds_dimensions,
    start_region_has_free_space,
    perch_min_within_max,
    ground_line_inside_world,
];

/// Obstacles are shapes of the flock's dimension: a circle, rectangle or wall in 2D, a sphere or
/// box in 3D. The first that is not is named with the shape to write instead.
fn obstacles_have_the_worlds_dimensions(p: &Params) -> Option<Conflict> {
    let (index, obstacle) =
        (p.obstacles.iter().enumerate()).find(|(_, o)| o.dimensions() != p.dimensions)?;
    let instead = match (obstacle, p.dimensions) {
        (Obstacle::Plane(shape), 3) => match shape.name() {
            "circle" => "write shape = \"sphere\", center = [x, y, z], radius = r",
            "rect" => "write shape = \"box\", min = [x, y, z], max = [x, y, z]",
            _ => {
                "walls are 2D polylines; use boxes (shape = \"box\", min = [x, y, z], max = [x, y, z])"
            }
        },
        _ => match obstacle.name() {
            "sphere" => "write shape = \"circle\", center = [x, y], radius = r",
            _ => "write shape = \"rect\", min = [x, y], max = [x, y]",
        },
    };
    Some(Conflict {
        message: format!(
            "obstacle {} is a {}, a {}D shape, but dimensions = {}: {instead}",
            index + 1,
            obstacle.name(),
            obstacle.dimensions(),
            p.dimensions
        ),
        keys: ["obstacles", "dimensions"],
    })
}

/// Attractors are points of the flock's dimension: `[x, y]` in 2D, `[x, y, z]` in 3D.
fn attractors_have_the_worlds_dimensions(p: &Params) -> Option<Conflict> {
    let (index, point) =
        (p.attractors.iter().enumerate()).find(|(_, point)| point.len() != p.dimensions)?;
    let form = if p.dimensions == 3 {
        "[x, y, z]"
    } else {
        "[x, y]"
    };
    Some(Conflict {
        message: format!(
            "attractor {} has {} coordinates, {point:?}, but dimensions = {}: write {form}",
            index + 1,
            point.len(),
            p.dimensions
        ),
        keys: ["attractors", "dimensions"],
    })
}

fn perch_min_within_max(p: &Params) -> Option<Conflict> {
    (p.perch_min > p.perch_max).then(|| Conflict {
        message: format!(
            "perch_min = {} must not exceed perch_max = {}",
            p.perch_min, p.perch_max
        ),
        keys: ["perch_min", "perch_max"],
    })
}

fn ground_line_inside_world(p: &Params) -> Option<Conflict> {
    (p.perch && p.perch_height >= p.world_height).then(|| Conflict {
        message: format!(
            "perch_height = {} must be below world_height = {} (the ground line is that high above the bottom edge)",
            p.perch_height, p.world_height
        ),
        keys: ["perch_height", "world_height"],
    })
}

fn protected_within_visual(p: &Params) -> Option<Conflict> {
    (p.protected_range > p.visual_range).then(|| Conflict {
        message: format!(
            "protected_range = {} must not exceed visual_range = {}",
            p.protected_range, p.visual_range
        ),
        keys: ["protected_range", "visual_range"],
    })
}

/// Couzin 2002's zones nest: repulsion within orientation within attraction (`inf` merges
/// orientation and attraction into the 2005 paper's one zone).
fn orientation_between_repulsion_and_attraction(p: &Params) -> Option<Conflict> {
    if p.model != Model::Couzin || p.orientation_range == f64::INFINITY {
        return None;
    }
    let (other, range, relation) = if p.orientation_range > p.visual_range {
        ("visual_range", p.visual_range, "exceed")
    } else if p.orientation_range < p.protected_range {
        ("protected_range", p.protected_range, "be below")
    } else {
        return None;
    };
    Some(Conflict {
        message: format!(
            "orientation_range = {} must not {relation} {other} = {range}: the zone of orientation lies between the zone of repulsion (protected_range) and the zone of attraction's outer edge (visual_range); inf merges orientation and attraction into one zone",
            p.orientation_range
        ),
        keys: ["orientation_range", other],
    })
}

/// The zones of orientation and attraction are distances; the k nearest replace both.
fn orientation_zone_is_metric(p: &Params) -> Option<Conflict> {
    (p.model == Model::Couzin && p.orientation_range != f64::INFINITY && p.topological_k > 0)
        .then(|| Conflict {
            message: format!(
                "orientation_range = {} (Couzin 2002's separate zones of orientation and attraction) is a distance, but topological_k = {} replaces both zones by the nearest neighbours: set orientation_range = inf or topological_k = 0",
                p.orientation_range, p.topological_k
            ),
            keys: ["orientation_range", "topological_k"],
        })
}

fn min_speed_within_max(p: &Params) -> Option<Conflict> {
    (p.min_speed > p.max_speed).then(|| Conflict {
        message: format!(
            "min_speed = {} must not exceed max_speed = {}",
            p.min_speed, p.max_speed
        ),
        keys: ["min_speed", "max_speed"],
    })
}

/// A boost above 1 multiplies the speed every step: without a `max_speed` it grows without
/// bound, until the flock's velocities overflow.
fn boost_has_a_max_speed(p: &Params) -> Option<Conflict> {
    (p.speed_boost > 1.0 && p.max_speed == f64::INFINITY).then(|| Conflict {
        message: format!(
            "speed_boost = {} needs a finite max_speed (max_speed = inf): a boost above 1 multiplies the speed every step, without bound",
            p.speed_boost
        ),
        keys: ["speed_boost", "max_speed"],
    })
}

fn bias_increment_within_max_bias(p: &Params) -> Option<Conflict> {
    (p.dynamic_bias && p.bias_increment > p.max_bias).then(|| Conflict {
        message: format!(
            "bias_increment = {} must not exceed max_bias = {} (it is the dynamic bias's lower limit)",
            p.bias_increment, p.max_bias
        ),
        keys: ["bias_increment", "max_bias"],
    })
}

fn scouts_within_flock(p: &Params) -> Option<Conflict> {
    (p.scout_group1_fraction + p.scout_group2_fraction > 1.0).then(|| Conflict {
        message: "scout_group1_fraction + scout_group2_fraction must not exceed 1".to_owned(),
        keys: ["scout_group1_fraction", "scout_group2_fraction"],
    })
}

/// The world's extents by name, for checks that hold on every axis.
fn extents(p: &Params) -> impl Iterator<Item = (&'static str, f64)> {
    let all = [
        ("world_width", p.world_width),
        ("world_height", p.world_height),
        ("world_depth", p.world_depth),
    ];
    all.into_iter().take(p.dimensions)
}

fn margins_do_not_cross(p: &Params) -> Option<Conflict> {
    if p.boundary != Boundary::Margins {
        return None;
    }
    let (extent, size) = extents(p).find(|&(_, size)| 2.0 * p.margin >= size)?;
    Some(Conflict {
        message: format!(
            "margins cross: 2 * margin = {} must be less than {extent} = {size}",
            2.0 * p.margin
        ),
        keys: ["margin", extent],
    })
}

fn boid_fits_between_walls(p: &Params) -> Option<Conflict> {
    if p.boundary != Boundary::Walls {
        return None;
    }
    let (extent, size) = extents(p).find(|&(_, size)| 2.0 * p.boid_size >= size)?;
    Some(Conflict {
        message: format!(
            "a boid of boid_size = {} does not fit between the walls ({extent} = {size})",
            p.boid_size
        ),
        keys: ["boid_size", extent],
    })
}

/// Points per side of the lattice on which the start region is probed for free space.
const FREE_SPACE_PROBES: usize = 64;

/// The random start draws positions until one is outside every obstacle, so the start region
/// must have room: some point of a lattice of 64 points a side over it (64 x 64 in 2D,
/// 64 x 64 x 64 in 3D) must be free where it is stored.
fn start_region_has_free_space(p: &Params) -> Option<Conflict> {
    if p.obstacles.is_empty() {
        return None;
    }
    let free = crate::with_dimensions!(p.dimensions, D, { has_free_start::<D>(p) });
    let region = [("x", p.init_x), ("y", p.init_y), ("z", p.init_z)];
    let region: Vec<String> = region[..p.dimensions]
        .iter()
        .map(|(axis, [low, high])| format!("{axis} in [{low}, {high}]"))
        .collect();
    (!free).then(|| Conflict {
        message: format!(
            "the obstacles cover the whole start region {}: there is no free space to place the flock",
            region.join(", ")
        ),
        keys: ["obstacles", "init_x"],
    })
}

/// Whether a point of the probe lattice over the start region is outside the obstacles of `D`
/// dimensions.
fn has_free_start<const D: usize>(p: &Params) -> bool
where
    Dim<D>: Dimension<D>,
{
    let index = ObstacleIndex::<D>::of(p);
    let intervals = [p.init_x, p.init_y, p.init_z];
    let at = |[low, high]: [f64; 2], k: usize| {
        (low + (high - low) * (k as f64 + 0.5) / FREE_SPACE_PROBES as f64) as f32
    };
    (0..FREE_SPACE_PROBES.pow(D as u32)).any(|k| {
        let point: [f32; D] = std::array::from_fn(|a| {
            at(
                intervals[a],
                (k / FREE_SPACE_PROBES.pow(a as u32)) % FREE_SPACE_PROBES,
            )
        });
        !index.contains(index.as_stored(point.into()))
    })
}
