"""Bad input raises the exception a Python user expects, with the command's message."""

import inspect
import os
import re
import signal
import stat
import threading
import time

import numpy as np
import pytest

import boids


def test_an_unknown_key_is_a_key_error_with_a_suggestion():
    with pytest.raises(KeyError, match=r"unknown parameter `visual_rnage`.*did you mean `visual_range`"):
        boids.Simulation(visual_rnage=30)
    with pytest.raises(KeyError, match="did you mean `noise`"):
        boids.Simulation("vicsek", params={"nois": 0.1})
    sim = boids.Simulation(count=20)
    with pytest.raises(KeyError, match="did you mean `count`"):
        sim.set(coun=30)
    with pytest.raises(KeyError, match="did you mean `noise`"):
        boids.sweep({"nois": [0.1]}, steps=2, preset="vicsek")
    # Two letters swapped, the commonest typo, is one edit.
    with pytest.raises(KeyError, match="did you mean `noise`"):
        boids.sweep({"nosie": [0.1]}, steps=2, preset="vicsek")


def calls_with_their_positional_arguments(tmp_path):
    """Each call that takes parameters as keywords, with what it needs besides them."""
    boids.Simulation(count=5).save(tmp_path / "flock.csv")
    return [(boids.Simulation, []), (boids.Simulation.load, [tmp_path / "flock.csv"]),
            (boids.sweep, [{"noise": [0.1]}])]


def test_a_misspelt_argument_is_a_key_error_naming_the_argument_meant(tmp_path):
    """Keywords are parameters unless they are the call's own arguments; a misspelling of one
    of those (`replicate=2` for `replicates`) is named as such, not as an unknown parameter."""
    for call, positional in calls_with_their_positional_arguments(tmp_path):
        arguments = [name for name, p in inspect.signature(call).parameters.items()
                     if p.kind is not p.VAR_KEYWORD]
        assert len(arguments) >= 5, call
        for meant in arguments:
            typo = meant + "x"
            message = rf"unknown parameter or argument `{typo}` \(did you mean the argument `{meant}`\?\)"
            with pytest.raises(KeyError, match=message):
                call(*positional, **{typo: 1})
    with pytest.raises(KeyError, match=r"did you mean the argument `replicates`\?"):
        boids.sweep({"noise": [0.1]}, replicate=2, steps=2, preset="vicsek")


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_a_seed_out_of_range_is_a_value_error_naming_it(seed, tmp_path):
    message = rf"seed = {seed} is not allowed: allowed range is \[0, 18446744073709551615\]"
    with pytest.raises(ValueError, match=message):
        boids.Simulation(seed=seed)
    with pytest.raises(ValueError, match=message):
        boids.sweep({"noise": [0.1]}, steps=2, preset="vicsek", seed=seed)
    with pytest.raises(ValueError, match=message):
        boids.experiment("vicsek", quick=True, seed=seed)
    boids.Simulation(count=5).save(tmp_path / "flock.csv")
    with pytest.raises(ValueError, match=message):
        boids.Simulation.load(tmp_path / "flock.csv", seed=seed)
    with pytest.raises(ValueError, match=r"start_step = -3 is not allowed: allowed range is \[0, "):
        boids.Simulation.load(tmp_path / "flock.csv", start_step=-3)
    assert boids.Simulation(seed=2**64 - 1).seed == 2**64 - 1


def test_a_bad_value_is_a_value_error_naming_value_range_and_source(tmp_path):
    with pytest.raises(ValueError, match=r"`visual_range` = -3 \(from argument `visual_range=-3`\) is not allowed: allowed range is"):
        boids.Simulation(visual_range=-3)
    with pytest.raises(ValueError, match=r"params\[\"noise\"\]"):
        boids.Simulation("vicsek", params={"noise": -1.0})
    toml = tmp_path / "bad.toml"
    toml.write_text("count = 10\nmin_speed = -1.0\n")
    with pytest.raises(ValueError, match=r"min_speed.*bad\.toml, line 2"):
        boids.Simulation(params=toml)
    with pytest.raises(ValueError, match="expected one of|is not allowed"):
        boids.Simulation(model="flocking")
    with pytest.raises(ValueError, match="unknown preset `nope`; valid presets: cornell"):
        boids.Simulation("nope")
    with pytest.raises(ValueError, match=r"vary\[\"noise\"\].*allowed range"):
        boids.sweep({"noise": [-1.0]}, steps=2, preset="vicsek")
    with pytest.raises(ValueError, match="threads = 0 is not allowed: allowed range is"):
        boids.Simulation(threads=0)
    with pytest.raises(ValueError, match="unknown experiment `nope`"):
        boids.experiment("nope")
    with pytest.raises(ValueError, match="burn_in = 50 is not allowed"):
        boids.sweep({"noise": [0.1]}, steps=10, burn_in=50, preset="vicsek")
    with pytest.raises(TypeError, match="not a parameter value"):
        boids.Simulation(count=object())


def test_replicates_and_runs_beyond_the_caps_are_value_errors_before_any_run():
    # Planned in full before the first run: these once aborted the interpreter.
    with pytest.raises(ValueError, match=r"replicates = 1000000 is not allowed: allowed range is \[1, 100000\]"):
        boids.experiment("vicsek", replicates=10**6)
    with pytest.raises(ValueError, match=r"replicates = 1000000000 is not allowed: allowed range is \[1, 100000\]"):
        boids.sweep({"noise": [0.1]}, replicates=10**9, steps=2, preset="vicsek")
    with pytest.raises(ValueError, match=r"the sweep is 200000 runs \(1000 grid points x 200 replicates\)"):
        boids.sweep({"noise": [i / 1000 for i in range(1000)]}, replicates=200, steps=2, preset="vicsek")
    with pytest.raises(ValueError, match=r"replicates = 0 is not allowed"):
        boids.experiment("vicsek", quick=True, replicates=0)


def test_files_that_cannot_be_read_say_which_and_where(tmp_path):
    with pytest.raises(OSError, match="missing.csv"):
        boids.Simulation.load(tmp_path / "missing.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y,vx,vy\n1,2,3,4\n5,oops,7,8\n")
    with pytest.raises(ValueError, match=r"bad\.csv, line 3: column `y` = `oops` is not a number"):
        boids.Simulation.load(bad, preset="cornell")
    with pytest.raises(ValueError, match="disagrees with"):
        boids.Simulation.load(_two_boids(tmp_path), preset="cornell", count=5)
    with pytest.raises(OSError):
        boids.Simulation(count=10).save(tmp_path / "no" / "such" / "dir.csv")
    assert not list((tmp_path).glob("**/.tmp*"))


def _two_boids(tmp_path):
    path = tmp_path / "two.csv"
    path.write_text("x,y,vx,vy\n100,100,3,0\n200,200,0,3\n")
    return path


def test_a_force_of_the_wrong_shape_or_type_is_refused_and_the_flock_kept():
    sim = boids.Simulation("vicsek", count=40)
    before = sim.positions
    with pytest.raises(ValueError, match=r"shape \(39, 2\): expected .*shape \(40, 2\)"):
        sim.step(force=lambda p, v: np.zeros((39, 2)))
    with pytest.raises(TypeError, match=r"dtype int64: expected .*\(40, 2\)"):
        sim.step(force=lambda p, v: np.zeros((40, 2), dtype=np.int64))
    with pytest.raises(TypeError, match=r"returned a list: expected .*\(40, 2\)"):
        sim.step(force=lambda p, v: [[0.0, 0.0]] * 40)
    with pytest.raises(ValueError, match="boid 7: force = .* is not allowed: finite numbers"):
        sim.step(force=lambda p, v: np.where(np.arange(40)[:, None] == 7, np.nan, np.zeros((40, 2))))
    with pytest.raises(TypeError, match="force must be a function"):
        sim.step(force=3)
    with pytest.raises(ZeroDivisionError):
        sim.step(force=lambda p, v: 1 / 0)
    assert sim.step_count == 0
    np.testing.assert_array_equal(sim.positions, before)


def test_save_writes_as_the_command_does(tmp_path):
    sim = boids.Simulation(count=10)
    real = tmp_path / "real.csv"
    real.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to("real.csv")
    sim.save(link)
    assert link.is_symlink() and real.read_text().startswith("x,y,vx,vy")
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match=r"save .*pipe\.csv: is a device or a FIFO"):
        sim.save(fifo)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    kept = tmp_path / "kept.csv"
    kept.write_text("old")
    kept.chmod(0o444)
    with pytest.raises(OSError, match=r"save .*kept\.csv: is read-only"):
        sim.save(kept)
    assert kept.read_text() == "old"
    with pytest.raises(OSError, match=r"save .*no/such/dir\.csv: directory .*no/such does not exist") as missing:
        sim.save(tmp_path / "no" / "such" / "dir.csv")
    assert ".boids-" not in str(missing.value) and ".tmp" not in str(missing.value)
    with pytest.raises(OSError, match=r"ends with '/'"):
        sim.save(str(tmp_path / "x.csv") + "/")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "kept.csv", "link.csv", "link.csv.params.toml", "pipe.csv", "real.csv"]


def test_a_params_file_is_read_with_the_config_limit(tmp_path):
    with pytest.raises(OSError, match="params /dev/zero: larger than 16 MiB"):
        boids.Simulation(params="/dev/zero")
    with pytest.raises(OSError, match="params .*: is a directory"):
        boids.Simulation(params=tmp_path)


def test_the_step_number_never_wraps(tmp_path):
    last = 2**64 - 1
    sim = boids.Simulation.load(_two_boids(tmp_path), preset="cornell", start_step=last - 1)
    sim.step()
    assert sim.step_count == last
    with pytest.raises(ValueError, match=rf"step\(n=1\) would pass the largest step number, {last}"):
        sim.step()
    with pytest.raises(ValueError, match=r"run\(steps=3\) would pass the largest step number"):
        sim.run(3)
    assert sim.step_count == last


def test_an_engine_is_chosen_by_name_and_an_unknown_one_is_refused(tmp_path):
    cpu = boids.Simulation(count=50, seed=2, engine="cpu")
    default = boids.Simulation(count=50, seed=2)
    cpu.step(5)
    default.step(5)
    assert np.array_equal(cpu.positions, default.positions)
    with pytest.raises(ValueError, match='engine: unknown engine "tpu": the engines are cpu, gpu'):
        boids.Simulation(engine="tpu")
    path = tmp_path / "flock.csv"
    cpu.save(path)
    with pytest.raises(ValueError, match="unknown engine"):
        boids.Simulation.load(path, engine="warp")
    assert boids.Simulation.load(path, engine="cpu", start_step=5).step_count == 5


def test_a_step_that_diverges_raises_and_the_flock_keeps_its_last_good_state():
    # Allowed values whose alignment overshoots a thousandfold each step, with no speed limit.
    sim = boids.Simulation(
        "allegheny", seed=3, count=50, max_speed=float("inf"), matching_factor=1000, steering_gain=1000
    )
    with pytest.raises(RuntimeError, match=r"step \d+ is refused: it would leave boid \d+ at position") as refused:
        sim.step(100)
    step = sim.step_count
    assert f"the flock stays at step {step}" in str(refused.value)
    assert np.isfinite(sim.positions).all() and np.isfinite(sim.velocities).all()
    with pytest.raises(RuntimeError, match=rf"step {step + 1} is refused"):
        sim.step()
    assert sim.step_count == step


def test_a_run_whose_result_would_not_fit_in_memory_is_refused_before_its_first_step():
    # This once ran for minutes, then aborted the interpreter out of memory.
    sim = boids.Simulation(count=200_000, seed=1)
    with pytest.raises(ValueError, match=r"run\(steps=1000000000, every=1, trajectory=True\) would hold "
                       r"1000000001 frames \(the metrics, positions and velocities of 200000 boids\) in memory: "
                       r"about (\d+) bytes .*over the limit of 17179869184 bytes \(16 GiB\)") as refused:
        sim.run(10**9, every=1, trajectory=True)
    estimate = int(re.search(r"about (\d+) bytes", str(refused.value)).group(1))
    frames, arrays = 10**9 + 1, 2 * 200_000 * 2 * 4  # positions and velocities, float32
    assert frames * arrays < estimate < frames * (arrays + 1000)
    # The table alone is bounded too, and neither call took a step.
    with pytest.raises(ValueError, match=r"would hold 1000000001 rows of metrics in memory: .*boids run --metrics"):
        sim.run(10**9, every=1)
    assert sim.step_count == 0
    frame, positions, velocities = boids.Simulation(count=50).run(4, every=2, trajectory=True)
    assert list(frame["step"]) == [0, 2, 4] and positions.shape == velocities.shape == (3, 50, 2)


def _interrupted(call, after=0.3, during=lambda: None):
    """Runs `call()` and, `after` seconds in, `during()` in another thread, then Ctrl-C (SIGINT to
    the main thread); returns the seconds until KeyboardInterrupt arrived."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    main = threading.main_thread().ident

    def then_interrupt():
        try:
            during()
        finally:
            signal.pthread_kill(main, signal.SIGINT)

    timer = threading.Timer(after, then_interrupt)
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            timer.start()
            call()
        return time.monotonic() - started
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)


def test_ctrl_c_stops_a_long_step_or_run_and_keeps_the_steps_taken():
    # 10**7 steps of 100 boids take over a minute: the call once ignored Ctrl-C until its end.
    n = 10**7
    sim = boids.Simulation(count=100, seed=5)
    assert _interrupted(lambda: sim.step(n)) < 10
    taken = sim.step_count
    assert 0 < taken < n
    assert _interrupted(lambda: sim.run(n, every=n)) < 10
    assert taken < sim.step_count < taken + n
    # The flock is as if stepped in one call to where it stopped, and goes on as usual.
    sim.step(3)
    again = boids.Simulation(count=100, seed=5)
    again.step(sim.step_count)
    np.testing.assert_array_equal(again.positions, sim.positions)
    np.testing.assert_array_equal(again.velocities, sim.velocities)


def test_stepping_in_chunks_is_stepping_in_one_go():
    one, many = boids.Simulation(count=300, seed=8), boids.Simulation(count=300, seed=8)
    one.step(4000)
    for n in (1, 999, 3000):
        many.step(n)
    assert one.step_count == many.step_count == 4000
    assert one.positions.tobytes() == many.positions.tobytes()
    assert one.velocities.tobytes() == many.velocities.tobytes()


BUSY = r"the Simulation is busy in Simulation\.step\(\), called from another thread or from the force function"


def test_a_busy_simulation_refuses_another_call_saying_which_is_running():
    sim = boids.Simulation(count=100, seed=2)
    with pytest.raises(RuntimeError, match=rf"^Simulation\.step\(\): {BUSY}"):
        sim.step(force=lambda p, v: sim.step())
    with pytest.raises(RuntimeError, match=rf"^Simulation\.positions: {BUSY}"):
        sim.step(force=lambda p, v: sim.positions)
    with pytest.raises(RuntimeError, match=rf"^Simulation\.set\(\): {BUSY}"):
        sim.step(force=lambda p, v: sim.set(count=10))
    assert sim.step_count == 0 and len(sim) == 100
    refused = []

    def from_another_thread():
        for call in (lambda: sim.step(), lambda: sim.velocities, lambda: boids.serve(sim, port=0)):
            try:
                call()
            except RuntimeError as e:
                refused.append(str(e))

    _interrupted(lambda: sim.step(10**7), during=from_another_thread)
    assert [m.split(":")[0] for m in refused] == ["Simulation.step()", "Simulation.velocities", "boids.serve()"]
    assert all(re.search(BUSY, m) and "give each thread a Simulation of its own" in m for m in refused)
    sim.step()  # free again


@pytest.mark.parametrize("call, argument, value, allowed", [
    (lambda sim, v: sim.step(v), "n", -1, "0, 18446744073709551615"),
    (lambda sim, v: sim.step(v), "n", 2**64, "0, 18446744073709551615"),
    (lambda sim, v: sim.run(v), "steps", -1, "0, 18446744073709551615"),
    (lambda sim, v: sim.run(5, every=v), "every", -1, "1, 18446744073709551615"),
    (lambda sim, v: sim.run(5, every=v), "every", 0, "1, 18446744073709551615"),
    (lambda sim, v: sim.show(steps=v), "steps", -1, "0, 18446744073709551615"),
    (lambda sim, v: sim.show(every=v), "every", -2, "1, 18446744073709551615"),
    (lambda sim, v: sim.show(fps=v), "fps", -1, "1, 100"),
    (lambda sim, v: boids.Simulation(threads=v), "threads", -1, "1, 1024"),
    (lambda sim, v: boids.serve(sim, port=v), "port", -1, "0, 65535"),
    (lambda sim, v: boids.serve(sim, port=v), "port", 65536, "0, 65535"),
    (lambda sim, v: boids.serve(sim, max_count=v), "max_count", -1, "1, 50000000"),
    (lambda sim, v: boids.serve(sim, max_count=v), "max_count", 0, "1, 50000000"),
    (lambda sim, v: boids.experiment("vicsek", replicates=v), "replicates", -1, "1, 100000"),
    (lambda sim, v: boids.experiment("vicsek", steps=v), "steps", -1, "2, 18446744073709551615"),
    (lambda sim, v: boids.sweep({"noise": [0.1]}, preset="vicsek", replicates=v), "replicates", -1, "1, 100000"),
    (lambda sim, v: boids.sweep({"noise": [0.1]}, preset="vicsek", steps=v), "steps", -1, "0, 18446744073709551615"),
    (lambda sim, v: boids.sweep({"noise": [0.1]}, preset="vicsek", every=v), "every", -1, "1, 18446744073709551615"),
    (lambda sim, v: boids.sweep({"noise": [0.1]}, steps=10, preset="vicsek", burn_in=v), "burn_in", -1, "0, 10"),
])
def test_a_whole_number_argument_out_of_range_is_a_value_error_naming_it(call, argument, value, allowed):
    """Not pyo3's bare OverflowError ("can't convert negative int to unsigned"), which names
    neither the argument nor its range."""
    sim = boids.Simulation(count=20)
    with pytest.raises(ValueError, match=rf"^{argument} = {value} is not allowed: allowed range is \[{allowed}\]$"):
        call(sim, value)
    assert sim.step_count == 0


def test_threads_and_the_sweep_index_out_of_range_name_themselves(tmp_path):
    boids.Simulation(count=5).save(tmp_path / "flock.csv")
    with pytest.raises(ValueError, match=r"^threads = -1 is not allowed"):
        boids.Simulation.load(tmp_path / "flock.csv", threads=-1)
    spec = dict(preset="vicsek", params=None, fixed=None, vary={"noise": [0.1, 0.2]}, replicates=1,
                seed=0, steps=2, every=1, burn_in=None)
    for index in (-1, 2):
        with pytest.raises(ValueError, match=rf"^index = {index} is not allowed: allowed range is \[0, 1\]$"):
            boids._boids.sweep_run(index, **spec)


def test_serve_names_max_count_and_a_flock_larger_than_it():
    sim = boids.Simulation(count=300)
    with pytest.raises(ValueError, match=r"^max_count = 0 is not allowed: allowed range is \[1, 50000000\]$"):
        boids.serve(sim, port=0, max_count=0)
    with pytest.raises(ValueError, match=r"the flock's count = 300 is over max_count = 100.*give max_count=300 or more"):
        boids.serve(sim, port=0, max_count=100)
