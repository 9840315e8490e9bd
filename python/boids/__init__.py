"""boids: a deterministic flocking simulator (boids, Vicsek, Couzin) in Rust, for Python.

The same model as the ``boids`` command: the same parameters and seed give the same flock,
bit for bit, on any number of threads. The flock comes out as numpy arrays, results as tidy
pandas DataFrames, and sweeps run locally or as one Dask task per run.

>>> import boids
>>> sim = boids.Simulation("cornell", seed=1, count=200)
>>> sim.step(10)
>>> sim.positions.shape
(200, 2)
"""

from ._boids import (
    METRIC_COLUMNS,
    Simulation,
    __version__,
    describe_params,
    experiment,
    presets,
    serve,
)
from ._sweep import sweep

__all__ = [
    "METRIC_COLUMNS",
    "Simulation",
    "__version__",
    "describe_params",
    "experiment",
    "presets",
    "serve",
    "sweep",
]
