//! Layered parameters: a preset, then a config file, then `--set` flags (or, in the viewer, the
//! current flock, then a message), each value remembering where it came from.
//!
//! [`ParamsBuilder`] holds typed values and their [`Source`]s; [`ParamsBuilder::build`] checks
//! them ([`super::checks`]) and names the source of every value an error is about. The builder
//! is also what a long-lived front end keeps (the viewer's engine), so that an error after many
//! changes still names where each value came from.

use std::collections::BTreeMap;
use std::fmt;

use super::catalogue::{PARAMS, Params, param_info};
use super::checks;
use super::kinds::{Raw, Value};
use crate::error::ParamsError;

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
    /// An argument of a library call (the Python package's keywords and `params` dict),
    /// quoted as the caller gave it.
    Argument(String),
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
            Source::Argument(argument) => write!(f, "argument `{argument}`"),
            Source::Message => write!(f, "viewer message"),
        }
    }
}

/// Builds a [`Params`] from layers, tracking the source of every value, and validates the
/// result (see the module docs).
#[derive(Clone, Debug)]
pub struct ParamsBuilder {
    params: Params,
    sources: BTreeMap<&'static str, Source>,
    base: Source,
}

impl ParamsBuilder {
    /// Starts from an existing parameter set, every value of which came from `base`.
    pub fn from_params(params: Params, base: Source) -> Self {
        Self {
            params,
            sources: BTreeMap::new(),
            base,
        }
    }

    /// Applies one value as an edge read it: the name must be a parameter and the value of its
    /// kind (an integer is taken where a number is expected). Ranges are checked by
    /// [`Self::build`].
    pub fn apply(mut self, key: &str, raw: &Raw, source: Source) -> Result<Self, ParamsError> {
        if key.is_empty() {
            return Err(ParamsError::Syntax {
                origin: source.to_string(),
                line: None,
                message: "empty parameter name".to_owned(),
            });
        }
        let info = param_info(key).ok_or_else(|| unknown_param(key, &source))?;
        let value = info
            .kind
            .read(raw)
            .map_err(|expected| ParamsError::WrongType {
                key: info.name.to_owned(),
                value: raw.to_string(),
                expected,
                origin: source.to_string(),
            })?;
        self.set(info.name, value, source);
        Ok(self)
    }

    /// Sets one parameter to a typed value. `name` must be a parameter and `value` of its kind;
    /// anything else is a bug of the caller.
    pub fn set(&mut self, name: &'static str, value: Value, source: Source) {
        assert!(
            self.params.set(name, &value),
            "`{name}` = {value:?} is not a parameter of that kind"
        );
        self.sources.insert(name, source);
    }

    /// The parameters as they stand, not yet checked.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Where the current value of `name` came from.
    pub fn source_of(&self, name: &str) -> &Source {
        self.sources.get(name).unwrap_or(&self.base)
    }

    /// Checks every value against its range and the parameters against each other, and returns
    /// the parameter set.
    pub fn build(&self) -> Result<Params, ParamsError> {
        checks::check(&self.params, |name| self.source_of(name))?;
        Ok(self.params.clone())
    }
}

impl Params {
    /// Checks every value against its allowed range and the parameters against each other.
    pub fn validate(&self) -> Result<(), ParamsError> {
        ParamsBuilder::from_params(self.clone(), Source::Message)
            .build()
            .map(drop)
    }
}

/// The name among `names` nearest to `typed`, when it is a plausible typo of it: at most one
/// edit per three characters of what was typed (at least one), so `k0` is not taken for `dt`
/// while `visual_rang` still finds `visual_range`. The "did you mean" of every face.
pub fn nearest_name<'a>(typed: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let tolerance = (typed.chars().count() / 3).max(1);
    names
        .into_iter()
        .map(|name| (edit_distance(name, typed), name))
        .min_by_key(|&(distance, _)| distance)
        .filter(|&(distance, _)| distance <= tolerance)
        .map(|(_, name)| name)
}

/// An unknown parameter `key`, with a "did you mean" when the nearest name is a plausible typo.
fn unknown_param(key: &str, source: &Source) -> ParamsError {
    let names: Vec<&str> = PARAMS.iter().map(|info| info.name).collect();
    let suggestion = nearest_name(key, names.iter().copied())
        .map(|name| format!(" (did you mean `{name}`?)"))
        .unwrap_or_default();
    ParamsError::UnknownParam {
        key: key.to_owned(),
        origin: source.to_string(),
        hint: format!("{suggestion}; valid names: {}", names.join(", ")),
    }
}

/// Edits between `a` and `b`, for "did you mean" hints on misspelt names: an insertion, a
/// deletion, a substitution, or a swap of two neighbouring characters (the commonest typo,
/// `nosie` for `noise`) counts as one (the optimal string alignment distance).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Rows i - 2 and i - 1 of the table of distances between prefixes, and row i.
    let mut before = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let substitution = previous[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            row[j] = substitution.min(previous[j] + 1).min(row[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut previous, row);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_swap_of_neighbours_is_one_edit_as_an_insertion_or_a_substitution_is() {
        assert_eq!(edit_distance("nosie", "noise"), 1);
        assert_eq!(edit_distance("visual_rang", "visual_range"), 1);
        assert_eq!(edit_distance("count", "cuont"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "dt"), 2);
        assert_eq!(edit_distance("same", "same"), 0);
        assert_eq!(nearest_name("nosie", ["noise", "count"]), Some("noise"));
        assert_eq!(nearest_name("k0", ["dt", "count"]), None);
    }
}
