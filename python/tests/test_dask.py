"""A sweep on a Dask cluster of two worker processes equals the local sweep exactly."""

import pandas as pd
import pytest

import boids

distributed = pytest.importorskip("distributed")


def test_a_local_cluster_sweep_equals_the_local_sweep():
    args = dict(vary={"noise": [0.1, 0.8, 2.0], "count": [40, 80]}, replicates=2, steps=30,
                preset="vicsek", seed=11, world_width=3.0, world_height=3.0)
    local = boids.sweep(**args)
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster) as client:
        remote = boids.sweep(client=client, **args)
    assert len(local) == 12
    pd.testing.assert_frame_equal(remote, local)
