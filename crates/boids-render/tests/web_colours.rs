//! The viewer (web/js/constants.js) and `boids render` draw the world's things in the same
//! colours: this reads the page's colour table and holds it to [`Style::default`], so that a
//! colour changed on one side only fails here.

use boids_render::{Color, Style};

/// The `[r, g, b]` of `name` in the page's `COLOR` table.
fn web_colour(constants: &str, name: &str) -> [u8; 3] {
    let line = constants
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(&format!("{name}: [")))
        .unwrap_or_else(|| panic!("no colour {name} in web/js/constants.js"));
    let inner = line.split_once('[').unwrap().1.split_once(']').unwrap().0;
    let channels: Vec<u8> = inner
        .split(',')
        .map(|c| c.trim().parse().unwrap())
        .collect();
    channels.try_into().unwrap()
}

#[test]
fn the_viewer_draws_in_the_colours_of_boids_render() {
    let constants = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../web/js/constants.js"
    ))
    .unwrap();
    let style = Style::default();
    let rgb = |c: Color| [c.r, c.g, c.b];
    for (name, colour) in [
        ("boid", style.groups[0]),
        ("scout1", style.groups[1]),
        ("scout2", style.groups[2]),
        ("predator", style.predator),
        ("attractor", style.attractor),
        ("resting", style.perched),
        ("ground", style.ground),
        ("obstacle", style.obstacle),
    ] {
        assert_eq!(web_colour(&constants, name), rgb(colour), "{name}");
    }
}
