//! The drawing interface the scene is written against.
//!
//! Like rapier's debug-render backend, the scene code never touches a pixel library: it decides
//! *what* to draw (which boids, which vectors, in which colour, at which pixel position) and
//! hands every shape to a [`DebugDraw`]. The tiny-skia [`crate::Canvas`] is one implementation;
//! a browser canvas, an SVG writer or a test recorder can be another without touching the scene.

use boids_core::Vec2;

/// A straight (not premultiplied) 8-bit RGBA colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Color {
    /// Red.
    pub r: u8,
    /// Green.
    pub g: u8,
    /// Blue.
    pub b: u8,
    /// Opacity (255 = opaque).
    pub a: u8,
}

impl Color {
    /// An opaque colour.
    pub const fn rgb(r: u8, g: u8, b: u8) -> Self {
        Self { r, g, b, a: 255 }
    }

    /// The same colour with opacity `a`.
    pub const fn with_alpha(self, a: u8) -> Self {
        Self { a, ..self }
    }

    /// This colour composited over the opaque colour `under` with opacity `t` in [0, 1]:
    /// what a pixel looks like when the colour covers it partly.
    pub fn over(self, under: Color, t: f32) -> Self {
        let mix = |a: u8, b: u8| (f32::from(b) + (f32::from(a) - f32::from(b)) * t).round() as u8;
        Self::rgb(
            mix(self.r, under.r),
            mix(self.g, under.g),
            mix(self.b, under.b),
        )
    }
}

/// A surface that can draw the few shapes a boids frame is made of. Coordinates are pixels,
/// x to the right and y down; widths and radii are in pixels too.
pub trait DebugDraw {
    /// Paints the whole surface with an opaque colour.
    fn clear(&mut self, color: Color);
    /// A straight line of the given width.
    fn line(&mut self, from: Vec2, to: Vec2, width: f32, color: Color);
    /// A circle outline of the given stroke width.
    fn circle(&mut self, center: Vec2, radius: f32, width: f32, color: Color);
    /// A filled triangle.
    fn triangle(&mut self, corners: [Vec2; 3], color: Color) {
        self.polygon(&corners, color);
    }
    /// A filled polygon (closed; at least three corners).
    fn polygon(&mut self, corners: &[Vec2], color: Color);
}
