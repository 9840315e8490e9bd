"""Type stubs of the extension module ``boids._boids`` (re-exported by ``boids``)."""

import os
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt
import pandas as pd

__version__: str
METRIC_COLUMNS: List[str]

ParamValue = Union[bool, int, float, str, Sequence[Any], Mapping[str, Any]]
Params = Union[Mapping[str, ParamValue], str, "os.PathLike[str]", None]
Force = Callable[[npt.NDArray[np.float32], npt.NDArray[np.float32]], npt.NDArray[np.floating[Any]]]

class Simulation:
    """A flock you can step, inspect, change and save: the model of the ``boids`` command.

    Parameters are layered as on the command line: ``preset``, then ``params`` (a dict, or the
    path of a TOML file like ``boids params --toml`` writes), then keyword overrides. The same
    parameters and seed give the same flock as ``boids run``, bit for bit, on any number of
    threads. ``threads``: the simulation's own thread count (``None``: one a core).

    Raises ``KeyError`` for an unknown parameter (with a "did you mean", which names one of the
    call's own arguments when the keyword is a misspelling of it), ``ValueError`` for a value
    out of range (the command's message: value, allowed range, where it came from), a seed
    outside ``[0, 2**64 - 1]`` included. Every whole-number argument of the package (``n``,
    ``steps``, ``every``, ``threads``, ``port``, ``replicates``, ...) out of its range raises
    ``ValueError`` naming the argument, its value and the allowed range.

    A simulation serves one call at a time: a call that reaches it while it is busy (from another
    thread while it steps with the GIL released, or from a force function of its own step)
    raises ``RuntimeError`` naming both calls. Give each thread a simulation of its own.
    """

    def __init__(
        self,
        preset: str = "cornell",
        seed: int = 0,
        params: Params = None,
        threads: Optional[int] = None,
        engine: str = "cpu",
        **overrides: ParamValue,
    ) -> None: ...
    @staticmethod
    def load(
        path: Union[str, "os.PathLike[str]"],
        preset: Optional[str] = None,
        seed: Optional[int] = None,
        params: Params = None,
        threads: Optional[int] = None,
        start_step: Optional[int] = None,
        engine: str = "cpu",
        **overrides: ParamValue,
    ) -> "Simulation":
        """The flock saved in a state CSV file, resumed as it was saved; the file's rows set
        ``count``.

        A file written by ``save`` has its parameters, preset, seed and step beside it, in
        ``path + ".params.toml"``: the flock resumes with them. ``params`` and keywords change
        parameters (layered on top), ``seed`` and ``start_step`` replace the saved ones, and
        ``preset``, if given, must be the saved one (``ValueError`` otherwise).

        A state without that file (one of ``boids run --save``) needs its parameters given, as
        for a new simulation: ``preset`` and/or ``params``, then keywords; ``seed`` and
        ``start_step`` are then 0 unless given. Without them, ``ValueError`` says what is
        missing."""
    def step(self, n: int = 1, force: Optional[Force] = None) -> None:
        """Advances ``n`` steps with the GIL released, in chunks of about 0.1 s of work: Ctrl-C
        raises ``KeyboardInterrupt`` between chunks, the steps taken kept (``step_count``), and
        chunks change no number. ``force(positions, velocities)`` returns an (N, D) float
        array: each boid's change of velocity this step, added after the rules and before the
        speed limits. A result of another shape raises ``ValueError``, of another type or dtype
        ``TypeError``. Steps past the largest step number, 2**64 - 1, raise ``ValueError``."""
    @property
    def step_count(self) -> int:
        """Steps taken so far."""
    @property
    def positions(self) -> npt.NDArray[np.float32]:
        """(N, D) float32 array in id order: a copy (changing it does not change the flock)."""
    @property
    def velocities(self) -> npt.NDArray[np.float32]:
        """(N, D) float32 array in id order: a copy."""
    @property
    def groups(self) -> npt.NDArray[np.uint8]:
        """(N,) uint8 array in id order: 0 no scout, 1 biased to +x, 2 to -x."""
    @property
    def params(self) -> Dict[str, Any]:
        """Every parameter in force (a copy: change them with ``set``)."""
    @property
    def engine(self) -> Literal["cpu", "gpu"]:
        """The engine that steps the flock; setting it moves the flock there from the step it is at."""
    @engine.setter
    def engine(self, name: Literal["cpu", "gpu"]) -> None: ...
    @property
    def dimensions(self) -> Literal[2, 3]:
        """2 or 3."""
    @property
    def seed(self) -> int:
        """The seed of the random streams."""
    @property
    def preset(self) -> str:
        """The preset the parameters started from."""
    def __len__(self) -> int: ...
    def set(self, **params: ParamValue) -> None:
        """Changes parameters live, keeping the flock (``count`` adds or removes boids); a change
        of ``dimensions`` starts a fresh flock."""
    def metrics(self) -> Dict[str, float]:
        """``step`` and the order metrics of the flock now (NaN where undefined)."""
    @overload
    def run(self, steps: int, every: int = 1, trajectory: Literal[False] = False) -> pd.DataFrame:
        """Runs ``steps`` steps and returns the metrics at steps 0, ``every``, ... (the rows of
        ``boids run --metrics``); with ``trajectory=True`` also the positions and velocities
        there, (frames, N, D) float32 arrays. Ctrl-C stops it as it stops ``step``, the steps
        taken kept and nothing returned. The result is held in memory: one estimated above
        16 GiB raises ``ValueError`` (the estimate and the limit) before the first step."""
    @overload
    def run(
        self, steps: int, every: int = 1, *, trajectory: Literal[True]
    ) -> Tuple[pd.DataFrame, npt.NDArray[np.float32], npt.NDArray[np.float32]]: ...
    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the state CSV of ``boids run --save``, and beside it ``path + ".params.toml"``
        (every parameter, usable as ``boids run --config``, headed by the preset, seed and step
        and the command line that resumes the flock), which ``load`` resumes it with. Both are
        written as the command writes a file: a link is followed, a read-only file, a directory
        or a device is refused (``OSError`` naming the path), and a failure leaves them as they
        were."""
    def show(self, steps: int = 200, every: int = 2, size: str = "480x360", fps: int = 30) -> Any:
        """An inline GIF of the next ``steps`` steps of a copy of the flock (IPython HTML, or the
        HTML text without IPython)."""
    def _repr_html_(self) -> str: ...

def presets() -> pd.DataFrame:
    """The presets: name, model, dimensions, count, summary, source."""

def describe_params(model: Optional[str] = None) -> pd.DataFrame:
    """The parameter catalogue: name, section, kind, default, unit, models, meaning; only the
    parameters acting in ``model`` when given (a model, or a preset, which stands for its model)."""

def experiment(
    name: str,
    quick: bool = False,
    seed: int = 0,
    replicates: Optional[int] = None,
    steps: Optional[int] = None,
) -> pd.DataFrame:
    """A published experiment's rows, those of ``boids experiment NAME``'s CSV."""

def serve(
    sim: Simulation,
    port: int = 8000,
    listen: str = "127.0.0.1",
    speed: float = 60.0,
    paused: bool = False,
    max_count: int = 200000,
) -> str:
    """Opens the live viewer on a copy of ``sim`` and returns its URL. ``port``: 0 to 65535 (0
    picks a free one); ``max_count``: the most boids the page may ask for, 1 to 50,000,000 and
    at least the flock's own (``ValueError`` otherwise)."""

def sweep_plan(**spec: Any) -> Tuple[List[str], int]: ...
def sweep_run(index: int, **spec: Any) -> List[Any]: ...
def sweep_local(**spec: Any) -> List[List[Any]]: ...
