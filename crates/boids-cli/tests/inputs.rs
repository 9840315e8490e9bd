//! The files a flag names are read with care (issue 18): endless or huge inputs, directories,
//! non-UTF-8 text and duplicate columns are refused with a message naming the flag and the path.
//!
//! Each command runs under a 4 GiB address-space limit, so a regression that reads `/dev/zero`
//! to the end fails the test quickly instead of taking the machine's memory.

use std::process::{Command, Output};

mod common;

/// Runs `boids ARGS` under the address-space limit.
fn boids(args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -v 4194304 && exec "$0" "$@""#)
        .arg(env!("CARGO_BIN_EXE_boids"))
        .args(args)
        .output()
        .expect("the boids binary runs")
}

/// Runs `boids ARGS` under the limit; it must be refused naming each of `expected`.
fn refused(args: &[&str], expected: &[&str]) -> String {
    common::check_refused(args, &boids(args), expected)
}

#[test]
fn endless_config_is_refused_at_its_limit() {
    refused(
        &["run", "--config", "/dev/zero", "--steps", "0"],
        &["--config /dev/zero: larger than 16 MiB, the most --config accepts"],
    );
}

#[test]
fn endless_event_log_is_refused_at_its_limit() {
    refused(
        &["run", "--events", "/dev/zero", "--steps", "0"],
        &["--events /dev/zero", "larger than 64 MiB"],
    );
}

#[test]
fn endless_state_file_is_refused_at_its_first_line() {
    refused(
        &["run", "--init", "/dev/zero", "--steps", "0"],
        &[
            "--init /dev/zero",
            "line 1 is longer than 64 KiB: not a state file",
        ],
    );
}

#[test]
fn directories_missing_files_and_binary_text_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for flag in ["--config", "--init"] {
        refused(
            &["run", flag, d, "--steps", "0"],
            &[&format!("{flag} {d}: is a directory")],
        );
        let missing = format!("{d}/missing");
        let err = refused(
            &["run", flag, &missing, "--steps", "0"],
            &[&format!("{flag} {missing}: cannot open: ")],
        );
        // The operating system's cause is printed once, not once per layer.
        assert_eq!(err.matches("os error 2").count(), 1, "{err}");
    }
    let binary = dir.path().join("binary.toml");
    std::fs::write(&binary, b"count = 10\nmargin = \"\xff\"\n").unwrap();
    let binary = binary.to_str().unwrap();
    refused(
        &["run", "--config", binary, "--steps", "0"],
        &[&format!("--config {binary}, line 2: not UTF-8 text")],
    );
}

#[test]
fn large_state_files_still_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.csv");
    let mut text = String::from("x,y,vx,vy\n");
    for i in 0..20_000 {
        text.push_str(&format!("{}.5,{}.25,1,-1\n", i % 600, i % 400));
    }
    std::fs::write(&path, text).unwrap();
    let out = boids(&["run", "--init", path.to_str().unwrap(), "--steps", "0"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn duplicate_columns_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dup.csv");
    std::fs::write(&path, "x,x,y,vx,vy\n1,2,3,4,5\n").unwrap();
    let path = path.to_str().unwrap();
    refused(
        &["run", "--init", path, "--steps", "0"],
        &[&format!(
            "--init {path}, line 1: column `x` appears 2 times (columns 1, 2)"
        )],
    );
}
