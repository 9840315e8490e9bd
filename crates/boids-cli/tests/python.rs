//! The Python package's own tests (`python/tests`, pytest), run by the README's one test
//! command. The test installs the package from this checkout into the virtual environment
//! `target/python-venv` (`pip install ./python`: maturin builds it in a target directory of its
//! own, as cargo holds the workspace's while tests run), then runs pytest with this build's
//! `boids` binary, which the suite compares Python's numbers with.
//!
//! Without that environment (or without maturin, pytest, numpy, pandas or Dask in it) the test
//! says how to make it and passes, so a checkout without Python still tests the rest; under
//! `CI=true` it fails instead (`.ci/run` makes the environment).

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{skip_unless_ci, workspace};

/// What the Python suite needs in its environment.
const MODULES: &str = "maturin, pytest, numpy, pandas, distributed";

/// Why the environment `venv` cannot run the suite, if it cannot.
fn missing(venv: &Path) -> Option<String> {
    let python = venv.join("bin/python");
    if !python.exists() {
        return Some(format!("no virtual environment at {}", venv.display()));
    }
    let imports = Command::new(&python)
        .args(["-c", &format!("import {MODULES}")])
        .output();
    match imports {
        Ok(out) if out.status.success() => None,
        Ok(out) => Some(format!(
            "{} lacks a module the tests need ({MODULES}): {}",
            venv.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => Some(format!("cannot run {}: {e}", python.display())),
    }
}

fn show(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn the_python_package_passes_its_tests() {
    let root = workspace();
    let venv = root.join("target/python-venv");
    if let Some(reason) = missing(&venv) {
        let message = format!(
            "the Python tests did not run: {reason}. Make the environment with\n  python3 -m venv target/python-venv\n  target/python-venv/bin/pip install maturin pytest numpy pandas \"dask[distributed]\""
        );
        skip_unless_ci(&message);
        return;
    }
    let python = venv.join("bin/python");
    // maturin's build hook calls the `maturin` of the environment by name.
    let path = std::env::join_paths(std::iter::once(venv.join("bin")).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("a PATH");
    let install = Command::new(&python)
        .env("PATH", &path)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args([
            "--no-build-isolation",
            "--no-deps",
            "--force-reinstall",
            "./python",
        ])
        .env("CARGO_TARGET_DIR", root.join("target/python-build"))
        // The package has the GPU engine when this suite was built with it.
        .env(
            "MATURIN_PEP517_ARGS",
            if cfg!(feature = "gpu") {
                "--features gpu"
            } else {
                ""
            },
        )
        .current_dir(&root)
        .output()
        .expect("pip runs");
    assert!(
        install.status.success(),
        "pip install ./python failed:\n{}",
        show(&install)
    );
    let tests = Command::new(&python)
        .args([
            "-m",
            "pytest",
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            "python/tests",
        ])
        .env("BOIDS_BIN", env!("CARGO_BIN_EXE_boids"))
        .current_dir(&root)
        .output()
        .expect("pytest runs");
    let report = show(&tests);
    assert!(tests.status.success(), "the Python tests failed:\n{report}");
    let summary = report.lines().rev().find(|l| l.contains("passed"));
    eprintln!("python/tests: {}", summary.unwrap_or("passed"));
    assert!(
        !report.contains("no boids binary"),
        "the Python tests skipped the comparisons with the command:\n{report}"
    );
}
