//! Predators and perching through the `boids` binary: state files that carry them and resume
//! exactly, trajectories that record predators, and the world's metrics in `--metrics`.

use std::path::Path;

mod common;

use common::{Dir, ok, read, refused};

/// The `predator` preset: a cornell flock hunted by two predators that catch.
const HUNTED: [&str; 4] = ["--preset", "predator", "--count", "300"];

/// The `perching` preset: a cornell flock that perches.
const PERCHING: [&str; 4] = ["--preset", "perching", "--count", "300"];

/// Rows of a CSV file as header-keyed cells.
fn rows(text: &str) -> Vec<Vec<(String, String)>> {
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(String::from))
                .collect()
        })
        .collect()
}

fn get<'a>(row: &'a [(String, String)], key: &str) -> &'a str {
    &row.iter().find(|(k, _)| k == key).unwrap().1
}

/// Runs `flock` for `first + second` steps straight, and for `first`, saved and resumed with
/// `--init --start-step` for `second`: the two saved states must be byte-identical. Returns the
/// state saved halfway and the metrics of the straight run.
fn resume_matches_straight(flock: &[&str], first: u64, second: u64) -> (String, String) {
    let dir = Dir::new();
    let [straight, half, resumed, metrics] =
        ["straight.csv", "half.csv", "resumed.csv", "m.csv"].map(|f| dir.s(f));
    let total = (first + second).to_string();
    let (first, second) = (first.to_string(), second.to_string());
    let run = |extra: &[&str]| ok(&[&["run"][..], flock, extra].concat());
    run(&[
        "--steps",
        &total,
        "--save",
        &straight,
        "--metrics",
        &metrics,
    ]);
    run(&["--steps", &first, "--save", &half]);
    run(&[
        "--init",
        &half,
        "--start-step",
        &first,
        "--steps",
        &second,
        "--save",
        &resumed,
    ]);
    assert_eq!(read(Path::new(&resumed)), read(Path::new(&straight)));
    (read(Path::new(&half)), read(Path::new(&metrics)))
}

#[test]
fn a_hunted_flock_with_captures_resumes_exactly() {
    let (half, metrics) = resume_matches_straight(&HUNTED, 150, 150);
    assert_eq!(half.lines().next(), Some("x,y,vx,vy,group,bias,kind"));
    let saved = rows(&half);
    let kinds: Vec<&str> = saved.iter().map(|r| get(r, "kind")).collect();
    assert_eq!(kinds.iter().filter(|&&k| k == "boid").count(), 300);
    assert_eq!(
        kinds[300..],
        ["predator", "predator"],
        "predators come last"
    );
    assert!(saved[300..].iter().all(|r| get(r, "group").is_empty()));
    let captures: f64 = column(&metrics, "captures").iter().sum();
    assert!(
        captures > 0.0,
        "the predators caught nothing to resume from"
    );
}

#[test]
fn a_perching_flock_resumes_exactly_with_its_rests() {
    let (half, _) = resume_matches_straight(&PERCHING, 200, 100);
    assert_eq!(half.lines().next(), Some("x,y,vx,vy,group,bias,resting"));
    let resting = rows(&half)
        .iter()
        .filter(|r| get(r, "resting") != "0")
        .count();
    assert!(resting > 0, "no boid was resting halfway");
}

/// A 3D world with every object: spheres and boxes, two predators that catch, perching.
fn world_in_3d(dir: &Dir) -> Vec<String> {
    let config = dir.write(
        "world3d.toml",
        "[[obstacles]]\nshape = \"sphere\"\ncenter = [320.0, 300.0, 240.0]\nradius = 40.0\n\n[[obstacles]]\nshape = \"box\"\nmin = [100.0, 350.0, 0.0]\nmax = [200.0, 480.0, 480.0]\n",
    );
    [
        "--preset",
        "perching",
        "--count",
        "300",
        "--config",
        &config,
        "--set",
        "dimensions=3",
        "--set",
        "predator_count=2",
        "--set",
        "capture_range=8",
        "--set",
        "obstacle_lookahead=30",
        "--set",
        "obstacle_avoid_factor=0.5",
        "--set",
        "attractors=[[320.0, 200.0, 240.0]]",
        "--set",
        "attract_factor=0.0005",
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn a_3d_world_with_predators_obstacles_and_perching_resumes_exactly() {
    let dir = Dir::new();
    let flock = world_in_3d(&dir);
    let flock: Vec<&str> = flock.iter().map(String::as_str).collect();
    let (half, metrics) = resume_matches_straight(&flock, 150, 150);
    assert_eq!(
        half.lines().next(),
        Some("x,y,z,vx,vy,vz,group,bias,resting,kind")
    );
    let saved = rows(&half);
    let predators: Vec<_> = saved
        .iter()
        .filter(|r| get(r, "kind") == "predator")
        .collect();
    assert_eq!(predators.len(), 2);
    assert!(
        predators
            .iter()
            .all(|r| get(r, "z").parse::<f32>().is_ok_and(|z| z != 0.0)),
        "predators carry z"
    );
    assert!(
        rows(&half)
            .iter()
            .any(|r| !matches!(get(r, "resting"), "0" | ""))
    );
    assert!(
        column(&metrics, "obstacle_penetrations")
            .iter()
            .all(|&n| n == 0.0)
    );
    assert!(
        column(&metrics, "predator_distance")
            .iter()
            .all(|d| d.is_finite())
    );
    assert!(
        column(&metrics, "perched_fraction")
            .iter()
            .any(|&f| f > 0.0)
    );
}

#[test]
fn predator_rows_of_a_3d_state_read_back_exactly() {
    let dir = Dir::new();
    let init = dir.write(
        "in.csv",
        "kind,x,y,z,vx,vy,vz\nboid,100,200.5,7.25,1,-2,0.5\npredator,300.25,40,99.125,0.5,0.1,-0.75\n",
    );
    let out = dir.s("out.csv");
    ok(&[
        "run",
        "--init",
        &init,
        "--set",
        "dimensions=3",
        "--steps",
        "0",
        "--save",
        &out,
    ]);
    assert_eq!(
        read(Path::new(&out)),
        "x,y,z,vx,vy,vz,group,bias,kind\n100,200.5,7.25,1,-2,0.5,0,0,boid\n300.25,40,99.125,0.5,0.1,-0.75,,,predator\n"
    );
}

/// A replayed 3D session that places a sphere, adds predators and then a box: the replay is
/// the same on one and two threads, and no boid ends inside an obstacle.
#[test]
fn a_3d_session_editing_obstacles_and_predators_replays_exactly() {
    let dir = Dir::new();
    let sphere = r#"{"shape":"sphere","center":[320,240,240],"radius":50}"#;
    let cube = r#"{"shape":"box","min":[50,50,50],"max":[150,150,150]}"#;
    let log = dir.write(
        "log.json",
        &format!(
            r#"{{"format":"boids-events","version":1,"events":[
            {{"step":0,"time":"t","kind":"start","preset":"cornell","seed":3,"params":{{"count":400,"dimensions":3}}}},
            {{"step":3,"time":"t","kind":"set","key":"obstacles","value":[{sphere}]}},
            {{"step":5,"time":"t","kind":"set","key":"predator_count","value":2}},
            {{"step":8,"time":"t","kind":"set","key":"obstacles","value":[{sphere},{cube}]}}]}}"#
        ),
    );
    let replay = |threads: &str| {
        let (save, metrics) = (
            dir.s(&format!("s{threads}.csv")),
            dir.s(&format!("m{threads}.csv")),
        );
        ok(&[
            "run",
            "--events",
            &log,
            "--steps",
            "20",
            "--threads",
            threads,
            "--save",
            &save,
            "--metrics",
            &metrics,
        ]);
        (read(Path::new(&save)), read(Path::new(&metrics)))
    };
    let (one, metrics) = replay("1");
    assert_eq!(one, replay("2").0);
    let saved = rows(&one);
    assert_eq!(
        saved
            .iter()
            .filter(|r| get(r, "kind") == "predator")
            .count(),
        2
    );
    assert!(
        column(&metrics, "obstacle_penetrations")
            .iter()
            .all(|&n| n == 0.0)
    );
    let inside = saved.iter().filter(|r| get(r, "kind") == "boid").any(|r| {
        let [x, y, z] = ["x", "y", "z"].map(|k| get(r, k).parse::<f32>().unwrap());
        let in_sphere = (x - 320.0).powi(2) + (y - 240.0).powi(2) + (z - 240.0).powi(2) < 2500.0;
        let in_box = [x, y, z].iter().all(|&c| c > 50.0 && c < 150.0);
        in_sphere || in_box
    });
    assert!(!inside, "a boid ended inside an obstacle");
}

#[test]
fn predator_rows_read_back_exactly_and_set_predator_count() {
    let dir = Dir::new();
    let init = dir.write(
        "in.csv",
        "kind,x,y,vx,vy,group,resting\nboid,100,200.5,1,-2,1,7\npredator,300.25,40,0.5,0.1,,\nboid,110,210,3,0,0,0\n",
    );
    let out = dir.s("out.csv");
    ok(&[
        "run",
        "--init",
        &init,
        "--set",
        "perch=true",
        "--steps",
        "0",
        "--save",
        &out,
    ]);
    assert_eq!(
        read(Path::new(&out)),
        "x,y,vx,vy,group,bias,resting,kind\n100,200.5,1,-2,1,0.001,7,boid\n110,210,3,0,0,0,0,boid\n300.25,40,0.5,0.1,,,,predator\n"
    );
    refused(
        &[
            "run",
            "--init",
            &init,
            "--set",
            "predator_count=3",
            "--steps",
            "1",
        ],
        &["--set predator_count=3 disagrees", "holds 1 predators"],
    );
}

#[test]
fn bad_kinds_rests_and_predator_cells_are_refused_with_their_line() {
    let dir = Dir::new();
    let cases = [
        (
            "x,y,vx,vy,kind\n1,2,3,4,boid\n5,6,7,8,fish\n",
            vec!["line 3", "`kind` = `fish`", "boid or predator"],
        ),
        (
            "x,y,vx,vy,resting\n1,2,3,4,-1\n",
            vec!["line 2", "`resting` = `-1`", "a whole number of steps"],
        ),
        (
            "x,y,vx,vy,resting\n1,2,3,4,2.5\n",
            vec!["line 2", "`resting` = `2.5`"],
        ),
        (
            "x,y,vx,vy,group,kind\n1,2,3,4,0,boid\n5,6,7,8,1,predator\n",
            vec!["line 3", "`group` = `1`", "predator row", "leave it empty"],
        ),
        ("x,y,vx,vy,kind\n5,6,7,8,predator\n", vec!["no boids"]),
        (
            "x,y,vx,vy,knd\n1,2,3,4,boid\n",
            vec!["`knd` looks like a misspelling of `kind`"],
        ),
    ];
    let out = dir.s("out.csv");
    for (i, (text, expected)) in cases.iter().enumerate() {
        let init = dir.write(&format!("in{i}.csv"), text);
        refused(
            &["run", "--init", &init, "--steps", "1", "--save", &out],
            expected,
        );
    }
    assert!(!dir.path("out.csv").exists());
}

#[test]
fn a_predator_inside_an_obstacle_is_refused_with_its_line() {
    let dir = Dir::new();
    let config = dir.write(
        "world.toml",
        "[[obstacles]]\nshape = \"circle\"\ncenter = [320, 240]\nradius = 50\n",
    );
    let state = dir.write(
        "state.csv",
        "x,y,vx,vy,kind\n10,10,1,0,boid\n330,250,1,0,predator\n20,20,1,0,boid\n",
    );
    refused(
        &["run", "--config", &config, "--init", &state, "--steps", "3"],
        &[
            &format!("{state}, line 3"),
            "predator 0",
            "inside obstacle 1 (circle)",
        ],
    );
}

/// Runs `boids run FLOCK EXTRA`.
fn run(flock: &[&str], extra: &[&str]) -> String {
    ok(&[&["run"][..], flock, extra].concat())
}

#[test]
fn csv_trajectories_carry_predators_after_each_frames_boids() {
    let dir = Dir::new();
    let path = dir.s("t.csv");
    run(
        &HUNTED,
        &["--steps", "20", "--every", "10", "--trajectory", &path],
    );
    let text = read(Path::new(&path));
    assert_eq!(text.lines().next(), Some("step,id,x,y,vx,vy,group,kind"));
    let rows = rows(&text);
    assert_eq!(rows.len(), 3 * (300 + 2));
    let predators: Vec<&Vec<(String, String)>> = rows
        .iter()
        .filter(|r| get(r, "kind") == "predator")
        .collect();
    let ids: Vec<(&str, &str)> = predators
        .iter()
        .map(|r| (get(r, "step"), get(r, "id")))
        .collect();
    assert_eq!(
        ids,
        [
            ("0", "0"),
            ("0", "1"),
            ("10", "0"),
            ("10", "1"),
            ("20", "0"),
            ("20", "1")
        ]
    );
    assert_eq!(
        get(&rows[300], "kind"),
        "predator",
        "after the frame's boids"
    );
    assert!(predators.iter().all(|r| get(r, "group").is_empty()));
    let x = |k: usize| get(predators[k], "x").parse::<f64>().unwrap();
    assert_ne!(x(0), x(2), "predator 0 did not move");
    assert_ne!(x(2), x(4), "predator 0 did not move");
}

#[test]
fn npz_trajectories_hold_a_predators_array() {
    let dir = Dir::new();
    let path = dir.s("t.npz");
    run(
        &HUNTED,
        &["--steps", "20", "--every", "5", "--trajectory", &path],
    );
    let mut npz = npyz::npz::NpzArchive::open(&path).unwrap();
    let states = npz.by_name("states").unwrap().unwrap().shape().to_vec();
    assert_eq!(states, [5, 300, 4]);
    let predators = npz.by_name("predators").unwrap().unwrap();
    assert_eq!(predators.shape(), &[5, 2, 4]);
    let predators: Vec<f32> = predators.into_vec().unwrap();
    assert!(predators.iter().all(|x| x.is_finite()));
    let frame = |f: usize| &predators[f * 8..(f + 1) * 8];
    for f in 1..5 {
        assert_ne!(frame(f)[..2], frame(f - 1)[..2], "predator 0 did not move");
    }
    let plain = dir.s("plain.npz");
    run(&PERCHING, &["--steps", "5", "--trajectory", &plain]);
    let mut npz = npyz::npz::NpzArchive::open(&plain).unwrap();
    assert!(npz.by_name("predators").unwrap().is_none());
}

/// A replayed session that adds a predator: the CSV trajectory (with its `kind` column from
/// the start) records it; an `.npz`, whose arrays have the first frame's size, is refused at
/// that step and nothing is written.
#[test]
fn a_replay_that_adds_predators_fits_csv_and_is_refused_in_npz() {
    let dir = Dir::new();
    let log = dir.write(
        "log.json",
        r#"{"format":"boids-events","version":1,"events":[
            {"step":0,"time":"t","kind":"start","preset":"cornell","seed":3,"params":{"count":50}},
            {"step":2,"time":"t","kind":"set","key":"predator_count","value":1}]}"#,
    );
    let csv = dir.s("t.csv");
    ok(&[
        "run",
        "--events",
        &log,
        "--steps",
        "3",
        "--trajectory",
        &csv,
    ]);
    let text = read(Path::new(&csv));
    assert_eq!(text.lines().next(), Some("step,id,x,y,vx,vy,group,kind"));
    let rows = rows(&text);
    let predator_steps: Vec<&str> = rows
        .iter()
        .filter(|r| get(r, "kind") == "predator")
        .map(|r| get(r, "step"))
        .collect();
    assert_eq!(predator_steps, ["2", "3"]);
    let npz = dir.s("t.npz");
    refused(
        &[
            "run",
            "--events",
            &log,
            "--steps",
            "3",
            "--trajectory",
            &npz,
        ],
        &[
            "1 predators at step 2 but 0 at its start",
            "write .csv instead",
        ],
    );
    assert!(!dir.path("t.npz").exists());
}

/// The column `key` of every row of the metrics file `text`, as numbers.
fn column(text: &str, key: &str) -> Vec<f64> {
    rows(text)
        .iter()
        .map(|r| get(r, key).parse().unwrap())
        .collect()
}

#[test]
fn metrics_count_captures_predator_distance_and_perched_boids() {
    let dir = Dir::new();
    let metrics = dir.s("m.csv");
    let hunt = ["--preset", "predator", "--seed", "3"];
    // Every step: a row counts the captures of its own step only.
    let summary = run(&hunt, &["--steps", "300", "--metrics", &metrics]);
    let text = read(Path::new(&metrics));
    assert!(column(&text, "captures").iter().any(|&c| c > 0.0), "{text}");
    assert!(
        column(&text, "predator_distance")
            .iter()
            .all(|d| d.is_finite())
    );
    assert!(
        column(&text, "obstacle_penetrations")
            .iter()
            .all(|&p| p == 0.0)
    );
    assert!(summary.contains("captures"), "{summary}");
    run(
        &PERCHING,
        &["--steps", "300", "--every", "10", "--metrics", &metrics],
    );
    let text = read(Path::new(&metrics));
    assert!(
        column(&text, "perched_fraction").iter().any(|&f| f > 0.0),
        "{text}"
    );
    assert!(
        column(&text, "predator_distance")
            .iter()
            .all(|d| d.is_nan())
    );
}
