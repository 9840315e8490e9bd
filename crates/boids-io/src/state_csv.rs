//! Flock state files: CSV with a header, one row per boid in id order, then one row per
//! predator in predator order.
//!
//! The position and velocity columns are required: `x,y,vx,vy` in two dimensions,
//! `x,y,z,vx,vy,vz` in three (the run's `dimensions`; a file of the other dimension is refused,
//! naming the columns it has). `group` (0 none, 1 scout toward +x, 2 scout toward -x),
//! `bias`, `resting` (steps a perching boid still rests, a whole number >= 0) and `kind` (`boid`
//! or `predator`) are optional. Without a `kind` column every row is a boid. A predator has no
//! group, bias or rest: its cells in those columns are empty (and must be). Boid ids count the
//! boid rows and predators the predator rows, each in file order, so the two kinds of rows may
//! come in any order; a saved file puts the predators last. The columns a run does not need are
//! left out when saving: `kind` without predators, `resting` without perching (and a `resting`
//! column is not used when `perch` is off), so a plain flock's file reads as it always did.
//!
//! A predator row has the same motion columns as a boid row (`z` and `vz` too in 3D).
//!
//! Other columns are ignored unless they look like a misspelling of a known one (`X`, `vw`,
//! `gruop`), which is refused. Numbers are written in the shortest form that reads back to the
//! same `f32`, so save-then-load is exact. A known column given twice (`x,x,y,...`) is refused
//! rather than one copy silently winning. The file is read through a line-length limit, not a
//! size limit: a state may hold millions of rows, but no row is 64 KiB long.

use std::io::{self, Read, Write};

use boids_core::params::{Value, edit_distance};
use boids_core::sim::scout_groups;
use boids_core::world::Predator;
use boids_core::{
    Coordinates, Dim, Dimension, Engine, FlockState, Params, ParamsBuilder, Simulation, Source,
    StateError, VecN, rules::Kernel,
};

use crate::StateFileError;
use crate::line_limit::{LINE_LIMIT, LineLimit};

/// `Result` of reading a state file.
type Result<T> = std::result::Result<T, StateFileError>;

/// Refuses with a message (a state file's content is not usable).
macro_rules! bail {
    ($($message:tt)*) => {
        return Err(StateFileError::Invalid(format!($($message)*)))
    };
}

/// Adds where (the file, its line) to a message about a file's content.
trait Context<T> {
    fn with_context(self, place: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: std::fmt::Display> Context<T> for std::result::Result<T, E> {
    fn with_context(self, place: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|error| StateFileError::Invalid(format!("{}: {error}", place())))
    }
}

impl<T> Context<T> for Option<T> {
    fn with_context(self, message: impl FnOnce() -> String) -> Result<T> {
        self.ok_or_else(|| StateFileError::Invalid(message()))
    }
}

/// Position columns by axis: x, y, then z.
const POSITION: [&str; 3] = ["x", "y", "z"];
/// Velocity columns by axis.
const VELOCITY: [&str; 3] = ["vx", "vy", "vz"];
const OPTIONAL: [&str; 4] = ["group", "bias", "resting", "kind"];
/// The `kind` of a boid's row.
pub const BOID: &str = "boid";
/// The `kind` of a predator's row (also how [`boids_core::StateError`] names a predator).
pub const PREDATOR: &str = "predator";

/// The position and velocity columns of a flock of `dimensions`: positions, then velocities
/// (`x,y,vx,vy` or `x,y,z,vx,vy,vz`), as state and trajectory files name them.
pub fn motion_columns(dimensions: usize) -> Vec<&'static str> {
    POSITION[..dimensions]
        .iter()
        .chain(&VELOCITY[..dimensions])
        .copied()
        .collect()
}

/// A predator's position and velocity as coordinates of `D` dimensions.
pub fn predator_motion<const D: usize>(predator: &Predator<D>) -> [[f32; D]; 2]
where
    Dim<D>: Dimension<D>,
{
    [predator.position.to_array(), predator.velocity.to_array()]
}

/// A state read from a file; `groups`, `biases` and `resting` are `None` when their column was
/// absent.
pub struct LoadedState<const D: usize>
where
    Dim<D>: Dimension<D>,
{
    /// Positions, one per boid row.
    pub positions: Vec<VecN<D>>,
    /// Velocities, one per boid row.
    pub velocities: Vec<VecN<D>>,
    /// Scout groups, if the file has them.
    pub groups: Option<Vec<u8>>,
    /// Biases, if the file has them.
    pub biases: Option<Vec<f32>>,
    /// Steps each boid still rests, if the file has them.
    pub resting: Option<Vec<u32>>,
    /// The predators, one per predator row.
    pub predators: Vec<Predator<D>>,
    /// Where each row was, for messages about a boid or predator.
    pub lines: RowLines,
}

/// The file lines of a state's rows.
#[derive(Debug, Default)]
pub struct RowLines {
    /// The line of each boid row, in id order.
    boids: Vec<u64>,
    /// The line of each predator row, in predator order.
    predators: Vec<u64>,
}

impl RowLines {
    /// The line of `agent` (`"boid"` or `"predator"`, as [`boids_core::StateError`] names
    /// them) number `index`.
    pub fn line_of(&self, agent: &str, index: usize) -> Option<u64> {
        let lines = match agent {
            PREDATOR => &self.predators,
            _ => &self.boids,
        };
        lines.get(index).copied()
    }
}

impl<const D: usize> LoadedState<D>
where
    Dim<D>: Dimension<D>,
{
    /// Number of boids (boid rows).
    fn len(&self) -> usize {
        self.positions.len()
    }

    /// Completes the state for `params`: missing groups come from the scout fractions, missing
    /// biases from the initial bias, as for a fresh flock; missing rests and predators are left
    /// to the simulation (no boid resting, predators drawn afresh).
    pub fn into_flock(self, params: &Params) -> FlockState<D> {
        let groups = self.groups.unwrap_or_else(|| scout_groups(params));
        let kernel = Kernel::<D>::new(params);
        let biases = self
            .biases
            .unwrap_or_else(|| groups.iter().map(|&g| kernel.initial_bias(g)).collect());
        FlockState {
            positions: self.positions,
            velocities: self.velocities,
            groups,
            biases,
            predators: self.predators,
            resting: self.resting.unwrap_or_default(),
        }
    }
}

/// Where the known columns are in the header.
struct Columns<const D: usize> {
    position: [usize; D],
    velocity: [usize; D],
    group: Option<usize>,
    bias: Option<usize>,
    resting: Option<usize>,
    kind: Option<usize>,
}

impl<const D: usize> Columns<D> {
    /// Finds the columns of `headers` of the file `file`, refusing a misspelt, repeated or
    /// missing one, and a file of another dimension than `D`.
    fn of(headers: &csv::StringRecord, file: &str) -> Result<Self> {
        for h in headers {
            check_column_name(h).with_context(|| format!("{file}, line 1"))?;
        }
        check_duplicates(headers).with_context(|| format!("{file}, line 1"))?;
        check_dimensions::<D>(headers, file)?;
        let column = |wanted: &str| headers.iter().position(|h| h == wanted);
        let required = |name: &str| {
            column(name).with_context(|| {
                format!(
                    "{file}: missing column `{name}` (required: {}; optional: {})",
                    motion_columns(D).join(", "),
                    OPTIONAL.join(", ")
                )
            })
        };
        let mut position = [0; D];
        let mut velocity = [0; D];
        for a in 0..D {
            position[a] = required(POSITION[a])?;
        }
        for a in 0..D {
            velocity[a] = required(VELOCITY[a])?;
        }
        Ok(Self {
            position,
            velocity,
            group: column("group"),
            bias: column("bias"),
            resting: column("resting"),
            kind: column("kind"),
        })
    }

    /// The boid-only columns present, with their names.
    fn boid_only(&self) -> impl Iterator<Item = (usize, &'static str)> {
        [
            (self.group, "group"),
            (self.bias, "bias"),
            (self.resting, "resting"),
        ]
        .into_iter()
        .filter_map(|(col, name)| col.map(|c| (c, name)))
    }
}

/// Refuses a state of another dimension than the run's `D`: one with a `z` or `vz` column is
/// three-dimensional, one without two-dimensional.
fn check_dimensions<const D: usize>(headers: &csv::StringRecord, file: &str) -> Result<()> {
    let third_axis = [POSITION[2], VELOCITY[2]];
    let has = if headers.iter().any(|h| third_axis.contains(&h)) {
        3
    } else {
        2
    };
    if has != D {
        let columns: Vec<&str> = headers.iter().collect();
        bail!(
            "{file}: a {has}D state (columns {}) cannot start a {D}D run (dimensions = {D}), whose state has columns {}; run it with --set dimensions={has}",
            columns.join(", "),
            motion_columns(D).join(", ")
        );
    }
    Ok(())
}

/// One data row being read, for cell parsers whose messages name the file and the row's line.
struct Row<'a> {
    record: &'a csv::StringRecord,
    file: &'a str,
    line: u64,
}

impl Row<'_> {
    fn raw(&self, col: usize) -> &str {
        self.record.get(col).unwrap_or("")
    }

    /// A finite number.
    fn number(&self, col: usize, what: &str) -> Result<f32> {
        let raw = self.raw(col);
        let value: f32 = raw
            .parse()
            .map_err(|_| self.error(format!("column `{what}` = `{raw}` is not a number")))?;
        if !value.is_finite() {
            return Err(self.error(format!(
                "column `{what}` = {raw} is not allowed: finite numbers only"
            )));
        }
        Ok(value)
    }

    /// The coordinates in the columns `cols`, named `names`.
    fn vector<const D: usize>(&self, cols: [usize; D], names: &[&str]) -> Result<[f32; D]> {
        let mut v = [0.0; D];
        for a in 0..D {
            v[a] = self.number(cols[a], names[a])?;
        }
        Ok(v)
    }

    /// Position and velocity from the position and velocity columns.
    fn motion<const D: usize>(&self, columns: &Columns<D>) -> Result<[[f32; D]; 2]> {
        Ok([
            self.vector(columns.position, &POSITION)?,
            self.vector(columns.velocity, &VELOCITY)?,
        ])
    }

    /// Whether the row is a predator's (`false` without a `kind` column).
    fn is_predator<const D: usize>(&self, columns: &Columns<D>) -> Result<bool> {
        let Some(col) = columns.kind else {
            return Ok(false);
        };
        match self.raw(col) {
            BOID => Ok(false),
            PREDATOR => Ok(true),
            raw => Err(self.error(format!(
                "column `kind` = `{raw}` is not allowed: {BOID} or {PREDATOR}"
            ))),
        }
    }

    fn group(&self, col: usize) -> Result<u8> {
        let raw = self.raw(col);
        match raw.parse::<u8>() {
            Ok(g) if g <= 2 => Ok(g),
            _ => Err(self.error(format!(
                "column `group` = `{raw}` is not allowed: 0 (none), 1 (+x) or 2 (-x)"
            ))),
        }
    }

    fn bias(&self, col: usize) -> Result<f32> {
        let bias = self.number(col, "bias")?;
        if !(0.0..=1.0).contains(&bias) {
            return Err(self.error(format!(
                "column `bias` = {bias} is not allowed: allowed range is [0, 1]"
            )));
        }
        Ok(bias)
    }

    fn resting(&self, col: usize) -> Result<u32> {
        let raw = self.raw(col);
        raw.parse().map_err(|_| {
            self.error(format!(
                "column `resting` = `{raw}` is not allowed: a whole number of steps in [0, {}]",
                u32::MAX
            ))
        })
    }

    /// Refuses a value in a boid-only column of a predator row.
    fn check_predator<const D: usize>(&self, columns: &Columns<D>) -> Result<()> {
        for (col, name) in columns.boid_only() {
            let raw = self.raw(col);
            if !raw.is_empty() {
                return Err(self.error(format!(
                    "column `{name}` = `{raw}` is not allowed on a predator row: leave it empty (predators have no {name})"
                )));
            }
        }
        Ok(())
    }

    fn error(&self, message: String) -> StateFileError {
        StateFileError::Invalid(format!("{}, line {}: {message}", self.file, self.line))
    }
}

/// Reads a state file for a run of `D` dimensions from `file`, which messages call `name` (the
/// command's `--init PATH`, the path given to Python's `Simulation.load`). Lines longer than
/// [`LINE_LIMIT`] are refused: a stream without line breaks fails after a few kilobytes.
pub fn read<const D: usize>(file: impl Read, name: &str) -> Result<LoadedState<D>>
where
    Dim<D>: Dimension<D>,
{
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(LineLimit::new(file, LINE_LIMIT));
    let headers = reader
        .headers()
        .with_context(|| format!("{name}: cannot read the header"))?
        .clone();
    let columns = Columns::<D>::of(&headers, name)?;
    let mut state = LoadedState {
        positions: Vec::new(),
        velocities: Vec::new(),
        groups: columns.group.map(|_| Vec::new()),
        biases: columns.bias.map(|_| Vec::new()),
        resting: columns.resting.map(|_| Vec::new()),
        predators: Vec::new(),
        lines: RowLines::default(),
    };
    for record in reader.records() {
        let record = record.with_context(|| format!("{name}: malformed row"))?;
        let row = Row {
            record: &record,
            file: name,
            line: record.position().map_or(0, |p| p.line()),
        };
        if row.is_predator(&columns)? {
            read_predator(&row, &columns, &mut state)?;
        } else {
            read_boid(&row, &columns, &mut state)?;
        }
    }
    if state.len() == 0 {
        bail!("{name}: no boids (a header and at least one boid row are needed)");
    }
    Ok(state)
}

fn read_boid<const D: usize>(
    row: &Row,
    columns: &Columns<D>,
    state: &mut LoadedState<D>,
) -> Result<()>
where
    Dim<D>: Dimension<D>,
{
    let [position, velocity] = row.motion(columns)?;
    state.positions.push(position.into());
    state.velocities.push(velocity.into());
    state.lines.boids.push(row.line);
    if let (Some(col), Some(groups)) = (columns.group, state.groups.as_mut()) {
        groups.push(row.group(col)?);
    }
    if let (Some(col), Some(biases)) = (columns.bias, state.biases.as_mut()) {
        biases.push(row.bias(col)?);
    }
    if let (Some(col), Some(resting)) = (columns.resting, state.resting.as_mut()) {
        resting.push(row.resting(col)?);
    }
    Ok(())
}

fn read_predator<const D: usize>(
    row: &Row,
    columns: &Columns<D>,
    state: &mut LoadedState<D>,
) -> Result<()>
where
    Dim<D>: Dimension<D>,
{
    let [position, velocity] = row.motion(columns)?;
    row.check_predator(columns)?;
    state.predators.push(Predator {
        position: position.into(),
        velocity: velocity.into(),
    });
    state.lines.predators.push(row.line);
    Ok(())
}

/// Every column name a state file may have.
fn known_columns() -> impl Iterator<Item = &'static str> + Clone {
    POSITION.into_iter().chain(VELOCITY).chain(OPTIONAL)
}

/// Refuses a column that is not a known name but looks like one.
fn check_column_name(name: &str) -> Result<()> {
    let mut known = known_columns();
    if known.clone().any(|k| k == name) {
        return Ok(());
    }
    if let Some(k) = known.find(|k| k.eq_ignore_ascii_case(name) || edit_distance(k, name) == 1) {
        let all: Vec<&str> = known_columns().collect();
        bail!(
            "column `{name}` looks like a misspelling of `{k}` (known columns: {})",
            all.join(", ")
        );
    }
    Ok(())
}

/// Refuses a known column that appears more than once: which copy holds the data is a guess.
fn check_duplicates(headers: &csv::StringRecord) -> Result<()> {
    for known in known_columns() {
        let positions: Vec<String> = headers
            .iter()
            .enumerate()
            .filter(|(_, h)| *h == known)
            .map(|(i, _)| (i + 1).to_string())
            .collect();
        if positions.len() > 1 {
            bail!(
                "column `{known}` appears {} times (columns {}); give each column once",
                positions.len(),
                positions.join(", ")
            );
        }
    }
    Ok(())
}

/// Writes the coordinates `motion` (position, then velocity), each followed by a comma.
fn write_motion<const D: usize>(out: &mut impl Write, motion: [[f32; D]; 2]) -> io::Result<()> {
    for value in motion.iter().flatten() {
        write!(out, "{value},")?;
    }
    Ok(())
}

/// Writes a state file (boids in id order, then predators) to `out`: `resting` only when
/// perching is on, `kind` only when there are predators.
pub fn write<const D: usize>(out: &mut impl Write, state: &FlockState<D>) -> io::Result<()>
where
    Dim<D>: Dimension<D>,
{
    let perching = !state.resting.is_empty();
    let hunted = !state.predators.is_empty();
    write!(out, "{},group,bias", motion_columns(D).join(","))?;
    if perching {
        write!(out, ",resting")?;
    }
    if hunted {
        write!(out, ",kind")?;
    }
    writeln!(out)?;
    for i in 0..state.len() {
        let motion = [
            state.positions[i].to_array(),
            state.velocities[i].to_array(),
        ];
        write_motion(out, motion)?;
        write!(out, "{},{}", state.groups[i], state.biases[i])?;
        if perching {
            write!(out, ",{}", state.resting[i])?;
        }
        if hunted {
            write!(out, ",{BOID}")?;
        }
        writeln!(out)?;
    }
    for predator in &state.predators {
        write_motion(out, predator_motion::<D>(predator))?;
        // Group and bias (and rest) are empty: predators have none.
        write!(out, ",")?;
        if perching {
            write!(out, ",")?;
        }
        writeln!(out, ",{PREDATOR}")?;
    }
    Ok(())
}

impl<const D: usize> LoadedState<D>
where
    Dim<D>: Dimension<D>,
{
    /// The simulation that continues this state at `start_step`: the state's numbers of boids
    /// and predators set `count` and `predator_count` of `builder`'s layers (as coming from
    /// the file `name`) unless a flag or keyword gave another value, which is refused; a boid
    /// or predator inside an obstacle is refused with its line. `engine` steps it.
    pub fn start(
        mut self,
        mut builder: ParamsBuilder,
        (seed, start_step): (u64, u64),
        engine: Box<dyn Engine<D>>,
        name: &str,
    ) -> Result<Simulation<D>> {
        count_from_file(&mut builder, "count", self.len(), name, "boids")?;
        if !self.predators.is_empty() {
            let predators = self.predators.len();
            count_from_file(&mut builder, "predator_count", predators, name, "predators")?;
        }
        let params = builder.build()?;
        let lines = std::mem::take(&mut self.lines);
        let state = self.into_flock(&params);
        let resumed = Simulation::<D>::resume(params, seed, state, start_step, engine);
        resumed.map_err(|error| match error {
            StateError::InsideObstacle { agent, index, .. } => {
                let line = lines.line_of(agent, index).unwrap_or(0);
                StateFileError::Invalid(format!("{name}, line {line}: {error}"))
            }
            error => error.into(),
        })
    }
}

/// Sets parameter `param` to `rows`, the number of `what` the state file `name` holds (as
/// coming from that file), unless a flag or a caller's argument gave it another value, which
/// is refused: a preset's or config file's value gives way to the file's.
fn count_from_file(
    builder: &mut ParamsBuilder,
    param: &'static str,
    rows: usize,
    name: &str,
    what: &str,
) -> Result<()> {
    let value = Value::Integer(rows as u64);
    let given = match builder.source_of(param) {
        Source::Flag(flag) => Some(flag.clone()),
        Source::Argument(argument) => Some(format!("argument `{argument}`")),
        _ => None,
    };
    if let Some(given) = given
        && builder.params().get(param).as_ref() != Some(&value)
    {
        bail!("{given} disagrees with {name}, which holds {rows} {what}");
    }
    let source = Source::File {
        name: name.to_owned(),
        line: None,
    };
    builder.set(param, value, source);
    Ok(())
}
