//! How outputs reach the disk, through the real binary: links are followed, FIFOs and devices are
//! written in place, `-` is standard output, sidecars are checked like any output, a run's
//! outputs appear together or not at all, a signal leaves nothing behind, and every failure names
//! the flag and the target.

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{boids, check_refused, finished, refused};

/// Runs `boids ARGS`, which must succeed.
fn succeeded(args: &[&str]) -> Output {
    let out = boids(args);
    assert!(
        out.status.success(),
        "boids {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// Whether a test that needs root (mknod, mount) may skip: only outside CI.
fn skip_without(what: &str, error: impl std::fmt::Display) -> bool {
    assert!(
        std::env::var("CI").is_err(),
        "CI must run this test, but {what} failed: {error}"
    );
    eprintln!("skipped: {what} failed ({error}); run as root to test this");
    true
}

/// A character device like /dev/null (1, 3) or /dev/full (1, 7), made inside `dir` so that a
/// broken build could never replace the machine's own.
fn char_device(dir: &Path, name: &str, minor: u32) -> Option<PathBuf> {
    let path = dir.join(name);
    let made = Command::new("mknod")
        .args([s(&path), "c", "1", &minor.to_string()])
        .output();
    match made {
        Ok(out) if out.status.success() => Some(path),
        Ok(out) => {
            skip_without("mknod", String::from_utf8_lossy(&out.stderr));
            None
        }
        Err(e) => {
            skip_without("mknod", e);
            None
        }
    }
}

#[test]
fn a_link_is_followed_and_its_target_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.csv");
    std::fs::write(&real, "old").unwrap();
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink("real.csv", &link).unwrap();
    succeeded(&["run", "--steps", "2", "--count", "5", "--save", s(&link)]);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let text = std::fs::read_to_string(&real).unwrap();
    assert!(text.starts_with("x,y,vx,vy,group,bias\n"), "{text}");
    assert_eq!(text.lines().count(), 6);
    assert_eq!(names(dir.path()), ["link.csv", "real.csv"]);
}

#[test]
fn a_fifo_is_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.csv");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            std::fs::File::open(fifo)
                .unwrap()
                .read_to_string(&mut text)
                .unwrap();
            text
        })
    };
    succeeded(&["run", "--steps", "3", "--count", "4", "--metrics", s(&fifo)]);
    let text = reader.join().unwrap();
    assert!(text.starts_with("step,polarization"), "{text}");
    assert_eq!(text.lines().count(), 5, "a header and steps 0 to 3: {text}");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn a_character_device_is_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let Some(null) = char_device(dir.path(), "null", 3) else {
        return;
    };
    let traj = dir.path().join("t.npz");
    succeeded(&[
        "run",
        "--steps",
        "2",
        "--count",
        "5",
        "--save",
        s(&null),
        "--metrics",
        s(&null),
        "--trajectory",
        s(&traj),
    ]);
    assert!(
        std::fs::metadata(&null)
            .unwrap()
            .file_type()
            .is_char_device()
    );
    assert_eq!(names(dir.path()), ["null", "t.npz", "t.npz.params.toml"]);
}

#[test]
fn dash_is_standard_output_for_text() {
    let out = succeeded(&["run", "--steps", "2", "--count", "3", "--save", "-"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("x,y,vx,vy,group,bias\n"), "{stdout}");
    assert_eq!(stdout.lines().count(), 4, "the state alone: {stdout}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("step 2 of 3 boids"),
        "summary on stderr: {stderr}"
    );

    let out = succeeded(&[
        "run",
        "--steps",
        "2",
        "--count",
        "3",
        "--save",
        "/dev/stdout",
    ]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("x,y,vx,vy,group,bias\n"), "{stdout}");
    assert_eq!(
        stdout.lines().count(),
        4,
        "/dev/stdout is standard output: {stdout}"
    );

    let out = succeeded(&["run", "--steps", "1", "--count", "2", "--trajectory", "-"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().next(), Some("step,id,x,y,vx,vy,group"));
    assert_eq!(stdout.lines().count(), 5);

    refused(
        &["run", "--steps", "1", "--save", "-", "--metrics", "-"],
        &["--save -", "--metrics -", "name the same file"],
    );
    refused(
        &["render", "--steps", "1", "--out", "-"],
        &["--out -", "standard output takes text outputs only"],
    );
}

#[test]
fn sidecars_are_checked_against_inputs_and_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let traj = dir.path().join("t.csv");
    let sidecar = dir.path().join("t.csv.params.toml");
    std::fs::write(&sidecar, "visual_range = 30\n").unwrap();
    refused(
        &[
            "run",
            "--steps",
            "1",
            "--config",
            s(&sidecar),
            "--trajectory",
            s(&traj),
        ],
        &[
            "the parameters of --trajectory",
            "would overwrite the input --config",
        ],
    );
    refused(
        &[
            "run",
            "--steps",
            "1",
            "--save",
            s(&sidecar),
            "--trajectory",
            s(&traj),
        ],
        &[
            "--save",
            "the parameters of --trajectory",
            "name the same file",
        ],
    );
    let csv = dir.path().join("sweep.csv");
    let png = dir.path().join("sweep.png");
    std::fs::copy(&sidecar, &png).unwrap();
    refused(
        &[
            "sweep",
            "--vary",
            "visual_range=20,30",
            "--steps",
            "2",
            "--config",
            s(&png),
            "--out",
            s(&csv),
        ],
        &["the plot of --out", "would overwrite the input --config"],
    );
    assert_eq!(
        std::fs::read_to_string(&sidecar).unwrap(),
        "visual_range = 30\n"
    );
    assert_eq!(names(dir.path()), ["sweep.png", "t.csv.params.toml"]);
}

#[test]
fn outputs_appear_together_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let Some(full) = char_device(dir.path(), "full.csv", 7) else {
        return;
    };
    let save = dir.path().join("state.csv");
    std::fs::write(&save, "old").unwrap();
    refused(
        &[
            "run",
            "--steps",
            "2",
            "--count",
            "5",
            "--save",
            s(&save),
            "--trajectory",
            s(&full),
        ],
        &[
            &format!("--trajectory {}: cannot write", s(&full)),
            "No space left on device",
        ],
    );
    assert_eq!(
        std::fs::read_to_string(&save).unwrap(),
        "old",
        "--save kept"
    );
    assert_eq!(names(dir.path()), ["full.csv", "state.csv"]);
}

/// A small file system that fills up, mounted for the test (needs root).
struct SmallDisk(tempfile::TempDir);

impl SmallDisk {
    /// A 256 KiB disk; `read_only` mounts it read-only.
    fn mount(read_only: bool) -> Option<Self> {
        let dir = tempfile::tempdir().unwrap();
        let options = if read_only {
            "ro,size=256k"
        } else {
            "size=256k"
        };
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs", s(dir.path())])
            .output();
        match out {
            Ok(out) if out.status.success() => Some(Self(dir)),
            Ok(out) => {
                skip_without("mount -t tmpfs", String::from_utf8_lossy(&out.stderr));
                None
            }
            Err(e) => {
                skip_without("mount -t tmpfs", e);
                None
            }
        }
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0.path()).status();
    }
}

#[test]
fn a_full_disk_names_the_flag_and_leaves_nothing() {
    let Some(disk) = SmallDisk::mount(false) else {
        return;
    };
    let dir = disk.0.path();
    for (flag, name) in [
        ("--save", "s.csv"),
        ("--trajectory", "t.npz"),
        ("--trajectory", "t.csv"),
    ] {
        let path = dir.join(name);
        refused(
            &["run", "--steps", "3", "--count", "20000", flag, s(&path)],
            &[
                &format!("{flag} {}: cannot write", s(&path)),
                "No space left on device",
            ],
        );
        assert_eq!(names(dir), Vec::<String>::new(), "{flag} left files behind");
    }
}

#[test]
fn paths_that_cannot_be_outputs_are_named_plainly() {
    let dir = tempfile::tempdir().unwrap();
    refused(
        &["run", "--steps", "1", "--save", "."],
        &["--save .", "is a directory"],
    );
    let missing = dir.path().join("no/such/out.csv");
    refused(
        &["run", "--steps", "1", "--metrics", s(&missing)],
        &["--metrics", "does not exist"],
    );
    let file = dir.path().join("file");
    std::fs::write(&file, "").unwrap();
    refused(
        &["run", "--steps", "1", "--save", s(&file.join("out.csv"))],
        &["--save", "Not a directory"],
    );
}

#[test]
fn a_name_ending_in_a_slash_is_refused_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let slashed = |name: &str| format!("{}/", s(&dir.path().join(name)));
    let (save, metrics, png, csv) = (
        slashed("x.csv"),
        slashed("m.csv"),
        slashed("r.png"),
        slashed("s.csv"),
    );
    let sweep = [
        "sweep",
        "--set",
        "count=5",
        "--vary",
        "noise=0,1",
        "--steps",
        "2",
        "--every",
        "1",
    ];
    for (args, flag) in [
        (vec!["run", "--steps", "3", "--save", &save], "--save"),
        (
            vec!["run", "--steps", "3", "--metrics", &metrics],
            "--metrics",
        ),
        (vec!["render", "--steps", "1", "--out", &png], "--out"),
        ([&sweep[..], &["--out", &csv]].concat(), "--out"),
    ] {
        let out = finished(&args);
        check_refused(&args, &out, &[flag, "names a directory"]);
        assert_eq!(
            names(dir.path()),
            Vec::<String>::new(),
            "{args:?} left files"
        );
    }
}

#[test]
fn a_read_only_file_is_not_replaced() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("kept.csv");
    std::fs::write(&file, "old").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
    refused(
        &["run", "--steps", "1", "--save", s(&file)],
        &[&format!("--save {}", s(&file)), "is read-only"],
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "old");
    assert_eq!(names(dir.path()), ["kept.csv"]);
}

/// Another user's file that this user may not write, in a directory anyone may write, is not
/// replaced: renaming over it would take it from its owner. Run as root, the test makes the file
/// root's and runs the command as `nobody` through `setpriv`.
#[test]
fn another_users_file_that_this_user_may_not_write_is_not_replaced() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let file = dir.path().join("kept.csv");
    std::fs::write(&file, "old").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let owner = std::fs::metadata(&file).unwrap().uid();
    if owner != 0 {
        skip_without("running as root", format!("this user is {owner}"));
        return;
    }
    let args = ["run", "--steps", "1", "--save", s(&file)];
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_boids"))
        .args(args)
        .output();
    let out = match out {
        Ok(out) => out,
        Err(e) => {
            skip_without("setpriv", e);
            return;
        }
    };
    let stderr = check_refused(
        &args,
        &out,
        &[
            &format!("--save {}", s(&file)),
            "belongs to user 0 (mode 0644) and this user may not write it",
        ],
    );
    assert!(!stderr.contains("setpriv"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "old");
    assert_eq!(std::fs::metadata(&file).unwrap().uid(), 0);
    assert_eq!(names(dir.path()), ["kept.csv"]);
}

#[test]
fn step_numbers_never_wrap() {
    refused(
        &[
            "run",
            "--steps",
            "5",
            "--start-step",
            "18446744073709551615",
        ],
        &[
            "--start-step 18446744073709551615",
            "--steps 5",
            "18446744073709551615",
        ],
    );
}

/// Starts a long run writing into `dir`, waits until its temporary output exists, sends
/// `signal`, and returns the exit code and stderr.
fn interrupt(dir: &Path, signal: &str) -> (Option<i32>, String) {
    let traj = dir.join("long.npz");
    let save = dir.join("final.csv");
    let child = Command::new(env!("CARGO_BIN_EXE_boids"))
        .args(["run", "--steps", "1000000000", "--count", "200"])
        .args([
            "--trajectory",
            s(&traj),
            "--save",
            s(&save),
            "--every",
            "1000",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !names(dir).iter().any(|n| n.starts_with(".boids-")) {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no output started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_signal_removes_unfinished_outputs() {
    for (signal, code, name) in [
        ("-INT", 130, "SIGINT"),
        ("-TERM", 143, "SIGTERM"),
        ("-HUP", 129, "SIGHUP"),
        ("-QUIT", 131, "SIGQUIT"),
        ("-USR1", 138, "SIGUSR1"),
        ("-ALRM", 142, "SIGALRM"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (status, stderr) = interrupt(dir.path(), signal);
        assert_eq!(status, Some(code), "{stderr}");
        assert!(
            stderr.contains(&format!("interrupted by {name}")),
            "{stderr}"
        );
        assert_eq!(names(dir.path()), Vec::<String>::new(), "left behind");
    }
}

#[test]
fn a_read_only_directory_is_named_not_a_temporary_file() {
    let Some(disk) = SmallDisk::mount(true) else {
        return;
    };
    let path = disk.0.path().join("out.csv");
    refused(
        &["run", "--steps", "1", "--save", s(&path)],
        &[
            &format!("--save {}: cannot create a temporary directory", s(&path)),
            "read-only",
        ],
    );
}
