//! Pictures of a flock for notebooks, and the live viewer for a flock made in Python.
//!
//! `show` and `_repr_html_` draw with the renderer of `boids render` (`boids-render`): a
//! looping GIF of a copy of the flock, or a PNG of it now, inlined as a data URL in HTML, so a
//! notebook displays them without files. `serve` starts the viewer of `boids serve`
//! (`boids-server`) on a copy of the simulation, in a thread of its own, and returns its URL.

use std::net::{IpAddr, SocketAddr};

use boids_core::Simulation as Core;
use boids_core::{Dim, Flock, ParamsBuilder, on_flock};
use boids_render::{GifWriter, ImageSize, Palette, Renderer, Scene};
use boids_server::budget::DEFAULT_MAX_PAIRS;
use boids_server::{EngineConfig, ServerConfig};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rayon::ThreadPool;

use crate::errors;
use crate::pool::on_pool;

/// Size of the still picture of `_repr_html_`.
const STILL: ImageSize = ImageSize {
    width: 320,
    height: 240,
};

/// A GIF of `steps` steps of `flock` (a copy: the simulation's own flock does not move), a
/// frame every `every` steps (at least 1), `fps` frames a second (1 to 100), as HTML.
pub fn animation_html(
    py: Python<'_>,
    mut flock: Flock,
    pool: Option<&ThreadPool>,
    steps: u64,
    every: u64,
    size: &str,
    fps: u32,
) -> PyResult<String> {
    let size: ImageSize = size.parse().map_err(|e: boids_render::RenderError| {
        PyValueError::new_err(format!("size = {size:?}: {e}"))
    })?;
    let gif = py.detach(|| {
        on_pool(pool, || {
            errors::guarded(|| on_flock!(&mut flock, sim => record(sim, steps, every, size, fps)))
        })
    })??;
    Ok(format!(
        "<img src=\"data:image/gif;base64,{}\" alt=\"boids: {steps} steps\"/>",
        base64(py, &gif)?
    ))
}

/// The GIF of `steps` steps of `sim`.
fn record<const D: usize>(
    sim: &mut Core<D>,
    steps: u64,
    every: u64,
    size: ImageSize,
    fps: u32,
) -> PyResult<Vec<u8>>
where
    Dim<D>: Scene<D>,
{
    let failed = |e: boids_render::RenderError| PyValueError::new_err(e.to_string());
    let mut renderer = Renderer::<D>::new(sim.params(), size, false);
    let palette = Palette::for_style(renderer.style());
    let mut gif = GifWriter::new(Vec::new(), size, fps, palette).map_err(failed)?;
    for k in 0..=steps {
        if k > 0 {
            sim.step().map_err(errors::state)?;
        }
        if k % every == 0 {
            gif.push(renderer.draw(sim)).map_err(failed)?;
        }
    }
    gif.finish().map_err(failed)
}

/// A PNG of `flock` now and a line of facts, as HTML.
pub fn still_html(flock: &Flock, facts: &str) -> PyResult<String> {
    let png =
        on_flock!(flock, sim => Renderer::new(sim.params(), STILL, false).draw(sim).encode_png())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Python::attach(|py| {
        Ok(format!(
            "<div><img src=\"data:image/png;base64,{}\" alt=\"boids\"/><br/><code>{}</code></div>",
            base64(py, &png)?,
            facts.replace('&', "&amp;").replace('<', "&lt;")
        ))
    })
}

/// `bytes` in base64 (Python's own encoder).
fn base64(py: Python<'_>, bytes: &[u8]) -> PyResult<String> {
    py.import("base64")?
        .call_method1("b64encode", (PyBytes::new(py, bytes),))?
        .call_method1("decode", ("ascii",))?
        .extract()
}

/// `html` as IPython displays it, or the text itself without IPython.
pub fn display_html(py: Python<'_>, html: String) -> PyResult<Bound<'_, PyAny>> {
    match py.import("IPython.display") {
        Ok(display) => display.getattr("HTML")?.call1((html,)),
        Err(_) => Ok(html.into_pyobject(py)?.into_any()),
    }
}

/// Where and how the live viewer runs: the keywords of `serve`.
pub struct ViewerOptions<'a> {
    /// Port to listen on (0 picks a free one).
    pub port: u16,
    /// IP address to listen on.
    pub listen: &'a str,
    /// Steps a second.
    pub speed: f64,
    /// Whether the viewer starts paused.
    pub paused: bool,
    /// Largest boid count the viewer allows (at least 1).
    pub max_count: usize,
}

/// Opens the live viewer on `flock`, whose parameters are `layers` from `preset`, in a thread of
/// its own, and returns the URL to open; refuses a flock larger than `max_count`.
pub fn serve(
    py: Python<'_>,
    flock: Flock,
    layers: ParamsBuilder,
    preset: String,
    options: ViewerOptions<'_>,
) -> PyResult<String> {
    use boids_server::protocol::{MAX_SPEED, MIN_SPEED};
    let ViewerOptions {
        port,
        listen,
        speed,
        paused,
        max_count,
    } = options;
    let ip: IpAddr = listen.parse().map_err(|_| {
        PyValueError::new_err(format!(
            "listen = {listen:?} is not an IP address (e.g. \"127.0.0.1\")"
        ))
    })?;
    if !(MIN_SPEED..=MAX_SPEED).contains(&speed) {
        return Err(PyValueError::new_err(format!(
            "speed = {speed} is not allowed: allowed range is [{MIN_SPEED}, {MAX_SPEED}] steps per second"
        )));
    }
    if flock.len() > max_count {
        return Err(PyValueError::new_err(format!(
            "the flock's count = {} is over max_count = {max_count}, the most boids the viewer allows: give max_count={} or more, or serve fewer boids (sim.set(count=...))",
            flock.len(),
            flock.len()
        )));
    }
    let config = ServerConfig {
        engine: EngineConfig {
            params: layers,
            preset,
            seed: flock.seed(),
            engine: flock.engine(),
            max_count,
            max_pairs: DEFAULT_MAX_PAIRS,
            steps_per_second: speed,
            running: !paused,
            start: Some(flock),
            history: Vec::new(),
        },
        listen: SocketAddr::new(ip, port),
        allowed_hosts: Vec::new(),
    };
    let (url_tx, url_rx) = std::sync::mpsc::channel();
    let failed = url_tx.clone();
    std::thread::Builder::new()
        .name("boids-viewer".into())
        .spawn(move || {
            let served = boids_server::run_blocking(config, |server| {
                let _ = url_tx.send(Ok(server.url()));
            });
            if let Err(error) = served {
                let _ = failed.send(Err(error.to_string()));
            }
        })
        .map_err(|e| PyOSError::new_err(format!("cannot start the viewer's thread: {e}")))?;
    py.detach(move || url_rx.recv())
        .map_err(|_| PyOSError::new_err("the viewer stopped before it started"))?
        .map_err(PyValueError::new_err)
}
