//! `boids serve` through the real binary, and `boids run --events` replaying a session of the
//! viewer's engine to its exact state (parameter changes, resets, obstacle edits).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use boids_core::{Coordinates, Dim, Dimension, EngineKind, FlockState, ParamsBuilder, Source};
use boids_io::events::{Change, EventLog};
use boids_server::protocol::Request;
use boids_server::{Engine, EngineConfig, EngineState};
use serde_json::json;

mod common;

use common::{boids, check_refused, finished, ok, refused};

/// Kills the server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn http_get(addr: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(
        response.lines().next().unwrap().contains(" 200 "),
        "{response:.200}"
    );
    response
}

#[test]
fn serve_prints_the_url_and_serves_the_page() {
    let (_server, line, addr) = serve(&["--count", "50", "--paused", "--preset", "canvas"]);
    assert!(line.contains("canvas preset"), "{line}");
    assert!(http_get(&addr, "/").contains("<title>boids"));
    assert!(http_get(&addr, "/js/main.js").contains("boidsViewer"));
    let params = http_get(&addr, "/api/params");
    assert!(params.contains(r#""preset":"canvas""#), "{params:.300}");
    assert!(params.contains(r#""value":50"#), "{params:.300}");
    let toml = http_get(&addr, "/api/config.toml");
    assert!(
        toml.contains("count = 50") && toml.contains("boundary = \"walls\""),
        "{toml}"
    );
}

#[test]
fn a_presets_own_count_above_the_cap_is_lowered_as_a_reset_lowers_it() {
    let (mut server, _, addr) =
        serve(&["--paused", "--preset", "functional", "--max-count", "450"]);
    let mut note = String::new();
    let stderr = server.0.stderr.take().unwrap();
    BufReader::new(stderr).read_line(&mut note).unwrap();
    assert_eq!(
        note.trim_end(),
        "note: count = 500 from preset `functional` is over this server's cap of 450 \
         (--max-count): lowered to 450"
    );
    let toml = http_get(&addr, "/api/config.toml");
    assert!(toml.contains("count = 450"), "{toml}");
}

#[test]
fn serve_refuses_bad_flags() {
    refused(&["serve", "--count", "300000"], &["allowed [1, 200000]"]);
    refused(
        &["serve", "--max-count", "10", "--count", "11"],
        &["--max-count 10"],
    );
    refused(&["serve", "--speed", "0"], &["allowed [0.5, 1000]"]);
    refused(&["serve", "--preset", "nowhere"], &["nowhere"]);
    refused(&["serve", "--set", "visual_range=-2"], &["visual_range"]);
    refused(&["serve", "--listen", "somewhere"], &["invalid IP address"]);
    refused(
        &["serve", "--allow-host", "http://me.example"],
        &["without a scheme"],
    );
    refused(
        &["serve", "--allow-host", "me.example:80"],
        &["without a port"],
    );
    refused(&["serve", "--max-pairs", "0"], &["allowed a number > 0"]);
    // The default flock at 5,000 boids sees about 80 neighbours each: 4e5 pairs a step.
    refused(
        &["serve", "--count", "5000", "--max-pairs", "1e5"],
        &["raise --max-pairs"],
    );
}

#[test]
fn a_taken_port_says_so_once_and_how_to_pick_another() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = boids(&["serve", "--port", &port]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!("error: cannot listen on 127.0.0.1:{port}: ")),
        "{stderr}"
    );
    // The system's reason once, not once in the message and again as its cause.
    assert_eq!(stderr.matches("os error").count(), 1, "{stderr}");
    assert!(
        stderr.contains("--port") && stderr.contains("--port 0"),
        "{stderr}"
    );
}

#[test]
fn run_events_refuses_flock_flags_and_bad_logs() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.json");
    std::fs::write(&log, "{\"format\": \"boids-events\"").unwrap();
    let log = log.to_str().unwrap();
    refused(
        &["run", "--events", log, "--steps", "3", "--preset", "canvas"],
        &["cannot be used with"],
    );
    refused(
        &["run", "--events", log, "--steps", "3", "--seed", "4"],
        &["cannot be used with"],
    );
    refused(
        &["run", "--events", log, "--steps", "3"],
        &["not a boids event log"],
    );
    refused(
        &["run", "--events", "/nonexistent/log.json", "--steps", "3"],
        &["--events /nonexistent/log.json: cannot open"],
    );
    // A refused event names its place and the parameter's reason once.
    std::fs::write(
        dir.path().join("log.json"),
        r#"{"format":"boids-events","version":1,"events":[
            {"step":0,"time":"t","kind":"start","preset":"cornell","seed":3,"params":{}},
            {"step":2,"time":"t","kind":"set","key":"visual_range","value":-3}]}"#,
    )
    .unwrap();
    let out = boids(&["run", "--events", log, "--steps", "3"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("event 1 (step 2)"), "{stderr}");
    assert_eq!(stderr.matches("visual_range").count(), 1, "{stderr}");
}

/// A fresh engine of `params` (a `cornell` flock of seed 5), running.
fn engine(params: ParamsBuilder) -> Engine {
    Engine::spawn(EngineConfig {
        params,
        preset: "cornell".into(),
        seed: 5,
        engine: EngineKind::Cpu,
        max_count: 10_000,
        max_pairs: boids_server::budget::DEFAULT_MAX_PAIRS,
        steps_per_second: 400.0,
        running: true,
        start: None,
        history: Vec::new(),
    })
    .unwrap()
}

fn set(key: &str, value: serde_json::Value) -> Request {
    Request::Set {
        key: key.into(),
        value,
    }
}

/// Sends each request of `session` to `engine` as a page would, while the flock runs: a few
/// steps pass before each request and after the last. Then stops the flock and returns what
/// `inspect` takes from the engine.
fn run_session<T: Send + 'static>(
    engine: &Engine,
    session: Vec<Request>,
    inspect: impl FnOnce(&mut EngineState) -> T + Send + 'static,
) -> T {
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        // Let the flock run a few steps before each change; the log records where they land.
        let run_a_little = async || {
            let step = async || engine.inspect(|e| e.flock().step_count()).await.unwrap();
            let start = step().await;
            while step().await < start + 3 {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        };
        for request in session {
            run_a_little().await;
            engine.request(0, request).await.unwrap();
        }
        run_a_little().await;
        engine.request(0, Request::Stop {}).await.unwrap();
        engine.inspect(inspect).await.unwrap()
    })
}

/// Replays `log` with the real binary to the step it was exported at, and checks that the saved
/// state is `state`, bit for bit.
fn assert_replays_to<const D: usize>(log: &EventLog, state: &FlockState<D>)
where
    Dim<D>: Dimension<D>,
{
    let steps = log.exported_at_step.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (log_path, save) = (dir.path().join("events.json"), dir.path().join("final.csv"));
    std::fs::write(&log_path, serde_json::to_string_pretty(log).unwrap()).unwrap();
    let out = boids(&[
        "run",
        "--events",
        log_path.to_str().unwrap(),
        "--steps",
        &steps.to_string(),
        "--save",
        save.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = format!("step {steps} of {} boids", state.len());
    assert!(String::from_utf8_lossy(&out.stdout).contains(&summary));

    let text = std::fs::read_to_string(&save).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), state.len());
    let f = |row: &[&str], name: &str| row[col(name)].parse::<f32>().unwrap();
    for (k, row) in rows.iter().enumerate() {
        let read = |names: [&str; 3]| names[..D].iter().map(|n| f(row, n)).collect::<Vec<_>>();
        let position = state.positions[k].to_array();
        assert_eq!(read(["x", "y", "z"]), position, "boid {k}");
        let velocity = state.velocities[k].to_array();
        assert_eq!(read(["vx", "vy", "vz"]), velocity, "boid {k}");
        assert_eq!(f(row, "bias"), state.biases[k], "boid {k}");
        assert_eq!(
            row[col("group")].parse::<u8>().unwrap(),
            state.groups[k],
            "boid {k}"
        );
    }
}

/// Drives the viewer's engine in-process (as a page would, while it runs), exports its event
/// log, and replays it with the real binary: the final states are bit-identical.
#[test]
fn run_events_replays_a_viewer_session_exactly() {
    let params = ParamsBuilder::preset("cornell")
        .unwrap()
        .apply_assignment("count=120", Source::Message)
        .unwrap()
        .apply_assignment("dynamic_bias=true", Source::Message)
        .unwrap();
    let session = vec![
        set("visual_range", json!(52.25)),
        set("count", json!(170)),
        set("scout_group2_fraction", json!(0.25)),
        Request::Reset {
            preset: None,
            seed: Some(8),
        },
        set("centering_factor", json!(0.001)),
        set("boundary", json!("torus")),
        set("count", json!(90)),
    ];
    let (log, state) = run_session(&engine(params), session, |e| {
        (
            e.event_log(),
            e.flock().two().expect("a flat flock").state(),
        )
    });
    // The log holds what replay uses: the last reset and the changes after it.
    assert_eq!(log.events.len(), 4);
    assert!(matches!(
        log.events[0].change,
        Change::Reset { seed: 8, .. }
    ));
    assert!(
        log.events.iter().skip(1).all(|e| e.step >= 3),
        "every change came mid-run"
    );
    assert_replays_to(&log, &state);
}

/// A session that switches the viewer's flock to three dimensions and changes it there: the
/// switch is logged as a reset, and the log replays to the same 3D state.
#[test]
fn run_events_replays_a_viewer_session_in_three_dimensions_exactly() {
    let params = ParamsBuilder::preset("cornell")
        .unwrap()
        .apply_assignment("count=150", Source::Message)
        .unwrap();
    let session = vec![
        set("visual_range", json!(45.5)),
        set("dimensions", json!(3)),
        set("visual_range", json!(60)),
        set("count", json!(200)),
        set("boundary", json!("torus")),
    ];
    let (log, state) = run_session(&engine(params), session, |e| {
        (
            e.event_log(),
            e.flock().three().expect("a flock in 3D").state(),
        )
    });
    let Change::Reset { params, .. } = &log.events[0].change else {
        panic!("the switch begins the log: {:?}", log.events[0]);
    };
    assert_eq!(params["dimensions"], 3);
    assert_eq!(
        params["visual_range"], 45.5,
        "the flock's parameters carry over"
    );
    assert_eq!(log.events.len(), 4);
    assert_replays_to(&log, &state);
}

/// Obstacles edited in the viewer as its tool bar does (the whole list in each `set`): added,
/// moved and deleted mid-run, with steering around them on. The log replays to the same state,
/// and the exported config holds them as `[[obstacles]]` tables that `--config` reads back.
#[test]
fn obstacle_edits_replay_exactly_and_export_as_tables() {
    let params = ParamsBuilder::preset("cornell")
        .unwrap()
        .apply_assignment("count=200", Source::Message)
        .unwrap();
    let circle = |x: f64, y: f64| json!({"shape": "circle", "center": [x, y], "radius": 45.5});
    let rect = json!({"shape": "rect", "min": [400, 280], "max": [520.25, 360]});
    let wall = json!({"shape": "wall", "points": [[100, 420], [300, 400], [330, 300]]});
    let session = vec![
        set("obstacle_lookahead", json!(60)),
        set("obstacle_avoid_factor", json!(0.05)),
        set("obstacles", json!([circle(200.0, 200.0)])),
        set("obstacles", json!([circle(200.0, 200.0), rect.clone()])),
        set("obstacles", json!([circle(260.5, 180.0), rect.clone()])),
        set(
            "obstacles",
            json!([circle(260.5, 180.0), rect, wall.clone()]),
        ),
        set("obstacles", json!([circle(260.5, 180.0), wall])),
    ];
    let (log, state, params, toml) = run_session(&engine(params), session, |e| {
        (
            e.event_log(),
            e.flock().two().expect("a flat flock").state(),
            e.flock().params().clone(),
            e.config_toml(),
        )
    });
    let edits = log
        .events
        .iter()
        .filter(|e| matches!(&e.change, Change::Set { key, .. } if key == "obstacles"))
        .count();
    assert_eq!(edits, 5, "each edit is one set event");
    assert_eq!(params.obstacles.len(), 2);
    assert_replays_to(&log, &state);

    assert_eq!(toml.matches("\n[[obstacles]]\n").count(), 2, "{toml}");
    assert!(
        toml.contains("shape = \"circle\"\ncenter = [260.5, 180.0]\nradius = 45.5\n"),
        "{toml}"
    );
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("boids-cornell.toml");
    std::fs::write(&config, &toml).unwrap();
    let read_back = ok(&["params", "--config", config.to_str().unwrap(), "--toml"]);
    assert_eq!(
        read_back.split_once('\n').unwrap().1,
        params.to_toml(),
        "every parameter, obstacles included, reads back as exported"
    );
}

/// Starts `boids serve ARGS` on a free port; returns it with its first line and address.
fn serve(args: &[&str]) -> (Server, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_boids"))
        .args([&["serve", "--port", "0"], args].concat())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let server = Server(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let addr = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("http://127.0.0.1:"))
        .map(|port| format!("127.0.0.1:{}", port.trim_end_matches('/')))
        .unwrap_or_else(|| panic!("no URL in {line:?}"));
    (server, line, addr)
}

/// The JSON body of `GET path`.
fn get_json(addr: &str, path: &str) -> serde_json::Value {
    let response = http_get(addr, path);
    let (_, body) = response.split_once("\r\n\r\n").unwrap();
    serde_json::from_str(body).unwrap()
}

/// A session saved from the viewer opens again with `boids serve --events`: paused at the step
/// it was saved at, with the flock as it was there, bit for bit, and its event log going on
/// from the saved one, so that a later export still replays.
#[test]
fn serve_events_opens_the_viewer_where_the_session_was_saved() {
    let params = ParamsBuilder::preset("cornell")
        .unwrap()
        .apply_assignment("count=120", Source::Message)
        .unwrap();
    let session = vec![
        set("visual_range", json!(52.25)),
        Request::Reset {
            preset: None,
            seed: Some(8),
        },
        set("count", json!(90)),
        set("max_speed", json!(5.5)),
    ];
    let (log, state) = run_session(&engine(params), session, |e| {
        (
            e.event_log(),
            e.flock().two().expect("a flat flock").state(),
        )
    });
    let saved_at = log.exported_at_step.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("boids-events.json");
    std::fs::write(&path, serde_json::to_string_pretty(&log).unwrap()).unwrap();

    let (_server, line, addr) = serve(&["--events", path.to_str().unwrap()]);
    assert!(
        line.contains(&format!("seed 8, paused at step {saved_at} of ")),
        "{line}"
    );
    let served = get_json(&addr, "/api/state");
    assert_eq!(served["step"], saved_at);
    assert_eq!(served["count"], 90);
    let positions: Vec<[f32; 2]> = serde_json::from_value(served["positions"].clone()).unwrap();
    let velocities: Vec<[f32; 2]> = serde_json::from_value(served["velocities"].clone()).unwrap();
    let expected = |v: &[boids_core::VecN<2>]| v.iter().map(|p| p.to_array()).collect::<Vec<_>>();
    assert_eq!(positions, expected(&state.positions));
    assert_eq!(velocities, expected(&state.velocities));
    let params = get_json(&addr, "/api/params");
    assert_eq!(params["preset"], "cornell");
    let exported: EventLog = serde_json::from_value(get_json(&addr, "/api/events")).unwrap();
    assert_eq!(exported.events, log.events);
    assert_eq!(exported.exported_at_step, Some(saved_at));
    // Paused: the flock stays at the saved step.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(get_json(&addr, "/api/state")["step"], saved_at);
}

#[test]
fn serve_events_refuses_flock_flags_and_bad_logs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.json");
    let log = |events: &str| {
        format!(
            r#"{{"format":"boids-events","version":1,"exported_at_step":5,"events":[{events}]}}"#
        )
    };
    let start =
        r#"{"step":0,"time":"t","kind":"start","preset":"cornell","seed":1,"params":{"count":40}}"#;
    std::fs::write(&path, log(start)).unwrap();
    let file = path.to_str().unwrap();
    refused(
        &["serve", "--events", file, "--preset", "canvas"],
        &["--events", "--preset"],
    );
    let late = r#"{"step":9,"time":"t","kind":"set","key":"visual_range","value":50.0}"#;
    std::fs::write(&path, log(&format!("{start},{late}"))).unwrap();
    refused(
        &["serve", "--events", file],
        &[
            file,
            "event 1 is at step 9, after step 5, where the session was exported",
        ],
    );
    let bad = r#"{"step":2,"time":"t","kind":"set","key":"visual_range","value":-3.0}"#;
    std::fs::write(&path, log(&format!("{start},{bad}"))).unwrap();
    refused(
        &["serve", "--events", file],
        &["visual_range", "event 1 (step 2)"],
    );
    refused(
        &[
            "serve",
            "--events",
            dir.path().join("none.json").to_str().unwrap(),
        ],
        &["--events", "none.json"],
    );
}

/// A log no viewer wrote is refused before its replay takes a step, by every command that
/// replays one, naming the value, what is allowed and the event, instead of stepping for ever:
/// steps past the replay's cap, and for `serve`, a flock over its count cap or pair budget at
/// any event.
#[test]
fn a_log_is_checked_before_its_replay_steps() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.json");
    let file = path.to_str().unwrap();
    let png = dir.path().join("out.png");
    let write = |exported: &str, events: &[&str]| {
        let text = format!(
            r#"{{"format":"boids-events","version":1,{exported}"events":[{}]}}"#,
            events.join(",")
        );
        std::fs::write(&path, text).unwrap();
    };
    let expect = |args: &[&str], expected: &[&str]| {
        check_refused(args, &finished(args), expected);
    };
    let start = r#"{"step":0,"kind":"start","preset":"cornell","seed":1,"params":{"count":40}}"#;
    write(r#""exported_at_step":1000000000000000,"#, &[start]);
    let far = [
        file,
        "exported_at_step = 1000000000000000 is out of range: allowed [0, 100000000]",
    ];
    expect(&["serve", "--port", "0", "--events", file], &far);
    expect(
        &["render", "--events", file, "--out", png.to_str().unwrap()],
        &far,
    );
    expect(&["run", "--events", file, "--steps", "3"], &far);
    assert!(!png.exists(), "no partial output");
    let late = r#"{"step":1000000000000000,"kind":"set","key":"visual_range","value":50}"#;
    write("", &[start, late]);
    expect(
        &["run", "--events", file, "--steps", "3"],
        &[file, "event 1: step = 1000000000000000 is out of range"],
    );

    // Within the step cap, but over the server's caps from step 5 on: a replay of 1e8 steps.
    let many = r#"{"step":5,"kind":"set","key":"count","value":300000}"#;
    write(r#""exported_at_step":100000000,"#, &[start, many]);
    expect(
        &["serve", "--port", "0", "--events", file],
        &[
            &format!("{file}, event 1 (step 5): count = 300000 is out of range"),
            "allowed [1, 200000] by --max-count 200000",
        ],
    );
    let far_sight = r#"{"step":5,"kind":"set","key":"visual_range","value":1e9}"#;
    let many = r#"{"step":6,"kind":"set","key":"count","value":200000}"#;
    write(
        r#""exported_at_step":100000000,"#,
        &[start, far_sight, many],
    );
    expect(
        &["serve", "--port", "0", "--events", file],
        &[
            &format!("{file}, event 2 (step 6): the flock would cost about 4.00e10"),
            "allowed at most 1.00e9 by --max-pairs",
        ],
    );
    expect(
        &[
            "serve",
            "--port",
            "0",
            "--events",
            file,
            "--max-pairs",
            "1e3",
        ],
        &[&format!("{file}, event 0 (step 0)"), "--max-pairs"],
    );
}
