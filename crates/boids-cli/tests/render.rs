//! `boids render` through the real binary: what lands in the files (size, frames, pixels,
//! colours), and that bad requests are refused before anything is written.

mod common;

use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_boids");

fn boids(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(BIN)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("the boids binary runs")
}

fn render_ok(args: &[&str]) {
    let out = boids(&[&["render"], args].concat(), &[]);
    assert!(
        out.status.success(),
        "boids render {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A refused command: exit 2, an `error:` message containing every `expected` piece, no
/// panic, and nothing left in `dir`.
fn refused(dir: &Path, args: &[&str], env: &[(&str, &str)], expected: &[&str]) {
    let out = boids(&[&["render"], args].concat(), env);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.starts_with("error:"), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for piece in expected {
        assert!(
            stderr.contains(piece),
            "{args:?}: {piece:?} not in {stderr}"
        );
    }
    let left: Vec<_> = std::fs::read_dir(dir).unwrap().collect();
    assert!(left.is_empty(), "{args:?} left {left:?}");
}

fn path(dir: &tempfile::TempDir, name: &str) -> String {
    dir.path().join(name).to_str().unwrap().to_owned()
}

/// RGBA pixels and size of a PNG file.
fn png(path: &str) -> (Vec<[u8; 4]>, u32, u32) {
    let pixmap = tiny_skia::Pixmap::load_png(path).unwrap();
    let pixels = pixmap
        .data()
        .chunks_exact(4)
        .map(|p| [p[0], p[1], p[2], p[3]]);
    (pixels.collect(), pixmap.width(), pixmap.height())
}

/// Pixels whose channel `k` stands out as a pure overlay colour: at least 200, the others at
/// most 140 and at least 100 below it. No boid colour, nor blend of them, does that.
fn saturated(pixels: &[[u8; 4]], k: usize) -> usize {
    pixels
        .iter()
        .filter(|p| {
            let others = (0..3).filter(|&o| o != k).map(|o| p[o]).max().unwrap();
            p[k] >= 200 && others <= 140 && p[k] - others >= 100
        })
        .count()
}

/// Pixels within 12 of `color` in every channel.
fn near(pixels: &[[u8; 4]], color: [u8; 3]) -> usize {
    pixels
        .iter()
        .filter(|p| (0..3).all(|k| p[k].abs_diff(color[k]) <= 12))
        .count()
}

/// Frame count and size of a GIF file.
fn gif_frames(path: &str) -> (usize, u16, u16) {
    let file = std::fs::File::open(path).unwrap();
    let mut decoder = gif::DecodeOptions::new().read_info(file).unwrap();
    let (w, h) = (decoder.width(), decoder.height());
    let mut frames = 0;
    while decoder.read_next_frame().unwrap().is_some() {
        frames += 1;
    }
    (frames, w, h)
}

#[test]
fn png_is_the_last_frame_with_every_scout_group_in_its_colour() {
    let dir = tempfile::tempdir().unwrap();
    let out = path(&dir, "flock.png");
    let flock = ["--preset", "cornell", "--count", "200", "--steps", "30"];
    render_ok(&[&flock[..], &["--size", "640x480", "--out", &out]].concat());
    let (pixels, w, h) = png(&out);
    assert_eq!((w, h), (640, 480));
    assert!(pixels.iter().all(|p| p[3] == 255), "opaque");
    let background = pixels[0];
    let drawn = pixels.iter().filter(|p| **p != background).count();
    assert!(drawn > 2000, "only {drawn} pixels drawn");
    // Style::default()'s group colours: none, toward +x, toward -x (10% scouts each).
    for (group, color) in [[246, 216, 110], [255, 96, 200], [90, 205, 255]]
        .into_iter()
        .enumerate()
    {
        let n = near(&pixels, color);
        assert!(n >= 10, "group {group} colour {color:?} on {n} pixels");
    }
}

#[test]
fn overlay_colours_appear_with_overlay_and_never_without() {
    let dir = tempfile::tempdir().unwrap();
    let flock = ["--preset", "cornell", "--count", "150", "--steps", "40"];
    for overlay in [true, false] {
        let out = path(&dir, &format!("overlay-{overlay}.png"));
        let flag: &[&str] = if overlay { &["--overlay"] } else { &[] };
        render_ok(&[&flock[..], &["--size", "320x240", "--out", &out], flag].concat());
        let (pixels, ..) = png(&out);
        let [red, green, blue] = [0, 1, 2].map(|k| saturated(&pixels, k));
        if overlay {
            assert!(
                red > 20 && green > 20 && blue > 20,
                "overlay: red {red}, green {green}, blue {blue}"
            );
        } else {
            assert_eq!((red, green, blue), (0, 0, 0), "without overlay");
        }
    }
}

/// The couzin group leaves its 20 x 20 start region within about 100 steps; its preset's
/// camera follows it, so the last frame of 600 steps shows it, where the world camera's is
/// empty.
#[test]
fn the_couzin_preset_follows_its_group_out_of_the_world() {
    let dir = tempfile::tempdir().unwrap();
    let drawn = |camera: &[&str]| {
        let out = path(&dir, &format!("couzin{}.png", camera.len()));
        let flock = ["--preset", "couzin", "--steps", "600", "--size", "320x240"];
        render_ok(&[&flock[..], &["--out", &out], camera].concat());
        let (pixels, ..) = png(&out);
        // Style::default()'s colour of boids in no scout group.
        near(&pixels, [246, 216, 110])
    };
    let followed = drawn(&[]);
    assert!(followed > 200, "{followed} boid pixels in the last frame");
    assert_eq!(drawn(&["--camera", "world"]), 0, "the group left the world");
}

#[test]
fn images_do_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let run = |threads: &str| {
        let out = path(&dir, &format!("t{threads}.png"));
        render_ok(&[
            "--preset",
            "functional",
            "--count",
            "300",
            "--steps",
            "25",
            "--overlay",
            "--size",
            "200x200",
            "--threads",
            threads,
            "--out",
            &out,
        ]);
        std::fs::read(out).unwrap()
    };
    assert_eq!(run("1"), run("2"));
}

#[test]
fn gif_has_one_frame_every_e_steps_from_the_warmup_at_the_size() {
    let dir = tempfile::tempdir().unwrap();
    let out = path(&dir, "flock.gif");
    let flock = ["--preset", "cornell", "--count", "60", "--steps", "20"];
    render_ok(
        &[
            &flock[..],
            &["--every", "5", "--size", "96x64", "--out", &out],
        ]
        .concat(),
    );
    assert_eq!(gif_frames(&out), (5, 96, 64), "steps 0, 5, 10, 15, 20");
    let args = [
        "--every", "5", "--warmup", "10", "--size", "50x40", "--out", &out,
    ];
    render_ok(&[&flock[..], &args].concat());
    assert_eq!(gif_frames(&out), (3, 50, 40), "steps 10, 15, 20");
}

/// Whether ffmpeg's tools can be run; when they cannot, a test skips, unless `CI=true`.
fn have_ffmpeg(test: &str) -> bool {
    let runs = |tool: &str| Command::new(tool).arg("-version").output().is_ok();
    if runs("ffmpeg") && runs("ffprobe") {
        return true;
    }
    common::skip_unless_ci(&format!(
        "{test}: ffmpeg/ffprobe not installed (apt-get install ffmpeg)"
    ));
    false
}

#[test]
fn mp4_has_its_frames_and_size_by_ffprobe() {
    if !have_ffmpeg("mp4_has_its_frames_and_size_by_ffprobe") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = path(&dir, "flock.mp4");
    let flock = ["--preset", "functional", "--count", "100", "--steps", "12"];
    render_ok(
        &[
            &flock[..],
            &["--every", "3", "--size", "96x64", "--out", &out],
        ]
        .concat(),
    );
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-count_frames", "-select_streams", "v:0"])
        .args(["-show_entries", "stream=width,height,nb_read_frames"])
        .args(["-of", "csv=p=0", &out])
        .output()
        .unwrap();
    assert!(probe.status.success(), "{probe:?}");
    assert_eq!(String::from_utf8_lossy(&probe.stdout).trim(), "96,64,5");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "only the video remains: {left:?}");
}

#[test]
fn bad_size_format_or_warmup_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let run = ["--count", "20", "--steps", "3"];
    let gif = path(&dir, "a.gif");
    for (size, says) in [
        ("0x100", "width 0 is out of range 16..=8192"),
        ("640x9000", "height 9000 is out of range 16..=8192"),
        ("640", "expected WIDTHxHEIGHT"),
        ("ax480", "width 'a' is not a whole number"),
    ] {
        let args = [&run[..], &["--size", size, "--out", &gif]].concat();
        refused(dir.path(), &args, &[], &["--size", size, says]);
    }
    let jpg = path(&dir, "a.jpg");
    let args = [&run[..], &["--out", &jpg]].concat();
    refused(
        dir.path(),
        &args,
        &[],
        &["--out", "a.jpg", ".png, .gif or .mp4"],
    );
    let mp4 = path(&dir, "a.mp4");
    let args = [&run[..], &["--size", "97x64", "--out", &mp4]].concat();
    refused(
        dir.path(),
        &args,
        &[],
        &["--size 97x64", "even width and height"],
    );
    let args = [&run[..], &["--warmup", "4", "--out", &gif]].concat();
    refused(dir.path(), &args, &[], &["--warmup 4", "--steps 3"]);
    let args = [&run[..], &["--camera", "sideways", "--out", &gif]].concat();
    refused(
        dir.path(),
        &args,
        &[],
        &["--camera", "sideways", "world, fit, follow"],
    );
    let args = [&run[..], &["--set", "visual_range=-1", "--out", &gif]].concat();
    refused(dir.path(), &args, &[], &["visual_range"]);
}

#[test]
fn mp4_without_ffmpeg_says_ffmpeg_is_needed_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mp4 = path(&dir, "a.mp4");
    let missing = dir.path().join("no-such-ffmpeg");
    let env = [("BOIDS_FFMPEG", missing.to_str().unwrap())];
    let args = ["--count", "20", "--steps", "3", "--out", &mp4];
    refused(
        dir.path(),
        &args,
        &env,
        &["writing MP4 needs ffmpeg", "apt-get install ffmpeg"],
    );
}

/// The frames of a GIF file, as RGBA bytes.
fn gif_pixels(path: &str) -> Vec<Vec<u8>> {
    let file = std::fs::File::open(path).unwrap();
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(file).unwrap();
    let mut frames = Vec::new();
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        frames.push(frame.buffer.to_vec());
    }
    frames
}

#[test]
fn a_3d_flock_is_drawn_in_its_box_from_the_camera_angle() {
    let dir = tempfile::tempdir().unwrap();
    let flock = ["--set", "dimensions=3", "--count", "200", "--steps", "20"];
    let shot = |name: &str, angle: &[&str]| {
        let out = path(&dir, name);
        render_ok(&[&flock[..], angle, &["--size", "320x240", "--out", &out]].concat());
        png(&out).0
    };
    let default = shot("default.png", &[]);
    let explicit = shot("explicit.png", &["--camera-angle", "30,20"]);
    let below = shot("below.png", &["--camera-angle=-60,-25"]);
    assert_eq!(default, explicit, "the default angle is 30,20");
    assert_ne!(default, below, "another angle, another picture");
    for pixels in [&default, &below] {
        let background = pixels[0];
        // The box's edges: bluish grey lines over the background.
        let edges = pixels
            .iter()
            .filter(|p| p[2] > p[0] && p[2] > background[2] + 25 && p[0] < 140)
            .count();
        assert!(edges > 300, "box edges on {edges} pixels");
        // Boids: group 0's yellow, faded by depth toward the background.
        let boids = pixels
            .iter()
            .filter(|p| p[0] > p[2] + 40 && p[1] > p[2] + 20)
            .count();
        assert!(boids >= 100, "boids on {boids} pixels");
    }
}

#[test]
fn the_3d_overlay_and_cameras_draw_through_the_perspective() {
    let dir = tempfile::tempdir().unwrap();
    // A dense start, so that some boids are within each other's protected range.
    let flock = [
        &["--set", "dimensions=3", "--count", "80", "--steps", "5"][..],
        &["--set", "init_x=[300, 340]", "--set", "init_y=[220, 260]"],
        &["--set", "init_z=[220, 260]"],
    ]
    .concat();
    let shot = |name: &str, extra: &[&str]| {
        let out = path(&dir, name);
        render_ok(&[&flock[..], extra, &["--size", "320x240", "--out", &out]].concat());
        png(&out).0
    };
    let plain = shot("plain.png", &[]);
    let overlay = shot("overlay.png", &["--overlay", "--camera", "fit"]);
    for k in 0..3 {
        assert_eq!(saturated(&plain, k), 0, "channel {k} without the overlay");
        assert!(saturated(&overlay, k) > 0, "channel {k} with the overlay");
    }
    let follow = shot("follow.png", &["--camera", "follow"]);
    assert_ne!(follow, plain, "the follow camera looks at the flock");
}

#[test]
fn orbit_turns_the_camera_over_the_animation() {
    let dir = tempfile::tempdir().unwrap();
    let flock = ["--set", "dimensions=3", "--count", "100", "--steps", "4"];
    let gif = |name: &str, orbit: &str| {
        let out = path(&dir, name);
        let args = ["--size", "160x120", "--orbit", orbit, "--out", &out];
        render_ok(&[&flock[..], &args].concat());
        gif_pixels(&out)
    };
    let still = gif("still.gif", "0");
    let turning = gif("turning.gif", "360");
    assert_eq!((still.len(), turning.len()), (5, 5));
    assert_eq!(still[0], turning[0], "the orbit starts at the camera angle");
    for k in 1..5 {
        assert_ne!(still[k], turning[k], "frame {k} is turned");
    }
    let backwards = gif("backwards.gif", "-360");
    assert_ne!(backwards[1], turning[1], "the turn has a direction");
}

#[test]
fn bad_camera_angles_and_orbits_are_refused_with_the_value_and_range() {
    let dir = tempfile::tempdir().unwrap();
    let run = ["--set", "dimensions=3", "--count", "20", "--steps", "3"];
    let (png, gif) = (path(&dir, "a.png"), path(&dir, "a.gif"));
    for (angle, says) in [
        ("10,95", "elevation 95 is out of range [-89, 89] degrees"),
        ("-400,0", "azimuth -400 is out of range [-360, 360] degrees"),
        ("30", "expected AZIMUTH,ELEVATION in degrees"),
        ("up,20", "azimuth 'up' is not a number"),
    ] {
        let args = [&run[..], &["--camera-angle", angle, "--out", &png]].concat();
        refused(dir.path(), &args, &[], &["--camera-angle", angle, says]);
    }
    let args = [&run[..], &["--orbit", "4000", "--out", &gif]].concat();
    refused(
        dir.path(),
        &args,
        &[],
        &["--orbit 4000", "[-3600, 3600] degrees"],
    );
    let args = [&run[..], &["--orbit", "90", "--out", &png]].concat();
    refused(
        dir.path(),
        &args,
        &[],
        &["--orbit 90", "a .png has one frame"],
    );
    let flat = ["--count", "20", "--steps", "3", "--camera-angle", "10,10"];
    let args = [&flat[..], &["--out", &png]].concat();
    refused(
        dir.path(),
        &args,
        &[],
        &[
            "--camera-angle 10,10",
            "dimensions = 2",
            "--set dimensions=3",
        ],
    );
}
