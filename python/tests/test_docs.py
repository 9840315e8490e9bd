"""The Python examples of the README and the guide run as written: those of the README, of
"Getting started" and of "From Python" (but the Slurm one: no Slurm here) on their own; a script
that starts worker processes (its work under `if __name__ == "__main__":`) pasted into a file and
run as `python script.py`, as a user runs it; and the file-formats chapter's, which reads a
trajectory, after the `boids run` that writes it."""

import os
import re
import subprocess
import sys

import pytest

STANDALONE = ["README.md", "getting-started.md", "python.md"]
SCRIPT_GUARD = 'if __name__ == "__main__":'


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
    blocks = python_blocks(document(name))
    examples = [b for b in blocks if "dask_jobqueue" not in b and SCRIPT_GUARD not in b]
    assert examples, f"{name} shows no Python example"
    for index, block in enumerate(examples):
        workdir = tmp_path / f"example{index}"
        workdir.mkdir()
        run_in(workdir, block, f"{name} python example {index}")


def test_the_dask_example_runs_as_a_script(document, tmp_path):
    """Pasted into a file and run with `python`, the local-cluster sweep completes: its worker
    processes import the script again, which without the guard starts another cluster in each
    of them ("Nanny failed to start")."""
    (block,) = [b for b in python_blocks(document("python.md")) if "LocalCluster" in b]
    assert SCRIPT_GUARD in block
    script = tmp_path / "sweep_on_a_cluster.py"
    script.write_text(block)
    done = subprocess.run([sys.executable, script.name], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "12 runs; the cluster's frame equals the local one" in done.stdout


def test_the_file_formats_example_reads_a_trajectory_of_the_command(document, cli, tmp_path):
    (block,) = python_blocks(document("file-formats.md"))
    assert 'np.load("run.npz")' in block
    cli("run", "--count", 50, "--steps", 20, "--every", 5, "--trajectory", "run.npz", cwd=tmp_path)
    run_in(tmp_path, block, "file-formats.md python example")
