"""The Python examples of the README's "From Python" section run as written (except the Slurm
one: no Slurm here). Other sections' Python snippets read files of the command's runs."""

import os
import re

import pytest


def python_blocks(readme):
    section = readme.split("\n## From Python\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_readme_has_python_examples(readme):
    blocks = python_blocks(readme)
    assert len(blocks) >= 4
    assert any("dask_jobqueue" in block for block in blocks)


@pytest.mark.parametrize("index", range(8))
def test_a_readme_python_example_runs(readme, tmp_path, index):
    blocks = python_blocks(readme)
    if index >= len(blocks):
        pytest.skip("the README has fewer examples")
    block = blocks[index]
    if "dask_jobqueue" in block:
        pytest.skip("the Slurm example needs a Slurm cluster")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(block, f"README.md python example {index}", "exec"), {})
    finally:
        os.chdir(cwd)
