//! The event log: written, bounded, edited and replayed.

use boids_core::params::Raw;
use boids_core::{Params, ParamsBuilder, Simulation, Source};

use super::*;

fn log(events: Vec<Event>) -> EventLog {
    EventLog {
        format: FORMAT.to_owned(),
        version: VERSION,
        exported_at_step: None,
        replay: None,
        events,
    }
}

fn small() -> Params {
    ParamsBuilder::preset("cornell")
        .unwrap()
        .apply_assignment("count=60", Source::Message)
        .unwrap()
        .build()
        .unwrap()
}

#[test]
fn a_session_log_exports_what_replay_reads() {
    let params = small();
    let mut session = SessionLog::new(&Event::new_flock(0, true, "cornell", 5, &params), 1 << 20);
    let unlimited = apply_set(
        &ParamsBuilder::from_params(params.clone(), Source::Message),
        "max_speed",
        &Raw::Float(f64::INFINITY),
        Source::Message,
    )
    .unwrap()
    .build()
    .unwrap();
    for event in [
        Event::set(4, "visual_range", &params),
        Event::set(9, "max_speed", &unlimited),
    ] {
        let line = session.line(&event).unwrap();
        session.push(line);
    }
    assert_eq!(session.events(), 3);
    let text: Vec<u8> = session.export(12).concat();
    let log = EventLog::parse(std::str::from_utf8(&text).unwrap(), "log.json").unwrap();
    assert_eq!(log.exported_at_step, Some(12));
    assert_eq!(
        log.replay.as_deref(),
        Some("boids run --events boids-events.json --steps 12")
    );
    assert_eq!(log.events.len(), 3);
    assert_eq!(
        log.events[2].change,
        Change::Set {
            key: "max_speed".into(),
            value: "inf".into()
        }
    );
    // One event a line, as the guide shows it: three lines of header, then the events.
    assert_eq!(text.iter().filter(|&&b| b == b'\n').count(), 3 + 3);

    // A reset forgets what came before: replay starts from it anyway.
    session.restart(&Event::new_flock(
        12,
        false,
        "occoids",
        2,
        &Params::preset("occoids").unwrap(),
    ));
    let text: Vec<u8> = session.export(0).concat();
    let log = EventLog::parse(std::str::from_utf8(&text).unwrap(), "log.json").unwrap();
    assert_eq!(log.events.len(), 1);
    assert!(matches!(log.events[0].change, Change::Reset { .. }));
}

#[test]
fn a_full_session_log_refuses_and_a_restart_empties_it() {
    let params = small();
    let first = Event::new_flock(0, true, "cornell", 5, &params);
    let set = Event::set(1, "margin", &params);
    let limit = first.to_line().len() + 3 * (2 + set.to_line().len());
    let mut session = SessionLog::new(&first, limit);
    for _ in 0..3 {
        let line = session.line(&set).unwrap();
        session.push(line);
    }
    assert_eq!(session.bytes(), limit);
    let full = session.line(&set).unwrap_err();
    assert_eq!(
        full,
        LogFull {
            events: 4,
            bytes: limit,
            limit
        }
    );
    assert!(
        full.to_string().contains("reset to start a new log"),
        "{full}"
    );
    // Parallel exports of an unchanged log share one copy of its events.
    assert_eq!(session.shared().as_ptr(), session.shared().as_ptr());
    session.restart(&first);
    assert_eq!(session.events(), 1);
    assert!(session.line(&set).is_ok());
}

#[test]
fn replay_applies_changes_at_their_steps() {
    let params = small();
    let mut live = Simulation::<2>::new(params.clone(), 5).unwrap();
    let mut events = vec![Event::new_flock(0, true, "cornell", 5, &params)];
    let mut layers = ParamsBuilder::from_params(params.clone(), Source::Message);
    for (at, key, value) in [
        (3, "visual_range", Raw::Float(55.5)),
        (3, "count", Raw::Integer(80)),
        (7, "max_speed", Raw::Float(f64::INFINITY)),
    ] {
        while live.step_count() < at {
            live.step().unwrap();
        }
        layers = apply_set(&layers, key, &value, Source::Message).unwrap();
        live.set_params(layers.params().clone()).unwrap();
        events.push(Event::set(at, key, live.params()));
    }
    for _ in 0..5 {
        live.step().unwrap();
    }
    let text = serde_json::to_string_pretty(&log(events)).unwrap();
    let parsed = EventLog::parse(&text, "log.json").unwrap();
    let (mut sim, mut replay) = parsed.replay::<2>("log.json").unwrap();
    replay.run_to(&mut sim, live.step_count()).unwrap();
    assert_eq!(replay.remaining(), 0);
    assert_eq!(sim.params(), live.params());
    assert_eq!(sim.state(), live.state());
}

#[test]
fn an_edit_point_has_the_flocks_dimensions() {
    let params = small();
    let layers = ParamsBuilder::from_params(params.clone(), Source::Message);
    let mut sim = Simulation::<2>::new(params, 1).unwrap();
    for (change, given) in [
        (
            Change::PlacePredator {
                x: 10.0,
                y: 10.0,
                z: Some(5.0),
            },
            3,
        ),
        (
            Change::Pointer {
                x: Some(10.0),
                y: Some(10.0),
                z: Some(5.0),
            },
            3,
        ),
    ] {
        let err = apply_edit(&layers, &mut sim, &change, Source::Message).unwrap_err();
        assert!(
            err.to_string().contains(&format!(
                "a point of {given} coordinates, but the flock has 2 dimensions: send x and y, without z"
            )),
            "{err}"
        );
    }
    assert!(sim.predators().is_empty() && sim.pointer().is_none());
}

#[test]
fn replay_starts_from_the_last_reset() {
    let params = small();
    let events = vec![
        Event::new_flock(0, true, "cornell", 1, &params),
        Event::set(4, "avoid_factor", &params),
        Event::new_flock(9, false, "occoids", 2, &Params::preset("occoids").unwrap()),
    ];
    let (sim, replay) = log(events).replay::<2>("log.json").unwrap();
    assert_eq!(sim.seed(), 2);
    assert_eq!(sim.params(), &Params::preset("occoids").unwrap());
    assert_eq!(replay.remaining(), 0);
}

#[test]
fn empty_params_mean_the_preset() {
    let text = r#"{"format":"boids-events","version":1,"events":[
        {"step":0,"time":"t","kind":"start","preset":"canvas","seed":3,"params":{}}]}"#;
    let (sim, _) = EventLog::parse(text, "e.json")
        .unwrap()
        .replay::<2>("e.json")
        .unwrap();
    assert_eq!(sim.params(), &Params::preset("canvas").unwrap());
}

#[test]
fn bad_logs_are_refused_with_their_place() {
    let start = r#"{"step":0,"time":"t","kind":"start","preset":"cornell","seed":3,"params":{}}"#;
    let cases = [
        ("{", "not a boids event log"),
        (
            r#"{"format":"other","version":1,"events":[]}"#,
            "is not \"boids-events\"",
        ),
        (
            r#"{"format":"boids-events","version":1,"events":[]}"#,
            "no \"start\" or \"reset\"",
        ),
        (
            &format!(
                r#"{{"format":"boids-events","version":1,"events":[{start},
                {{"step":5,"time":"t","kind":"set","key":"visual_range","value":-3}}]}}"#
            ),
            "event 1 (step 5)",
        ),
        (
            &format!(
                r#"{{"format":"boids-events","version":1,"events":[{start},
                {{"step":5,"time":"t","kind":"set","key":"margin","value":1}},
                {{"step":4,"time":"t","kind":"set","key":"margin","value":2}}]}}"#
            ),
            "before the previous event's step 5",
        ),
        (
            r#"{"format":"boids-events","version":1,"events":[
            {"step":0,"time":"t","kind":"start","preset":"cornell","seed":3,"params":{"visual_rang":3}}]}"#,
            "did you mean `visual_range`",
        ),
    ];
    for (text, expected) in cases {
        let err = EventLog::parse(text, "e.json")
            .and_then(|log| {
                let (mut sim, mut replay) = log.replay::<2>("e.json")?;
                replay.run_to(&mut sim, 10)
            })
            .unwrap_err()
            .to_string();
        assert!(err.contains("e.json") && err.contains(expected), "{err}");
    }
}

#[test]
fn resume_replays_the_last_flock_to_where_it_was_exported() {
    let params = small();
    let mut changed = ParamsBuilder::from_params(params.clone(), Source::Message);
    changed = apply_set(&changed, "visual_range", &Raw::Float(50.0), Source::Message).unwrap();
    let events = vec![
        Event::new_flock(0, true, "canvas", 1, &Params::preset("canvas").unwrap()),
        Event::new_flock(40, false, "cornell", 5, &params),
        Event::set(6, "visual_range", changed.params()),
    ];
    let mut exported = log(events.clone());
    exported.exported_at_step = Some(11);
    let resumed = exported.resume::<2>("log.json").unwrap();
    let (mut sim, mut replay) = exported.replay::<2>("log.json").unwrap();
    replay.run_to(&mut sim, 11).unwrap();
    assert_eq!(resumed.sim.step_count(), 11);
    assert_eq!(resumed.sim.state(), sim.state());
    assert_eq!(resumed.layers.params(), changed.params());
    assert_eq!(resumed.preset, "cornell");
    assert_eq!(resumed.history, events[1..]);

    // Without the step it was exported at, the session ends at its last change.
    exported.exported_at_step = None;
    assert_eq!(exported.end_step("log.json").unwrap(), 6);
    // A change after the end is one the flock was never through.
    exported.exported_at_step = Some(5);
    let err = exported.resume::<2>("log.json").unwrap_err().to_string();
    assert!(
        err.contains("event 2 is at step 6, after step 5, where the session was exported"),
        "{err}"
    );
}

#[test]
fn a_hand_written_log_may_leave_out_the_time_and_is_told_the_fields_it_misses() {
    let text = r#"{"format":"boids-events","version":1,"events":[
        {"step":0,"kind":"start","preset":"canvas","seed":3,"params":{}},
        {"step":2,"kind":"set","key":"margin","value":1}]}"#;
    let log = EventLog::parse(text, "e.json").unwrap();
    assert_eq!(log.events[1].time, "");
    assert!(
        !log.events[1].to_line().contains("time"),
        "no empty time written back"
    );
    let (mut sim, mut replay) = log.replay::<2>("e.json").unwrap();
    replay.run_to(&mut sim, 3).unwrap();
    assert_eq!(sim.params().margin, 1.0);
    let missing = r#"{"format":"boids-events","version":1,"events":[
        {"kind":"start","preset":"canvas","seed":3,"params":{}}]}"#;
    let err = EventLog::parse(missing, "e.json").unwrap_err().to_string();
    assert!(err.contains("missing field `step`"), "{err}");
    assert!(err.contains("every event needs `step`, `kind`"), "{err}");
    assert!(err.contains("`time` is optional"), "{err}");
}

#[test]
fn a_replay_of_more_steps_than_the_cap_is_refused_before_its_first_step() {
    let params = small();
    let mut changed = ParamsBuilder::from_params(params.clone(), Source::Message);
    changed = apply_set(&changed, "visual_range", &Raw::Float(50.0), Source::Message).unwrap();
    // The reset's own step is the previous flock's, which the replay does not take.
    let mut exported = log(vec![
        Event::new_flock(0, true, "canvas", 1, &Params::preset("canvas").unwrap()),
        Event::new_flock(u64::MAX, false, "cornell", 5, &params),
        Event::set(MAX_REPLAY_STEPS, "visual_range", changed.params()),
    ]);
    exported.exported_at_step = Some(MAX_REPLAY_STEPS);
    exported
        .replay::<2>("e.json")
        .expect("the cap itself is allowed");
    exported.exported_at_step = Some(MAX_REPLAY_STEPS + 1);
    let err = exported.resume::<2>("e.json").unwrap_err().to_string();
    assert_eq!(
        err,
        "e.json: exported_at_step = 100000001 is out of range: allowed [0, 100000000], the most \
         steps a replay takes (a day of the viewer at its top speed)"
    );
    exported.exported_at_step = None;
    exported.events[2].step = 1_000_000_000_000_000;
    let err = exported.replay::<2>("e.json").unwrap_err().to_string();
    assert!(
        err.starts_with("e.json: event 2: step = 1000000000000000 is out of range"),
        "{err}"
    );
}

#[test]
fn the_course_is_every_parameter_set_the_replay_goes_through() {
    let text = r#"{"format":"boids-events","version":1,"events":[
        {"step":0,"kind":"start","preset":"cornell","seed":3,"params":{"count":40}},
        {"step":2,"kind":"set","key":"count","value":50},
        {"step":3,"kind":"pointer","x":5.0,"y":5.0},
        {"step":4,"kind":"place_predator","x":5.0,"y":5.0},
        {"step":6,"kind":"set","key":"visual_range","value":-1}]}"#;
    let log = EventLog::parse(text, "e.json").unwrap();
    let mut seen = Vec::new();
    let err = log
        .course("e.json", |params| {
            seen.push((params.count, params.predator_count));
            Ok(())
        })
        .unwrap_err()
        .to_string();
    assert_eq!(seen, [(40, 0), (50, 0), (50, 1)]);
    assert!(err.starts_with("e.json, event 4 (step 6): "), "{err}");
    let err = log
        .course("e.json", |params| match params.count {
            50 => Err("too many".to_owned()),
            _ => Ok(()),
        })
        .unwrap_err()
        .to_string();
    assert_eq!(err, "e.json, event 1 (step 2): too many");
}
