"""Benchmarks of the Python package (not tests: nothing here asserts a time).

1. Python's overhead per ``step()`` against the ``boids`` command, at N = 1,000 and 100,000:
   the same flock stepped by ``boids run`` (its time per step taken as the difference between
   runs of K steps and of none, which cancels start-up and the initial flock), by one
   ``sim.step(K)`` call, and by K calls of ``sim.step()``.
2. A 40-run sweep on a Dask ``LocalCluster`` of 1 and of 2 worker processes (one thread each:
   RAYON_NUM_THREADS=1 in the workers), and the speed-up.

The measurements are interleaved (each repetition runs every variant once, in turn) and the
median is reported, so a machine shared with other work slows every variant alike.

    python python/benchmarks/overhead.py [--boids target/release/boids] [--repeats 5]
"""

import argparse
import os
import statistics
import subprocess
import time

import boids

SIDE_PER_SQRT_BOID = 16.0 / 500 ** 0.5  # the functional preset's density: 500 boids on 16 x 16


def flock(n):
    """The functional preset at its own density (about one neighbour a boid), N boids."""
    side = SIDE_PER_SQRT_BOID * n ** 0.5
    return {
        "count": n,
        "world_x_min": -side / 2,
        "world_y_min": -side / 2,
        "world_width": side,
        "world_height": side,
        "init_x": [-side / 2, side / 2],
        "init_y": [-side / 2, side / 2],
    }


def cli_seconds(binary, sets, steps):
    flags = [a for k, v in sets.items() for a in ("--set", f"{k}={v}".replace(" ", ""))]
    start = time.perf_counter()
    subprocess.run([binary, "run", "--preset", "functional", "--steps", str(steps), *flags],
                   check=True, capture_output=True)
    return time.perf_counter() - start


def python_one_call(sets, steps):
    sim = boids.Simulation("functional", **sets)
    start = time.perf_counter()
    sim.step(steps)
    return time.perf_counter() - start


def python_many_calls(sets, steps):
    sim = boids.Simulation("functional", **sets)
    start = time.perf_counter()
    for _ in range(steps):
        sim.step()
    return time.perf_counter() - start


def step_overhead(binary, repeats):
    for n, steps in ((1_000, 5_000), (100_000, 200)):
        sets = flock(n)
        cli, one, many = [], [], []
        for _ in range(repeats):
            cli.append((cli_seconds(binary, sets, steps) - cli_seconds(binary, sets, 0)) / steps)
            one.append(python_one_call(sets, steps) / steps)
            many.append(python_many_calls(sets, steps) / steps)
        c, o, m = (statistics.median(x) * 1e6 for x in (cli, one, many))
        print(f"N={n:>7}: boids run {c:9.1f} us/step | sim.step({steps}) {o:9.1f} us/step "
              f"| {steps} x sim.step() {m:9.1f} us/step | overhead per call {m - c:+8.1f} us")


def sweep_speedup(repeats):
    from dask.distributed import Client, LocalCluster

    os.environ["RAYON_NUM_THREADS"] = "1"
    grid = {"noise": [0.1 * k for k in range(20)]}
    args = dict(replicates=2, steps=150, preset="vicsek", count=1000)
    clusters = {
        workers: LocalCluster(n_workers=workers, processes=True, threads_per_worker=1,
                              dashboard_address=":0")
        for workers in (1, 2)
    }
    times = {1: [], 2: []}
    try:
        clients = {w: Client(c) for w, c in clusters.items()}
        for client in clients.values():
            boids.sweep(grid, client=client, **{**args, "steps": 2})  # import boids in the workers
        for _ in range(repeats):
            for workers, client in clients.items():
                start = time.perf_counter()
                frame = boids.sweep(grid, client=client, **args)
                times[workers].append(time.perf_counter() - start)
                assert len(frame) == 40
    finally:
        for cluster in clusters.values():
            cluster.close()
    one, two = statistics.median(times[1]), statistics.median(times[2])
    print(f"40-run sweep (vicsek, 1000 boids, 150 steps): 1 worker {one:.2f} s, "
          f"2 workers {two:.2f} s, speed-up {one / two:.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boids", default="target/release/boids", help="the boids binary")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"boids {boids.__version__}, {os.cpu_count()} cores")
    step_overhead(args.boids, args.repeats)
    sweep_speedup(args.repeats)


if __name__ == "__main__":
    main()
