//! What a frame of a three-dimensional flock shows, through a [`Perspective`] camera.
//!
//! The world box's twelve edges, then the world's objects and the flock, farthest first so that
//! nearer ones cover them: boxes (obstacles) as their twelve edges and the ground plane's
//! outline when boids perch, beneath everything; spheres as shaded discs (a lit cap on a darker
//! rim); attractors as the flat scene's ring and cross; boids as darts, resting boids in the
//! perched colour, and predators as orange darts twice as long. A dart points along the boid's
//! velocity and spreads its wings across the line of
//! sight, so its outline shows which way the boid flies: long when it crosses the picture, short
//! when it flies toward or away from the camera. Depth is cued twice: a dart is sized in world
//! units, so perspective draws nearer boids larger, and its colour fades toward the background
//! with its depth in the framed ball ([`Perspective::farness`]), so nearer boids are brighter.
//! A crowd is drawn translucent ([`crate::scene`]'s crowd opacity), so that a flock's image
//! shows where it is deep along the line of sight.
//! Faded colours lie on the ramps of the GIF palette ([`crate::Palette`]).
//!
//! The debug overlay is the core's data (`boids_core::overlay`), drawn as the flat scene draws
//! it: circles of the visual radius, ghosts across the seams, and the velocity and rule vectors
//! (one scaling for both, `for_each_vector`), in world units through the camera. Colours and
//! the boid size are the flat renderer's ([`Style`]); every point goes through the one
//! projection ([`crate::projection`]).

use boids_core::camera::Torus;
use boids_core::obstacles::{Obstacle, Shape};
use boids_core::overlay::Overlay;
use boids_core::world::Perch;
use boids_core::{Params, Simulation, Vec2, Vec3};

use crate::draw::{Color, DebugDraw};
use crate::projection::{Perspective, Projected};
use crate::scene::{
    CIRCLE_SIDES, PREDATOR_SCALE, Style, attractor_mark, crowd_opacity, for_each_vector,
};

/// Share of its colour the farthest boid loses toward the background.
pub const DEPTH_FADE: f32 = 0.6;

/// Width in pixels of the world box's edges.
const EDGE_WIDTH: f32 = 1.2;

/// Width in pixels of a box obstacle's edges and of the ground plane's outline.
const OBSTACLE_EDGE_WIDTH: f32 = 2.0;

/// Share of the obstacle colour on a sphere's rim; its lit cap has all of it.
const SPHERE_RIM: f32 = 0.55;

/// Something drawn in depth order, at the image nearest the point looked at.
enum Solid {
    /// A sphere obstacle's radius.
    Sphere(f32),
    /// The boid stored at this index.
    Boid(usize),
    /// A predator's velocity.
    Predator(Vec3),
}

/// Draws the current frame of `sim` through `camera`, the boids at their images nearest the
/// point the camera looks at on a torus (so a flock followed across a seam is drawn whole); with
/// the debug view of `overlay` if given (usually [`Overlay::of_all`] of the same flock): a
/// visual-radius circle around each boid (the sphere's outline), the ghosts seen across seams,
/// and the velocity and rule vectors, scaled as the flat scene scales them ([`crate::scene`]).
pub fn draw_frame_3d<D: DebugDraw + ?Sized>(
    draw: &mut D,
    sim: &Simulation<3>,
    camera: &Perspective,
    style: &Style,
    overlay: Option<&Overlay<3>>,
) {
    let params = sim.params();
    draw.clear(style.background);
    draw_box(draw, params, camera, style);
    draw_ground(draw, params, camera, style);
    draw_box_obstacles(draw, params, camera, style);
    // A dart is as long in world units as the flat renderer's triangle is in pixels where the
    // camera looks.
    let length =
        style.readable_length(camera.image_size(), camera.scale(), params.boid_size as f32)
            / camera.scale();
    let torus = Torus::<3>::of(params);
    let nearest = |p: Vec3| torus.nearest_image(p, camera.target());
    for a in &params.attractors {
        let point = nearest(Vec3::new(a[0] as f32, a[1] as f32, a[2] as f32));
        if let Some(at) = camera.project(point) {
            attractor_mark(draw, at.at, length * at.scale, style.attractor);
        }
    }
    if let Some(overlay) = overlay {
        draw_radii_and_ghosts(draw, overlay, camera, nearest, style, length);
    }
    let spheres =
        (params.obstacles.iter().filter_map(Obstacle::shape::<3>)).filter_map(
            |shape| match shape {
                Shape::Ball { center, radius } => Some((center, Solid::Sphere(radius))),
                _ => None,
            },
        );
    let boids = (sim.positions().iter().enumerate()).map(|(k, &p)| (p, Solid::Boid(k)));
    let predators = (sim.predators().iter().chain(sim.pointer()))
        .map(|h| (h.position, Solid::Predator(h.velocity)));
    let mut seen: Vec<(usize, Vec3, Projected, Solid)> = spheres
        .chain(boids)
        .chain(predators)
        .enumerate()
        .filter_map(|(order, (p, solid))| {
            let p = nearest(p);
            Some((order, p, camera.project(p)?, solid))
        })
        .collect();
    // Far to near (ties in the order listed, so the picture does not depend on the sort).
    seen.sort_by(|a, b| b.2.depth.total_cmp(&a.2.depth).then(a.0.cmp(&b.0)));
    let tile = length * camera.scale();
    let boid_points = seen.iter().filter(|s| matches!(s.3, Solid::Boid(_)));
    let opacity = crowd_opacity(boid_points.map(|s| s.2.at), tile, DART_SHARE);
    let (velocities, groups) = (sim.velocities(), sim.groups());
    let resting = |k: usize| sim.resting().get(k).is_some_and(|&steps| steps > 0);
    for (_, p, at, solid) in seen {
        let cue = |color: Color| depth_cued(color, style.background, camera, at.depth);
        let (velocity, long, color, alpha) = match solid {
            Solid::Sphere(radius) => {
                draw_sphere(draw, at, radius, cue(style.obstacle), style.background);
                continue;
            }
            Solid::Boid(k) if resting(k) => (velocities[k], length, style.perched, opacity),
            Solid::Boid(k) => (velocities[k], length, style.group_color(groups[k]), opacity),
            Solid::Predator(v) => (v, PREDATOR_SCALE * length, style.predator, u8::MAX),
        };
        if let Some(corners) = dart(camera, p, velocity, long) {
            draw.polygon(&corners, cue(color).with_alpha(alpha));
        }
    }
    if let Some(overlay) = overlay {
        let target = (0.75 * overlay.visual_range).max(1.5 * length);
        for_each_vector(overlay, style, target, |boid, arm, width, color| {
            let from = nearest(boid.position);
            let to = from + arm.clamp_length_max(2.0 * target);
            if let Some((a, b)) = camera.segment(from, to) {
                draw.line(a, b, width, color);
            }
        });
    }
}

/// The visual-radius circle of every boid of the overlay (the outline of its sphere, as the
/// camera sees it), and its ghosts, faint: beneath the boids. Ghosts stay where their seeing
/// boids see them, beyond the world's seams.
fn draw_radii_and_ghosts<D: DebugDraw + ?Sized>(
    draw: &mut D,
    overlay: &Overlay<3>,
    camera: &Perspective,
    nearest: impl Fn(Vec3) -> Vec3,
    style: &Style,
    length: f32,
) {
    for boid in &overlay.boids {
        if let Some(at) = camera.project(nearest(boid.position)) {
            draw.circle(at.at, overlay.visual_range * at.scale, 1.0, style.radius);
        }
    }
    for ghost in &overlay.ghosts {
        if let Some(corners) = dart(camera, ghost.position, ghost.velocity, length) {
            let color = style.group_color(ghost.group);
            draw.polygon(&corners, color.with_alpha(style.ghost_alpha));
        }
    }
}

/// Share of a square as wide as a dart is long that a dart covers when it crosses the picture
/// (a kite of diagonals 0.75 and 0.6 lengths, notched).
const DART_SHARE: f32 = 0.225;

/// `color` faded toward `background` by its depth in the framed ball: full at the near side,
/// [`DEPTH_FADE`] less at the far side.
pub fn depth_cued(color: Color, background: Color, camera: &Perspective, depth: f32) -> Color {
    color.over(background, 1.0 - DEPTH_FADE * camera.farness(depth))
}

/// A sphere seen at `at` with `radius` world units, in `color`: a disc of the colour blended
/// toward `background` (its rim) under a smaller disc of the full colour toward the upper left
/// (the cap a light above and behind the camera shows). Both blends lie on the colour's ramp.
fn draw_sphere<D: DebugDraw + ?Sized>(
    draw: &mut D,
    at: Projected,
    radius: f32,
    color: Color,
    background: Color,
) {
    let r = radius * at.scale;
    let disc = |center: Vec2, r: f32| -> Vec<Vec2> {
        (0..CIRCLE_SIDES)
            .map(|k| {
                let a = std::f32::consts::TAU * k as f32 / CIRCLE_SIDES as f32;
                center + Vec2::new(a.cos(), a.sin()) * r
            })
            .collect()
    };
    draw.polygon(&disc(at.at, r), color.over(background, SPHERE_RIM));
    draw.polygon(&disc(at.at - Vec2::splat(0.2 * r), 0.65 * r), color);
}

/// The twelve edges of every box obstacle, depth-cued.
fn draw_box_obstacles<D: DebugDraw + ?Sized>(
    draw: &mut D,
    params: &Params,
    camera: &Perspective,
    style: &Style,
) {
    for shape in params.obstacles.iter().filter_map(Obstacle::shape::<3>) {
        let Shape::AlignedBox { min, max } = shape else {
            continue;
        };
        for (a, b) in cuboid_edges(min, max) {
            let Some(middle) = camera.project(0.5 * (a + b)) else {
                continue;
            };
            let color = depth_cued(style.obstacle, style.background, camera, middle.depth);
            if let Some((from, to)) = camera.segment(a, b) {
                draw.line(from, to, OBSTACLE_EDGE_WIDTH, color);
            }
        }
    }
}

/// The ground plane's outline when boids perch: the rectangle at the ground line's height
/// spanning the world's x and z.
fn draw_ground<D: DebugDraw + ?Sized>(
    draw: &mut D,
    params: &Params,
    camera: &Perspective,
    style: &Style,
) {
    let Some(perch) = Perch::new(params) else {
        return;
    };
    let (min, size) = params.world_box::<3>();
    let (x0, x1) = (min[0], min[0] + size[0]);
    let (z0, z1) = (min[2], min[2] + size[2]);
    let corner = |x: f32, z: f32| Vec3::new(x, perch.ground(), z);
    let corners = [
        corner(x0, z0),
        corner(x1, z0),
        corner(x1, z1),
        corner(x0, z1),
    ];
    for k in 0..4 {
        if let Some((from, to)) = camera.segment(corners[k], corners[(k + 1) % 4]) {
            draw.line(from, to, OBSTACLE_EDGE_WIDTH, style.ground);
        }
    }
}

/// The twelve edges of the world box.
fn draw_box<D: DebugDraw + ?Sized>(
    draw: &mut D,
    params: &Params,
    camera: &Perspective,
    style: &Style,
) {
    for (a, b) in box_edges(params) {
        if let Some((from, to)) = camera.segment(a, b) {
            draw.line(from, to, EDGE_WIDTH, style.world_outline);
        }
    }
}

/// The world box's twelve edges, as pairs of corners.
pub fn box_edges(params: &Params) -> Vec<(Vec3, Vec3)> {
    let (min, size) = params.world_box::<3>();
    let min = Vec3::from(min);
    cuboid_edges(min, min + Vec3::from(size))
}

/// The twelve edges of the axis-aligned box from `min` to `max`, as pairs of corners.
pub fn cuboid_edges(min: Vec3, max: Vec3) -> Vec<(Vec3, Vec3)> {
    let size = max - min;
    let corner =
        |k: usize| min + size * Vec3::new((k & 1) as f32, (k >> 1 & 1) as f32, (k >> 2) as f32);
    // Corners k and k | bit differ along one axis: each such pair is an edge.
    (0..8)
        .flat_map(|k| {
            [1, 2, 4]
                .into_iter()
                .filter(move |bit| k & bit == 0)
                .map(move |bit| (corner(k), corner(k | bit)))
        })
        .collect()
}

/// The corners of the dart of a boid at `p` flying along `velocity`, `length` world units long,
/// as the camera sees them; `None` when part of it is behind the camera.
fn dart(camera: &Perspective, p: Vec3, velocity: Vec3, length: f32) -> Option<[Vec2; 4]> {
    let dir = velocity.try_normalize().unwrap_or(Vec3::X);
    let sight = p - camera.eye();
    let side = dir
        .cross(sight)
        .try_normalize()
        .unwrap_or_else(|| dir.any_orthonormal_vector());
    let (wing, back) = (side * (0.3 * length), p - dir * (0.4 * length));
    let corners = [
        p + dir * (0.6 * length),
        back + wing,
        p - dir * (0.15 * length),
        back - wing,
    ];
    let mut px = [Vec2::ZERO; 4];
    for (to, corner) in px.iter_mut().zip(corners) {
        *to = camera.project(corner)?.at;
    }
    Some(px)
}
