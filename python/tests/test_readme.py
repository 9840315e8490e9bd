"""The Python examples of the README's "From Python" section run as written (except the Slurm
one: no Slurm here): in this interpreter, or, for a script that starts worker processes (its
work under `if __name__ == "__main__":`), pasted into a file and run as `python script.py`.
Other sections' Python snippets read files of the command's runs."""

import os
import re
import subprocess
import sys

SCRIPT_GUARD = 'if __name__ == "__main__":'


def python_blocks(readme):
    section = readme.split("\n## From Python\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def runnable(readme):
    return [b for b in python_blocks(readme) if "dask_jobqueue" not in b]


def test_the_readme_has_python_examples(readme):
    blocks = python_blocks(readme)
    assert len(blocks) >= 4
    assert any("dask_jobqueue" in block for block in blocks)


def test_every_readme_python_example_runs(readme, tmp_path):
    examples = [b for b in runnable(readme) if SCRIPT_GUARD not in b]
    assert len(examples) >= 3
    cwd = os.getcwd()
    for index, block in enumerate(examples):
        workdir = tmp_path / f"example{index}"
        workdir.mkdir()
        os.chdir(workdir)
        try:
            exec(compile(block, f"README.md python example {index}", "exec"), {})
        finally:
            os.chdir(cwd)


def test_the_readme_dask_example_runs_as_a_script(readme, tmp_path):
    """Pasted into a file and run with `python`, the local-cluster sweep completes: its
    worker processes import the script again, which without the guard starts another
    cluster in each of them ("Nanny failed to start")."""
    (block,) = [b for b in runnable(readme) if "LocalCluster" in b]
    assert SCRIPT_GUARD in block
    script = tmp_path / "sweep_on_a_cluster.py"
    script.write_text(block)
    done = subprocess.run([sys.executable, script.name], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "12 runs; the cluster's frame equals the local one" in done.stdout
