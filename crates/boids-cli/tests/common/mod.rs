//! Running the real `boids` binary from the integration tests, and what every refusal must look
//! like: exit code 2, one `error:` message naming the value, the system's cause at most once, no
//! temporary file named, no panic or backtrace.

// Each test file uses the helpers it needs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `boids ARGS`.
pub fn boids(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_boids"))
        .args(args)
        .output()
        .expect("the boids binary runs")
}

/// Runs `boids ARGS`, failing the test if it has not ended within a minute (a hung command).
pub fn finished(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_boids"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("boids {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Runs `boids ARGS`, which must succeed; returns its standard output.
pub fn ok(args: &[&str]) -> String {
    let out = boids(args);
    assert!(
        out.status.success(),
        "boids {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Runs `boids ARGS`, which must be refused with a message naming each of `expected`; returns
/// the message.
pub fn refused(args: &[&str], expected: &[&str]) -> String {
    check_refused(args, &boids(args), expected)
}

/// Checks that `out`, the output of `boids ARGS`, is a refusal naming each of `expected`.
pub fn check_refused(args: &[&str], out: &Output, expected: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "boids {args:?}: {stderr}");
    assert!(stderr.starts_with("error:"), "boids {args:?}: {stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "boids {args:?}: {stderr}"
    );
    assert!(
        stderr.matches("os error").count() <= 1,
        "boids {args:?}: the cause is repeated: {stderr}"
    );
    assert!(
        !stderr.contains(".boids-"),
        "boids {args:?}: names a temporary file: {stderr}"
    );
    for e in expected {
        assert!(
            stderr.contains(e),
            "boids {args:?}: expected {e:?} in: {stderr}"
        );
    }
    stderr
}

/// A temporary directory for a test's files, removed when dropped.
pub struct Dir(tempfile::TempDir);

impl Dir {
    /// A new empty directory.
    pub fn new() -> Self {
        Dir(tempfile::tempdir().unwrap())
    }
    /// The path of `name` in it.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
    /// The path of `name` in it, as a string for an argument.
    pub fn s(&self, name: &str) -> String {
        self.path(name).to_str().unwrap().to_owned()
    }
    /// Writes `text` to `name` in it; returns the path as a string.
    pub fn write(&self, name: &str, text: &str) -> String {
        std::fs::write(self.path(name), text).unwrap();
        self.s(name)
    }
    /// The names of the files in it, sorted.
    pub fn files(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.0.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }
}

/// The text of a file.
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The workspace's root directory.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace")
}

/// For a test that needs a tool this machine lacks: says why and lets the test pass, except under
/// `CI=true`, where `.ci/run` has installed every tool and the same message fails the test.
pub fn skip_unless_ci(message: &str) {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{message}; CI=true, so this is a failure, not a skip"
    );
    eprintln!("skipped: {message}");
}
