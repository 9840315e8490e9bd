//! `boids._boids`: the Python package's extension module, a thin layer over the Rust crates.
//!
//! Everything a researcher calls from Python is here, built from the same pieces the `boids`
//! command uses, so a run in Python and a run of the command with the same parameters and seed
//! give the same bytes: the presets and the parameter layers of `boids-core` (preset, then a
//! `params` dict or TOML file, then keywords, with the command's messages), the state CSV of
//! `boids-io`, the experiments and sweeps of `boids-lab`, the renderer for inline animations and
//! the live viewer of `boids-server`. The pure-Python layer (`boids/__init__.py`) re-exports it
//! and adds what belongs to Python: sweeps on a Dask cluster.
//!
//! - `simulation`: the `Simulation` class (numpy copies of the flock, stepping with the GIL
//!   released) and `serve`, the live viewer on one;
//! - `busy`: one call at a time on a simulation, a second refused saying which is running;
//! - `stepping`: many steps in chunks, so Ctrl-C stops them;
//! - `forces`: custom forces, a Python function called before each step;
//! - `recording`: `Simulation.run`'s metrics and trajectory, their size bounded up front;
//! - `pool`: the threads a simulation's work runs on;
//! - `layers`: Python values into the parameter layers;
//! - `lab`: presets, the parameter catalogue, experiments and sweeps as tidy frames;
//! - `viewer`: the renderer's GIF and PNG for notebooks, and the live viewer (it knows the
//!   flock, not the class, so `simulation` uses it and not the other way round);
//! - `errors`: Rust errors as the Python exceptions a PyData user expects;
//! - `arguments`: whole-number arguments (seeds, steps, ports) refused with their range, not
//!   overflowed.

use pyo3::prelude::*;

mod arguments;
mod busy;
mod errors;
mod forces;
mod frames;
mod lab;
mod layers;
mod pool;
mod recording;
mod simulation;
mod stepping;
mod viewer;

/// The extension module `boids._boids`.
#[pymodule]
fn _boids(module: &Bound<'_, PyModule>) -> PyResult<()> {
    // In builds with the gpu feature, `engine="gpu"` builds the GPU engine.
    #[cfg(feature = "gpu")]
    boids_gpu::install();
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add("METRIC_COLUMNS", boids_core::METRIC_COLUMNS.to_vec())?;
    module.add_class::<simulation::Simulation>()?;
    module.add_function(wrap_pyfunction!(lab::presets, module)?)?;
    module.add_function(wrap_pyfunction!(lab::describe_params, module)?)?;
    module.add_function(wrap_pyfunction!(lab::experiment, module)?)?;
    module.add_function(wrap_pyfunction!(lab::sweep_plan, module)?)?;
    module.add_function(wrap_pyfunction!(lab::sweep_run, module)?)?;
    module.add_function(wrap_pyfunction!(lab::sweep_local, module)?)?;
    module.add_function(wrap_pyfunction!(simulation::serve, module)?)?;
    Ok(())
}
