//! `boids bench` run as a child process, for the modes that time several runs apart
//! (`--compare`, `--scaling`): the child gets this process's bench flags, less the mode's own,
//! plus what each run sets, and answers with its `--json` report.
//!
//! Runs apart, not in one process: the thread pool's size is fixed once per process, each build
//! of a comparison is its own binary, and a fresh process starts every run from the same memory
//! state.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// The flags this process was given after `bench`, less `dropped` (flags with a value, given as
/// `--flag V` or `--flag=V`) and `switches` (flags without one).
pub fn forwarded_args(dropped: &[&str], switches: &[&str]) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        if dropped.contains(&text.as_ref()) {
            args.next();
            continue;
        }
        let dropped_with_value = dropped
            .iter()
            .any(|flag| text.starts_with(&format!("{flag}=")));
        if dropped_with_value || switches.contains(&text.as_ref()) {
            continue;
        }
        out.push(arg);
    }
    out
}

/// Runs `binary` with `args` and `--json`, and returns its report.
pub fn report(binary: &Path, args: &[OsString]) -> Result<Value> {
    let out = Command::new(binary)
        .args(args)
        .arg("--json")
        .output()
        .with_context(|| format!("cannot run {}", binary.display()))?;
    if !out.status.success() {
        bail!(
            "{} failed ({}): {}",
            binary.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    serde_json::from_slice(&out.stdout).with_context(|| {
        format!(
            "{} printed no bench report (is it a boids binary with `bench --json`?)",
            binary.display()
        )
    })
}
