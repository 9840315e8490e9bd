//! One validated parameter set, and the layered way to build it.
//!
//! Every knob of the model lives in the flat [`Params`] struct, so that a preset, a TOML config
//! file, a `--set key=value` flag and a message from the live viewer all speak the same language:
//! a parameter name and a TOML value. The table [`PARAMS`] describes each knob once (kind, unit,
//! meaning, allowed range); validation, `boids params` and the viewer's sliders all read it.
//!
//! [`ParamsBuilder`] applies the layers in order (preset, then file, then flags) and remembers
//! where each value came from, so an error can name the value, the range it breaks and its source.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::ParamsError;

/// Largest flock the engine accepts. At roughly 60 bytes per boid this is about 3 GB of state,
/// a sane ceiling for one process; bigger runs should be split.
pub const MAX_COUNT: usize = 50_000_000;

/// What happens at the edges of the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Boundary {
    /// Opposite edges are joined: minimum-image distances, positions wrapped after the move.
    Torus,
    /// Seed 001: inside `margin` of an edge a boid's velocity turns by `turnfactor` per step.
    /// Boids may leave the world; nothing stops them but the turning.
    Margins,
    /// Seed 002: within `wall_buffer` of a wall a boid is pushed inside (scaled by
    /// `avoid_factor`), and a boid whose disc would cross a wall bounces off it.
    Walls,
}

impl Boundary {
    /// Every boundary name accepted in a config.
    pub const NAMES: [&str; 3] = ["torus", "margins", "walls"];
}

/// Which update rule moves the boids (see [`crate::models`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// Reynolds' rules as the seeds give them ([`crate::rules`]).
    Boids,
    /// Vicsek et al. (1995): constant speed, mean heading of neighbours, angular noise.
    Vicsek,
    /// Couzin et al. (2002, 2005): zone of repulsion first, else orientation and attraction;
    /// limited turning rate, constant speed, angular noise.
    Couzin,
}

impl Model {
    /// Every model name accepted in a config.
    pub const NAMES: [&str; 3] = ["boids", "vicsek", "couzin"];
}

/// Shape of the angular noise of the Vicsek and Couzin models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoiseDistribution {
    /// Uniform in `[-noise/2, noise/2]` (Vicsek's eta).
    Uniform,
    /// Normal with standard deviation `noise` (Couzin's sigma), wrapped onto the circle.
    Gaussian,
}

impl NoiseDistribution {
    /// Every distribution name accepted in a config.
    pub const NAMES: [&str; 2] = ["uniform", "gaussian"];
}

/// The full parameter set of a simulation. Build one with [`ParamsBuilder`] (or
/// [`Params::preset`]) so that it is validated; see [`PARAMS`] for what each field means.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)] // each field is documented once, in the `PARAMS` table
pub struct Params {
    pub count: usize,
    pub boundary: Boundary,
    pub world_x_min: f64,
    pub world_y_min: f64,
    pub world_width: f64,
    pub world_height: f64,
    pub margin: f64,
    pub turnfactor: f64,
    pub wall_buffer: f64,
    pub boid_size: f64,
    pub visual_range: f64,
    pub protected_range: f64,
    pub inclusive_ranges: bool,
    pub include_self: bool,
    pub exclude_protected: bool,
    pub centering_factor: f64,
    pub matching_factor: f64,
    pub avoid_factor: f64,
    pub steering_gain: f64,
    pub speed_boost: f64,
    pub min_speed: f64,
    pub max_speed: f64,
    pub dt: f64,
    pub scout_group1_fraction: f64,
    pub scout_group2_fraction: f64,
    pub bias: f64,
    pub max_bias: f64,
    pub bias_increment: f64,
    pub dynamic_bias: bool,
    pub wander_weight: f64,
    pub wander_period: u64,
    pub wander_turn: f64,
    pub wander_angle: f64,
    pub init_x: [f64; 2],
    pub init_y: [f64; 2],
    pub init_vx: [f64; 2],
    pub init_vy: [f64; 2],
    pub model: Model,
    pub topological_k: u64,
    pub blind_angle: f64,
    pub speed: f64,
    pub noise: f64,
    pub noise_distribution: NoiseDistribution,
    pub turn_rate: f64,
    pub informed_weight: f64,
    pub preferred_angle1: f64,
    pub preferred_angle2: f64,
}

/// The type and allowed values of one parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A finite number in `[min, max]` (`max` may be infinite, then `inf` itself is allowed).
    Number {
        /// Smallest allowed value.
        min: f64,
        /// Largest allowed value.
        max: f64,
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
    /// A pair `[low, high]` of finite numbers with `low <= high`.
    Interval,
}

/// Description of one parameter: the single source for validation, help text and slider ranges.
#[derive(Clone, Copy, Debug)]
pub struct ParamInfo {
    /// Name as used in config files, `--set` and the viewer.
    pub name: &'static str,
    /// Type and allowed values.
    pub kind: Kind,
    /// Unit of the value.
    pub unit: &'static str,
    /// What the parameter does.
    pub meaning: &'static str,
}

const fn number(min: f64, max: f64) -> Kind {
    Kind::Number { min, max }
}
const NON_NEGATIVE: Kind = number(0.0, f64::INFINITY);
const FRACTION: Kind = number(0.0, 1.0);
const ANY: Kind = number(f64::MIN, f64::MAX);
const NON_NEGATIVE_FINITE: Kind = number(0.0, f64::MAX);

/// Largest `topological_k`: more than any published topological range (about 7 in starlings),
/// small enough that a neighbour list stays cheap.
pub const MAX_TOPOLOGICAL_K: u64 = 10_000;

/// Every parameter, in the order `boids params` prints them.
pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "count",
        kind: Kind::Integer {
            min: 1,
            max: MAX_COUNT as u64,
        },
        unit: "boids",
        meaning: "number of boids",
    },
    ParamInfo {
        name: "boundary",
        kind: Kind::Choice(&Boundary::NAMES),
        unit: "",
        meaning: "edge behaviour: torus (wrap), margins (turn by turnfactor), walls (push and bounce)",
    },
    ParamInfo {
        name: "world_x_min",
        kind: ANY,
        unit: "length",
        meaning: "left edge of the world",
    },
    ParamInfo {
        name: "world_y_min",
        kind: ANY,
        unit: "length",
        meaning: "top edge of the world (y grows downward on screen)",
    },
    ParamInfo {
        name: "world_width",
        kind: number(1e-9, 1e12),
        unit: "length",
        meaning: "width of the world",
    },
    ParamInfo {
        name: "world_height",
        kind: number(1e-9, 1e12),
        unit: "length",
        meaning: "height of the world",
    },
    ParamInfo {
        name: "margin",
        kind: NON_NEGATIVE,
        unit: "length",
        meaning: "margins boundary: distance from each edge where turning starts",
    },
    ParamInfo {
        name: "turnfactor",
        kind: NON_NEGATIVE,
        unit: "velocity/step",
        meaning: "margins boundary: velocity change per step inside a margin",
    },
    ParamInfo {
        name: "wall_buffer",
        kind: NON_NEGATIVE,
        unit: "length",
        meaning: "walls boundary: distance from a wall where the push inward starts",
    },
    ParamInfo {
        name: "boid_size",
        kind: NON_NEGATIVE,
        unit: "length",
        meaning: "radius of a boid: drawing size, and walls bounce when the disc touches a wall",
    },
    ParamInfo {
        name: "visual_range",
        kind: number(1e-12, f64::MAX),
        unit: "length",
        meaning: "radius within which neighbours count for cohesion and alignment",
    },
    ParamInfo {
        name: "protected_range",
        kind: NON_NEGATIVE,
        unit: "length",
        meaning: "radius within which neighbours push the boid away (separation)",
    },
    ParamInfo {
        name: "inclusive_ranges",
        kind: Kind::Bool,
        unit: "",
        meaning: "a neighbour exactly at a range counts (<=) rather than not (<)",
    },
    ParamInfo {
        name: "include_self",
        kind: Kind::Bool,
        unit: "",
        meaning: "the boid counts as its own neighbour in the averages",
    },
    ParamInfo {
        name: "exclude_protected",
        kind: Kind::Bool,
        unit: "",
        meaning: "neighbours inside protected_range are left out of the cohesion and alignment averages",
    },
    ParamInfo {
        name: "centering_factor",
        kind: NON_NEGATIVE,
        unit: "1/step",
        meaning: "cohesion weight: pull toward the neighbours' centre",
    },
    ParamInfo {
        name: "matching_factor",
        kind: NON_NEGATIVE,
        unit: "1/step",
        meaning: "alignment weight: pull toward the neighbours' mean velocity",
    },
    ParamInfo {
        name: "avoid_factor",
        kind: NON_NEGATIVE,
        unit: "1/step",
        meaning: "separation weight: push away from protected neighbours (and from walls)",
    },
    ParamInfo {
        name: "steering_gain",
        kind: NON_NEGATIVE,
        unit: "",
        meaning: "scale of the summed rule vectors added to the velocity",
    },
    ParamInfo {
        name: "speed_boost",
        kind: number(0.0, 10.0),
        unit: "",
        meaning: "factor applied to the steered velocity before limits (seed 000: 1.0025)",
    },
    ParamInfo {
        name: "min_speed",
        kind: NON_NEGATIVE,
        unit: "length/time",
        meaning: "speeds below this are raised to it (0: no minimum)",
    },
    ParamInfo {
        name: "max_speed",
        kind: NON_NEGATIVE,
        unit: "length/time",
        meaning: "speeds above this are lowered to it (inf: no maximum)",
    },
    ParamInfo {
        name: "dt",
        kind: number(1e-12, 1e6),
        unit: "time/step",
        meaning: "time step: position += velocity * dt",
    },
    ParamInfo {
        name: "scout_group1_fraction",
        kind: FRACTION,
        unit: "",
        meaning: "share of boids in scout group 1, biased toward +x",
    },
    ParamInfo {
        name: "scout_group2_fraction",
        kind: FRACTION,
        unit: "",
        meaning: "share of boids in scout group 2, biased toward -x",
    },
    ParamInfo {
        name: "bias",
        kind: FRACTION,
        unit: "",
        meaning: "scouts' bias: vx = (1 - bias) vx + bias * (+1 or -1); start value when dynamic",
    },
    ParamInfo {
        name: "max_bias",
        kind: FRACTION,
        unit: "",
        meaning: "dynamic bias: upper limit of a scout's bias",
    },
    ParamInfo {
        name: "bias_increment",
        kind: FRACTION,
        unit: "1/step",
        meaning: "dynamic bias: change per step, and the lower limit",
    },
    ParamInfo {
        name: "dynamic_bias",
        kind: Kind::Bool,
        unit: "",
        meaning: "scouts' bias grows while they move their preferred way and shrinks otherwise",
    },
    ParamInfo {
        name: "wander_weight",
        kind: NON_NEGATIVE,
        unit: "",
        meaning: "weight of the shared wandering heading added to every boid's steering",
    },
    ParamInfo {
        name: "wander_period",
        kind: Kind::Integer {
            min: 1,
            max: u64::MAX,
        },
        unit: "steps",
        meaning: "the wandering heading turns once every this many steps",
    },
    ParamInfo {
        name: "wander_turn",
        kind: ANY,
        unit: "rad",
        meaning: "angle the wandering heading turns by each period",
    },
    ParamInfo {
        name: "wander_angle",
        kind: ANY,
        unit: "rad",
        meaning: "wandering heading at step 0",
    },
    ParamInfo {
        name: "init_x",
        kind: Kind::Interval,
        unit: "length",
        meaning: "initial x drawn uniformly from [low, high]",
    },
    ParamInfo {
        name: "init_y",
        kind: Kind::Interval,
        unit: "length",
        meaning: "initial y drawn uniformly from [low, high]",
    },
    ParamInfo {
        name: "init_vx",
        kind: Kind::Interval,
        unit: "length/time",
        meaning: "initial vx drawn uniformly from [low, high]",
    },
    ParamInfo {
        name: "init_vy",
        kind: Kind::Interval,
        unit: "length/time",
        meaning: "initial vy drawn uniformly from [low, high]",
    },
    ParamInfo {
        name: "model",
        kind: Kind::Choice(&Model::NAMES),
        unit: "",
        meaning: "update rule: boids (Reynolds, the seeds), vicsek (Vicsek 1995), couzin (Couzin 2002/2005)",
    },
    ParamInfo {
        name: "topological_k",
        kind: Kind::Integer {
            min: 0,
            max: MAX_TOPOLOGICAL_K,
        },
        unit: "boids",
        meaning: "0: neighbours within a metric range; k > 0: the k nearest boids in view, at any distance, replace visual_range (short-range repulsion stays metric)",
    },
    ParamInfo {
        name: "blind_angle",
        kind: number(0.0, std::f64::consts::TAU),
        unit: "rad",
        meaning: "width of the blind sector centred behind each boid: neighbours there are not seen",
    },
    ParamInfo {
        name: "speed",
        kind: NON_NEGATIVE_FINITE,
        unit: "length/time",
        meaning: "vicsek and couzin: the constant speed (v0, s)",
    },
    ParamInfo {
        name: "noise",
        kind: number(0.0, std::f64::consts::TAU),
        unit: "rad",
        meaning: "vicsek and couzin: angular noise per step, its width (uniform, Vicsek's eta) or standard deviation (gaussian, Couzin's sigma)",
    },
    ParamInfo {
        name: "noise_distribution",
        kind: Kind::Choice(&NoiseDistribution::NAMES),
        unit: "",
        meaning: "vicsek and couzin: uniform in [-noise/2, noise/2], or gaussian with s.d. noise",
    },
    ParamInfo {
        name: "turn_rate",
        kind: NON_NEGATIVE,
        unit: "rad/time",
        meaning: "vicsek and couzin: largest turn per unit time (a step turns at most turn_rate * dt; inf: no limit)",
    },
    ParamInfo {
        name: "informed_weight",
        kind: NON_NEGATIVE_FINITE,
        unit: "",
        meaning: "vicsek and couzin: weight omega of a scout's preferred direction g: d' = (d + omega g) / |d + omega g|",
    },
    ParamInfo {
        name: "preferred_angle1",
        kind: ANY,
        unit: "rad",
        meaning: "preferred direction of scout group 1 (0: +x, the seed's choice)",
    },
    ParamInfo {
        name: "preferred_angle2",
        kind: ANY,
        unit: "rad",
        meaning: "preferred direction of scout group 2 (pi: -x, the seed's choice)",
    },
];

/// Looks up a parameter's description by name.
pub fn param_info(name: &str) -> Option<&'static ParamInfo> {
    PARAMS.iter().find(|info| info.name == name)
}

/// Where a parameter value came from, for error messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The named preset's default.
    Preset(String),
    /// A config file (as named by the caller) and the 1-based line of the key.
    File {
        /// The file's name as the user gave it.
        name: String,
        /// Line of the key, when it could be found.
        line: Option<usize>,
    },
    /// A command-line flag, quoted as the user typed it.
    Flag(String),
    /// A message from a client of the live viewer.
    Message,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Preset(name) => write!(f, "preset `{name}`"),
            Source::File {
                name,
                line: Some(line),
            } => write!(f, "{name}, line {line}"),
            Source::File { name, line: None } => write!(f, "{name}"),
            Source::Flag(flag) => write!(f, "flag `{flag}`"),
            Source::Message => write!(f, "viewer message"),
        }
    }
}

impl Params {
    /// The value of a parameter by name, as TOML (for printing and for the viewer).
    pub fn get(&self, name: &str) -> Option<toml::Value> {
        self.to_table().remove(name)
    }

    /// All parameters as a TOML table, in a form [`ParamsBuilder::apply_toml`] reads back.
    pub fn to_table(&self) -> toml::Table {
        toml::Table::try_from(self).expect("Params always serialises to a TOML table")
    }

    /// All parameters as a TOML document, one `name = value` line each.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("Params always serialises to TOML")
    }

    /// Checks every value against its allowed range and the parameters against each other.
    pub fn validate(&self) -> Result<(), ParamsError> {
        validate_table(&self.to_table(), &BTreeMap::new(), &Source::Message)
    }

    /// Whether the world wraps around.
    pub fn is_torus(&self) -> bool {
        self.boundary == Boundary::Torus
    }

    /// Whether the step can take the grid fast path: the boids model with metric neighbours
    /// seen all around. Anything else runs the general path of [`crate::models`].
    pub fn uses_fast_path(&self) -> bool {
        self.model == Model::Boids && self.topological_k == 0 && self.blind_angle == 0.0
    }
}

/// Builds a [`Params`] from layers (preset, then TOML text, then `key=value` pairs), tracking the
/// source of every value, and validates the result.
#[derive(Clone, Debug)]
pub struct ParamsBuilder {
    table: toml::Table,
    sources: BTreeMap<String, Source>,
    base: Source,
}

impl ParamsBuilder {
    /// Starts from an existing parameter set (for example the viewer's current one).
    pub fn from_params(params: Params, base: Source) -> Self {
        Self {
            table: params.to_table(),
            sources: BTreeMap::new(),
            base,
        }
    }

    /// Applies every key of a TOML document. `name` identifies the document in messages
    /// (usually the file path). Unknown keys and wrong types are refused with their line.
    pub fn apply_toml(mut self, text: &str, name: &str) -> Result<Self, ParamsError> {
        let doc: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| ParamsError::Syntax {
                origin: name.to_owned(),
                line: e.span().map(|span| line_of_offset(text, span.start)),
                message: e.message().to_owned(),
            })?;
        for (key, value) in doc {
            let source = Source::File {
                name: name.to_owned(),
                line: line_of_key(text, &key),
            };
            self = self.apply_value(&key, value, source)?;
        }
        Ok(self)
    }

    /// Applies one `key=value` assignment as typed on the command line. The value is read as
    /// TOML (`3`, `0.5`, `true`, `[0, 10]`, `inf`); a bare word is taken as a string.
    pub fn apply_assignment(self, assignment: &str, source: Source) -> Result<Self, ParamsError> {
        let Some((key, raw)) = assignment.split_once('=') else {
            return Err(ParamsError::Syntax {
                origin: source.to_string(),
                line: None,
                message: format!("expected KEY=VALUE, got `{assignment}`"),
            });
        };
        if key.trim().is_empty() {
            return Err(ParamsError::Syntax {
                origin: source.to_string(),
                line: None,
                message: format!("empty parameter name in `{assignment}`"),
            });
        }
        let value = parse_value(raw.trim());
        self.apply_value(key.trim(), value, source)
    }

    /// Applies one value, checking that the key exists and the value has the right type.
    pub fn apply_value(
        mut self,
        key: &str,
        value: toml::Value,
        source: Source,
    ) -> Result<Self, ParamsError> {
        if key.is_empty() {
            return Err(ParamsError::Syntax {
                origin: source.to_string(),
                line: None,
                message: "empty parameter name".to_owned(),
            });
        }
        let info = param_info(key).ok_or_else(|| unknown_param(key, &source))?;
        let value = coerce(info, value, &source)?;
        self.table.insert(key.to_owned(), value);
        self.sources.insert(key.to_owned(), source);
        Ok(self)
    }

    /// Validates the merged values and returns the parameter set.
    pub fn build(self) -> Result<Params, ParamsError> {
        validate_table(&self.table, &self.sources, &self.base)?;
        let params: Params =
            self.table
                .try_into()
                .map_err(|e: toml::de::Error| ParamsError::Syntax {
                    origin: self.base.to_string(),
                    line: None,
                    message: e.to_string(),
                })?;
        Ok(params)
    }
}

/// Reads a command-line value as TOML, falling back to a plain string for bare words.
pub fn parse_value(raw: &str) -> toml::Value {
    format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut table| table.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_owned()))
}

/// A "did you mean" hint only when the nearest name is a plausible typo: at most one edit per
/// three characters of what was typed (at least one), so `k0` is not taken for `dt` while
/// `visual_rang`, `visualrange` and `max_sped` still find their parameter.
fn unknown_param(key: &str, source: &Source) -> ParamsError {
    let names: Vec<&str> = PARAMS.iter().map(|info| info.name).collect();
    let tolerance = (key.chars().count() / 3).max(1);
    let suggestion = names
        .iter()
        .copied()
        .min_by_key(|name| edit_distance(name, key))
        .filter(|name| edit_distance(name, key) <= tolerance)
        .map(|name| format!(" (did you mean `{name}`?)"))
        .unwrap_or_default();
    ParamsError::UnknownParam {
        key: key.to_owned(),
        origin: source.to_string(),
        hint: format!("{suggestion}; valid names: {}", names.join(", ")),
    }
}

/// Levenshtein distance, for "did you mean" hints on misspelt names.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// Checks a value's type against the parameter's kind, converting integers to floats where a
/// number is expected.
fn coerce(
    info: &ParamInfo,
    value: toml::Value,
    source: &Source,
) -> Result<toml::Value, ParamsError> {
    use toml::Value as V;
    let wrong = |expected: &str, value: &V| ParamsError::WrongType {
        key: info.name.to_owned(),
        value: value.to_string(),
        expected: expected.to_owned(),
        origin: source.to_string(),
    };
    match (info.kind, value) {
        (Kind::Number { .. }, V::Integer(i)) => Ok(V::Float(i as f64)),
        (Kind::Number { .. }, v @ V::Float(_)) => Ok(v),
        (Kind::Number { .. }, v) => Err(wrong("a number", &v)),
        (Kind::Integer { .. }, V::Integer(i)) if i >= 0 => Ok(V::Integer(i)),
        (Kind::Integer { .. }, V::Float(f)) if f.fract() == 0.0 && (0.0..9.0e15).contains(&f) => {
            Ok(V::Integer(f as i64))
        }
        (Kind::Integer { min, max }, v) => {
            Err(wrong(&format!("a whole number in [{min}, {max}]"), &v))
        }
        (Kind::Bool, v @ V::Boolean(_)) => Ok(v),
        (Kind::Bool, v) => Err(wrong("true or false", &v)),
        (Kind::Choice(names), V::String(s)) if names.contains(&s.as_str()) => Ok(V::String(s)),
        (Kind::Choice(names), v) => Err(wrong(&format!("one of {}", names.join(", ")), &v)),
        (Kind::Interval, V::Array(items)) if items.len() == 2 => {
            let numbers: Option<Vec<f64>> = items
                .iter()
                .map(|item| {
                    item.as_float()
                        .or_else(|| item.as_integer().map(|i| i as f64))
                })
                .collect();
            match numbers {
                Some(pair) => Ok(V::Array(pair.into_iter().map(V::Float).collect())),
                None => Err(wrong("[low, high] with two numbers", &V::Array(items))),
            }
        }
        (Kind::Interval, v) => Err(wrong("[low, high] with two numbers", &v)),
    }
}

fn validate_table(
    table: &toml::Table,
    sources: &BTreeMap<String, Source>,
    base: &Source,
) -> Result<(), ParamsError> {
    let source_of = |key: &str| sources.get(key).unwrap_or(base).to_string();
    let number = |key: &str| {
        table
            .get(key)
            .and_then(toml::Value::as_float)
            .unwrap_or(f64::NAN)
    };
    for info in PARAMS {
        let value = table.get(info.name);
        let out_of_range = |shown: String, range: String| ParamsError::OutOfRange {
            key: info.name.to_owned(),
            value: shown,
            range,
            origin: source_of(info.name),
        };
        match (info.kind, value) {
            (Kind::Number { min, max }, Some(toml::Value::Float(x))) => {
                let allowed = x.is_finite() || (*x == f64::INFINITY && max == f64::INFINITY);
                if !allowed || *x < min || *x > max {
                    return Err(out_of_range(show_number(*x), describe_range(min, max)));
                }
            }
            (Kind::Integer { min, max }, Some(toml::Value::Integer(i))) => {
                let i = *i as u64;
                if i < min || i > max {
                    return Err(out_of_range(i.to_string(), format!("[{min}, {max}]")));
                }
            }
            (Kind::Interval, Some(toml::Value::Array(pair))) => {
                let (lo, hi) = (pair[0].as_float(), pair[1].as_float());
                let ok = matches!((lo, hi), (Some(lo), Some(hi)) if lo.is_finite() && hi.is_finite() && lo <= hi);
                if !ok {
                    return Err(out_of_range(
                        toml::Value::Array(pair.clone()).to_string(),
                        "[low, high] with finite low <= high".to_owned(),
                    ));
                }
            }
            (_, Some(_)) => {}
            (_, None) => {
                return Err(ParamsError::Syntax {
                    origin: base.to_string(),
                    line: None,
                    message: format!("parameter `{}` is missing", info.name),
                });
            }
        }
    }
    let conflict = |message: String, keys: [&str; 2]| ParamsError::Conflict {
        message,
        sources: format!(
            "{} from {}; {} from {}",
            keys[0],
            source_of(keys[0]),
            keys[1],
            source_of(keys[1])
        ),
    };
    if number("protected_range") > number("visual_range") {
        return Err(conflict(
            format!(
                "protected_range = {} must not exceed visual_range = {}",
                number("protected_range"),
                number("visual_range")
            ),
            ["protected_range", "visual_range"],
        ));
    }
    if number("min_speed") > number("max_speed") {
        return Err(conflict(
            format!(
                "min_speed = {} must not exceed max_speed = {}",
                number("min_speed"),
                number("max_speed")
            ),
            ["min_speed", "max_speed"],
        ));
    }
    if number("bias_increment") > number("max_bias")
        && table.get("dynamic_bias") == Some(&toml::Value::Boolean(true))
    {
        return Err(conflict(
            format!(
                "bias_increment = {} must not exceed max_bias = {} (it is the dynamic bias's lower limit)",
                number("bias_increment"),
                number("max_bias")
            ),
            ["bias_increment", "max_bias"],
        ));
    }
    if number("scout_group1_fraction") + number("scout_group2_fraction") > 1.0 {
        return Err(conflict(
            "scout_group1_fraction + scout_group2_fraction must not exceed 1".to_owned(),
            ["scout_group1_fraction", "scout_group2_fraction"],
        ));
    }
    let boundary = table.get("boundary").and_then(toml::Value::as_str);
    if boundary == Some("margins") {
        for extent in ["world_width", "world_height"] {
            if 2.0 * number("margin") >= number(extent) {
                return Err(conflict(
                    format!(
                        "margins cross: 2 * margin = {} must be less than {extent} = {}",
                        2.0 * number("margin"),
                        number(extent)
                    ),
                    ["margin", extent],
                ));
            }
        }
    }
    if boundary == Some("walls") {
        for extent in ["world_width", "world_height"] {
            if 2.0 * number("boid_size") >= number(extent) {
                return Err(conflict(
                    format!(
                        "a boid of boid_size = {} does not fit between the walls ({extent} = {})",
                        number("boid_size"),
                        number(extent)
                    ),
                    ["boid_size", extent],
                ));
            }
        }
    }
    Ok(())
}

/// The range exactly as `validate_table` checks it: both bounds inclusive, the minimum printed as
/// it is (a tiny positive minimum is not rounded to an open "(0"), so a refused value can always
/// be compared with the bound it crossed.
fn describe_range(min: f64, max: f64) -> String {
    let low = format!("[{}", show_number(min));
    match max {
        _ if min == f64::MIN => "any finite number".to_owned(),
        f64::INFINITY => format!("{low}, inf]"),
        f64::MAX => format!("{low}, any finite number]"),
        max => format!("{low}, {}]", show_number(max)),
    }
}

/// A number as a person reads it: plain decimals for everyday magnitudes, exponent notation for
/// tiny or huge ones (`1e-12`, not thirty zeros).
fn show_number(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-4..1e15).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

fn line_of_offset(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The line where a top-level key is assigned, found by scanning (the TOML parser gives spans for
/// syntax errors only).
fn line_of_key(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            let line = line.trim_start();
            let name = line
                .split('=')
                .next()
                .unwrap_or("")
                .trim()
                .trim_matches('"');
            line.contains('=') && name == key
        })
        .map(|index| index + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_is_described_exactly_once() {
        let table = Params::preset("cornell").unwrap().to_table();
        assert_eq!(table.len(), PARAMS.len());
        for key in table.keys() {
            assert_eq!(
                PARAMS.iter().filter(|info| info.name == key).count(),
                1,
                "{key}"
            );
        }
    }

    #[test]
    fn later_layers_override_earlier_ones() {
        let params = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_toml("visual_range = 50\nturnfactor = 0.3\n", "a.toml")
            .unwrap()
            .apply_assignment(
                "visual_range=60",
                Source::Flag("--set visual_range=60".into()),
            )
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(params.visual_range, 60.0);
        assert_eq!(params.turnfactor, 0.3);
    }

    #[test]
    fn unknown_key_names_its_line_and_suggests_the_right_name() {
        let err = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_toml("count = 10\n\nvisual_rang = 3\n", "my.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("visual_rang"), "{err}");
        assert!(err.contains("my.toml, line 3"), "{err}");
        assert!(err.contains("did you mean `visual_range`"), "{err}");
    }

    fn refusal(assignment: &str) -> String {
        let source = Source::Flag(format!("--set {assignment}"));
        match ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_assignment(assignment, source)
        {
            Ok(builder) => builder.build().unwrap_err().to_string(),
            Err(err) => err.to_string(),
        }
    }

    #[test]
    fn suggestions_only_for_plausible_typos() {
        for (typo, meant) in [
            ("visual_rang", "visual_range"),
            ("visualrange", "visual_range"),
            ("max_sped", "max_speed"),
            ("d", "dt"),
        ] {
            let err = refusal(&format!("{typo}=1"));
            assert!(err.contains(&format!("did you mean `{meant}`")), "{err}");
        }
        for far in ["k0", "xyz", "speedy_gonzales"] {
            let err = refusal(&format!("{far}=1"));
            assert!(err.contains(&format!("unknown parameter `{far}`")), "{err}");
            assert!(!err.contains("did you mean"), "{err}");
        }
    }

    #[test]
    fn empty_parameter_name_is_named_as_such() {
        for assignment in ["=5", " = 5"] {
            let err = refusal(assignment);
            assert!(
                err.contains(&format!("empty parameter name in `{assignment}`")),
                "{err}"
            );
            assert!(!err.contains("did you mean"), "{err}");
        }
        let err = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_toml("\"\" = 5\n", "empty.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("empty.toml, line 1: empty parameter name"),
            "{err}"
        );
        assert!(!err.contains("did you mean"), "{err}");
    }

    #[test]
    fn shown_range_matches_the_check() {
        let err = refusal("visual_range=1e-30");
        assert!(
            err.contains("`visual_range` = 1e-30")
                && err.contains("allowed range is [1e-12, any finite number]")
                && err.contains("--set visual_range=1e-30"),
            "{err}"
        );
        // The minimum itself is accepted, as the closed bracket says.
        let ok = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_assignment("visual_range=1e-12", Source::Flag("--set".into()))
            .unwrap()
            .apply_assignment("protected_range=0", Source::Flag("--set".into()))
            .unwrap()
            .build();
        assert!(ok.is_ok(), "{ok:?}");
        // Every numeric parameter: just below its minimum is refused with that minimum shown.
        for info in PARAMS {
            let Kind::Number { min, max } = info.kind else {
                continue;
            };
            if min == f64::MIN {
                continue;
            }
            let below = if min == 0.0 {
                -1e-300
            } else {
                min * (1.0 - 1e-9)
            };
            let err = refusal(&format!("{}={below:e}", info.name));
            let range = describe_range(min, max);
            assert!(
                range.starts_with(&format!("[{}", show_number(min))),
                "{range}"
            );
            assert!(
                err.contains(&format!("allowed range is {range}")),
                "{}: {err}",
                info.name
            );
        }
    }

    #[test]
    fn syntax_error_names_its_line() {
        let err = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_toml("count = 10\nmargin = = 3\n", "bad.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("bad.toml") && err.contains("line 2"), "{err}");
    }

    #[test]
    fn out_of_range_values_name_value_range_and_source() {
        let cases = [
            ("visual_range=-1", "visual_range"),
            ("avoid_factor=nan", "avoid_factor"),
            ("dt=inf", "dt"),
            ("count=0", "count"),
            ("bias=1.5", "bias"),
        ];
        for (assignment, key) in cases {
            let err = ParamsBuilder::preset("cornell")
                .unwrap()
                .apply_assignment(assignment, Source::Flag(format!("--set {assignment}")))
                .unwrap()
                .build()
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(key) && err.contains("allowed") && err.contains(assignment),
                "{err}"
            );
        }
    }

    #[test]
    fn inconsistent_pairs_are_refused() {
        let cases = [
            ("protected_range=50", "must not exceed visual_range"),
            ("min_speed=7", "must not exceed max_speed"),
            ("margin=300", "margins cross"),
        ];
        for (assignment, expected) in cases {
            let err = ParamsBuilder::preset("cornell")
                .unwrap()
                .apply_assignment(assignment, Source::Flag(format!("--set {assignment}")))
                .unwrap()
                .build()
                .unwrap_err()
                .to_string();
            assert!(err.contains(expected), "{err}");
        }
    }

    #[test]
    fn wrong_types_are_refused() {
        let err = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_assignment(
                "dynamic_bias=3",
                Source::Flag("--set dynamic_bias=3".into()),
            )
            .unwrap_err()
            .to_string();
        assert!(err.contains("true or false"), "{err}");
        let err = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_assignment(
                "boundary=sphere",
                Source::Flag("--set boundary=sphere".into()),
            )
            .unwrap_err()
            .to_string();
        assert!(err.contains("torus, margins, walls"), "{err}");
    }

    #[test]
    fn infinite_max_speed_means_no_limit() {
        let params = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_assignment("max_speed=inf", Source::Flag("--set max_speed=inf".into()))
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(params.max_speed, f64::INFINITY);
    }
}
