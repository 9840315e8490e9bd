"""The Python examples of the README and the guide run as written: those of the README, of
"Getting started" and of "From Python" (but the Slurm one: no Slurm here) on their own, and the
file-formats chapter's, which reads a trajectory, after the `boids run` that writes it."""

import os
import re

import pytest

STANDALONE = ["README.md", "getting-started.md", "python.md"]


def python_blocks(text):
    return re.findall(r"```python\n(.*?)```", text, re.S)


def run_in(directory, block, label):
    cwd = os.getcwd()
    os.chdir(directory)
    try:
        exec(compile(block, label, "exec"), {"__name__": "__main__"})
    finally:
        os.chdir(cwd)


def test_the_python_chapter_shows_a_dask_sweep_and_a_slurm_one(document):
    blocks = python_blocks(document("python.md"))
    assert len(blocks) >= 4
    assert any("LocalCluster" in block for block in blocks)
    assert any("dask_jobqueue" in block for block in blocks)


@pytest.mark.parametrize("name", STANDALONE)
def test_every_python_example_runs(document, name, tmp_path):
    examples = [b for b in python_blocks(document(name)) if "dask_jobqueue" not in b]
    assert examples, f"{name} shows no Python example"
    for index, block in enumerate(examples):
        workdir = tmp_path / f"example{index}"
        workdir.mkdir()
        run_in(workdir, block, f"{name} python example {index}")


def test_the_file_formats_example_reads_a_trajectory_of_the_command(document, cli, tmp_path):
    (block,) = python_blocks(document("file-formats.md"))
    assert 'np.load("run.npz")' in block
    cli("run", "--count", 50, "--steps", 20, "--every", 5, "--trajectory", "run.npz", cwd=tmp_path)
    run_in(tmp_path, block, "file-formats.md python example")
