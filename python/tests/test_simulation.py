"""The Simulation class: layering, stepping, arrays, live changes, metrics, runs, files."""

import pathlib
import re

import numpy as np
import pandas as pd
import pytest

import boids


def test_version_is_the_workspace_version():
    cargo = (pathlib.Path(__file__).resolve().parents[2] / "Cargo.toml").read_text()
    version = re.search(r'^\[workspace\.package\][^\[]*?^version = "([^"]+)"', cargo, re.M | re.S)
    assert boids.__version__ == version.group(1)


def test_parameters_layer_preset_then_params_then_keywords(tmp_path):
    toml = tmp_path / "p.toml"
    toml.write_text("count = 120\nvisual_range = 30.0\n")
    sim = boids.Simulation("cornell", params=str(toml), visual_range=35)
    assert sim.params["count"] == 120
    assert sim.params["visual_range"] == 35.0
    assert sim.params["min_speed"] == 3.0
    sim = boids.Simulation("vicsek", params={"count": 64, "noise": 0.3}, noise=0.4)
    assert (len(sim), sim.params["noise"], sim.params["model"]) == (64, 0.4, "vicsek")
    assert sim.preset == "vicsek" and sim.dimensions == 2 and sim.seed == 0


def test_arrays_are_float32_copies_in_id_order():
    sim = boids.Simulation("cornell", seed=3, count=150)
    p, v = sim.positions, sim.velocities
    assert p.shape == (150, 2) and p.dtype == np.float32 and v.shape == (150, 2)
    p[:] = 0.0
    assert np.any(sim.positions != 0.0)
    sim.step(5)
    assert sim.step_count == 5
    groups = sim.groups
    assert groups.dtype == np.uint8 and set(np.unique(groups)) <= {0, 1, 2}
    # Id order: the same boid in the same row after the step reorders storage.
    again = boids.Simulation("cornell", seed=3, count=150)
    again.step(5)
    np.testing.assert_array_equal(again.positions, sim.positions)
    np.testing.assert_array_equal(again.groups, groups)


def test_same_numbers_on_any_thread_count():
    runs = []
    for threads in (1, 2):
        sim = boids.Simulation("cornell", seed=9, threads=threads, count=3000)
        sim.step(20)
        runs.append((sim.positions.tobytes(), sim.velocities.tobytes()))
    assert runs[0] == runs[1]


def test_three_dimensions():
    sim = boids.Simulation("vicsek3d", seed=2, count=80)
    sim.step(3)
    assert sim.dimensions == 3 and sim.positions.shape == (80, 3)
    assert sim.velocities.shape == (80, 3)


def test_set_changes_parameters_live_and_keeps_the_flock():
    sim = boids.Simulation("cornell", seed=1, count=100)
    sim.step(10)
    before = sim.positions
    sim.set(count=120, visual_range=50)
    assert len(sim) == 120 and sim.params["visual_range"] == 50.0
    np.testing.assert_array_equal(sim.positions[:100], before)
    sim.set(count=90)
    np.testing.assert_array_equal(sim.positions, before[:90])
    assert sim.step_count == 10
    sim.set(dimensions=3)
    assert sim.dimensions == 3 and sim.positions.shape == (90, 3)


def test_metrics_are_the_run_columns():
    sim = boids.Simulation("vicsek", seed=1, count=100)
    m = sim.metrics()
    assert list(m) == ["step", *boids.METRIC_COLUMNS]
    assert 0.0 <= m["polarization"] <= 1.0 and m["step"] == 0


def test_run_returns_metrics_every_e_steps_and_the_trajectory():
    sim = boids.Simulation("vicsek", seed=1, count=60)
    frame = sim.run(10, every=5)
    assert isinstance(frame, pd.DataFrame)
    assert list(frame["step"]) == [0, 5, 10] and list(frame.columns[1:]) == boids.METRIC_COLUMNS
    frame, positions, velocities = sim.run(4, every=2, trajectory=True)
    assert list(frame["step"]) == [10, 12, 14]
    assert positions.shape == (3, 60, 2) and velocities.shape == (3, 60, 2)
    np.testing.assert_array_equal(positions[-1], sim.positions)
    assert frame["polarization"].iloc[-1] == sim.metrics()["polarization"]


def test_save_then_load_is_exact(tmp_path):
    sim = boids.Simulation("predator", seed=4)
    sim.step(15)
    path = tmp_path / "state.csv"
    sim.save(path)
    back = boids.Simulation.load(path, preset="predator", seed=4, start_step=15)
    assert back.step_count == 15 and len(back) == len(sim)
    np.testing.assert_array_equal(back.positions, sim.positions)
    np.testing.assert_array_equal(back.velocities, sim.velocities)
    sim.step(5)
    back.step(5)
    np.testing.assert_array_equal(back.positions, sim.positions)


def test_repr_names_the_flock():
    sim = boids.Simulation("couzin", seed=2, count=30)
    assert repr(sim) == (
        'boids.Simulation(preset="couzin", seed=2, model=couzin, count=30, dimensions=2, step_count=0)'
    )


def test_presets_and_the_parameter_catalogue():
    presets = boids.presets()
    assert "cornell" in list(presets["name"]) and "vicsek3d" in list(presets["name"])
    assert set(presets.columns) >= {"name", "model", "dimensions", "count", "summary"}
    assert int(presets.set_index("name").loc["vicsek3d", "dimensions"]) == 3
    catalogue = boids.describe_params()
    assert list(catalogue.columns) == ["name", "section", "kind", "default", "unit", "models", "meaning"]
    assert "visual_range" in set(catalogue["name"])
    vicsek = boids.describe_params("vicsek")
    assert "noise" in set(vicsek["name"]) and "centering_factor" not in set(vicsek["name"])
    assert len(vicsek) < len(catalogue)
    cornell = boids.describe_params("cornell")
    assert list(cornell["name"]) == list(boids.describe_params("boids")["name"])
    with pytest.raises(ValueError, match="model = \"nope\" is neither a model nor a preset: models: boids, vicsek"):
        boids.describe_params("nope")
