//! Drawing and encoding checked on frames we can reason about: one boid, two boids across a
//! seam, a short GIF decoded back; in 3D, the box's edges, a near and a far boid, the camera
//! turned.

use boids_core::overlay::{Overlay, OverlayBoid};
use boids_core::params::Camera;
use boids_core::{FlockState, Params, Simulation, Vec2, Vec3, group};
use boids_render::scene3d::box_edges;
use boids_render::{
    CameraAngle, Canvas, Color, DebugDraw, GifWriter, ImageSize, Orbit, Palette, Perspective,
    Renderer, Style, View, draw_frame, draw_frame_3d,
};

fn flock(params: Params, boids: &[(Vec2, Vec2)]) -> Simulation {
    let state = FlockState {
        positions: boids.iter().map(|b| b.0).collect(),
        velocities: boids.iter().map(|b| b.1).collect(),
        groups: vec![group::NONE; boids.len()],
        biases: vec![0.0; boids.len()],
        ..FlockState::default()
    };
    let params = Params {
        count: boids.len(),
        ..params
    };
    params.validate().unwrap();
    Simulation::<2>::from_state(params, 0, state, 0).unwrap()
}

/// Bounding box (min, max pixel) of the pixels in the square of side 2 `half` around `at` that
/// differ clearly from the background.
fn lit_box(canvas: &Canvas, background: Color, at: Vec2, half: u32) -> Option<(Vec2, Vec2)> {
    let far = |a: u8, b: u8| a.abs_diff(b) > 40;
    let mut lit = None::<(Vec2, Vec2)>;
    for y in at.y as u32 - half..at.y as u32 + half {
        for x in at.x as u32 - half..at.x as u32 + half {
            let c = canvas.pixel(x, y).unwrap();
            if far(c.r, background.r) || far(c.g, background.g) || far(c.b, background.b) {
                let p = Vec2::new(x as f32, y as f32) + 0.5;
                lit = Some(lit.map_or((p, p), |(lo, hi)| (lo.min(p), hi.max(p))));
            }
        }
    }
    lit
}

/// A second back end: records shapes instead of drawing them.
#[derive(Default)]
struct Recorder {
    clears: usize,
    lines: Vec<Color>,
    circles: usize,
    triangles: Vec<Color>,
}

impl DebugDraw for Recorder {
    fn clear(&mut self, _: Color) {
        self.clears += 1;
    }
    fn line(&mut self, _: Vec2, _: Vec2, _: f32, color: Color) {
        self.lines.push(color);
    }
    fn circle(&mut self, _: Vec2, _: f32, _: f32, _: Color) {
        self.circles += 1;
    }
    fn polygon(&mut self, _: &[Vec2], color: Color) {
        self.triangles.push(color);
    }
}

/// How many of `colors` are `c`.
fn count(colors: &[Color], c: Color) -> usize {
    colors.iter().filter(|&&x| x == c).count()
}

#[test]
fn the_scene_draws_through_any_back_end_one_triangle_per_boid() {
    let mut params = Params::preset("cornell").unwrap();
    params.count = 300;
    let mut sim = Simulation::<2>::new(params, 3).unwrap();
    for _ in 0..10 {
        sim.step().unwrap();
    }
    let style = Style::default();
    let view = View::for_params(sim.params(), 320, 240, false);
    let mut plain = Recorder::default();
    draw_frame(&mut plain, &sim, &view, &style, None);
    assert_eq!(plain.clears, 1);
    assert_eq!(plain.circles, 0);
    assert_eq!(plain.lines.len(), 8, "world and margin rectangles only");
    let scouts = [240, 30, 30]; // 10% toward +x, 10% toward -x
    for (group, n) in scouts.into_iter().enumerate() {
        assert_eq!(
            count(&plain.triangles, style.groups[group]),
            n,
            "group {group}"
        );
    }

    let data = Overlay::of_all(&sim);
    let mut overlay = Recorder::default();
    draw_frame(&mut overlay, &sim, &view, &style, Some(&data));
    assert_eq!(overlay.circles, 300, "one visual radius per boid");
    assert_eq!(overlay.triangles.len(), 300, "no ghosts off a torus");
    type Rule = fn(&OverlayBoid) -> Vec2;
    let layers: [(Color, Rule); 3] = [
        (style.cohesion, |b| b.rules.cohesion),
        (style.separation, |b| b.rules.separation),
        (style.alignment, |b| b.rules.alignment),
    ];
    for (color, rule) in layers {
        let nonzero = data.boids.iter().filter(|b| rule(b) != Vec2::ZERO).count();
        assert!(nonzero > 0, "{color:?}");
        assert_eq!(count(&overlay.lines, color), nonzero, "{color:?}");
    }
}

#[test]
fn view_keeps_the_aspect_ratio_centres_the_world_and_y_grows_down() {
    let view = View::fit(Vec2::new(-8.0, -8.0), Vec2::splat(16.0), 480, 360);
    assert_eq!(view.scale(), 22.5);
    assert_eq!(view.to_px(Vec2::new(-8.0, -8.0)), Vec2::new(60.0, 0.0));
    assert_eq!(view.to_px(Vec2::new(8.0, 8.0)), Vec2::new(420.0, 360.0));
    assert!(view.to_px(Vec2::new(0.0, 1.0)).y > view.to_px(Vec2::new(0.0, -1.0)).y);

    let torus = Params::preset("functional").unwrap();
    let plain = View::for_params(&torus, 400, 400, false);
    assert_eq!(plain.to_px(Vec2::new(-8.0, -8.0)), Vec2::ZERO);
    let padded = View::for_params(&torus, 400, 400, true);
    assert!(
        padded.to_px(Vec2::new(-8.0, -8.0)).x > 5.0,
        "room for ghosts"
    );
}

#[test]
fn a_boid_is_a_triangle_pointing_along_its_velocity() {
    let params = Params {
        boid_size: 20.0,
        ..Params::preset("cornell").unwrap()
    };
    let centre = Vec2::new(320.0, 240.0);
    let style = Style::default();
    for (velocity, ahead) in [
        (Vec2::new(4.0, 0.0), Vec2::X),
        (Vec2::new(0.0, -4.0), -Vec2::Y),
    ] {
        let sim = flock(params.clone(), &[(centre, velocity)]);
        let view = View::for_params(sim.params(), 640, 480, false);
        let mut canvas = Canvas::new(640, 480);
        draw_frame(&mut canvas, &sim, &view, &style, None);
        let at = view.to_px(centre);
        let length = style.boid_length(&view, sim.params());
        assert!(length > 30.0, "{length}");
        let (lo, hi) = lit_box(&canvas, style.background, at, 40).unwrap();
        let forward = (hi - at).dot(ahead).max((lo - at).dot(ahead));
        let backward = -(hi - at).dot(ahead).min((lo - at).dot(ahead));
        assert!(
            forward > 0.55 * length && backward < 0.45 * length,
            "{velocity}: reaches {forward} ahead, {backward} behind, length {length}"
        );
    }
}

#[test]
fn neighbours_across_a_torus_seam_appear_as_ghosts_beyond_it() {
    let params = Params::preset("functional").unwrap();
    let (a, b, far) = (
        Vec2::new(-7.9, 0.0),
        Vec2::new(7.9, 0.0),
        Vec2::new(0.0, 3.0),
    );
    let v = Vec2::new(0.0, 0.03);
    let sim = flock(params, &[(a, v), (b, v), (far, v)]);
    let data = Overlay::of_all(&sim);
    let mut ghosts: Vec<Vec2> = data.ghosts.iter().map(|g| g.position).collect();
    ghosts.sort_by(|p, q| p.x.total_cmp(&q.x));
    assert_eq!(ghosts.len(), 2, "{ghosts:?}");
    assert!(
        (ghosts[0] - Vec2::new(-8.1, 0.0)).length() < 1e-4,
        "{ghosts:?}"
    );
    assert!(
        (ghosts[1] - Vec2::new(8.1, 0.0)).length() < 1e-4,
        "{ghosts:?}"
    );

    let style = Style::default();
    let view = View::for_params(sim.params(), 400, 400, true);
    let mut shapes = Recorder::default();
    draw_frame(&mut shapes, &sim, &view, &style, Some(&data));
    let faint = style.group_color(group::NONE).with_alpha(style.ghost_alpha);
    assert_eq!(count(&shapes.triangles, faint), 2, "one triangle per ghost");
    assert_eq!(shapes.triangles.len(), 3 + 2);
    let ghost = view.to_px(Vec2::new(-8.1, 0.0));
    for overlay in [true, false] {
        let mut canvas = Canvas::new(400, 400);
        draw_frame(&mut canvas, &sim, &view, &style, overlay.then_some(&data));
        let c = canvas.pixel(ghost.x as u32, ghost.y as u32).unwrap();
        assert_eq!(
            c == style.background,
            !overlay,
            "overlay {overlay}: {c:?} at {ghost}"
        );
    }
}

#[test]
fn a_gif_decodes_to_its_frames_size_rate_and_loop() {
    let mut params = Params::preset("cornell").unwrap();
    params.count = 40;
    let mut sim = Simulation::<2>::new(params, 7).unwrap();
    let size: ImageSize = "64x48".parse().unwrap();
    let mut renderer = Renderer::new(sim.params(), size, false);
    let palette = Palette::for_style(renderer.style());
    let mut gif = GifWriter::new(Vec::new(), size, 25, palette.clone()).unwrap();
    let mut last = Vec::new();
    for _ in 0..3 {
        sim.step().unwrap();
        let canvas = renderer.draw(&sim);
        last = canvas.rgba().to_vec();
        gif.push(canvas).unwrap();
    }
    let bytes = gif.finish().unwrap();

    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(bytes.as_slice()).unwrap();
    assert_eq!((decoder.width(), decoder.height()), (64, 48));
    assert_eq!(decoder.repeat(), gif::Repeat::Infinite);
    let mut frames = Vec::new();
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        assert_eq!(frame.delay, 4, "25 fps is 4/100 s per frame");
        frames.push(frame.buffer.to_vec());
    }
    assert_eq!(frames.len(), 3);
    // The last frame decodes to the palette entry nearest each drawn pixel, which is close.
    let mut palette = palette;
    let mut error = 0u64;
    for (decoded, drawn) in frames[2].chunks_exact(4).zip(last.chunks_exact(4)) {
        let index = palette.nearest(drawn[0], drawn[1], drawn[2]);
        let expected = palette.color(index);
        assert_eq!(decoded, [expected.r, expected.g, expected.b, 255]);
        error += (0..3)
            .map(|k| u64::from(decoded[k].abs_diff(drawn[k])))
            .sum::<u64>();
    }
    let mean = error as f64 / (3 * 64 * 48) as f64;
    assert!(mean < 1.0, "mean quantisation error {mean}");
    assert_ne!(frames[0], frames[2], "the flock moved");
}

/// Obstacles are drawn where they are, in their own colour, and nothing of that colour shows
/// without them; a circle straddling a torus seam shows on both sides.
#[test]
fn obstacles_are_drawn_where_they_are() {
    use boids_core::obstacles::{Obstacle, Shape};
    let style = Style::default();
    let mut params = Params::preset("vicsek").unwrap();
    params.world_width = 100.0;
    params.world_height = 100.0;
    let far_away = [(Vec2::new(50.0, 90.0), Vec2::new(0.1, 0.0))];
    let paint = |params: &Params| {
        let sim = flock(params.clone(), &far_away);
        let view = View::for_params(sim.params(), 400, 400, false);
        let mut canvas = Canvas::new(400, 400);
        draw_frame(&mut canvas, &sim, &view, &style, None);
        (canvas, view)
    };
    let is_obstacle =
        |c: Color| c.r == style.obstacle.r && c.g == style.obstacle.g && c.b == style.obstacle.b;
    let (bare, _) = paint(&params);
    let bare_count = (0..400)
        .flat_map(|y| (0..400).map(move |x| (x, y)))
        .filter(|&(x, y)| is_obstacle(bare.pixel(x, y).unwrap()))
        .count();
    assert_eq!(bare_count, 0);
    let shapes = vec![
        Shape::Ball {
            center: Vec2::new(30.0, 30.0),
            radius: 10.0,
        },
        Shape::AlignedBox {
            min: Vec2::new(60.0, 20.0),
            max: Vec2::new(80.0, 40.0),
        },
        Shape::Ball {
            center: Vec2::new(1.0, 70.0),
            radius: 5.0,
        },
        Shape::Wall {
            points: vec![Vec2::new(20.0, 60.0), Vec2::new(40.0, 60.0)],
        },
    ];
    params.obstacles = shapes.into_iter().map(Obstacle::Plane).collect();
    let (canvas, view) = paint(&params);
    for (inside, outside) in [
        (Vec2::new(30.0, 30.0), Vec2::new(30.0, 45.0)),
        (Vec2::new(70.0, 30.0), Vec2::new(70.0, 45.0)),
        (Vec2::new(99.0, 70.0), Vec2::new(90.0, 70.0)),
        (Vec2::new(30.0, 60.0), Vec2::new(30.0, 65.0)),
    ] {
        let px = |p: Vec2| {
            let q = view.to_px(p);
            canvas.pixel(q.x as u32, q.y as u32).unwrap()
        };
        assert!(is_obstacle(px(inside)), "{inside}: {:?}", px(inside));
        assert!(!is_obstacle(px(outside)), "{outside}");
    }
}

/// Bounding box (min, max pixel) of the pixels of `canvas` within 12 of `color` per channel.
fn box_of(canvas: &Canvas, color: Color) -> Option<(Vec2, Vec2)> {
    let close = |a: u8, b: u8| a.abs_diff(b) <= 12;
    let mut found = None::<(Vec2, Vec2)>;
    for y in 0..canvas.height() {
        for x in 0..canvas.width() {
            let c = canvas.pixel(x, y).unwrap();
            if close(c.r, color.r) && close(c.g, color.g) && close(c.b, color.b) {
                let p = Vec2::new(x as f32, y as f32);
                found = Some(found.map_or((p, p), |(lo, hi)| (lo.min(p), hi.max(p))));
            }
        }
    }
    found
}

/// The box of the boids (group 0's colour) in the frame of `sim` through `camera`.
fn boids_through(camera: Camera, sim: &Simulation) -> (Vec2, Vec2) {
    let params = Params {
        camera,
        ..sim.params().clone()
    };
    let mut renderer = Renderer::new(&params, "640x480".parse().unwrap(), false);
    let color = renderer.style().groups[0];
    box_of(renderer.draw(sim), color).expect("boids in the frame")
}

#[test]
fn the_fit_camera_frames_a_small_flock_larger_than_the_world_camera() {
    let v = Vec2::new(3.0, 0.0);
    let boids: Vec<(Vec2, Vec2)> = (0..10)
        .map(|k| {
            (
                Vec2::new(200.0 + 4.0 * k as f32, 150.0 + 3.0 * (k % 3) as f32),
                v,
            )
        })
        .collect();
    let sim = flock(Params::preset("cornell").unwrap(), &boids);
    let (lo, hi) = boids_through(Camera::World, &sim);
    let (fit_lo, fit_hi) = boids_through(Camera::Fit, &sim);
    let (world, fit) = ((hi - lo).x, (fit_hi - fit_lo).x);
    assert!(fit > 3.0 * world, "fit {fit} px wide, world {world} px");
    assert!(
        fit_lo.x > 0.0 && fit_hi.x < 639.0,
        "with a margin: {fit_lo} {fit_hi}"
    );
    let middle = 0.5 * (fit_lo + fit_hi);
    assert!(
        (middle - Vec2::new(320.0, 240.0)).length() < 40.0,
        "{middle}"
    );
}

#[test]
fn the_follow_camera_keeps_a_flock_whole_across_a_torus_seam() {
    // World [-8, 8]^2, visual range 0.4: a chain 0.35 apart from x = 7 to 8.75 (-7.25), across
    // the seam at x = +-8, 1.75 wide: 52.5 px at the world view's 30 px per unit.
    let v = Vec2::new(0.03, 0.0);
    let boids: Vec<(Vec2, Vec2)> = [7.0, 7.35, 7.7, -7.95, -7.6, -7.25]
        .into_iter()
        .map(|x| (Vec2::new(x, 4.0), v))
        .collect();
    let sim = flock(Params::preset("functional").unwrap(), &boids);
    let (lo, hi) = boids_through(Camera::World, &sim);
    assert!(
        (hi - lo).x > 400.0,
        "split at both edges of the world: {lo} {hi}"
    );
    let (lo, hi) = boids_through(Camera::Follow, &sim);
    assert!(
        (hi - lo).x > 52.0 && (hi - lo).x < 75.0,
        "whole, from the first boid to the last: {lo} {hi}"
    );
    let middle = 0.5 * (lo + hi);
    assert!(
        (middle - Vec2::new(320.0, 240.0)).length() < 10.0,
        "centred: {middle}"
    );
}

/// Predators, attractors, the ground line and resting boids are drawn where they are, each in
/// its own colour, and none of those colours shows in a frame without them.
#[test]
fn predators_attractors_the_ground_and_perched_boids_show_in_their_colours() {
    use boids_core::world::Predator;
    let style = Style::default();
    let (flying, perched) = (Vec2::new(100.0, 100.0), Vec2::new(300.0, 460.0));
    let (predator, attractor) = (Vec2::new(500.0, 200.0), Vec2::new(320.0, 100.0));
    let bare = flock(
        Params::preset("cornell").unwrap(),
        &[(flying, Vec2::new(3.0, 0.0)), (perched, Vec2::ZERO)],
    );
    let mut params = bare.params().clone();
    params.predator_count = 1;
    params.attractors = vec![vec![attractor.x.into(), attractor.y.into()]];
    params.perch = true;
    params.validate().unwrap();
    let mut state = bare.state();
    state.predators = vec![Predator {
        position: predator,
        velocity: Vec2::new(0.0, 5.0),
    }];
    state.resting = vec![0, 30];
    let world = Simulation::<2>::from_state(params, 0, state, 0).unwrap();
    let ground_y = 480.0 - world.params().perch_height as f32;

    let paint = |sim: &Simulation| {
        let view = View::for_params(sim.params(), 640, 480, false);
        let mut canvas = Canvas::new(640, 480);
        draw_frame(&mut canvas, sim, &view, &style, None);
        (canvas, view)
    };
    let close = |c: Color, ink: Color| {
        c.r.abs_diff(ink.r) <= 12 && c.g.abs_diff(ink.g) <= 12 && c.b.abs_diff(ink.b) <= 12
    };
    let inks = [style.predator, style.attractor, style.perched, style.ground];
    let (canvas, _) = paint(&bare);
    for ink in inks {
        let shown = (0..480)
            .flat_map(|y| (0..640).map(move |x| (x, y)))
            .filter(|&(x, y)| close(canvas.pixel(x, y).unwrap(), ink))
            .count();
        assert_eq!(shown, 0, "{ink:?} without the world's objects");
    }

    let (canvas, view) = paint(&world);
    let at = |p: Vec2| {
        let q = view.to_px(p);
        canvas.pixel(q.x as u32, q.y as u32).unwrap()
    };
    assert!(close(at(predator), style.predator), "{:?}", at(predator));
    assert!(close(at(attractor), style.attractor), "{:?}", at(attractor));
    assert!(close(at(perched), style.perched), "{:?}", at(perched));
    assert!(close(at(flying), style.groups[0]), "{:?}", at(flying));
    assert!(close(at(Vec2::new(20.0, ground_y)), style.ground));
    assert!(!close(at(Vec2::new(20.0, ground_y - 10.0)), style.ground));
    // The predator is an arrowhead along its velocity (+y), longer than a boid.
    let length = style.boid_length(&view, world.params());
    let reach = |d: f32| at(predator + Vec2::new(0.0, d) / view.scale());
    assert!(
        close(reach(0.75 * length), style.predator),
        "reaches beyond a boid's tip"
    );
    assert!(
        !close(reach(-length), style.predator),
        "notched, short behind"
    );
}

/// A 3D cornell flock of the boids `(position, velocity)`, at rest.
fn flock_3d(boids: &[(Vec3, Vec3)]) -> Simulation<3> {
    let state = FlockState::<3> {
        positions: boids.iter().map(|b| b.0).collect(),
        velocities: boids.iter().map(|b| b.1).collect(),
        groups: vec![group::NONE; boids.len()],
        biases: vec![0.0; boids.len()],
        ..FlockState::default()
    };
    let params = Params {
        count: boids.len(),
        dimensions: 3,
        ..Params::preset("cornell").unwrap()
    };
    params.validate().unwrap();
    Simulation::<3>::from_state(params, 0, state, 0).unwrap()
}

/// The straight-on camera: looking along +z, x to the right and y down.
const STRAIGHT_ON: CameraAngle = CameraAngle {
    azimuth: 0.0,
    elevation: 0.0,
};

/// Pixels of `canvas` in the square of side 2 `half` around `at` that differ clearly from the
/// background, and the brightest channel among them.
fn lit(canvas: &Canvas, background: Color, at: Vec2, half: u32) -> (usize, u8) {
    let (mut count, mut brightest) = (0, 0);
    for y in at.y as u32 - half..at.y as u32 + half {
        for x in at.x as u32 - half..at.x as u32 + half {
            let c = canvas.pixel(x, y).unwrap();
            if c.r.abs_diff(background.r) + c.g.abs_diff(background.g) > 60 {
                count += 1;
                brightest = brightest.max(c.r).max(c.g);
            }
        }
    }
    (count, brightest)
}

#[test]
fn a_3d_frame_changes_with_the_camera_angle_and_the_orbit() {
    let mut params = Params::preset("cornell").unwrap();
    params.dimensions = 3;
    params.count = 200;
    let sim = Simulation::<3>::new(params, 2).unwrap();
    let size: ImageSize = "160x120".parse().unwrap();
    let frame = |orbit: Orbit| {
        let mut renderer = Renderer::<3>::new(sim.params(), size, false).orbiting(orbit);
        let first = renderer.draw(&sim).rgba().to_vec();
        (first, renderer.draw(&sim).rgba().to_vec())
    };
    let still = |angle| Orbit {
        angle,
        degrees_per_frame: 0.0,
    };
    let (front, front_again) = frame(still(STRAIGHT_ON));
    assert_eq!(front, front_again, "a still camera draws the same frame");
    let (default, _) = frame(still(CameraAngle::DEFAULT));
    assert_ne!(front, default);
    let (first, turned) = frame(Orbit {
        angle: STRAIGHT_ON,
        degrees_per_frame: 15.0,
    });
    assert_eq!(first, front, "the orbit starts at its angle");
    assert_ne!(turned, front, "then turns");
}

/// `count` points spread evenly over the unit square (a golden-ratio sequence: no clumps).
fn spread(count: usize) -> impl Iterator<Item = (f32, f32)> {
    (0..count).map(|k| {
        let k = k as f64 + 0.5;
        (
            (k * 0.618_034).fract() as f32,
            (k * 0.754_878).fract() as f32,
        )
    })
}

#[test]
fn a_crowd_is_drawn_translucent_so_a_sheet_seen_edge_on_is_brighter_than_one_seen_face_on() {
    // Two sheets of 3000 boids, 160 units square and 4 thick, at the same depth: the left one
    // across the line of sight (face on), the right one along it (edge on, a thin line).
    let forward = Vec3::new(3.0, 0.0, 0.0);
    let face_on = spread(3000).map(|(a, b)| {
        let p = Vec3::new(
            120.0 + 160.0 * a,
            160.0 + 160.0 * b,
            238.0 + 4.0 * (a * 97.0).fract(),
        );
        (p, forward)
    });
    let edge_on = spread(3000).map(|(a, b)| {
        let p = Vec3::new(
            360.0 + 160.0 * a,
            238.0 + 4.0 * (a * 97.0).fract(),
            160.0 + 160.0 * b,
        );
        (p, forward)
    });
    let sim = flock_3d(&face_on.chain(edge_on).collect::<Vec<_>>());
    let size: ImageSize = "320x240".parse().unwrap();
    let still = Orbit {
        angle: STRAIGHT_ON,
        degrees_per_frame: 0.0,
    };
    let mut renderer = Renderer::<3>::new(sim.params(), size, false).orbiting(still);
    let canvas = renderer.draw(&sim);
    let background = Style::default().background;
    let brightness = |x: u32, y: u32| {
        let c = canvas.pixel(x, y).unwrap();
        u32::from(c.r.abs_diff(background.r)) + u32::from(c.g.abs_diff(background.g))
    };
    let mut face: Vec<u32> = (0..240)
        .flat_map(|y| (0..160).map(move |x| (x, y)))
        .map(|(x, y)| brightness(x, y))
        .filter(|&b| b > 0)
        .collect();
    face.sort_unstable();
    let edge = (0..240)
        .flat_map(|y| (160..320).map(move |x| (x, y)))
        .map(|(x, y)| brightness(x, y))
        .max()
        .unwrap();
    let typical_face = face[face.len() * 9 / 10];
    // Opaque darts would make both the full colour of a boid at that depth.
    assert!(
        edge > typical_face + typical_face / 2,
        "edge on {edge}, face on {typical_face} (90th percentile of {} lit pixels)",
        face.len()
    );
}

#[test]
fn the_world_box_edges_are_drawn_in_the_outline_colour() {
    let sim = flock_3d(&[(Vec3::new(320.0, 240.0, 240.0), Vec3::X)]);
    let style = Style::default();
    let (width, height) = (320, 240);
    for angle in [
        STRAIGHT_ON,
        CameraAngle::DEFAULT,
        "-120,-30".parse().unwrap(),
    ] {
        let camera = Perspective::of_world(sim.params(), angle, width, height);
        let mut canvas = Canvas::new(width, height);
        draw_frame_3d(&mut canvas, &sim, &camera, &style, None);
        let edges = box_edges(sim.params());
        assert_eq!(edges.len(), 12);
        let outline = style.world_outline;
        for (a, b) in edges {
            let at = camera.project(0.5 * (a + b)).unwrap().at;
            // The brightest pixel next to the edge's middle is the outline over the background.
            let c = (0..3)
                .flat_map(|dy| (0..3).map(move |dx| (dx, dy)))
                .filter_map(|(dx, dy)| canvas.pixel(at.x as u32 + dx - 1, at.y as u32 + dy - 1))
                .max_by_key(|c| c.b)
                .unwrap();
            assert_ne!(c, style.background, "{angle:?}: edge {a} {b} at {at}");
            assert!(
                c.b > c.r && c.b - style.background.b <= outline.b - style.background.b,
                "{angle:?}: {c:?} at {at} is not the outline {outline:?}"
            );
        }
    }
}

#[test]
fn depth_cueing_draws_a_nearer_boid_larger_and_brighter() {
    // Straight on, the camera looks along +z: the boid at z = 60 is nearer than the one at 420.
    let v = Vec3::new(3.0, 0.0, 0.0);
    let (near, far) = (
        Vec3::new(220.0, 240.0, 60.0),
        Vec3::new(420.0, 240.0, 420.0),
    );
    let sim = flock_3d(&[(near, v), (far, v)]);
    let style = Style::default();
    let camera = Perspective::of_world(sim.params(), STRAIGHT_ON, 640, 480);
    let mut canvas = Canvas::new(640, 480);
    draw_frame_3d(&mut canvas, &sim, &camera, &style, None);
    let [near, far] = [near, far].map(|p| camera.project(p).unwrap());
    assert!(near.scale > far.scale);
    let (near_pixels, near_bright) = lit(&canvas, style.background, near.at, 20);
    let (far_pixels, far_bright) = lit(&canvas, style.background, far.at, 20);
    assert!(far_pixels > 0, "the far boid is drawn");
    assert!(
        near_pixels > far_pixels,
        "nearer is larger: {near_pixels} pixels against {far_pixels}"
    );
    assert!(
        near_bright > far_bright,
        "nearer is brighter: {near_bright} against {far_bright}"
    );
}

/// Pixels of `canvas` whose channel `k` stands out as a pure overlay colour (no boid colour,
/// nor its blends with the background, does that).
fn saturated(canvas: &Canvas, k: usize) -> usize {
    canvas
        .rgba()
        .chunks_exact(4)
        .filter(|p| {
            let others = (0..3).filter(|&o| o != k).map(|o| p[o]).max().unwrap();
            p[k] >= 200 && others <= 140 && p[k] - others >= 100
        })
        .count()
}

#[test]
fn the_3d_overlay_draws_the_rule_vectors_only_when_asked() {
    let mut params = Params::preset("cornell").unwrap();
    params.dimensions = 3;
    params.count = 150;
    params.init_x = [260.0, 380.0];
    params.init_y = [180.0, 300.0];
    params.init_z = [180.0, 300.0];
    let mut sim = Simulation::<3>::new(params, 4).unwrap();
    for _ in 0..5 {
        sim.step().unwrap();
    }
    let style = Style::default();
    let camera = Perspective::of_world(sim.params(), CameraAngle::DEFAULT, 320, 240);
    let overlay = Overlay::of_all(&sim);
    for shown in [false, true] {
        let mut canvas = Canvas::new(320, 240);
        draw_frame_3d(
            &mut canvas,
            &sim,
            &camera,
            &style,
            shown.then_some(&overlay),
        );
        // Cohesion red, separation green, alignment blue.
        for k in 0..3 {
            let n = saturated(&canvas, k);
            assert_eq!(n > 0, shown, "overlay {shown}: channel {k} on {n} pixels");
        }
    }
}

#[test]
fn the_3d_fit_camera_frames_a_small_flock_larger_than_the_world_camera() {
    let v = Vec3::new(3.0, 0.0, 0.0);
    let boids: Vec<(Vec3, Vec3)> = (0..10)
        .map(|k| {
            let k = k as f32;
            (
                Vec3::new(200.0 + 4.0 * k, 150.0 + 3.0 * (k % 3.0), 100.0 + 2.0 * k),
                v,
            )
        })
        .collect();
    let sim = flock_3d(&boids);
    let lit_pixels = |camera: Camera| {
        let params = Params {
            camera,
            ..sim.params().clone()
        };
        let mut renderer = Renderer::<3>::new(&params, "320x240".parse().unwrap(), false);
        // Boids in group 0's yellow (the box's edges are grey-blue).
        let rgba = renderer.draw(&sim).rgba();
        let warm = rgba.chunks_exact(4).filter(|p| p[0] > p[2] + 40);
        warm.count()
    };
    let (world, fit) = (lit_pixels(Camera::World), lit_pixels(Camera::Fit));
    assert!(
        fit > 4 * world,
        "fit {fit} pixels against the world's {world}"
    );
}

/// A 3D world seen straight on: a sphere in the middle with a boid behind it, a box, a
/// predator, an attractor and the ground plane of perching.
fn world_3d() -> Simulation<3> {
    use boids_core::obstacles::{Obstacle, Shape};
    use boids_core::world::Predator;
    let hidden = Vec3::new(320.0, 240.0, 400.0);
    let state = FlockState::<3> {
        positions: vec![hidden, Vec3::new(600.0, 40.0, 240.0)],
        velocities: vec![Vec3::X; 2],
        groups: vec![group::NONE; 2],
        biases: vec![0.0; 2],
        predators: vec![Predator {
            position: Vec3::new(150.0, 100.0, 240.0),
            velocity: Vec3::new(3.0, 0.0, 0.0),
        }],
        resting: vec![0; 2],
    };
    let params = Params {
        count: 2,
        dimensions: 3,
        predator_count: 1,
        perch: true,
        perch_height: 40.0,
        obstacles: vec![
            Obstacle::Space(Shape::Ball {
                center: Vec3::new(320.0, 240.0, 240.0),
                radius: 60.0,
            }),
            Obstacle::Space(Shape::AlignedBox {
                min: Vec3::new(450.0, 300.0, 200.0),
                max: Vec3::new(550.0, 400.0, 280.0),
            }),
        ],
        attractors: vec![vec![500.0, 100.0, 240.0]],
        ..Params::preset("cornell").unwrap()
    };
    params.validate().unwrap();
    Simulation::<3>::from_state(params, 0, state, 0).unwrap()
}

#[test]
fn a_3d_world_draws_a_shaded_sphere_over_what_is_behind_it_box_edges_and_the_ground() {
    let sim = world_3d();
    let style = Style::default();
    let camera = Perspective::of_world(sim.params(), STRAIGHT_ON, 640, 480);
    let mut canvas = Canvas::new(640, 480);
    draw_frame_3d(&mut canvas, &sim, &camera, &style, None);
    let pixel = |p: Vec2| canvas.pixel(p.x as u32, p.y as u32).unwrap();
    // The sphere, nearer than the boid behind it, covers it: its centre is obstacle-grey
    // (blue a little above red), not the boid's colour.
    let sphere = camera.project(Vec3::new(320.0, 240.0, 240.0)).unwrap();
    let r = 60.0 * sphere.scale;
    let greyish = |c: Color| c.b >= c.r && c.b >= c.g && c.b - c.r < 50;
    let centre = pixel(sphere.at);
    assert!(greyish(centre), "{centre:?} at the sphere's centre");
    // Shaded: the lit cap toward the upper left is brighter than the rim at the lower right.
    let cap = pixel(sphere.at - Vec2::splat(0.3 * r));
    let rim = pixel(sphere.at + Vec2::splat(0.6 * r));
    assert!(
        cap.b > rim.b + 20 && rim != style.background,
        "{cap:?} vs {rim:?}"
    );
    // Beyond its outline, the background.
    assert_eq!(pixel(sphere.at + Vec2::new(1.2 * r, 0.0)), style.background);
    // The box: the middle of each edge is drawn, in the obstacle's grey.
    let (lo, hi) = (
        Vec3::new(450.0, 300.0, 200.0),
        Vec3::new(550.0, 400.0, 280.0),
    );
    let edges = boids_render::scene3d::cuboid_edges(lo, hi);
    assert_eq!(edges.len(), 12);
    for (a, b) in edges {
        let at = camera.project(0.5 * (a + b)).unwrap().at;
        let brightest = (0..3)
            .flat_map(|dy| (0..3).map(move |dx| (dx, dy)))
            .map(|(dx, dy)| pixel(at + Vec2::new(dx as f32 - 1.0, dy as f32 - 1.0)))
            .max_by_key(|c| c.b)
            .unwrap();
        assert!(
            brightest.b > style.background.b + 40 && greyish(brightest),
            "box edge {a} {b}: {brightest:?}"
        );
    }
    // The ground plane's near edge (y = 440, z = 0) in the ground's green.
    let ground = camera.project(Vec3::new(320.0, 440.0, 0.0)).unwrap().at;
    let green = (-1..=1)
        .map(|dy| pixel(ground + Vec2::new(0.0, dy as f32)))
        .max_by_key(|c| c.g)
        .unwrap();
    assert!(green.g > green.r && green.g > green.b + 20, "{green:?}");
}

#[test]
fn a_3d_predator_is_an_orange_dart_and_an_attractor_a_ring() {
    let sim = world_3d();
    let style = Style::default();
    let camera = Perspective::of_world(sim.params(), STRAIGHT_ON, 640, 480);
    let mut canvas = Canvas::new(640, 480);
    draw_frame_3d(&mut canvas, &sim, &camera, &style, None);
    let orange = |c: &Color| c.r > 180 && c.g > 80 && c.g < c.r - 60 && c.b < 90;
    let predator = camera.project(Vec3::new(150.0, 100.0, 240.0)).unwrap().at;
    let near = |at: Vec2, half: i32| {
        let canvas = &canvas;
        (-half..=half).flat_map(move |dy| {
            (-half..=half).filter_map(move |dx| {
                canvas.pixel((at.x as i32 + dx) as u32, (at.y as i32 + dy) as u32)
            })
        })
    };
    let orange_pixels = near(predator, 15).filter(orange).count();
    assert!(
        orange_pixels > 10,
        "{orange_pixels} orange pixels at the predator"
    );
    assert_eq!(
        canvas
            .rgba()
            .chunks_exact(4)
            .filter(|p| orange(&Color::rgb(p[0], p[1], p[2])))
            .count(),
        orange_pixels,
        "orange only at the predator"
    );
    let attractor = camera.project(Vec3::new(500.0, 100.0, 240.0)).unwrap().at;
    let violet = |c: &Color| c.r > 120 && c.b > c.g + 40 && c.b > 150;
    assert!(
        near(attractor, 12).filter(violet).count() > 10,
        "the attractor's ring"
    );
}
