"""The same numbers as the `boids` command: saved state bytes, sweep rows, experiment rows."""

import numpy as np
import pandas as pd
import pytest

import boids

CASES = [
    ("cornell", 7, 40, {"count": 300}),
    ("vicsek", 3, 30, {"count": 200, "noise": 0.4}),
    ("predator", 1, 25, {}),
    ("vicsek3d", 2, 20, {"count": 150}),
]


@pytest.mark.parametrize("preset,seed,steps,sets", CASES)
def test_saved_state_is_the_bytes_of_boids_run(tmp_path, cli, preset, seed, steps, sets):
    flags = [arg for key, value in sets.items() for arg in ("--set", f"{key}={value}")]
    cli("run", "--preset", preset, "--seed", seed, "--steps", steps, *flags, "--save", tmp_path / "cli.csv")
    sim = boids.Simulation(preset, seed=seed, threads=2, **sets)
    sim.step(steps)
    sim.save(tmp_path / "py.csv")
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()


def test_a_state_saved_by_python_continues_in_the_cli_and_back(tmp_path, cli):
    sim = boids.Simulation("cornell", seed=5, count=250)
    sim.step(10)
    sim.save(tmp_path / "start.csv")
    cli("run", "--seed", 5, "--init", tmp_path / "start.csv", "--start-step", 10, "--steps", 10,
        "--save", tmp_path / "cli.csv")
    sim.step(10)
    sim.save(tmp_path / "py.csv")
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    back = boids.Simulation.load(tmp_path / "cli.csv", preset="cornell", seed=5, start_step=20)
    np.testing.assert_array_equal(back.positions, sim.positions)


def read(path):
    return pd.read_csv(path)


def test_sweep_rows_are_those_of_boids_sweep(tmp_path, cli):
    cli("sweep", "--preset", "vicsek", "--set", "count=120", "--vary", "noise=0.2,1.5",
        "--vary", "speed=0.01,0.03", "--replicates", 2, "--steps", 40, "--seed", 3,
        "--out", tmp_path / "sweep.csv")
    frame = boids.sweep({"noise": [0.2, 1.5], "speed": [0.01, 0.03]}, replicates=2, steps=40,
                        preset="vicsek", seed=3, count=120)
    pd.testing.assert_frame_equal(frame, read(tmp_path / "sweep.csv"), check_dtype=False)


def test_a_diverged_run_is_marked_as_boids_sweep_marks_it(tmp_path, cli):
    args = dict(preset="cornell", count=50, max_speed=float("inf"), boundary="torus")
    cli("sweep", "--preset", "cornell", "--count", 50, "--set", "max_speed=inf",
        "--set", 'boundary="torus"', "--vary", "matching_factor=0.05,1e3", "--steps", 100,
        "--out", tmp_path / "wild.csv")
    frame = boids.sweep({"matching_factor": [0.05, 1e3]}, steps=100, **args)
    assert frame.columns[-1] == "diverged_at_step"
    assert pd.isna(frame["diverged_at_step"][0]) and frame["diverged_at_step"][1] > 0
    pd.testing.assert_frame_equal(frame, read(tmp_path / "wild.csv"), check_dtype=False)


def test_experiment_rows_are_those_of_boids_experiment(tmp_path, cli):
    cli("experiment", "vicsek", "--quick", "--seed", 2, "--out", tmp_path / "vicsek.csv")
    frame = boids.experiment("vicsek", quick=True, seed=2)
    pd.testing.assert_frame_equal(frame, read(tmp_path / "vicsek.csv"), check_dtype=False)
