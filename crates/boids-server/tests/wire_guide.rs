//! The guide's wire-format chapter lists every request the server reads, each as it reads it: a
//! request kind added to the protocol without a line there, or a line the server would refuse,
//! fails here.

use std::collections::BTreeSet;

use boids_server::protocol::{Request, parse_request};

const CHAPTER: &str = include_str!("../../../docs/src/wire-format.md");

/// The lines of the chapter's first JSON block: one request a line.
fn listed_requests() -> Vec<&'static str> {
    let block = CHAPTER
        .split("```json\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the wire-format chapter has a JSON block of requests");
    block
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect()
}

/// The request's kind, as its `type` field names it. The match has no wildcard, so a new kind
/// does not compile here until it is listed in `every_kind`.
fn kind(request: &Request) -> &'static str {
    match request {
        Request::Set { .. } => "set",
        Request::Reset { .. } => "reset",
        Request::Start {} => "start",
        Request::Stop {} => "stop",
        Request::Step { .. } => "step",
        Request::Speed { .. } => "speed",
        Request::Overlay { .. } => "overlay",
        Request::PlacePredator { .. } => "place_predator",
        Request::RemovePredator { .. } => "remove_predator",
        Request::Pointer { .. } => "pointer",
    }
}

fn every_kind() -> BTreeSet<&'static str> {
    [
        "set",
        "reset",
        "start",
        "stop",
        "step",
        "speed",
        "overlay",
        "place_predator",
        "remove_predator",
        "pointer",
    ]
    .into()
}

#[test]
fn every_request_the_guide_lists_is_read_and_every_kind_is_listed() {
    let mut seen = BTreeSet::new();
    for line in listed_requests() {
        let envelope = parse_request(line);
        let request = envelope
            .request
            .unwrap_or_else(|e| panic!("the guide's request {line} is refused: {e}"));
        seen.insert(kind(&request));
    }
    let missing: Vec<_> = every_kind().difference(&seen).copied().collect();
    assert!(missing.is_empty(), "the guide lists no {missing:?} request");
}
