//! The results of every preset, pinned: the saved state after 200 steps (default count, seed 0)
//! must hash to the value recorded here, on one thread and on two; and so must the presets run
//! in three dimensions (`--set dimensions=3`).
//!
//! A change that alters a preset's results fails this test on purpose. If the change is meant
//! (a fixed rule, a new summing order), update the hashes in the same commit and say in its
//! message why the results changed. To print the current hashes:
//!
//! ```sh
//! for p in $(target/release/boids presets | cut -d' ' -f1); do
//!   echo "$p $(target/release/boids run --preset $p --steps 200 --save - 2>/dev/null | sha256sum | cut -c1-16)"
//! done
//! ```

use std::process::Command;

use sha2::{Digest, Sha256};

/// Preset and the first 16 hex digits of the SHA-256 of its saved state after 200 steps.
const PINNED: [(&str, &str); 10] = [
    ("cornell", "a9f0bebc60e71761"),
    ("functional", "356ee3afa94d6a5a"),
    ("canvas", "1fdf67643e638cef"),
    ("allegheny", "b022e4019666f286"),
    ("occoids", "9ef0cdbfe2ff719d"),
    ("vicsek", "7682ab16cf598986"),
    ("couzin", "27eecc55153f4097"),
    ("predator", "3b46971ba91ddd90"),
    ("pillars", "62162eb0437c1b9e"),
    ("perching", "0e3b8d3835ffc6e1"),
];

/// Preset, its parameters set in three dimensions, and the hash of its saved state after 200
/// steps. The three-dimensional presets need no setting; the murmuration runs a tenth of its
/// birds here, to keep the test short (the core's `tests/presets_3d.rs` pins its full flock).
const PINNED_3D: [(&str, &[&str], &str); 4] = [
    ("cornell", &["--set", "dimensions=3"], "e9ada623dec26f72"),
    ("vicsek3d", &[], "7c6a3437806716e3"),
    ("murmuration", &["--set", "count=2000"], "9abd4bc26731ac43"),
    ("couzin2002", &[], "db36708344f2f81a"),
];

fn saved_state_hash(preset: &str, set: &[&str], threads: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_boids"))
        .args(["run", "--preset", preset, "--steps", "200", "--save", "-"])
        .args(set)
        .args(["--threads", threads])
        .output()
        .expect("the boids binary runs");
    assert!(
        out.status.success(),
        "{preset}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let digest = Sha256::digest(&out.stdout);
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn every_preset_gives_its_pinned_result_on_one_and_two_threads() {
    let listed = Command::new(env!("CARGO_BIN_EXE_boids"))
        .arg("presets")
        .output()
        .unwrap();
    let listed = String::from_utf8(listed.stdout).unwrap();
    let names: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    // Every preset, once: those pinned in two dimensions, then the three-dimensional ones.
    let mut pinned: Vec<&str> = PINNED.iter().map(|(p, _)| *p).collect();
    for (preset, ..) in PINNED_3D {
        if !pinned.contains(&preset) {
            pinned.push(preset);
        }
    }
    assert_eq!(names, pinned, "every preset is pinned");
    for (preset, expected) in PINNED {
        for threads in ["1", "2"] {
            assert_eq!(
                saved_state_hash(preset, &[], threads),
                expected,
                "{preset} on {threads} thread(s): results changed"
            );
        }
    }
}

#[test]
fn three_dimensional_presets_give_their_pinned_result_on_one_and_two_threads() {
    for (preset, set, expected) in PINNED_3D {
        for threads in ["1", "2"] {
            assert_eq!(
                saved_state_hash(preset, set, threads),
                expected,
                "{preset} {set:?} on {threads} thread(s): results changed"
            );
        }
    }
}
