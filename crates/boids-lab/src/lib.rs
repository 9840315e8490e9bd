//! # boids-lab
//!
//! Experiments and parameter sweeps over [`boids_core`]: it runs many simulations and shapes
//! their results as data, tidy rows for CSV and figures (panels of series, heatmaps) for plots.
//! It does no I/O either; the `boids` command writes the files and draws the figures.
//!
//! It is apart from the core because the core is the model alone (parameters, state, rules,
//! metrics), while the lab is one user of the model among others: it reproduces published
//! results in [`experiments`] and crosses parameter ranges (the command line's `KEY=A:B:STEPS`
//! axes) in [`sweep`], running the simulations in parallel when the `parallel` feature is on.

pub mod experiments;
pub mod sweep;
