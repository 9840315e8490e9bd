"""The Python examples of the README's "From Python" section run as written (except the Slurm
one: no Slurm here). Other sections' Python snippets read files of the command's runs."""

import os
import re


def python_blocks(readme):
    section = readme.split("\n## From Python\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_readme_has_python_examples(readme):
    blocks = python_blocks(readme)
    assert len(blocks) >= 4
    assert any("dask_jobqueue" in block for block in blocks)


def test_every_readme_python_example_runs(readme, tmp_path):
    examples = [b for b in python_blocks(readme) if "dask_jobqueue" not in b]
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
