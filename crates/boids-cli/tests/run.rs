//! `boids run`, `boids presets` and `boids params` through the real binary.

use std::process::Command;

mod common;

use common::{Dir, ok, read, refused, skip_unless_ci};

#[test]
fn presets_and_params_describe_every_model_and_knob() {
    let list = ok(&["presets"]);
    for name in ["cornell", "functional", "canvas", "allegheny", "occoids"] {
        assert!(
            list.lines().any(|l| l.starts_with(name)),
            "{name} missing from:\n{list}"
        );
    }
    assert!(ok(&["presets", "--long"]).contains("seed 004"));
    let table = ok(&["params", "--preset", "cornell"]);
    for (name, value) in [
        ("visual_range", "40.0"),
        ("protected_range", "8.0"),
        ("turnfactor", "0.2"),
        ("bias_increment", "0.00004"),
    ] {
        let line = table
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} missing"));
        assert!(line.contains(value), "{line}");
    }
    let dir = Dir::new();
    let config = dir.write(
        "c.toml",
        &ok(&[
            "params", "--preset", "occoids", "--set", "count=77", "--toml",
        ]),
    );
    let table = ok(&["params", "--preset", "cornell", "--config", &config]);
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("count") && l.contains("77")),
        "{table}"
    );
}

#[test]
fn outputs_have_the_documented_shape() {
    let dir = Dir::new();
    let (state, metrics, traj_csv) = (dir.s("state.csv"), dir.s("m.csv"), dir.s("t.csv"));
    ok(&[
        "run",
        "--preset",
        "cornell",
        "--count",
        "120",
        "--steps",
        "40",
        "--every",
        "10",
        "--save",
        &state,
        "--metrics",
        &metrics,
        "--trajectory",
        &traj_csv,
    ]);
    let state = read(&dir.path("state.csv"));
    assert_eq!(state.lines().next(), Some("x,y,vx,vy,group,bias"));
    assert_eq!(state.lines().count(), 121);
    let metrics = read(&dir.path("m.csv"));
    let header: Vec<&str> = metrics.lines().next().unwrap().split(',').collect();
    assert_eq!(
        &header[..7],
        [
            "step",
            "polarization",
            "milling",
            "mean_speed",
            "mean_neighbors",
            "nearest_neighbor_distance",
            "flocks"
        ]
    );
    assert!(header.contains(&"share_right_group1"));
    let steps: Vec<&str> = metrics
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(steps, ["0", "10", "20", "30", "40"]);
    let trajectory = read(&dir.path("t.csv"));
    assert_eq!(trajectory.lines().next(), Some("step,id,x,y,vx,vy,group"));
    assert_eq!(trajectory.lines().count(), 1 + 5 * 120);
    let sidecar = read(&dir.path("t.csv.params.toml"));
    assert!(
        sidecar.contains("count = 120") && sidecar.contains("# seed = 0"),
        "{sidecar}"
    );
}

/// The summary's metrics are those of the final step: the file's last row when the file has
/// that step, measured afresh when it does not.
#[test]
fn the_summary_reports_the_final_step() {
    let dir = Dir::new();
    let polarization = |every: &str| {
        let metrics = dir.s(&format!("m{every}.csv"));
        let args = ["run", "--count", "200", "--steps", "20", "--every", every];
        let stdout = ok(&[&args[..], &["--metrics", &metrics]].concat());
        let summary: f64 = stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix("polarization"))
            .expect("a polarization line")
            .trim()
            .parse()
            .unwrap();
        let file = read(&dir.path(&format!("m{every}.csv")));
        let last: Vec<String> = file
            .lines()
            .last()
            .unwrap()
            .split(',')
            .map(String::from)
            .collect();
        (summary, last[0].clone(), last[1].parse::<f64>().unwrap())
    };
    let (summary, step, row) = polarization("10");
    assert_eq!(step, "20");
    assert!(
        (summary - row).abs() < 1e-6,
        "{summary} against the row's {row}"
    );
    let (fresh, step, stale) = polarization("7");
    assert_eq!(step, "14");
    assert!(
        (fresh - summary).abs() < 1e-6,
        "step 20 again: {fresh} against {summary}"
    );
    assert!(
        (fresh - stale).abs() > 1e-6,
        "step 20 is not step 14: {fresh}"
    );
}

#[test]
fn npz_trajectory_holds_frames_steps_and_parameters() {
    let dir = Dir::new();
    let path = dir.s("t.npz");
    ok(&[
        "run",
        "--preset",
        "occoids",
        "--count",
        "50",
        "--steps",
        "20",
        "--every",
        "5",
        "--seed",
        "4",
        "--trajectory",
        &path,
    ]);
    let mut npz = npyz::npz::NpzArchive::open(&path).unwrap();
    let states = npz.by_name("states").unwrap().unwrap();
    assert_eq!(states.shape(), &[5, 50, 4]);
    let states: Vec<f32> = states.into_vec().unwrap();
    assert!(states.iter().all(|x| x.is_finite()) && states.iter().any(|&x| x != 0.0));
    let steps: Vec<u64> = npz.by_name("steps").unwrap().unwrap().into_vec().unwrap();
    assert_eq!(steps, [0, 5, 10, 15, 20]);
    let seed: Vec<u64> = npz.by_name("seed").unwrap().unwrap().into_vec().unwrap();
    assert_eq!(seed, [4]);
    let toml: Vec<u8> = npz
        .by_name("params_toml")
        .unwrap()
        .unwrap()
        .into_vec()
        .unwrap();
    assert!(String::from_utf8(toml).unwrap().contains("count = 50"));
    numpy_loads(&path);
}

#[test]
fn equal_runs_write_equal_npz_bytes_whenever_they_run() {
    let dir = Dir::new();
    let run = |name: &str| {
        let path = dir.s(name);
        ok(&[
            "run",
            "--preset",
            "occoids",
            "--count",
            "30",
            "--steps",
            "4",
            "--trajectory",
            &path,
        ]);
        std::fs::read(&path).unwrap()
    };
    let first = run("a.npz");
    // The zip format dates its members to two seconds: a run dated by the clock would differ.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let second = run("b.npz");
    assert!(first == second, "two equal runs wrote different archives");
}

/// numpy itself reads the archive (skipped without numpy, except under CI).
fn numpy_loads(path: &str) {
    let script = "import sys, numpy as np; f = np.load(sys.argv[1]); print(f['states'].shape, f['steps'].tolist())";
    match Command::new("python3").args(["-c", script, path]).output() {
        Ok(out) if out.status.success() => {
            assert_eq!(
                String::from_utf8_lossy(&out.stdout).trim(),
                "(5, 50, 4) [0, 5, 10, 15, 20]"
            );
        }
        other => {
            skip_unless_ci(&format!(
                "the numpy check: python3 with numpy is not available: {other:?}"
            ));
        }
    }
}

#[test]
fn save_then_resume_equals_an_uninterrupted_run() {
    let dir = Dir::new();
    let (straight, half, resumed) = (
        dir.s("straight.csv"),
        dir.s("half.csv"),
        dir.s("resumed.csv"),
    );
    let flock = ["--preset", "occoids", "--count", "400", "--seed", "8"];
    ok(&[&["run", "--steps", "240", "--save", &straight][..], &flock].concat());
    ok(&[&["run", "--steps", "120", "--save", &half][..], &flock].concat());
    ok(&[
        "run",
        "--preset",
        "occoids",
        "--seed",
        "8",
        "--init",
        &half,
        "--start-step",
        "120",
        "--steps",
        "120",
        "--save",
        &resumed,
    ]);
    assert_eq!(
        read(&dir.path("resumed.csv")),
        read(&dir.path("straight.csv"))
    );
}

#[test]
fn loading_and_saving_round_trips_numbers_exactly() {
    let dir = Dir::new();
    let init = dir.write("in.csv", "x,y,vx,vy,group,bias,comment\n0.1,200.33333,3.0000002,-1e-7,1,0.0013,a\n639.99994,1,2,2,0,0,b\n");
    let out = dir.s("out.csv");
    ok(&["run", "--init", &init, "--steps", "0", "--save", &out]);
    assert_eq!(
        read(&dir.path("out.csv")),
        "x,y,vx,vy,group,bias\n0.1,200.33333,3.0000002,-0.0000001,1,0.0013\n639.99994,1,2,2,0,0\n"
    );
}

#[test]
fn save_then_resume_equals_an_uninterrupted_run_in_3d() {
    let dir = Dir::new();
    let (straight, half, resumed) = (
        dir.s("straight.csv"),
        dir.s("half.csv"),
        dir.s("resumed.csv"),
    );
    let flock = ["--set", "dimensions=3", "--count", "300", "--seed", "5"];
    ok(&[&["run", "--steps", "100", "--save", &straight][..], &flock].concat());
    ok(&[&["run", "--steps", "50", "--save", &half][..], &flock].concat());
    let resume = ["--init", &half, "--start-step", "50", "--steps", "50"];
    ok(&[
        &["run", "--save", &resumed][..],
        &flock[..2],
        &flock[4..],
        &resume,
    ]
    .concat());
    let straight = read(&dir.path("straight.csv"));
    assert!(straight.starts_with("x,y,z,vx,vy,vz,group,bias\n"));
    assert_ne!(straight, read(&dir.path("half.csv")));
    assert_eq!(read(&dir.path("resumed.csv")), straight);
}

#[test]
fn loading_and_saving_round_trips_numbers_exactly_in_3d() {
    let dir = Dir::new();
    let text =
        "x,y,z,vx,vy,vz,group,bias\n0.1,200.33333,479.99997,3.0000002,-0.0000001,1e-7,1,0.0013\n";
    let init = dir.write("in.csv", text);
    let out = dir.s("out.csv");
    let run = ["run", "--set", "dimensions=3", "--init", &init];
    ok(&[&run[..], &["--steps", "0", "--save", &out]].concat());
    assert_eq!(
        read(&dir.path("out.csv")),
        text.replace("1e-7", "0.0000001")
    );
}

#[test]
fn a_state_of_the_other_dimension_is_refused_with_its_columns() {
    let dir = Dir::new();
    let flat = dir.write("flat.csv", "x,y,vx,vy,group\n1,2,3,4,0\n");
    let deep = dir.write("deep.csv", "x,y,z,vx,vy,vz\n1,2,3,4,5,6\n");
    let out = dir.s("out.csv");
    let run = |init: &str, dimensions: &str| {
        let set = format!("dimensions={dimensions}");
        [
            "run", "--set", &set, "--init", init, "--steps", "1", "--save", &out,
        ]
        .map(String::from)
    };
    let args = run(&flat, "3");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    refused(
        &args,
        &[
            &format!("--init {flat}"),
            "a 2D state (columns x, y, vx, vy, group)",
            "3D run (dimensions = 3)",
            "x, y, z, vx, vy, vz",
        ],
    );
    let args = run(&deep, "2");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    refused(
        &args,
        &[
            &format!("--init {deep}"),
            "a 3D state (columns x, y, z, vx, vy, vz)",
            "2D run (dimensions = 2)",
            "--set dimensions=3",
        ],
    );
    let half = dir.write("half.csv", "x,y,z,vx,vy\n1,2,3,4,5\n");
    refused(
        &[
            "run",
            "--set",
            "dimensions=3",
            "--init",
            &half,
            "--steps",
            "1",
        ],
        &["missing column `vz`", "required: x, y, z, vx, vy, vz"],
    );
    assert!(!dir.path("out.csv").exists());
}

#[test]
fn trajectories_carry_z_in_3d() {
    let dir = Dir::new();
    let (csv, npz) = (dir.s("t.csv"), dir.s("t.npz"));
    let flock = [
        "run",
        "--set",
        "dimensions=3",
        "--count",
        "7",
        "--steps",
        "4",
    ];
    ok(&[&flock[..], &["--every", "2", "--trajectory", &csv]].concat());
    ok(&[&flock[..], &["--every", "2", "--trajectory", &npz]].concat());
    let text = read(&dir.path("t.csv"));
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("step,id,x,y,z,vx,vy,vz,group"));
    assert_eq!(lines.clone().count(), 3 * 7);
    assert!(lines.all(|l| l.split(',').count() == 9));
    let mut archive = npyz::npz::NpzArchive::open(&npz).unwrap();
    let states = archive.by_name("states").unwrap().unwrap();
    assert_eq!(states.shape(), &[3, 7, 6]);
    let states: Vec<f32> = states.into_vec().unwrap();
    let first_csv_row: Vec<f32> = text
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .skip(2)
        .take(6)
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(states[..6], first_csv_row[..]);
}

#[test]
fn thread_count_does_not_change_the_result() {
    let dir = Dir::new();
    let (one, two) = (dir.s("one.csv"), dir.s("two.csv"));
    let flock = ["--preset", "cornell", "--count", "6000", "--steps", "30"];
    ok(&[&["run", "--threads", "1", "--save", &one][..], &flock].concat());
    ok(&[&["run", "--threads", "2", "--save", &two][..], &flock].concat());
    assert_eq!(read(&dir.path("one.csv")), read(&dir.path("two.csv")));
}

#[test]
fn bad_parameters_are_refused_with_value_range_and_source() {
    refused(
        &["run", "--preset", "starling", "--steps", "1"],
        &[
            "unknown preset `starling`",
            "cornell, functional, canvas, allegheny, occoids",
        ],
    );
    refused(
        &["run", "--set", "visual_rang=3", "--steps", "1"],
        &[
            "visual_rang",
            "did you mean `visual_range`",
            "protected_range",
        ],
    );
    refused(
        &["run", "--set", "avoid_factor=nan", "--steps", "1"],
        &[
            "avoid_factor",
            "NaN",
            "allowed range is [0, 1000]",
            "--set avoid_factor=nan",
        ],
    );
    refused(
        &["run", "--set", "max_speed=-2", "--steps", "1"],
        &["max_speed", "-2", "allowed range"],
    );
    refused(
        &["run", "--set", "protected_range=41", "--steps", "1"],
        &["protected_range = 41 must not exceed visual_range = 40"],
    );
    refused(
        &["run", "--set", "min_speed=9", "--steps", "1"],
        &["min_speed = 9 must not exceed max_speed = 6"],
    );
    refused(
        &["run", "--set", "margin=250", "--steps", "1"],
        &["margins cross", "world_height"],
    );
    refused(
        &["run", "--count", "4000000000", "--steps", "1"],
        &["count", "4000000000", "[1, 50000000]", "--count"],
    );
    refused(
        &["run", "--set", "count", "--steps", "1"],
        &["expected KEY=VALUE"],
    );
    let dir = Dir::new();
    let bad = dir.write("bad.toml", "visual_range = 30\nturnfactor = [0.2\n");
    refused(
        &["run", "--config", &bad, "--steps", "1"],
        &["bad.toml", "line 2"],
    );
    let typo = dir.write(
        "typo.toml",
        "# my flock\nvisual_range = 30\ncentring_factor = 0.1\n",
    );
    refused(
        &["run", "--config", &typo, "--steps", "1"],
        &[
            "centring_factor",
            "typo.toml, line 3",
            "did you mean `centering_factor`",
        ],
    );
    refused(
        &["run", "--config", &dir.s("missing.toml"), "--steps", "1"],
        &["--config", "missing.toml: cannot open"],
    );
    refused(&["run", "--steps", "1", "--threads", "0"], &["0"]);
    refused(
        &["run", "--steps", "1", "--trajectory", &dir.s("t.parquet")],
        &["unknown format", ".npz and .csv"],
    );
    assert_eq!(
        dir.files(),
        ["bad.toml", "typo.toml"],
        "no output file may be left behind"
    );
}

#[test]
fn values_a_step_would_overflow_are_refused_with_their_range() {
    refused(
        &[
            "run",
            "--set",
            "model=vicsek",
            "--set",
            "speed=1e38",
            "--steps",
            "50",
        ],
        &[
            "parameter `speed` = 1e38",
            "allowed range is [0, 1e9]",
            "--set speed=1e38",
        ],
    );
    refused(
        &["run", "--set", "wander_weight=1e308", "--steps", "1"],
        &[
            "parameter `wander_weight` = 1e308",
            "allowed range is [0, 1000]",
        ],
    );
    refused(
        &["run", "--set", "attractors=[[1e25, 240.0]]", "--steps", "1"],
        &["parameter `attractors`", "coordinates lie within ±1e9"],
    );
    refused(
        &[
            "run",
            "--set",
            "speed_boost=10",
            "--set",
            "max_speed=inf",
            "--steps",
            "1",
        ],
        &[
            "speed_boost = 10 needs a finite max_speed",
            "--set speed_boost=10",
        ],
    );
    // Infinity stays where it means no limit.
    ok(&["run", "--set", "max_speed=inf", "--steps", "2"]);
}

#[test]
fn a_run_that_diverges_is_refused_naming_the_step_and_the_boid_and_writes_nothing() {
    let dir = Dir::new();
    let (save, metrics) = (dir.s("state.csv"), dir.s("metrics.csv"));
    refused(
        &[
            "run",
            "--preset",
            "allegheny",
            "--count",
            "50",
            "--set",
            "max_speed=inf",
            "--set",
            "matching_factor=1000",
            "--set",
            "steering_gain=1000",
            "--steps",
            "50",
            "--save",
            &save,
            "--metrics",
            &metrics,
        ],
        &[
            "is refused: it would leave boid",
            "not finite numbers",
            "the flock stays at step",
        ],
    );
    assert!(dir.files().is_empty(), "no output: {:?}", dir.files());
}

#[test]
fn bad_state_files_are_refused_with_their_line() {
    let dir = Dir::new();
    let cases = [
        (
            "x,y,vx,vy\n1,2,3,4\n1,2,abc,4\n",
            vec!["line 3", "`vx` = `abc` is not a number"],
        ),
        ("x,y,vx,vy\n1,2,3,inf\n", vec!["line 2", "`vy`", "finite"]),
        ("x,y,vx\n1,2,3\n", vec!["missing column `vy`"]),
        (
            "x,y,vx,vw\n1,2,3,4\n",
            vec!["`vw` looks like a misspelling of `vx`"],
        ),
        (
            "x,y,vx,vy,group\n1,2,3,4,5\n",
            vec!["line 2", "`group` = `5`", "0 (none), 1 (+x) or 2 (-x)"],
        ),
        ("x,y,vx,vy,bias\n1,2,3,4,2\n", vec!["`bias` = 2", "[0, 1]"]),
        ("x,y,vx,vy\n", vec!["no boids"]),
        ("x,y,vx,vy\n1,2,3\n", vec!["malformed row"]),
    ];
    for (i, (text, expected)) in cases.iter().enumerate() {
        let init = dir.write(&format!("in{i}.csv"), text);
        refused(
            &[
                "run",
                "--init",
                &init,
                "--steps",
                "1",
                "--save",
                &dir.s("out.csv"),
            ],
            expected,
        );
    }
    assert!(!dir.path("out.csv").exists());
    let init = dir.write("ok.csv", "x,y,vx,vy\n1,2,3,4\n");
    refused(
        &["run", "--init", &init, "--count", "5", "--steps", "1"],
        &["--count 5 disagrees", "holds 1 boids"],
    );
}

#[test]
fn outputs_never_overwrite_inputs() {
    let dir = Dir::new();
    let text = "x,y,vx,vy\n100,100,3,0\n110,100,3,0\n";
    let init = dir.write("state.csv", text);
    refused(
        &["run", "--init", &init, "--steps", "5", "--save", &init],
        &["--save", "would overwrite the input --init"],
    );
    refused(
        &["run", "--init", &init, "--steps", "5", "--metrics", &init],
        &["--metrics", "would overwrite the input --init"],
    );
    let m = dir.s("m.csv");
    refused(
        &["run", "--steps", "5", "--metrics", &m, "--trajectory", &m],
        &["name the same file"],
    );
    assert_eq!(read(&dir.path("state.csv")), text);
}

#[test]
fn bad_obstacles_are_refused_with_their_line_and_nothing_is_written() {
    let dir = Dir::new();
    let out = dir.s("out.csv");
    let cases = [
        (
            "[[obstacles]]\nshape = \"wall\"\npoints = [[0, 0]]\n",
            "obstacle 1: a wall needs at least 2 points, got 1",
        ),
        (
            "count = 10\n\n[[obstacles]]\nshape = \"rect\"\nmin = [5, 5]\nmax = [1, 9]\n",
            "line 3",
        ),
        (
            "[[obstacles]]\nshape = \"circle\"\ncenter = [1, 1]\nradius = 0\n",
            "radius = 0 is not allowed: expected a number > 0",
        ),
        (
            "[[obstacles]]\nshape = \"circle\"\ncenter = [1, 1]\nradius = nan\n",
            "radius = NaN is not allowed",
        ),
        (
            "[[obstacles]]\nshape = \"blob\"\n",
            "shape = \"blob\" is not allowed: expected \"circle\", \"rect\" or \"wall\"",
        ),
        (
            "[[obstacles]]\nshape = \"rect\"\nmin = [-1, -1]\nmax = [641, 481]\n",
            "no free space",
        ),
    ];
    for (k, (text, expected)) in cases.iter().enumerate() {
        let config = dir.write(&format!("bad{k}.toml"), text);
        refused(
            &["run", "--config", &config, "--steps", "5", "--save", &out],
            &[expected, &config],
        );
    }
    assert!(!dir.path("out.csv").exists(), "{:?}", dir.files());
}

#[test]
fn a_state_file_with_a_boid_inside_an_obstacle_is_refused_with_its_line() {
    let dir = Dir::new();
    let config = dir.write(
        "world.toml",
        "[[obstacles]]\nshape = \"circle\"\ncenter = [320, 240]\nradius = 50\n",
    );
    let state = dir.write(
        "state.csv",
        "x,y,vx,vy\n10,10,1,0\n20,20,1,0\n330,250,1,0\n",
    );
    refused(
        &["run", "--config", &config, "--init", &state, "--steps", "3"],
        &[&format!("{state}, line 4"), "inside obstacle 1 (circle)"],
    );
    let fine = dir.write("fine.csv", "x,y,vx,vy\n10,10,1,0\n20,20,1,0\n");
    ok(&["run", "--config", &config, "--init", &fine, "--steps", "3"]);
}

#[test]
fn a_negative_number_is_told_what_is_wrong_with_it() {
    refused(
        &["run", "--steps", "3", "--count", "-5"],
        &["`count` = -5 (from flag `--count -5`)", "[1, "],
    );
    refused(
        &["run", "--steps", "-5"],
        &[
            "'-5' for '--steps <K>'",
            "must be a whole number, at least 0",
        ],
    );
    refused(
        &["run", "--steps", "3", "--every", "-2"],
        &["'--every <E>'", "at least 1"],
    );
    refused(
        &[
            "sweep",
            "--vary",
            "noise=0,1",
            "--steps",
            "4",
            "--burn-in",
            "-1",
        ],
        &["'--burn-in <STEP>'", "at least 0"],
    );
    refused(
        &[
            "render",
            "--steps",
            "1",
            "--threads",
            "-3",
            "--out",
            "x.png",
        ],
        &["'--threads <T>'", "-3 is not in 1..=1024"],
    );
    refused(
        &["serve", "--max-count", "-1"],
        &["'--max-count <N>'", "at least 1"],
    );
    refused(&["params", "--count", "-1"], &["--count -1", "[1, "]);
}

#[test]
fn the_help_names_every_command() {
    let help = ok(&["--help"]);
    let first = help.lines().next().unwrap();
    for command in [
        "run",
        "serve",
        "render",
        "bench",
        "experiment",
        "sweep",
        "presets",
        "params",
    ] {
        assert!(first.contains(command), "{command} missing from: {first}");
    }
}
