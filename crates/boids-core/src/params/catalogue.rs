//! The parameter catalogue: every parameter of the model declared once, with its Rust type, its
//! default, its kind and allowed range, its unit, the section it is shown in, the models it acts
//! in, and one line on what it means.
//!
//! Every real value is bounded by its unit ([`Unit::limit`]): a range is declared by what the
//! parameter means (non-negative, a fraction, an angle) and clipped to the magnitude its unit
//! allows, so that a step stays finite in `f32`; `inf` is accepted only by the limits it turns
//! off (`max_speed`, `turn_rate`, `attract_range`, `predator_vision`) or, for
//! `orientation_range`, merges two zones into one.
//!
//! The `catalogue!` macro turns that one list into the [`Params`] struct (one field each, the
//! meaning as its doc), the [`PARAMS`] table that validation, `boids params` and the viewer's
//! panel read, the defaults ([`Params::default`], which every preset starts from), and typed
//! access by name ([`Params::get`], used by the edges that speak TOML and JSON). Adding a
//! parameter is one line here, plus the code that uses it.

use super::kinds::{Boundary, Camera, Field, Kind, Model, NoiseDistribution, Section, Unit, Value};
use crate::obstacles::Obstacle;

/// Largest flock the engine accepts. At roughly 60 bytes per boid this is about 3 GB of state,
/// a sane ceiling for one process; bigger runs should be split.
pub const MAX_COUNT: usize = 50_000_000;

/// Most predators: a handful hunts a flock; each costs a pass over the boids per step.
pub const MAX_PREDATORS: u64 = 1_000;

/// Largest `topological_k`: more than any published topological range (about 7 in starlings),
/// small enough that a neighbour list stays cheap.
pub const MAX_TOPOLOGICAL_K: u64 = 10_000;

/// Description of one parameter: the single source for validation, help text and the viewer.
#[derive(Clone, Copy, Debug)]
pub struct ParamInfo {
    /// Name as used in config files, `--set`, the viewer and the event log.
    pub name: &'static str,
    /// Type and allowed values, within the unit's limit.
    pub kind: Kind,
    /// Unit of the value.
    pub unit: Unit,
    /// Where it is shown.
    pub section: Section,
    /// The models whose flock it changes.
    pub models: &'static [Model],
    /// What the parameter does.
    pub meaning: &'static str,
}

impl ParamInfo {
    /// The catalogue's default (the value every preset starts from).
    pub fn default_value(&self) -> Value {
        Params::default()
            .get(self.name)
            .expect("every catalogue entry is a field of Params")
    }

    /// Whether the parameter changes the flock under `model`.
    pub fn applies_to(&self, model: Model) -> bool {
        self.models.contains(&model)
    }
}

/// Looks up a parameter's description by name.
pub fn param_info(name: &str) -> Option<&'static ParamInfo> {
    PARAMS.iter().find(|info| info.name == name)
}

const fn number(min: f64, max: f64) -> Kind {
    Kind::Number {
        min,
        max,
        unlimited: false,
    }
}
/// Any value up to its unit's limit ([`Unit::limit`], which every kind is bounded by).
const NON_NEGATIVE: Kind = number(0.0, f64::MAX);
/// A limit: any value up to its unit's limit, or `inf` for none.
const UNLIMITED: Kind = Kind::Number {
    min: 0.0,
    max: f64::MAX,
    unlimited: true,
};
const POSITIVE: Kind = number(1e-12, f64::MAX);
const FRACTION: Kind = number(0.0, 1.0);
const ANY: Kind = number(f64::MIN, f64::MAX);
const EXTENT: Kind = number(1e-9, f64::MAX);
const ANGLE: Kind = number(0.0, std::f64::consts::TAU);
const ELEVATION: Kind = number(-std::f64::consts::FRAC_PI_2, std::f64::consts::FRAC_PI_2);
const BOOL: Kind = Kind::Bool;
const INTERVAL: Kind = Kind::Interval { limit: f64::MAX };
const STEPS: Kind = Kind::Integer {
    min: 0,
    max: u32::MAX as u64,
};

/// Every model.
const ALL: &[Model] = Model::ALL;
/// The boids rules' weights, speed limits, scouts' bias and wander act only in the boids model.
const BOIDS: &[Model] = &[Model::Boids];
/// The heading models move at a constant speed with noise and a turning limit, and inform
/// scouts by a weight.
const HEADING: &[Model] = &[Model::Vicsek, Model::Couzin];
/// Only Couzin's model has separate zones of orientation and attraction.
const COUZIN: &[Model] = &[Model::Couzin];
/// Vicsek always counts the boid itself and has no zone of repulsion.
const BOIDS_AND_COUZIN: &[Model] = &[Model::Boids, Model::Couzin];

/// Declares the parameters (see the module docs).
macro_rules! catalogue {
    ($(
        $name:ident: $ty:ty = $default:expr;
            $kind:expr, $unit:ident, $section:ident, $models:ident,
            $meaning:literal;
    )+) => {
        /// The full parameter set of a simulation. Build one with
        /// [`ParamsBuilder`](super::ParamsBuilder) (or [`Params::preset`]) so that it is
        /// validated; [`PARAMS`] describes every field.
        #[derive(Clone, Debug, PartialEq)]
        pub struct Params {
            $( #[doc = $meaning] pub $name: $ty, )+
        }

        /// Every parameter, in the order `boids params` prints them.
        pub const PARAMS: &[ParamInfo] = &[$(
            ParamInfo {
                name: stringify!($name),
                kind: Kind::within($kind, Unit::$unit),
                unit: Unit::$unit,
                section: Section::$section,
                models: $models,
                meaning: $meaning,
            },
        )+];

        /// The catalogue's defaults: a tiny torus flock that does nothing but drift. Presets
        /// override what their seed specifies.
        impl Default for Params {
            fn default() -> Self {
                Self { $( $name: $default, )+ }
            }
        }

        impl Params {
            /// The value of a parameter by name (`None` for an unknown name).
            pub fn get(&self, name: &str) -> Option<Value> {
                match name {
                    $( stringify!($name) => Some(Field::to_value(&self.$name)), )+
                    _ => None,
                }
            }

            /// Sets a parameter by name to a value of its kind; `false` (and nothing changed)
            /// for an unknown name or a value of another kind. Ranges are checked by
            /// [`ParamsBuilder::build`](super::ParamsBuilder::build).
            pub(super) fn set(&mut self, name: &str, value: &Value) -> bool {
                match name {
                    $( stringify!($name) => match Field::from_value(value) {
                        Some(field) => {
                            self.$name = field;
                            true
                        }
                        None => false,
                    }, )+
                    _ => false,
                }
            }
        }
    };
}

catalogue! {
    count: usize = 100;
        Kind::Integer { min: 1, max: MAX_COUNT as u64 }, Boids, Flock, ALL,
        "number of boids";
    boundary: Boundary = Boundary::Torus;
        Kind::Choice(Boundary::NAMES), None, Boundary, ALL,
        "edge behaviour: torus (wrap), margins (turn by turnfactor), walls (push and bounce)";
    world_x_min: f64 = 0.0;
        ANY, Length, WorldAndStart, ALL,
        "left edge of the world";
    world_y_min: f64 = 0.0;
        ANY, Length, WorldAndStart, ALL,
        "top edge of the world (y grows downward on screen)";
    world_width: f64 = 1.0;
        EXTENT, Length, WorldAndStart, ALL,
        "width of the world";
    world_height: f64 = 1.0;
        EXTENT, Length, WorldAndStart, ALL,
        "height of the world";
    world_z_min: f64 = 0.0;
        ANY, Length, WorldAndStart, ALL,
        "3D: near edge of the world along z";
    world_depth: f64 = 1.0;
        EXTENT, Length, WorldAndStart, ALL,
        "3D: depth of the world along z";
    dimensions: usize = 2;
        Kind::Integer { min: 2, max: 3 }, None, WorldAndStart, ALL,
        "2: a flat world (x, y); 3: a world with depth (x, y, z)";
    margin: f64 = 0.0;
        NON_NEGATIVE, Length, Boundary, ALL,
        "margins boundary: distance from each edge where turning starts";
    turnfactor: f64 = 0.0;
        NON_NEGATIVE, VelocityPerStep, Boundary, ALL,
        "margins boundary: velocity change per step inside a margin";
    wall_buffer: f64 = 0.0;
        NON_NEGATIVE, Length, Boundary, ALL,
        "walls boundary: distance from a wall where the push inward starts";
    boid_size: f64 = 1.0;
        NON_NEGATIVE, Length, Flock, ALL,
        "radius of a boid: drawing size, and walls bounce when the disc touches a wall";
    visual_range: f64 = 0.1;
        POSITIVE, Length, Neighbourhood, ALL,
        "radius within which neighbours count for cohesion and alignment";
    protected_range: f64 = 0.0;
        NON_NEGATIVE, Length, Neighbourhood, BOIDS_AND_COUZIN,
        "radius within which neighbours push the boid away (separation)";
    orientation_range: f64 = f64::INFINITY;
        UNLIMITED, Length, Neighbourhood, COUZIN,
        "couzin: outer radius r_o of the zone of orientation (Couzin 2002): neighbours inside it, past the zone of repulsion, are aligned with; those from it out to visual_range attract. inf: one zone, both over the whole visual range (Couzin 2005)";
    inclusive_ranges: bool = false;
        BOOL, None, Neighbourhood, ALL,
        "a neighbour exactly at a range counts (<=) rather than not (<)";
    include_self: bool = false;
        BOOL, None, Neighbourhood, BOIDS_AND_COUZIN,
        "the boid counts as its own neighbour in the averages";
    exclude_protected: bool = false;
        BOOL, None, Neighbourhood, BOIDS,
        "neighbours inside protected_range are left out of the cohesion and alignment averages";
    centering_factor: f64 = 0.0;
        NON_NEGATIVE, PerStep, Rules, BOIDS,
        "cohesion weight: pull toward the neighbours' centre";
    matching_factor: f64 = 0.0;
        NON_NEGATIVE, PerStep, Rules, BOIDS,
        "alignment weight: pull toward the neighbours' mean velocity";
    avoid_factor: f64 = 0.0;
        NON_NEGATIVE, PerStep, Rules, ALL,
        "separation weight: push away from protected neighbours (and from walls)";
    steering_gain: f64 = 1.0;
        NON_NEGATIVE, None, Rules, BOIDS,
        "scale of the summed rule vectors added to the velocity";
    speed_boost: f64 = 1.0;
        number(0.0, 10.0), None, Rules, BOIDS,
        "factor applied to the steered velocity before limits (seed 000: 1.0025)";
    min_speed: f64 = 0.0;
        NON_NEGATIVE, Speed, Speed, BOIDS,
        "speeds below this are raised to it (0: no minimum)";
    max_speed: f64 = f64::INFINITY;
        UNLIMITED, Speed, Speed, BOIDS,
        "speeds above this are lowered to it (inf: no maximum)";
    dt: f64 = 1.0;
        POSITIVE, TimePerStep, Flock, ALL,
        "time step: position += velocity * dt";
    scout_group1_fraction: f64 = 0.0;
        FRACTION, None, Scouts, ALL,
        "share of boids in scout group 1, biased toward +x";
    scout_group2_fraction: f64 = 0.0;
        FRACTION, None, Scouts, ALL,
        "share of boids in scout group 2, biased toward -x";
    bias: f64 = 0.0;
        FRACTION, None, Scouts, BOIDS,
        "scouts' bias: vx = (1 - bias) vx + bias * (+1 or -1); start value when dynamic";
    max_bias: f64 = 0.0;
        FRACTION, None, Scouts, BOIDS,
        "dynamic bias: upper limit of a scout's bias";
    bias_increment: f64 = 0.0;
        FRACTION, PerStep, Scouts, BOIDS,
        "dynamic bias: change per step, and the lower limit";
    dynamic_bias: bool = false;
        BOOL, None, Scouts, BOIDS,
        "scouts' bias grows while they move their preferred way and shrinks otherwise";
    wander_weight: f64 = 0.0;
        NON_NEGATIVE, None, Wander, BOIDS,
        "weight of the shared wandering heading added to every boid's steering";
    wander_period: u64 = 1;
        Kind::Integer { min: 1, max: u64::MAX }, Steps, Wander, BOIDS,
        "the wandering heading turns once every this many steps";
    wander_turn: f64 = 0.0;
        ANY, Radians, Wander, BOIDS,
        "angle the wandering heading turns by each period";
    wander_angle: f64 = 0.0;
        ANY, Radians, Wander, BOIDS,
        "wandering heading at step 0";
    init_x: [f64; 2] = [0.0, 1.0];
        INTERVAL, Length, WorldAndStart, ALL,
        "initial x drawn uniformly from [low, high]";
    init_y: [f64; 2] = [0.0, 1.0];
        INTERVAL, Length, WorldAndStart, ALL,
        "initial y drawn uniformly from [low, high]";
    init_vx: [f64; 2] = [0.0, 0.0];
        INTERVAL, Speed, WorldAndStart, ALL,
        "initial vx drawn uniformly from [low, high]";
    init_vy: [f64; 2] = [0.0, 0.0];
        INTERVAL, Speed, WorldAndStart, ALL,
        "initial vy drawn uniformly from [low, high]";
    init_z: [f64; 2] = [0.0, 1.0];
        INTERVAL, Length, WorldAndStart, ALL,
        "3D: initial z drawn uniformly from [low, high]";
    init_vz: [f64; 2] = [0.0, 0.0];
        INTERVAL, Speed, WorldAndStart, ALL,
        "3D: initial vz drawn uniformly from [low, high]";
    model: Model = Model::Boids;
        Kind::Choice(Model::NAMES), None, Model, ALL,
        "update rule: boids (Reynolds, the seeds), vicsek (Vicsek 1995), couzin (Couzin 2002/2005)";
    topological_k: u64 = 0;
        Kind::Integer { min: 0, max: MAX_TOPOLOGICAL_K }, Boids, Model, ALL,
        "0: neighbours within a metric range; k > 0: the k nearest boids in view, at any distance, replace visual_range (short-range repulsion stays metric)";
    blind_angle: f64 = 0.0;
        ANGLE, Radians, Model, ALL,
        "width of the blind sector centred behind each boid: neighbours there are not seen";
    speed: f64 = 1.0;
        NON_NEGATIVE, Speed, Model, HEADING,
        "vicsek and couzin: the constant speed (v0, s)";
    noise: f64 = 0.0;
        ANGLE, Radians, Model, HEADING,
        "vicsek and couzin: angular noise per step, its width (uniform, Vicsek's eta) or standard deviation (gaussian, Couzin's sigma)";
    noise_distribution: NoiseDistribution = NoiseDistribution::Uniform;
        Kind::Choice(NoiseDistribution::NAMES), None, Model, HEADING,
        "vicsek and couzin: uniform in [-noise/2, noise/2], or gaussian with s.d. noise";
    turn_rate: f64 = f64::INFINITY;
        UNLIMITED, RadiansPerTime, Model, HEADING,
        "vicsek and couzin: largest turn per unit time (a step turns at most turn_rate * dt; inf: no limit)";
    informed_weight: f64 = 0.5;
        NON_NEGATIVE, None, Model, HEADING,
        "vicsek and couzin: weight omega of a scout's preferred direction g: d' = (d + omega g) / |d + omega g|";
    preferred_angle1: f64 = 0.0;
        ANY, Radians, Model, ALL,
        "preferred direction of scout group 1 (0: +x, the seed's choice)";
    preferred_angle2: f64 = std::f64::consts::PI;
        ANY, Radians, Model, ALL,
        "preferred direction of scout group 2 (pi: -x, the seed's choice)";
    preferred_elevation1: f64 = 0.0;
        ELEVATION, Radians, Model, ALL,
        "3D: elevation of scout group 1's preferred direction above the x-y plane, toward +z (0: in the plane)";
    preferred_elevation2: f64 = 0.0;
        ELEVATION, Radians, Model, ALL,
        "3D: elevation of scout group 2's preferred direction above the x-y plane, toward +z (0: in the plane)";
    obstacles: Vec<Obstacle> = Vec::new();
        Kind::Shapes, Length, Obstacles, ALL,
        "circles, rectangles and walls (2D), spheres and boxes (3D) that boids steer around and never enter or cross (in a TOML file, an array of tables named obstacles)";
    obstacle_lookahead: f64 = 0.0;
        NON_NEGATIVE, Length, Obstacles, ALL,
        "how far ahead along its velocity a boid looks for obstacles to steer around, and keeps a quarter of it clear of a surface beside it (0: no steering, boids only stop at them; presets: their visual range, or 20 steps at top speed if farther)";
    obstacle_avoid_factor: f64 = 0.0;
        NON_NEGATIVE, PerStep, Obstacles, ALL,
        "steer-to-avoid weight: sideways turn per step, as a share of the speed, for an obstacle met at once (less the farther ahead; presets: 1)";
    predator_count: usize = 0;
        Kind::Integer { min: 0, max: MAX_PREDATORS }, None, Predators, ALL,
        "predators: each chases the nearest boid it sees, else wanders; boids flee them";
    predator_speed: f64 = 1.0;
        NON_NEGATIVE, Speed, Predators, ALL,
        "a predator's constant speed";
    predator_vision: f64 = 100.0;
        UNLIMITED, Length, Predators, ALL,
        "how far a predator sees boids: it chases the nearest one within this range";
    predator_turn_rate: f64 = 0.2;
        ANGLE, Radians, Predators, ALL,
        "largest turn of a predator in one step";
    predator_wander: f64 = 0.5;
        ANGLE, Radians, Predators, ALL,
        "a predator that sees no boid turns by a random angle in [-w/2, w/2] each step";
    fear_range: f64 = 50.0;
        NON_NEGATIVE, Length, Predators, ALL,
        "boids within this distance of a predator flee it";
    flee_factor: f64 = 0.5;
        NON_NEGATIVE, VelocityPerStep, Predators, ALL,
        "fleeing: boids add flee_factor * (1 - d / fear_range) times the unit vector away from each predator they fear (vicsek, couzin: a weight against the unit social direction); 0: no fleeing";
    capture_range: f64 = 0.0;
        NON_NEGATIVE, Length, Predators, ALL,
        "a predator catches the nearest boid within this distance (one a step); the boid is counted and starts again at a random free place (0: no captures)";
    attractors: Vec<Vec<f64>> = Vec::new();
        Kind::Points { limit: f64::MAX }, Length, Attractors, ALL,
        "points the flock seeks, e.g. [[100.0, 240.0], [540.0, 240.0]] ([x, y, z] points in 3D)";
    attract_range: f64 = f64::INFINITY;
        UNLIMITED, Length, Attractors, ALL,
        "a boid seeks the nearest attractor within this distance (inf: everywhere)";
    attract_factor: f64 = 0.0;
        NON_NEGATIVE, PerStep, Attractors, ALL,
        "boids: v += attract_factor * (attractor - position), a goal weighed against cohesion; vicsek, couzin: weight of the unit direction to it, as of an informed direction";
    perch: bool = false;
        BOOL, None, Perching, ALL,
        "seed 001's perching: a boid that goes below the ground line lands, rests, then takes off again";
    perch_height: f64 = 40.0;
        NON_NEGATIVE, Length, Perching, ALL,
        "height of the ground line above the bottom edge of the world (the bottom of the screen)";
    perch_min: u64 = 20;
        STEPS, Steps, Perching, ALL,
        "shortest rest on the ground";
    perch_max: u64 = 100;
        STEPS, Steps, Perching, ALL,
        "longest rest on the ground (each rest is drawn uniformly from [perch_min, perch_max])";
    camera: Camera = Camera::World;
        Kind::Choice(Camera::NAMES), None, View, ALL,
        "what the viewer and boids render show first: the whole world, the flock fitted, or the largest flock followed";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_default_is_allowed() {
        let defaults = Params::default();
        for (i, info) in PARAMS.iter().enumerate() {
            assert!(
                PARAMS[..i].iter().all(|other| other.name != info.name),
                "{} declared twice",
                info.name
            );
            let value = defaults.get(info.name).unwrap();
            assert_eq!(info.kind.check(&value), Ok(()), "{}", info.name);
            assert!(!info.models.is_empty(), "{}", info.name);
        }
    }

    #[test]
    fn get_and_set_agree_for_every_parameter() {
        let mut params = Params::default();
        for info in PARAMS {
            let value = params.get(info.name).unwrap();
            assert!(params.set(info.name, &value), "{}", info.name);
            assert_eq!(
                params.get(info.name).as_ref(),
                Some(&value),
                "{}",
                info.name
            );
            let other_kind = match &value {
                Value::Bool(_) => Value::Number(1.0),
                _ => Value::Bool(true),
            };
            assert!(!params.set(info.name, &other_kind), "{}", info.name);
        }
        assert_eq!(params, Params::default());
        assert!(params.get("no_such_parameter").is_none());
    }
}
