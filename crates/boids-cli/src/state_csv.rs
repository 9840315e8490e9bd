//! Flock state files: CSV with a header, one row per boid in id order.
//!
//! Columns `x,y,vx,vy` are required; `group` (0 none, 1 scout toward +x, 2 scout toward -x) and
//! `bias` are optional. Other columns are ignored unless they look like a misspelling of a known
//! one (`X`, `vz`, `gruop`), which is refused. Numbers are written in the shortest form that reads
//! back to the same `f32`, so save-then-load is exact. A known column given twice (`x,x,y,...`) is
//! refused rather than one copy silently winning. The file is read through a line-length limit,
//! not a size limit: a state may hold millions of rows, but no row is 64 KiB long.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, bail};
use boids_core::params::edit_distance;
use boids_core::sim::scout_groups;
use boids_core::{FlockState, Params, Vec2, rules::Kernel};

use crate::input;

const REQUIRED: [&str; 4] = ["x", "y", "vx", "vy"];
const OPTIONAL: [&str; 2] = ["group", "bias"];

/// A state read from a file; `groups` and `biases` are `None` when their column was absent.
pub struct LoadedState {
    /// Positions, one per row.
    pub positions: Vec<Vec2>,
    /// Velocities, one per row.
    pub velocities: Vec<Vec2>,
    /// Scout groups, if the file has them.
    pub groups: Option<Vec<u8>>,
    /// Biases, if the file has them.
    pub biases: Option<Vec<f32>>,
    /// The file line of each row, for messages about a boid.
    pub lines: Vec<u64>,
}

impl LoadedState {
    /// Number of boids (rows).
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Completes the state for `params`: missing groups come from the scout fractions, missing
    /// biases from the initial bias, as for a fresh flock.
    pub fn into_flock(self, params: &Params) -> FlockState {
        let Self {
            positions,
            velocities,
            groups,
            biases,
            lines: _,
        } = self;
        let groups = groups.unwrap_or_else(|| scout_groups(params));
        let kernel = Kernel::new(params);
        let biases =
            biases.unwrap_or_else(|| groups.iter().map(|&g| kernel.initial_bias(g)).collect());
        FlockState {
            positions,
            velocities,
            groups,
            biases,
            ..FlockState::default()
        }
    }
}

/// The flag that names a state file to read; every message starts with it and the path.
const FLAG: &str = "--init";

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
    let column = |wanted: &str| headers.iter().position(|h| h == wanted);
    for h in &headers {
        check_column_name(h).with_context(|| format!("{name}, line 1"))?;
    }
    check_duplicates(&headers).with_context(|| format!("{name}, line 1"))?;
    let required: Vec<usize> = REQUIRED
        .iter()
        .map(|c| {
            column(c).with_context(|| {
                format!("{name}: missing column `{c}` (required: x,y,vx,vy; optional: group,bias)")
            })
        })
        .collect::<Result<_>>()?;
    let (group_col, bias_col) = (column("group"), column("bias"));
    let mut state = LoadedState {
        positions: Vec::new(),
        velocities: Vec::new(),
        groups: group_col.map(|_| Vec::new()),
        biases: bias_col.map(|_| Vec::new()),
        lines: Vec::new(),
    };
    for record in reader.records() {
        let record = record.with_context(|| format!("{name}: malformed row"))?;
        let line = record.position().map_or(0, |p| p.line());
        let field = |col: usize, what: &str| -> Result<f32> {
            let raw = record.get(col).unwrap_or("");
            let value: f32 = raw.parse().map_err(|_| {
                anyhow::anyhow!("{name}, line {line}: column `{what}` = `{raw}` is not a number")
            })?;
            if !value.is_finite() {
                bail!(
                    "{name}, line {line}: column `{what}` = {raw} is not allowed: finite numbers only"
                );
            }
            Ok(value)
        };
        let [x, y, vx, vy] = [0, 1, 2, 3].map(|i| field(required[i], REQUIRED[i]));
        state.positions.push(Vec2::new(x?, y?));
        state.lines.push(line);
        state.velocities.push(Vec2::new(vx?, vy?));
        if let (Some(col), Some(groups)) = (group_col, state.groups.as_mut()) {
            let raw = record.get(col).unwrap_or("");
            match raw.parse::<u8>() {
                Ok(g) if g <= 2 => groups.push(g),
                _ => bail!(
                    "{name}, line {line}: column `group` = `{raw}` is not allowed: 0 (none), 1 (+x) or 2 (-x)"
                ),
            }
        }
        if let (Some(col), Some(biases)) = (bias_col, state.biases.as_mut()) {
            let bias = field(col, "bias")?;
            if !(0.0..=1.0).contains(&bias) {
                bail!(
                    "{name}, line {line}: column `bias` = {bias} is not allowed: allowed range is [0, 1]"
                );
            }
            biases.push(bias);
        }
    }
    if state.len() == 0 {
        bail!("{name}: no boids (a header and at least one row are needed)");
    }
    Ok(state)
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
        bail!(
            "column `{name}` looks like a misspelling of `{k}` (known columns: x, y, vx, vy, group, bias)"
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

/// Writes a state file (id order) to `out`.
pub fn write(out: &mut impl Write, state: &FlockState) -> Result<()> {
    writeln!(out, "x,y,vx,vy,group,bias")?;
    for i in 0..state.len() {
        let (p, v) = (state.positions[i], state.velocities[i]);
        writeln!(
            out,
            "{},{},{},{},{},{}",
            p.x, p.y, v.x, v.y, state.groups[i], state.biases[i]
        )?;
    }
    Ok(())
}
