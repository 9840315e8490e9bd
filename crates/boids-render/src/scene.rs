//! What a frame shows, independent of how pixels are made.
//!
//! [`View`] maps the world onto the image (uniform scale, so shapes keep their aspect ratio;
//! world y grows downward, as on a screen and in every seed): the whole world, a box around the
//! flock (the fit camera) or the world's scale around a point (the follow camera). On a torus
//! boids are drawn at their image nearest the view's centre, so a flock seen across a seam is
//! drawn whole.
//!
//! [`draw_frame`] draws the flock through a [`DebugDraw`]: boids as triangles pointing along
//! their velocity, coloured by scout group; the margins or walls of the preset outlined
//! faintly; the world's objects: obstacles, predators as larger orange arrowheads, attractors
//! as a ring with a cross, and with perching the ground line and resting boids as flat muted
//! bars; and, given the core's debug overlay ([`Overlay`]), the debug view of seed 000:
//! visual-radius circles, velocity, the cohesion, separation and alignment vectors in red,
//! green and blue, and on a torus the "ghost" copies of neighbours that a boid sees across a
//! seam. The overlay is data computed by the core; this module only decides how it looks, so
//! the live viewer shows the same.
//!
//! A flock too crowded in the picture for its marks to stay apart is drawn translucent
//! (`crowd_opacity`, for this scene and the 3D one), so its image shows where it is dense
//! instead of one solid shape.
//!
//! Rule vectors differ by orders of magnitude between presets (seed 000 scaled each by hand), so
//! each kind of vector is scaled per frame: its 90th-percentile length over the flock is drawn
//! as three quarters of the visual radius (at least 1.5 boid lengths), and no vector is drawn
//! longer than twice that. Lengths compare within a kind, not across kinds.

use boids_core::camera::{Focus, Torus};
use boids_core::obstacles::{Obstacle, Shape};
use boids_core::overlay::{Overlay, OverlayBoid};
use boids_core::world::Perch;
use boids_core::{Boundary, Coordinates, Dim, Dimension, Params, Simulation, Vec2, VecN};

use crate::draw::{Color, DebugDraw};

/// Margin of the fit camera around the flock's box, as a share of the box's extent.
pub const FIT_MARGIN: f32 = 0.15;
/// Least extent of the fit camera's box, as a share of the world's smaller side.
pub const FIT_LEAST: f32 = 0.1;

/// Placement of the world on the image: a uniform scale and an offset that centres it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// World coordinates of the top-left corner of the shown area.
    min: Vec2,
    /// Pixels per world unit.
    scale: f32,
    /// Pixel position of `min` (non-zero on the letterboxed axis).
    origin: Vec2,
    /// Image size in pixels.
    size: Vec2,
}

impl View {
    /// Shows the world rectangle from `min` with extent `size` as large as fits in a
    /// `width` x `height` image, centred.
    pub fn fit(min: Vec2, size: Vec2, width: u32, height: u32) -> Self {
        let image = Vec2::new(width as f32, height as f32);
        let scale = (image.x / size.x).min(image.y / size.y);
        Self {
            min,
            scale,
            origin: (image - size * scale) * 0.5,
            size: image,
        }
    }

    /// The view for a flock with `params`: the world rectangle, with a band around it where
    /// there is something to see there: 5% of the world for margins and walls (the outline
    /// shows, and boids that turn late still do), one visual range with `overlay` on a torus
    /// (the ghosts seen across the seams), none otherwise on a torus.
    pub fn for_params(params: &Params, width: u32, height: u32, overlay: bool) -> Self {
        let (min, size) = params.world_rect();
        let pad = match (params.is_torus(), overlay) {
            (false, _) => 0.05 * size.max_element(),
            (true, true) => (params.visual_range as f32).min(0.25 * size.min_element()),
            (true, false) => 0.0,
        };
        Self::fit(min - pad, size + 2.0 * pad, width, height)
    }

    /// Shows the world at `scale` pixels per unit with `center` in the middle of a `width` x
    /// `height` image (the follow camera: the world view's scale, centred on the flock).
    pub fn centred(center: Vec2, scale: f32, width: u32, height: u32) -> Self {
        let image = Vec2::new(width as f32, height as f32);
        Self {
            min: center - 0.5 * image / scale,
            scale,
            origin: Vec2::ZERO,
            size: image,
        }
    }

    /// Shows the box of `focus` (the fit camera), as large as fits with a margin of
    /// [`FIT_MARGIN`] of its extent, and at least [`FIT_LEAST`] of the world's smaller side
    /// across, so that one boid is not blown up to fill the picture.
    pub fn around(focus: &Focus, params: &Params, width: u32, height: u32) -> Self {
        let least = FIT_LEAST * params.world_rect().1.min_element();
        let half = (focus.half_extent * (1.0 + FIT_MARGIN)).max(Vec2::splat(0.5 * least));
        Self::fit(focus.center - half, 2.0 * half, width, height)
    }

    /// The world point in the middle of the image: where the camera looks.
    pub fn center(&self) -> Vec2 {
        self.min + (0.5 * self.size - self.origin) / self.scale
    }

    /// Pixel position of the world point `p`.
    pub fn to_px(&self, p: Vec2) -> Vec2 {
        self.origin + (p - self.min) * self.scale
    }

    /// Pixel position of the image of `p` nearest the camera's centre in the world `torus`
    /// (`p` itself off a torus): where a boid is drawn, so a flock followed across a seam
    /// stays whole.
    pub fn to_px_nearest(&self, p: Vec2, torus: Torus) -> Vec2 {
        self.to_px(torus.nearest_image(p, self.center()))
    }

    /// Pixels per world unit.
    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// Image size in pixels.
    pub fn image_size(&self) -> Vec2 {
        self.size
    }
}

/// Colours and sizes of a frame. The colours are chosen so that the overlay's red, green and
/// blue never occur in a frame without the overlay (the tests rely on it), and every colour is
/// an ink of the GIF palette ([`crate::Palette::for_style`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Style {
    /// Background.
    pub background: Color,
    /// Outline of the world rectangle (walls, margins' outer edge, torus seams).
    pub world_outline: Color,
    /// Inner guide line: where the margins' turning or the walls' push begins.
    pub guide: Color,
    /// Boid colour by scout group: none, toward +x, toward −x.
    pub groups: [Color; 3],
    /// Visual-radius circles.
    pub radius: Color,
    /// Cohesion vectors.
    pub cohesion: Color,
    /// Separation vectors.
    pub separation: Color,
    /// Alignment vectors.
    pub alignment: Color,
    /// Opacity of velocity lines (drawn in the boid's colour).
    pub velocity_alpha: u8,
    /// Opacity of ghost boids.
    pub ghost_alpha: u8,
    /// Obstacles: circles and rectangles filled with it, walls drawn in it.
    pub obstacle: Color,
    /// Predators: arrowheads larger than a boid. Orange, never the overlay's pure red.
    pub predator: Color,
    /// Attractors: a ring with a cross.
    pub attractor: Color,
    /// Boids resting on the ground (perching): a flat mark in a muted colour.
    pub perched: Color,
    /// The ground line boids perch below.
    pub ground: Color,
}

impl Default for Style {
    fn default() -> Self {
        Self {
            background: Color::rgb(16, 18, 27),
            world_outline: Color::rgb(120, 128, 150).with_alpha(110),
            guide: Color::rgb(120, 128, 150).with_alpha(45),
            groups: [
                Color::rgb(246, 216, 110),
                Color::rgb(255, 96, 200),
                Color::rgb(90, 205, 255),
            ],
            radius: Color::rgb(128, 255, 255).with_alpha(56),
            cohesion: Color::rgb(255, 60, 60),
            separation: Color::rgb(70, 235, 70),
            alignment: Color::rgb(80, 130, 255),
            velocity_alpha: 200,
            ghost_alpha: 110,
            obstacle: Color::rgb(150, 160, 185),
            predator: Color::rgb(255, 150, 50),
            attractor: Color::rgb(200, 170, 255),
            perched: Color::rgb(150, 135, 95),
            ground: Color::rgb(110, 150, 90),
        }
    }
}

impl Style {
    /// Colour of a boid of scout `group` (unknown groups draw as group 0).
    pub fn group_color(&self, group: u8) -> Color {
        self.groups
            .get(usize::from(group))
            .copied()
            .unwrap_or(self.groups[0])
    }

    /// Every colour a frame can be drawn with, at full opacity (the GIF palette's inks).
    pub fn inks(&self) -> Vec<Color> {
        let mut inks = vec![self.world_outline.with_alpha(255), self.obstacle];
        inks.extend(self.groups);
        inks.extend([self.predator, self.attractor, self.perched, self.ground]);
        inks.extend([
            self.radius.with_alpha(255),
            self.cohesion,
            self.separation,
            self.alignment,
        ]);
        inks
    }

    /// Length of a boid triangle in pixels: the boid's own size where that is visible, else a
    /// size that reads well at the image's scale.
    pub fn boid_length(&self, view: &View, params: &Params) -> f32 {
        self.readable_length(view.image_size(), view.scale(), params.boid_size as f32)
    }

    /// Length of a boid in pixels in an image of `image` pixels at `scale` pixels per world
    /// unit: `boid_size` scaled where that is visible, else a length that reads well at the
    /// image's size.
    pub fn readable_length(&self, image: Vec2, scale: f32, boid_size: f32) -> f32 {
        let readable = (image.min_element() / 55.0).clamp(4.0, 12.0);
        readable.max(2.5 * boid_size * scale)
    }
}

/// Draws the current frame of `sim`, with the debug view of `overlay` if given (usually
/// [`Overlay::of_all`] of the same flock).
pub fn draw_frame<D: DebugDraw + ?Sized>(
    draw: &mut D,
    sim: &Simulation,
    view: &View,
    style: &Style,
    overlay: Option<&Overlay>,
) {
    let params = sim.params();
    draw.clear(style.background);
    draw_boundary(draw, params, view, style, overlay.is_some());
    draw_obstacles(draw, params, view, style);
    let torus = Torus::of(params);
    draw_ground(draw, params, view, torus, style);
    let length = style.boid_length(view, params);
    for a in &params.attractors {
        let at = view.to_px_nearest(Vec2::new(a[0] as f32, a[1] as f32), torus);
        attractor_mark(draw, at, length, style.attractor);
    }
    if let Some(overlay) = overlay {
        draw_radii_and_ghosts(draw, overlay, view, torus, style, length);
    }
    let (velocities, groups) = (sim.velocities(), sim.groups());
    let resting = |k: usize| sim.resting().get(k).is_some_and(|&steps| steps > 0);
    let seen: Vec<Vec2> = (sim.positions().iter())
        .map(|&p| view.to_px_nearest(p, torus))
        .collect();
    let opacity = crowd_opacity(seen.iter().copied(), length, TRIANGLE_SHARE);
    let ground = GroundLine::of(params, view, torus);
    for (k, ((&at, &v), &g)) in seen.iter().zip(velocities).zip(groups).enumerate() {
        if resting(k) {
            let at = ground.map_or(at, |line| line.perch(at, length));
            draw.polygon(&perched_mark(at, length), style.perched.with_alpha(opacity));
        } else {
            let color = style.group_color(g).with_alpha(opacity);
            draw.triangle(boid_triangle(at, v, length), color);
        }
    }
    for predator in sim.predators().iter().chain(sim.pointer()) {
        let at = view.to_px_nearest(predator.position, torus);
        draw.polygon(
            &predator_arrow(at, predator.velocity, PREDATOR_SCALE * length),
            style.predator,
        );
    }
    if let Some(overlay) = overlay {
        draw_vectors(draw, overlay, view, torus, style, length);
    }
}

/// The visual-radius circle of every boid of the overlay, and its ghosts, faint: beneath the
/// boids. A circle is drawn around the boid where the boid is drawn; ghosts stay where their
/// seeing boids see them, beyond the world's seams.
fn draw_radii_and_ghosts<D: DebugDraw + ?Sized>(
    draw: &mut D,
    overlay: &Overlay,
    view: &View,
    torus: Torus,
    style: &Style,
    length: f32,
) {
    let radius = overlay.visual_range * view.scale();
    for boid in &overlay.boids {
        let at = view.to_px_nearest(boid.position, torus);
        draw.circle(at, radius, 1.0, style.radius);
    }
    for ghost in &overlay.ghosts {
        let color = style.group_color(ghost.group);
        draw.triangle(
            boid_triangle(view.to_px(ghost.position), ghost.velocity, length),
            color.with_alpha(style.ghost_alpha),
        );
    }
}

/// Share of a square as wide as a boid's triangle is long that the triangle covers.
const TRIANGLE_SHARE: f32 = 0.3;

/// Lowest opacity of a boid in a crowd: a single boid stays visible.
const LEAST_OPACITY: u8 = 8;

/// Opacity of the marks of boids seen at `points` (pixels), drawn `tile` pixels long, each
/// covering `share` of a `tile`-wide square: opaque while marks seldom overlap, and where they
/// would pile up (a large flock filling the picture) so translucent that the marks over an
/// average spot of the flock's image add up to about one. The image then shows where the flock
/// is dense (in 3D: along the line of sight, as a murmuration's sheet is dark seen edge on and
/// pale seen face on) instead of one solid shape. The pile-up is measured on a grid of
/// `tile`-wide squares: marks per square the flock's image touches, times `share`.
pub(crate) fn crowd_opacity(points: impl Iterator<Item = Vec2>, tile: f32, share: f32) -> u8 {
    let mut touched = std::collections::HashSet::new();
    let mut count = 0usize;
    for p in points {
        touched.insert(((p.x / tile).floor() as i64, (p.y / tile).floor() as i64));
        count += 1;
    }
    let pile = share * count as f32 / touched.len().max(1) as f32;
    let opacity = (f32::from(u8::MAX) / pile).round();
    opacity.clamp(f32::from(LEAST_OPACITY), f32::from(u8::MAX)) as u8
}

/// Sides of the polygon a circular obstacle is drawn as.
pub(crate) const CIRCLE_SIDES: usize = 48;

/// The obstacles, beneath the boids: circles and rectangles filled, walls as thick lines; on a
/// torus also their copies across each seam, where a view (any camera's) shows beyond the world.
fn draw_obstacles<D: DebugDraw + ?Sized>(
    draw: &mut D,
    params: &Params,
    view: &View,
    style: &Style,
) {
    let (_, size) = params.world_rect();
    let shifts: &[f32] = if params.is_torus() {
        &[-1.0, 0.0, 1.0]
    } else {
        &[0.0]
    };
    let wall_width = (0.004 * view.image_size().min_element()).max(2.0);
    for &i in shifts {
        for &j in shifts {
            let offset = Vec2::new(i, j) * size;
            for shape in params.obstacles.iter().filter_map(Obstacle::shape::<2>) {
                match shape.translated(offset) {
                    Shape::Ball { center, radius } => {
                        let (c, r) = (view.to_px(center), radius * view.scale());
                        let corners: Vec<Vec2> = (0..CIRCLE_SIDES)
                            .map(|k| {
                                let a = std::f32::consts::TAU * k as f32 / CIRCLE_SIDES as f32;
                                c + Vec2::new(a.cos(), a.sin()) * r
                            })
                            .collect();
                        draw.polygon(&corners, style.obstacle);
                    }
                    Shape::AlignedBox { min, max } => {
                        let [a, b] = [view.to_px(min), view.to_px(max)];
                        let corners = [a, Vec2::new(b.x, a.y), b, Vec2::new(a.x, b.y)];
                        draw.polygon(&corners, style.obstacle);
                    }
                    Shape::Wall { points } => {
                        for pair in points.windows(2) {
                            let (from, to) = (view.to_px(pair[0]), view.to_px(pair[1]));
                            draw.line(from, to, wall_width, style.obstacle);
                        }
                    }
                }
            }
        }
    }
}

/// The world outline and the inner guide of margins or walls; on a torus the seams, when the
/// view shows beyond them.
fn draw_boundary<D: DebugDraw + ?Sized>(
    draw: &mut D,
    params: &Params,
    view: &View,
    style: &Style,
    overlay: bool,
) {
    let (min, size) = params.world_rect();
    let inset = match params.boundary {
        Boundary::Torus if !overlay => return,
        Boundary::Torus => 0.0,
        Boundary::Margins => params.margin as f32,
        Boundary::Walls => params.wall_buffer as f32,
    };
    rectangle(draw, view, min, size, style.world_outline);
    if inset > 0.0 && 2.0 * inset < size.min_element() {
        rectangle(draw, view, min + inset, size - 2.0 * inset, style.guide);
    }
}

fn rectangle<D: DebugDraw + ?Sized>(draw: &mut D, view: &View, min: Vec2, size: Vec2, c: Color) {
    let corners = [
        min,
        min + Vec2::new(size.x, 0.0),
        min + size,
        min + Vec2::new(0.0, size.y),
    ];
    for k in 0..4 {
        let (a, b) = (corners[k], corners[(k + 1) % 4]);
        draw.line(view.to_px(a), view.to_px(b), 1.0, c);
    }
}

/// The ground line across the whole image, when perching is on (at its image nearest the
/// camera on a torus).
fn draw_ground<D: DebugDraw + ?Sized>(
    draw: &mut D,
    params: &Params,
    view: &View,
    torus: Torus,
    style: &Style,
) {
    let Some(line) = GroundLine::of(params, view, torus) else {
        return;
    };
    let width = view.image_size().x;
    draw.line(
        Vec2::new(0.0, line.y),
        Vec2::new(width, line.y),
        line.thickness,
        style.ground,
    );
}

/// The ground line on the image, with perching on: its y and thickness in pixels.
#[derive(Clone, Copy)]
struct GroundLine {
    y: f32,
    thickness: f32,
}

impl GroundLine {
    fn of(params: &Params, view: &View, torus: Torus) -> Option<GroundLine> {
        let perch = Perch::new(params)?;
        let at = view.to_px_nearest(Vec2::new(view.center().x, perch.ground()), torus);
        Some(GroundLine {
            y: at.y,
            thickness: (0.004 * view.image_size().min_element()).max(1.5),
        })
    }

    /// Where a resting boid seen at `at` is drawn (its mark `length` px long): sitting on the
    /// line, wherever below it it landed.
    fn perch(self, at: Vec2, length: f32) -> Vec2 {
        Vec2::new(
            at.x,
            self.y - 0.5 * self.thickness - PERCHED_HEIGHT / 2.0 * length,
        )
    }
}

/// How much longer a predator is drawn than a boid.
pub(crate) const PREDATOR_SCALE: f32 = 2.0;

/// An arrowhead `length` pixels long centred near `at`, its tip along `velocity`, notched at
/// the back: a predator.
fn predator_arrow(at: Vec2, velocity: Vec2, length: f32) -> [Vec2; 4] {
    let dir = velocity.try_normalize().unwrap_or(Vec2::X);
    let side = dir.perp() * (0.4 * length);
    let back = at - dir * (0.4 * length);
    [
        at + dir * (0.6 * length),
        back + side,
        at - dir * (0.15 * length),
        back - side,
    ]
}

/// A ring with a cross, about a boid long across, at `at`: an attractor.
pub(crate) fn attractor_mark<D: DebugDraw + ?Sized>(
    draw: &mut D,
    at: Vec2,
    length: f32,
    color: Color,
) {
    let radius = (0.8 * length).max(5.0);
    let width = (0.15 * length).max(1.5);
    draw.circle(at, radius, width, color);
    let arm = 0.6 * radius;
    draw.line(at - Vec2::X * arm, at + Vec2::X * arm, width, color);
    draw.line(at - Vec2::Y * arm, at + Vec2::Y * arm, width, color);
}

/// How high the mark of a boid resting on the ground is, in boid lengths.
const PERCHED_HEIGHT: f32 = 0.4;

/// A flat bar at `at`, as wide as a boid is long and [`PERCHED_HEIGHT`] of that high: a boid
/// resting on the ground.
fn perched_mark(at: Vec2, length: f32) -> [Vec2; 4] {
    let half = Vec2::new(0.5 * length, PERCHED_HEIGHT / 2.0 * length);
    [
        at - half,
        at + Vec2::new(half.x, -half.y),
        at + half,
        at + Vec2::new(-half.x, half.y),
    ]
}

/// A triangle `length` pixels long centred near `at`, its tip along `velocity`.
pub fn boid_triangle(at: Vec2, velocity: Vec2, length: f32) -> [Vec2; 3] {
    let dir = velocity.try_normalize().unwrap_or(Vec2::X);
    let side = dir.perp() * (0.3 * length);
    let back = at - dir * (0.4 * length);
    [at + dir * (0.6 * length), back + side, back - side]
}

/// Velocity and the three rule vectors of every boid of the overlay, each kind scaled as the
/// module explains.
fn draw_vectors<D: DebugDraw + ?Sized>(
    draw: &mut D,
    overlay: &Overlay,
    view: &View,
    torus: Torus,
    style: &Style,
    length: f32,
) {
    let radius = overlay.visual_range * view.scale();
    let target = (0.75 * radius).max(1.5 * length);
    for_each_vector(overlay, style, target, |boid, arm, width, color| {
        let from = view.to_px_nearest(boid.position, torus);
        let arm = arm.clamp_length_max(2.0 * target);
        draw.line(from, from + arm, width, color);
    });
}

/// Calls `line(boid, arm, width, colour)` for the velocity and each rule vector of every boid
/// of `overlay` (velocities first, then cohesion, separation, alignment; zero vectors left
/// out), `arm` being the vector scaled so that its kind's typical length is `target` (see the
/// module; the caller clamps it to twice that, in its own units).
pub(crate) fn for_each_vector<const N: usize>(
    overlay: &Overlay<N>,
    style: &Style,
    target: f32,
    mut line: impl FnMut(&OverlayBoid<N>, VecN<N>, f32, Color),
) where
    Dim<N>: Dimension<N>,
{
    type Pick<const N: usize> = fn(&OverlayBoid<N>) -> VecN<N>;
    // (vector of a boid, colour or None for the boid's own colour, line width)
    let layers: [(Pick<N>, Option<Color>, f32); 4] = [
        (|b| b.velocity, None, 1.2),
        (|b| b.rules.cohesion, Some(style.cohesion), 1.5),
        (|b| b.rules.separation, Some(style.separation), 1.5),
        (|b| b.rules.alignment, Some(style.alignment), 1.5),
    ];
    for (pick, color, width) in layers {
        let typical = typical_length(overlay.boids.iter().map(|b| pick(b).length()));
        if typical <= 0.0 {
            continue;
        }
        let scale = target / typical;
        for boid in &overlay.boids {
            let v = pick(boid);
            if v == VecN::<N>::ZERO {
                continue;
            }
            let color = color.unwrap_or_else(|| {
                style
                    .group_color(boid.group)
                    .with_alpha(style.velocity_alpha)
            });
            line(boid, v * scale, width, color);
        }
    }
}

/// The 90th percentile of the positive finite lengths, or 0 when there are none.
fn typical_length(lengths: impl Iterator<Item = f32>) -> f32 {
    let mut positive: Vec<f32> = lengths.filter(|l| l.is_finite() && *l > 0.0).collect();
    if positive.is_empty() {
        return 0.0;
    }
    let k = (positive.len() * 9 / 10).min(positive.len() - 1);
    *positive.select_nth_unstable_by(k, f32::total_cmp).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typical_length_is_the_90th_percentile_of_positive_lengths() {
        let lengths = (0..=100).map(|k| k as f32);
        assert_eq!(typical_length(lengths), 91.0);
        assert_eq!(typical_length([0.0, f32::NAN].into_iter()), 0.0);
        assert_eq!(typical_length([0.0, 3.0].into_iter()), 3.0);
    }

    #[test]
    fn marks_are_opaque_until_they_pile_up_then_add_up_to_about_one() {
        let grid = |n: u32, step: f32| {
            (0..n * n).map(move |k| Vec2::new((k % n) as f32, (k / n) as f32) * step)
        };
        // One mark every other 10-pixel square: no overlap.
        assert_eq!(crowd_opacity(grid(20, 20.0), 10.0, 0.3), 255);
        // 16 marks a square over 100 squares, each covering 0.3 of one: 4.8 layers deep, so
        // each is 1/4.8 opaque.
        let crowd = grid(40, 2.5).map(|p| p + 0.25);
        assert_eq!(
            crowd_opacity(crowd, 10.0, 0.3),
            (255.0f32 / 4.8).round() as u8
        );
        // A million marks on one square: the least opacity, so each still shows.
        let heap = std::iter::repeat_n(Vec2::splat(5.0), 1_000_000);
        assert_eq!(crowd_opacity(heap, 10.0, 0.3), LEAST_OPACITY);
        assert_eq!(crowd_opacity(std::iter::empty(), 10.0, 0.3), 255);
    }

    #[test]
    fn boid_triangle_points_along_the_velocity() {
        let [tip, a, b] = boid_triangle(Vec2::new(10.0, 10.0), Vec2::new(0.0, -2.0), 10.0);
        assert_eq!(tip, Vec2::new(10.0, 4.0));
        assert_eq!((a.y, b.y), (14.0, 14.0));
        assert!((a.x - b.x).abs() > 5.0);
    }
}
