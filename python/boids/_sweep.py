"""Parameter sweeps: a grid of runs, one row per run, locally or on a Dask cluster.

Every run is a pure function of the sweep's arguments and the run's index (its parameters and
seed), so a sweep whose runs are Dask tasks gives exactly the frame of a local sweep, whatever
the workers and their order. The rows are those of ``boids sweep``'s CSV.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

import pandas as pd

from . import _boids


def sweep(
    vary: Mapping[str, Sequence[Any]],
    replicates: int = 1,
    steps: int = 500,
    preset: str = "cornell",
    client: Any = None,
    *,
    seed: int = 0,
    every: int = 10,
    burn_in: Optional[int] = None,
    params: Any = None,
    **fixed: Any,
) -> pd.DataFrame:
    """Runs every combination of the ``vary`` values, ``replicates`` times each.

    Parameters are layered as for :class:`Simulation`: ``preset``, then ``params`` (a dict or a
    TOML file's path), then the ``fixed`` keywords, then each grid point's values (a keyword
    that misspells one of this function's arguments, ``replicate=2``, raises ``KeyError``
    naming the argument). Replicate ``r`` of every point uses seed ``seed + r``.

    Each run is summarised by its metrics averaged over steps ``burn_in, burn_in + every, ...``
    up to ``steps`` (``burn_in`` defaults to half the steps). Returns a DataFrame with one row
    per run: ``run``, ``replicate``, ``seed``, the varied parameters, the metric columns, then
    ``diverged_at_step``, the rows of ``boids sweep``. A run whose flock diverges ends at the
    step refused (the flock would not have stayed finite): ``diverged_at_step`` names that step,
    and its averages are over the samples before it (NaN where there are none); it is NaN for
    a run that reached its last step, as pandas reads the empty cell of the CSV.

    With a ``dask.distributed.Client`` as ``client``, each run is one Dask task; the result
    equals the local sweep's exactly. Without one, the runs share this machine's cores.

    >>> import boids
    >>> frame = boids.sweep({"noise": [0.5, 2.0]}, steps=40, preset="vicsek", count=100)
    >>> list(frame["noise"])
    [0.5, 2.0]
    """
    spec = dict(
        preset=preset,
        params=params,
        fixed=fixed,
        vary=dict(vary),
        replicates=replicates,
        seed=seed,
        steps=steps,
        every=every,
        burn_in=burn_in,
    )
    columns, runs = _boids.sweep_plan(**spec)
    if client is None:
        rows = _boids.sweep_local(**spec)
    else:
        futures = client.map(_run, range(runs), spec=spec, pure=True)
        rows = client.gather(futures)
    return pd.DataFrame(rows, columns=columns)


def _run(index: int, spec: dict) -> list:
    """Run ``index`` of the sweep ``spec``: what one Dask task computes."""
    return _boids.sweep_run(index, **spec)
