"""Shared fixtures: the `boids` command (for the comparisons with the CLI), and the README and the
guide's chapters (for their examples)."""

import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def boids_bin():
    """The `boids` binary: $BOIDS_BIN (the Rust test that runs this suite sets it), else the
    release build of this checkout."""
    path = pathlib.Path(os.environ.get("BOIDS_BIN", REPO / "target" / "release" / "boids"))
    if not path.exists():
        pytest.skip(f"no boids binary at {path}: build it with `cargo build --release` or set BOIDS_BIN")
    return path


@pytest.fixture(scope="session")
def cli(boids_bin):
    """Runs `boids ARGS...` and returns its completed process (raising on a non-zero exit)."""

    def run(*args, cwd=None):
        done = subprocess.run([str(boids_bin), *map(str, args)], capture_output=True, text=True, cwd=cwd)
        assert done.returncode == 0, done.stderr
        return done

    return run


@pytest.fixture(scope="session")
def document():
    """Reads the README (`document("README.md")`) or a chapter of the guide
    (`document("python.md")`, from docs/src)."""

    def read(name):
        path = REPO / name if name == "README.md" else REPO / "docs" / "src" / name
        return path.read_text()

    return read
