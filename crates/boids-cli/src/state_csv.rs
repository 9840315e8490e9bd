//! Flock state files: CSV with a header, one row per boid in id order, then one row per
//! predator in predator order.
//!
//! Columns `x,y,vx,vy` are required; `group` (0 none, 1 scout toward +x, 2 scout toward -x),
//! `bias`, `resting` (steps a perching boid still rests, a whole number >= 0) and `kind` (`boid`
//! or `predator`) are optional. Without a `kind` column every row is a boid. A predator has no
//! group, bias or rest: its cells in those columns are empty (and must be). Boid ids count the
//! boid rows and predators the predator rows, each in file order, so the two kinds of rows may
//! come in any order; a saved file puts the predators last. The columns a run does not need are
//! left out when saving: `kind` without predators, `resting` without perching (and a `resting`
//! column is not used when `perch` is off), so a plain flock's file reads as it always did.
//!
//! Other columns are ignored unless they look like a misspelling of a known one (`X`, `vz`,
//! `gruop`), which is refused. Numbers are written in the shortest form that reads back to the
//! same `f32`, so save-then-load is exact. A known column given twice (`x,x,y,...`) is refused
//! rather than one copy silently winning. The file is read through a line-length limit, not a
//! size limit: a state may hold millions of rows, but no row is 64 KiB long.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, bail};
use boids_core::params::edit_distance;
use boids_core::sim::scout_groups;
use boids_core::world::Predator;
use boids_core::{FlockState, Params, Vec2, rules::Kernel};

use crate::input;

const REQUIRED: [&str; 4] = ["x", "y", "vx", "vy"];
const OPTIONAL: [&str; 4] = ["group", "bias", "resting", "kind"];
/// The `kind` of a boid's row.
pub const BOID: &str = "boid";
/// The `kind` of a predator's row (also how [`boids_core::StateError`] names a predator).
pub const PREDATOR: &str = "predator";

/// A state read from a file; `groups`, `biases` and `resting` are `None` when their column was
/// absent.
pub struct LoadedState {
    /// Positions, one per boid row.
    pub positions: Vec<Vec2>,
    /// Velocities, one per boid row.
    pub velocities: Vec<Vec2>,
    /// Scout groups, if the file has them.
    pub groups: Option<Vec<u8>>,
    /// Biases, if the file has them.
    pub biases: Option<Vec<f32>>,
    /// Steps each boid still rests, if the file has them.
    pub resting: Option<Vec<u32>>,
    /// The predators, one per predator row.
    pub predators: Vec<Predator>,
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

impl LoadedState {
    /// Number of boids (boid rows).
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Completes the state for `params`: missing groups come from the scout fractions, missing
    /// biases from the initial bias, as for a fresh flock; missing rests and predators are left
    /// to the simulation (no boid resting, predators drawn afresh).
    pub fn into_flock(self, params: &Params) -> FlockState {
        let groups = self.groups.unwrap_or_else(|| scout_groups(params));
        let kernel = Kernel::<2>::new(params);
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

/// The flag that names a state file to read; every message starts with it and the path.
const FLAG: &str = "--init";

/// Where the known columns are in the header.
struct Columns {
    motion: [usize; 4],
    group: Option<usize>,
    bias: Option<usize>,
    resting: Option<usize>,
    kind: Option<usize>,
}

impl Columns {
    /// Finds the columns of `headers` of the file `file`, refusing a misspelt, repeated or
    /// missing one.
    fn of(headers: &csv::StringRecord, file: &str) -> Result<Self> {
        for h in headers {
            check_column_name(h).with_context(|| format!("{file}, line 1"))?;
        }
        check_duplicates(headers).with_context(|| format!("{file}, line 1"))?;
        let column = |wanted: &str| headers.iter().position(|h| h == wanted);
        let mut motion = [0; 4];
        for (slot, name) in motion.iter_mut().zip(REQUIRED) {
            *slot = column(name).with_context(|| {
                format!(
                    "{file}: missing column `{name}` (required: x, y, vx, vy; optional: {})",
                    OPTIONAL.join(", ")
                )
            })?;
        }
        Ok(Self {
            motion,
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

    /// Position and velocity from the `x,y,vx,vy` columns.
    fn motion(&self, columns: &Columns) -> Result<(Vec2, Vec2)> {
        let [x, y, vx, vy] = [0, 1, 2, 3].map(|i| self.number(columns.motion[i], REQUIRED[i]));
        Ok((Vec2::new(x?, y?), Vec2::new(vx?, vy?)))
    }

    /// Whether the row is a predator's (`false` without a `kind` column).
    fn is_predator(&self, columns: &Columns) -> Result<bool> {
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
    fn check_predator(&self, columns: &Columns) -> Result<()> {
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

    fn error(&self, message: String) -> anyhow::Error {
        anyhow::anyhow!("{}, line {}: {message}", self.file, self.line)
    }
}

/// Reads a state file (given with `--init`).
pub fn read(path: &Path) -> Result<LoadedState> {
    let name = format!("{FLAG} {}", path.display());
    let file = input::open(FLAG, path)?;
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(input::LineLimit::new(file, input::LINE_LIMIT));
    let headers = reader
        .headers()
        .with_context(|| format!("{name}: cannot read the header"))?
        .clone();
    let columns = Columns::of(&headers, &name)?;
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
            file: &name,
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

fn read_boid(row: &Row, columns: &Columns, state: &mut LoadedState) -> Result<()> {
    let (position, velocity) = row.motion(columns)?;
    state.positions.push(position);
    state.velocities.push(velocity);
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

fn read_predator(row: &Row, columns: &Columns, state: &mut LoadedState) -> Result<()> {
    let (position, velocity) = row.motion(columns)?;
    row.check_predator(columns)?;
    state.predators.push(Predator { position, velocity });
    state.lines.predators.push(row.line);
    Ok(())
}

/// Refuses a column that is not a known name but looks like one.
fn check_column_name(name: &str) -> Result<()> {
    let known = REQUIRED.iter().chain(&OPTIONAL);
    if known.clone().any(|k| *k == name) {
        return Ok(());
    }
    if let Some(k) = known
        .clone()
        .find(|k| k.eq_ignore_ascii_case(name) || edit_distance(k, name) == 1)
    {
        let all: Vec<&str> = known.copied().collect();
        bail!(
            "column `{name}` looks like a misspelling of `{k}` (known columns: {})",
            all.join(", ")
        );
    }
    Ok(())
}

/// Refuses a known column that appears more than once: which copy holds the data is a guess.
fn check_duplicates(headers: &csv::StringRecord) -> Result<()> {
    for known in REQUIRED.iter().chain(&OPTIONAL) {
        let positions: Vec<String> = headers
            .iter()
            .enumerate()
            .filter(|(_, h)| h == known)
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

/// Writes a state file (boids in id order, then predators) to `out`: `resting` only when
/// perching is on, `kind` only when there are predators.
pub fn write(out: &mut impl Write, state: &FlockState) -> Result<()> {
    let perching = !state.resting.is_empty();
    let hunted = !state.predators.is_empty();
    write!(out, "x,y,vx,vy,group,bias")?;
    if perching {
        write!(out, ",resting")?;
    }
    if hunted {
        write!(out, ",kind")?;
    }
    writeln!(out)?;
    for i in 0..state.len() {
        let (p, v) = (state.positions[i], state.velocities[i]);
        let (group, bias) = (state.groups[i], state.biases[i]);
        write!(out, "{},{},{},{},{group},{bias}", p.x, p.y, v.x, v.y)?;
        if perching {
            write!(out, ",{}", state.resting[i])?;
        }
        if hunted {
            write!(out, ",{BOID}")?;
        }
        writeln!(out)?;
    }
    for predator in &state.predators {
        let (p, v) = (predator.position, predator.velocity);
        // Group and bias (and rest) are empty: predators have none.
        write!(out, "{},{},{},{},,", p.x, p.y, v.x, v.y)?;
        if perching {
            write!(out, ",")?;
        }
        writeln!(out, ",{PREDATOR}")?;
    }
    Ok(())
}
