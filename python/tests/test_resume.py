"""A saved flock resumes as it was saved: `save` writes its parameters, seed and step beside the
state, `load` takes them from there, and a state without them is refused unless they are given."""

import re

import numpy as np
import pytest

import boids

from test_docs import python_blocks


def assert_same_flock(a, b):
    assert a.step_count == b.step_count
    np.testing.assert_array_equal(a.positions, b.positions)
    np.testing.assert_array_equal(a.velocities, b.velocities)


def test_the_guides_example_resumes_bit_for_bit(document, tmp_path, monkeypatch):
    """The Python chapter's own save and load, run as written: the loaded flock and the one that goes on
    take the same next ten steps (before the parameters were saved, it resumed with
    visual_range 40, not 45, and diverged)."""
    monkeypatch.chdir(tmp_path)
    block = next(b for b in python_blocks(document("python.md")) if "Simulation.load" in b)
    example = block[:block.index("\n", block.index("Simulation.load"))]
    names = {}
    exec(compile(example, "python.md python example", "exec"), names)
    sim, again = names["sim"], names["again"]
    assert again.params == sim.params and again.params["visual_range"] == 45
    for _ in range(10):
        sim.step()
        again.step()
        assert_same_flock(again, sim)


@pytest.mark.parametrize("preset, changes, live", [
    ("cornell", dict(visual_range=45, count=300), dict(max_speed=5.5, count=320)),
    ("vicsek", dict(noise=1.3, count=200), {}),
    ("predator", {}, {}),
])
def test_a_saved_flock_resumes_from_its_file_alone(tmp_path, preset, changes, live):
    sim = boids.Simulation(preset, seed=9, **changes)
    sim.step(12)
    sim.set(**live)
    sim.save(tmp_path / "flock.csv")
    back = boids.Simulation.load(tmp_path / "flock.csv")
    assert (back.preset, back.seed, back.step_count) == (preset, 9, 12)
    assert back.params == sim.params
    sim.step(10)
    back.step(10)
    assert_same_flock(back, sim)


def test_the_parameters_file_says_how_the_command_resumes_the_flock(tmp_path, cli):
    sim = boids.Simulation("vicsek", seed=3, count=150, noise=0.7)
    sim.step(20)
    sim.save(tmp_path / "flock.csv")
    sidecar = (tmp_path / "flock.csv.params.toml").read_text()
    line = re.search(r"^# resume with: boids (.*) --steps K$", sidecar, re.M).group(1)
    cli(*line.split(), "--steps", 10, "--save", tmp_path / "cli.csv", cwd=tmp_path)
    sim.step(10)
    sim.save(tmp_path / "py.csv")
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()


def test_arguments_change_what_was_saved_and_a_preset_must_be_the_saved_one(tmp_path):
    sim = boids.Simulation("vicsek", seed=3, count=80, noise=0.7)
    sim.step(5)
    sim.save(tmp_path / "flock.csv")
    changed = boids.Simulation.load(tmp_path / "flock.csv", noise=0.2, seed=4, start_step=50)
    assert changed.params["noise"] == pytest.approx(0.2) and changed.params["count"] == 80
    assert (changed.seed, changed.step_count) == (4, 50)
    same = boids.Simulation.load(tmp_path / "flock.csv", preset="vicsek", params={"speed": 0.05})
    assert same.params["speed"] == pytest.approx(0.05)
    assert same.params["noise"] == pytest.approx(0.7)
    with pytest.raises(ValueError, match=r'preset="cornell"\): the flock was saved from preset "vicsek", whose parameters .*flock\.csv\.params\.toml holds'):
        boids.Simulation.load(tmp_path / "flock.csv", preset="cornell")


def test_a_state_without_its_parameters_is_refused_unless_they_are_given(tmp_path, cli):
    cli("run", "--preset", "vicsek", "--seed", 2, "--steps", 5, "--save", tmp_path / "cli.csv")
    with pytest.raises(ValueError, match=r"cli\.csv.*its parameters are missing: no .*cli\.csv\.params\.toml beside it.*preset=.*seed=.*start_step="):
        boids.Simulation.load(tmp_path / "cli.csv")
    with pytest.raises(ValueError, match="its parameters are missing"):
        boids.Simulation.load(tmp_path / "cli.csv", noise=0.3)
    given = boids.Simulation.load(tmp_path / "cli.csv", preset="vicsek", seed=2, start_step=5)
    assert (given.preset, given.seed, given.step_count) == ("vicsek", 2, 5)


def test_a_parameters_file_without_its_header_is_refused_naming_it(tmp_path):
    boids.Simulation(count=10).save(tmp_path / "flock.csv")
    sidecar = tmp_path / "flock.csv.params.toml"
    sidecar.write_text(re.sub(r"^# seed = .*\n", "", sidecar.read_text(), flags=re.M))
    with pytest.raises(ValueError, match=r"flock\.csv\.params\.toml: no `# seed = \.\.\.` line"):
        boids.Simulation.load(tmp_path / "flock.csv")
    sidecar.write_text("# preset = cornell\n# seed = 1\n# step = 0\nvisual_range = -4\n")
    with pytest.raises(ValueError, match=r"visual_range.*flock\.csv\.params\.toml, line 4"):
        boids.Simulation.load(tmp_path / "flock.csv")
