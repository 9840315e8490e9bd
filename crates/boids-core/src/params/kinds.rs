//! The vocabulary of the catalogue: what a parameter holds ([`Value`]), what an edge read before
//! a parameter's kind has checked it ([`Raw`]), the kind itself with its allowed values
//! ([`Kind`]), units, sections, and the named choices (boundary, model, camera; the noise
//! distribution is declared in `space.rs`, with the noise it shapes).
//!
//! Values are typed inside the core; files, flags and messages spell them in TOML or JSON, and
//! each edge turns its spelling into a [`Raw`] that [`Kind::read`] checks, the one place where a
//! value's type is decided.

use super::obstacles::read_shapes;
use crate::choice::{Choice, choices};
use crate::obstacles::Obstacle;

choices! {
    /// What happens at the edges of the world.
    pub enum Boundary {
        /// Opposite edges are joined: minimum-image distances, positions wrapped after the move.
        Torus = "torus",
        /// Seed 001: inside `margin` of an edge a boid's velocity turns by `turnfactor` per step.
        /// Boids may leave the world; nothing stops them but the turning.
        Margins = "margins",
        /// Seed 002: within `wall_buffer` of a wall a boid is pushed inside (scaled by
        /// `avoid_factor`), and a boid whose disc would cross a wall bounces off it.
        Walls = "walls",
    }
}

choices! {
    /// Which update rule moves the boids (see [`crate::models`]).
    pub enum Model {
        /// Reynolds' rules as the seeds give them ([`crate::rules`]).
        Boids = "boids",
        /// Vicsek et al. (1995): constant speed, mean heading of neighbours, angular noise.
        Vicsek = "vicsek",
        /// Couzin et al. (2002, 2005): zone of repulsion first, else orientation and attraction;
        /// limited turning rate, constant speed, angular noise.
        Couzin = "couzin",
    }
}

choices! {
    /// What the viewer and `boids render` show.
    pub enum Camera {
        /// The whole world (or, in an open world, the flock's start region).
        World = "world",
        /// The bounding box of the whole flock, refitted as it moves.
        Fit = "fit",
        /// The centre of the largest flock, smoothed, at the scale of the world view.
        Follow = "follow",
    }
}

/// Declared with the noise it shapes, below the parameters.
pub use crate::space::NoiseDistribution;

/// The value of one parameter, typed by its [`Kind`].
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A [`Kind::Number`].
    Number(f64),
    /// A [`Kind::Integer`].
    Integer(u64),
    /// A [`Kind::Bool`].
    Bool(bool),
    /// A [`Kind::Choice`]: one of its names.
    Choice(&'static str),
    /// A [`Kind::Interval`]: `[low, high]`.
    Interval([f64; 2]),
    /// A [`Kind::Shapes`]: obstacles.
    Shapes(Vec<Obstacle>),
    /// A [`Kind::Points`]: `[x, y]` or `[x, y, z]` points.
    Points(Vec<Vec<f64>>),
}

/// A value as a file, flag or message spelled it, before its parameter's [`Kind`] has read it.
#[derive(Clone, Debug, PartialEq)]
pub enum Raw {
    /// A whole number.
    Integer(i64),
    /// A number with a fraction, an exponent, or infinite.
    Float(f64),
    /// `true` or `false`.
    Bool(bool),
    /// A string (or a bare word on the command line).
    Text(String),
    /// A list.
    List(Vec<Raw>),
    /// A table of named values, in the order given.
    Table(Vec<(String, Raw)>),
    /// Anything else the edge's format allows (a table, a date), as the edge shows it.
    Other(String),
}

/// The Rust type of a parameter's field, and how it converts to and from its [`Value`].
pub trait Field: Sized {
    /// The field as a value.
    fn to_value(&self) -> Value;
    /// The field from a value of its kind (`None` for a value of another kind).
    fn from_value(value: &Value) -> Option<Self>;
}

impl<T: Choice> Field for T {
    fn to_value(&self) -> Value {
        Value::Choice(self.name())
    }

    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::Choice(name) => T::from_name(name),
            _ => None,
        }
    }
}

impl Field for f64 {
    fn to_value(&self) -> Value {
        Value::Number(*self)
    }
    fn from_value(value: &Value) -> Option<Self> {
        match *value {
            Value::Number(x) => Some(x),
            _ => None,
        }
    }
}

impl Field for u64 {
    fn to_value(&self) -> Value {
        Value::Integer(*self)
    }
    fn from_value(value: &Value) -> Option<Self> {
        match *value {
            Value::Integer(i) => Some(i),
            _ => None,
        }
    }
}

impl Field for usize {
    fn to_value(&self) -> Value {
        Value::Integer(*self as u64)
    }
    fn from_value(value: &Value) -> Option<Self> {
        match *value {
            Value::Integer(i) => usize::try_from(i).ok(),
            _ => None,
        }
    }
}

impl Field for bool {
    fn to_value(&self) -> Value {
        Value::Bool(*self)
    }
    fn from_value(value: &Value) -> Option<Self> {
        match *value {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }
}

impl Field for [f64; 2] {
    fn to_value(&self) -> Value {
        Value::Interval(*self)
    }
    fn from_value(value: &Value) -> Option<Self> {
        match *value {
            Value::Interval(pair) => Some(pair),
            _ => None,
        }
    }
}

impl Field for Vec<Obstacle> {
    fn to_value(&self) -> Value {
        Value::Shapes(self.clone())
    }
    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::Shapes(shapes) => Some(shapes.clone()),
            _ => None,
        }
    }
}

impl Field for Vec<Vec<f64>> {
    fn to_value(&self) -> Value {
        Value::Points(self.clone())
    }
    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::Points(points) => Some(points.clone()),
            _ => None,
        }
    }
}

/// The type and allowed values of one parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A finite number in `[min, max]`, or `inf` too where `unlimited` (it then means "no
    /// limit", and the step treats it so).
    Number {
        /// Smallest allowed value.
        min: f64,
        /// Largest allowed finite value.
        max: f64,
        /// Whether `inf` is allowed as well.
        unlimited: bool,
    },
    /// A whole number in `[min, max]`.
    Integer {
        /// Smallest allowed value.
        min: u64,
        /// Largest allowed value.
        max: u64,
    },
    /// `true` or `false`.
    Bool,
    /// One of a fixed list of names.
    Choice(&'static [&'static str]),
    /// A pair `[low, high]` of numbers within `±limit` with `low <= high`.
    Interval {
        /// Largest magnitude of either end.
        limit: f64,
    },
    /// A list of obstacle shapes ([`crate::world`]), each checked as it is read.
    Shapes,
    /// A list of `[x, y]` (2D) or `[x, y, z]` (3D) points with coordinates within `±limit`
    /// (attractors).
    Points {
        /// Largest magnitude of a coordinate.
        limit: f64,
    },
}

/// Largest whole number a [`Raw::Float`] may spell for a [`Kind::Integer`] (beyond it, `f64`
/// no longer holds every whole number).
const EXACT_WHOLE: f64 = 9.0e15;

impl Kind {
    /// This kind bounded by `unit`'s [`Unit::limit`]: every real value of the catalogue lies
    /// within the magnitude its unit allows (a number's range is clipped to it; `inf` stays
    /// allowed where it means no limit).
    pub const fn within(self, unit: Unit) -> Kind {
        let limit = unit.limit();
        match self {
            Kind::Number {
                min,
                max,
                unlimited,
            } => Kind::Number {
                min: if min < -limit { -limit } else { min },
                max: if max > limit { limit } else { max },
                unlimited,
            },
            Kind::Interval { .. } => Kind::Interval { limit },
            Kind::Points { .. } => Kind::Points { limit },
            other => other,
        }
    }

    /// Reads a raw value as this kind: the type is checked (an integer is accepted where a
    /// number is expected, a whole float where an integer is); the range is not
    /// ([`Kind::check`] does that once the value's source is known too). The error is what the
    /// kind expects, for the message.
    pub fn read(self, raw: &Raw) -> Result<Value, String> {
        match (self, raw) {
            (Kind::Number { .. }, Raw::Integer(i)) => Ok(Value::Number(*i as f64)),
            (Kind::Number { .. }, Raw::Float(x)) => Ok(Value::Number(*x)),
            (Kind::Integer { .. }, Raw::Integer(i)) if *i >= 0 => Ok(Value::Integer(*i as u64)),
            (Kind::Integer { .. }, Raw::Float(x))
                if x.fract() == 0.0 && (0.0..EXACT_WHOLE).contains(x) =>
            {
                Ok(Value::Integer(*x as u64))
            }
            (Kind::Bool, Raw::Bool(b)) => Ok(Value::Bool(*b)),
            (Kind::Choice(names), Raw::Text(text)) => names
                .iter()
                .find(|name| **name == text)
                .map(|name| Value::Choice(name))
                .ok_or_else(|| self.expected()),
            (Kind::Interval { .. }, Raw::List(items)) => match items.as_slice() {
                [low, high] => match (number(low), number(high)) {
                    (Some(low), Some(high)) => Ok(Value::Interval([low, high])),
                    _ => Err(self.expected()),
                },
                _ => Err(self.expected()),
            },
            (Kind::Shapes, raw) => read_shapes(raw).map(Value::Shapes),
            (Kind::Points { .. }, Raw::List(items)) => items
                .iter()
                .map(|item| match item {
                    Raw::List(coordinates) if (2..=3).contains(&coordinates.len()) => {
                        coordinates.iter().map(number).collect()
                    }
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
                .map(Value::Points)
                .ok_or_else(|| self.expected()),
            _ => Err(self.expected()),
        }
    }

    /// What a value of this kind looks like, for "expected ..." messages.
    pub fn expected(self) -> String {
        match self {
            Kind::Number { .. } => "a number".to_owned(),
            Kind::Integer { min, max } => format!("a whole number in [{min}, {max}]"),
            Kind::Bool => "true or false".to_owned(),
            Kind::Choice(names) => format!("one of {}", names.join(", ")),
            Kind::Interval { .. } => "[low, high] with two numbers".to_owned(),
            Kind::Shapes => "a list of obstacle tables".to_owned(),
            Kind::Points { .. } => {
                "a list of [x, y] points (or [x, y, z] in 3D), e.g. [[100.0, 200.0]]".to_owned()
            }
        }
    }

    /// Checks a value of this kind against the allowed range; the error is the range as a
    /// person reads it.
    pub fn check(self, value: &Value) -> Result<(), String> {
        match (self, value) {
            (
                Kind::Number {
                    min,
                    max,
                    unlimited,
                },
                &Value::Number(x),
            ) => {
                if (min..=max).contains(&x) || (unlimited && x == f64::INFINITY) {
                    Ok(())
                } else {
                    Err(describe_range(min, max, unlimited))
                }
            }
            (Kind::Integer { min, max }, &Value::Integer(i)) if i < min || i > max => {
                Err(format!("[{min}, {max}]"))
            }
            (Kind::Interval { limit }, &Value::Interval([low, high]))
                if !(within(low, limit) && within(high, limit) && low <= high) =>
            {
                Err(format!(
                    "[low, high] with low <= high, both within ±{}",
                    show_number(limit)
                ))
            }
            (Kind::Points { limit }, Value::Points(points))
                if !points.iter().flatten().all(|&c| within(c, limit)) =>
            {
                Err(format!(
                    "points whose coordinates lie within ±{}",
                    show_number(limit)
                ))
            }
            _ => Ok(()),
        }
    }
}

/// Whether `x` is a number of magnitude at most `limit` (never NaN or infinite).
pub(super) fn within(x: f64, limit: f64) -> bool {
    x.abs() <= limit
}

fn number(raw: &Raw) -> Option<f64> {
    match *raw {
        Raw::Integer(i) => Some(i as f64),
        Raw::Float(x) => Some(x),
        _ => None,
    }
}

/// A number range exactly as [`Kind::check`] checks it: both bounds inclusive, the minimum printed
/// as it is (a tiny positive minimum is not rounded to an open "(0"), so a refused value can
/// always be compared with the bound it crossed; `or inf` where infinity means no limit.
pub fn describe_range(min: f64, max: f64, unlimited: bool) -> String {
    let range = format!("[{}, {}]", show_number(min), show_number(max));
    if unlimited {
        format!("{range} or inf (no limit)")
    } else {
        range
    }
}

/// A number as a person reads it: plain decimals for everyday magnitudes, exponent notation for
/// tiny or huge ones (`1e-12`, not thirty zeros).
pub fn show_number(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-4..1e6).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// What a parameter is measured in. Slider scales of the viewer are chosen by unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A pure number.
    None,
    /// A number of boids.
    Boids,
    /// World length.
    Length,
    /// World length per unit of time.
    Speed,
    /// Change of velocity per step.
    VelocityPerStep,
    /// A weight applied once per step.
    PerStep,
    /// Time per step.
    TimePerStep,
    /// A number of steps.
    Steps,
    /// An angle.
    Radians,
    /// An angle per unit of time.
    RadiansPerTime,
}

/// Largest magnitude of a length, a speed, or a change of velocity: a world up to a billion
/// units a side, where `f32` still tells positions 1 part in 1.7e7 apart.
const LENGTH_LIMIT: f64 = 1e9;

/// Largest magnitude of a weight or a gain.
const WEIGHT_LIMIT: f64 = 1e3;

/// Largest time step, and largest magnitude of an angle (a turn of a million radians means
/// nothing more than one of a few).
const TIME_LIMIT: f64 = 1e6;

impl Unit {
    /// Largest magnitude of a finite value in this unit: the one rule that bounds every real
    /// parameter of the catalogue ([`Kind::within`]), so that a step of a flock stays finite in
    /// `f32`, whose largest value is 3.4e38 and whose squared lengths (every speed and distance
    /// is measured through one) overflow beyond 1.8e19.
    ///
    /// Positions are within `±1e9` of the origin (the world's edges, obstacles, attractors,
    /// the start), so a squared distance is below 1e19 in 2D and 3D. A step forms at most a
    /// weight (`<= 1e3`) times a gain (`<= 1e3`) times a distance or speed (`<= 3e9`) times
    /// `speed_boost` (`<= 10`): 3e16 per neighbour; a move adds a speed times `dt` (`<= 1e15`).
    /// What no bound on one value can rule out (a flock whose speed grows step after step,
    /// under an unstable weight or thousands of neighbours summed) the step's finite check
    /// refuses ([`crate::Simulation::step`]). Counts and steps are whole numbers, bounded by
    /// their own ranges.
    pub const fn limit(self) -> f64 {
        match self {
            Unit::Length | Unit::Speed | Unit::VelocityPerStep => LENGTH_LIMIT,
            Unit::None | Unit::PerStep => WEIGHT_LIMIT,
            Unit::TimePerStep | Unit::Radians | Unit::RadiansPerTime => TIME_LIMIT,
            Unit::Boids | Unit::Steps => f64::MAX,
        }
    }

    /// The unit as printed (empty for a pure number).
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::None => "",
            Unit::Boids => "boids",
            Unit::Length => "length",
            Unit::Speed => "length/time",
            Unit::VelocityPerStep => "velocity/step",
            Unit::PerStep => "1/step",
            Unit::TimePerStep => "time/step",
            Unit::Steps => "steps",
            Unit::Radians => "rad",
            Unit::RadiansPerTime => "rad/time",
        }
    }
}

/// Where a parameter is shown (`boids params`, the viewer's panel): related knobs together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Section {
    /// How many boids, how big, how long a step.
    Flock,
    /// The boids rules' weights.
    Rules,
    /// Who counts as a neighbour.
    Neighbourhood,
    /// Speed limits.
    Speed,
    /// What the edges do.
    Boundary,
    /// Scout groups and their bias.
    Scouts,
    /// The shared wandering heading.
    Wander,
    /// The update rule and its own parameters.
    Model,
    /// The world rectangle and the random start.
    WorldAndStart,
    /// Obstacles boids steer around and never enter.
    Obstacles,
    /// Predators that chase boids, and how boids flee them.
    Predators,
    /// Points the flock seeks.
    Attractors,
    /// Resting on the ground (seed 001's suggestion).
    Perching,
    /// What the viewer and the renderer show.
    View,
}

impl Section {
    /// Every section, in the order shown.
    pub const ALL: [Section; 14] = [
        Section::Flock,
        Section::Rules,
        Section::Neighbourhood,
        Section::Speed,
        Section::Boundary,
        Section::Scouts,
        Section::Wander,
        Section::Model,
        Section::WorldAndStart,
        Section::Obstacles,
        Section::Predators,
        Section::Attractors,
        Section::Perching,
        Section::View,
    ];

    /// The section's heading.
    pub fn title(self) -> &'static str {
        match self {
            Section::Flock => "Flock",
            Section::Rules => "Rules",
            Section::Neighbourhood => "Neighbourhood",
            Section::Speed => "Speed",
            Section::Boundary => "Boundary",
            Section::Scouts => "Scouts",
            Section::Wander => "Wander",
            Section::Model => "Model",
            Section::WorldAndStart => "World and start",
            Section::Obstacles => "Obstacles",
            Section::Predators => "Predators",
            Section::Attractors => "Attractors",
            Section::Perching => "Perching",
            Section::View => "View",
        }
    }
}
