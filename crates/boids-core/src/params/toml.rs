//! The TOML edge: config files (`--config`), `--set key=value` flags and the `boids params
//! --toml` output. TOML is read into [`Raw`] values here and written from typed [`Value`]s here;
//! nothing else in the core sees TOML.

use std::fmt;

use super::builder::{ParamsBuilder, Source};
use super::catalogue::{PARAMS, Params};
use super::kinds::{Kind, Raw, Value};
use super::obstacles::shape_entries;
use crate::error::ParamsError;
use crate::obstacles::Obstacle;

impl From<&toml::Value> for Raw {
    fn from(value: &toml::Value) -> Self {
        match value {
            toml::Value::Integer(i) => Raw::Integer(*i),
            toml::Value::Float(x) => Raw::Float(*x),
            toml::Value::Boolean(b) => Raw::Bool(*b),
            toml::Value::String(s) => Raw::Text(s.clone()),
            toml::Value::Array(items) => Raw::List(items.iter().map(Raw::from).collect()),
            toml::Value::Table(table) => Raw::Table(
                table
                    .iter()
                    .map(|(k, v)| (k.clone(), Raw::from(v)))
                    .collect(),
            ),
            other => Raw::Other(other.to_string()),
        }
    }
}

impl From<&Value> for toml::Value {
    fn from(value: &Value) -> Self {
        match value {
            Value::Number(x) => toml::Value::Float(*x),
            Value::Integer(i) => {
                i64::try_from(*i).map_or(toml::Value::Float(*i as f64), toml::Value::Integer)
            }
            Value::Bool(b) => toml::Value::Boolean(*b),
            Value::Choice(name) => toml::Value::String((*name).to_owned()),
            Value::Interval(pair) => toml::Value::Array(pair.map(toml::Value::Float).to_vec()),
            Value::Points(points) => toml::Value::Array(
                points
                    .iter()
                    .map(|p| {
                        toml::Value::Array(p.iter().copied().map(toml::Value::Float).collect())
                    })
                    .collect(),
            ),
            Value::Shapes(shapes) => toml::Value::Array(
                shapes
                    .iter()
                    .map(|s| toml::Value::Table(shape_table(s)))
                    .collect(),
            ),
        }
    }
}

impl From<&Raw> for toml::Value {
    fn from(raw: &Raw) -> Self {
        match raw {
            Raw::Integer(i) => toml::Value::Integer(*i),
            Raw::Float(x) => toml::Value::Float(*x),
            Raw::Bool(b) => toml::Value::Boolean(*b),
            Raw::Text(s) | Raw::Other(s) => toml::Value::String(s.clone()),
            Raw::List(items) => toml::Value::Array(items.iter().map(toml::Value::from).collect()),
            Raw::Table(entries) => toml::Value::Table(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), toml::Value::from(v)))
                    .collect(),
            ),
        }
    }
}

/// One obstacle as a TOML table.
fn shape_table(shape: &Obstacle) -> toml::Table {
    shape_entries(shape)
        .into_iter()
        .map(|(k, v)| (k.to_owned(), toml::Value::from(&v)))
        .collect()
}

impl fmt::Display for Value {
    /// The value as a config file spells it (`40.0`, `inf`, `"margins"`, `[0.0, 640.0]`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        toml::Value::from(self).fmt(f)
    }
}

impl fmt::Display for Raw {
    /// The value as TOML spells it, for messages about it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Raw::Other(shown) => f.write_str(shown),
            raw => toml::Value::from(raw).fmt(f),
        }
    }
}

impl Params {
    /// All parameters as a TOML document, one `name = value` line each in catalogue order, in a
    /// form [`ParamsBuilder::apply_toml`] reads back. Obstacles, when there are any, come last as
    /// `[[obstacles]]` tables (a key after a table header would belong to the table).
    pub fn to_toml(&self) -> String {
        let mut text: String = PARAMS
            .iter()
            .filter(|info| info.kind != Kind::Shapes || self.obstacles.is_empty())
            .map(|info| {
                let value = self
                    .get(info.name)
                    .expect("every catalogue entry is a field");
                format!("{} = {value}\n", info.name)
            })
            .collect();
        for shape in &self.obstacles {
            text.push_str("\n[[obstacles]]\n");
            for (key, value) in shape_entries(shape) {
                text.push_str(&format!("{key} = {}\n", toml::Value::from(&value)));
            }
        }
        text
    }
}

impl ParamsBuilder {
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
        for (key, value) in &doc {
            let source = Source::File {
                name: name.to_owned(),
                line: line_of_key(text, key),
            };
            self = self.apply(key, &Raw::from(value), source)?;
        }
        Ok(self)
    }

    /// Applies one `key=value` assignment as typed on the command line. The value is read as
    /// TOML (`3`, `0.5`, `true`, `[0, 10]`, `inf`); a bare word is taken as a string.
    pub fn apply_assignment(self, assignment: &str, source: Source) -> Result<Self, ParamsError> {
        let syntax = |message: String| ParamsError::Syntax {
            origin: source.to_string(),
            line: None,
            message,
        };
        let Some((key, raw)) = assignment.split_once('=') else {
            return Err(syntax(format!("expected KEY=VALUE, got `{assignment}`")));
        };
        if key.trim().is_empty() {
            return Err(syntax(format!("empty parameter name in `{assignment}`")));
        }
        self.apply(key.trim(), &parse_value(raw.trim()), source)
    }
}

/// Reads a command-line value as TOML, falling back to a plain string for bare words.
pub fn parse_value(raw: &str) -> Raw {
    format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|table| table.get("v").map(Raw::from))
        .unwrap_or_else(|| Raw::Text(raw.to_owned()))
}

fn line_of_offset(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The line where a top-level key is assigned, or its first `[[key]]` table begins, found by
/// scanning (the TOML parser gives spans for syntax errors only).
fn line_of_key(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            let line = line.trim();
            let name = line
                .split('=')
                .next()
                .unwrap_or("")
                .trim()
                .trim_matches('"');
            let header = line.strip_prefix("[[").and_then(|l| l.strip_suffix("]]"));
            (line.contains('=') && name == key) || header.map(str::trim) == Some(key)
        })
        .map(|index| index + 1)
}
