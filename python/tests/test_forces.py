"""Custom forces: a change of velocity per boid, by id, added before the speed limits."""

import numpy as np

import boids


def lone_boid(dimensions):
    """One cornell boid at the centre (no neighbour, no margin) moving +x at 4 px a frame."""
    sim = boids.Simulation("cornell", count=1, dimensions=dimensions)
    return sim


def test_a_force_adds_to_the_velocity_before_the_speed_limits(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("x,y,vx,vy,group,bias\n320,240,4,0,0,0\n")
    sim = boids.Simulation.load(path, preset="cornell")
    sim.step(force=lambda p, v: np.array([[0.0, 0.5]], dtype=np.float32))
    np.testing.assert_array_equal(sim.velocities, [[4.0, 0.5]])
    sim = boids.Simulation.load(path, preset="cornell")
    sim.step(force=lambda p, v: np.array([[0.0, 30.0]]))
    assert abs(np.linalg.norm(sim.velocities[0]) - 6.0) < 1e-5


def test_the_force_function_sees_the_flock_in_id_order_every_step():
    sim = boids.Simulation("cornell", seed=1, count=50)
    seen = []

    def record(positions, velocities):
        seen.append((positions.copy(), velocities.copy()))
        return np.zeros_like(positions)

    sim.step(3, force=record)
    assert len(seen) == 3 and sim.step_count == 3
    fresh = boids.Simulation("cornell", seed=1, count=50)
    np.testing.assert_array_equal(seen[0][0], fresh.positions)
    fresh.step()
    np.testing.assert_array_equal(seen[1][1], fresh.velocities)


def pushed(threads, dimensions):
    sim = boids.Simulation("vicsek", seed=4, count=500, threads=threads, dimensions=dimensions)
    ids = np.arange(500, dtype=np.float32)[:, None]

    def swirl(positions, velocities):
        return 0.001 * np.sin(ids + positions)

    sim.step(10, force=swirl)
    return sim.positions


def test_a_forced_run_is_the_same_on_any_thread_count_and_differs_from_a_free_one():
    for dimensions in (2, 3):
        one = pushed(1, dimensions)
        np.testing.assert_array_equal(one, pushed(2, dimensions))
        free = boids.Simulation("vicsek", seed=4, count=500, dimensions=dimensions)
        free.step(10)
        assert np.any(free.positions != one)
