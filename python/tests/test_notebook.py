"""Notebooks: an inline animation by the renderer, a still for the repr, the live viewer."""

import base64
import json
import re
import urllib.request

import numpy as np

import boids


def test_show_animates_a_copy_and_leaves_the_simulation_where_it_was():
    sim = boids.Simulation("cornell", seed=1, count=100)
    shown = sim.show(steps=6, every=2, size="160x120")
    html = shown if isinstance(shown, str) else shown.data
    gif = base64.b64decode(re.search(r'data:image/gif;base64,([^"]+)"', html).group(1))
    assert gif.startswith(b"GIF89a") and gif.count(b"\x21\xf9\x04") == 4
    assert sim.step_count == 0


def test_the_html_repr_is_a_picture_and_the_facts():
    sim = boids.Simulation("vicsek3d", seed=1, count=50)
    html = sim._repr_html_()
    png = base64.b64decode(re.search(r'data:image/png;base64,([^"]+)"', html).group(1))
    assert png.startswith(b"\x89PNG") and "count=50" in html and "dimensions=3" in html


def test_serve_opens_the_viewer_on_the_python_flock():
    sim = boids.Simulation("vicsek", seed=3, count=77)
    sim.step(5)
    url = boids.serve(sim, port=0, paused=True)
    assert url.startswith("http://127.0.0.1:")
    page = urllib.request.urlopen(url, timeout=10).read().decode()
    assert "<html" in page.lower()
    state = json.loads(urllib.request.urlopen(url.rstrip("/") + "/api/state", timeout=10).read())
    assert state["count"] == 77 and state["step"] == 5 and state["seed"] == 3
    np.testing.assert_array_equal(np.array(state["positions"], dtype=np.float32), sim.positions)
