//! The tiny-skia implementation of [`DebugDraw`]: an anti-aliased RGBA pixmap.
//!
//! Every frame starts with an opaque [`DebugDraw::clear`], so every pixel stays opaque and the
//! premultiplied bytes tiny-skia stores equal straight RGBA: encoders read them as they are.

use boids_core::Vec2;
use tiny_skia::{FillRule, Paint, PathBuilder, Pixmap, Stroke, Transform};

use crate::draw::{Color, DebugDraw};

/// An RGBA image to draw a frame on.
pub struct Canvas {
    pixmap: Pixmap,
    paint: Paint<'static>,
    stroke: Stroke,
    /// Reused between shapes so drawing does not allocate per boid.
    builder: PathBuilder,
}

impl Canvas {
    /// A transparent canvas of `width` x `height` pixels (both at least 1).
    ///
    /// # Panics
    /// If a side is zero or the image is too large to allocate; [`crate::ImageSize`] bounds
    /// both.
    pub fn new(width: u32, height: u32) -> Self {
        let pixmap = Pixmap::new(width, height).expect("image size checked by ImageSize");
        Self {
            pixmap,
            paint: Paint {
                anti_alias: true,
                ..Paint::default()
            },
            stroke: Stroke::default(),
            builder: PathBuilder::new(),
        }
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.pixmap.width()
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.pixmap.height()
    }

    /// The pixels, row by row, 4 bytes (RGBA) each.
    pub fn rgba(&self) -> &[u8] {
        self.pixmap.data()
    }

    /// The colour of pixel (`x`, `y`).
    pub fn pixel(&self, x: u32, y: u32) -> Option<Color> {
        let p = self.pixmap.pixel(x, y)?.demultiply();
        Some(Color {
            r: p.red(),
            g: p.green(),
            b: p.blue(),
            a: p.alpha(),
        })
    }

    /// The image as a PNG file.
    pub fn encode_png(&self) -> Result<Vec<u8>, crate::RenderError> {
        self.pixmap
            .encode_png()
            .map_err(|e| crate::RenderError::Png(e.to_string()))
    }

    fn set_color(&mut self, c: Color) {
        self.paint.set_color_rgba8(c.r, c.g, c.b, c.a);
    }

    /// Whether a shape with this bounding box can touch the image.
    fn visible(&self, min: Vec2, max: Vec2) -> bool {
        let (w, h) = (self.width() as f32, self.height() as f32);
        max.x >= -1.0 && max.y >= -1.0 && min.x <= w + 1.0 && min.y <= h + 1.0
    }

    /// Strokes the path in `self.builder` and takes its storage back for the next shape.
    fn stroke_built(&mut self, width: f32) {
        let builder = std::mem::take(&mut self.builder);
        if let Some(path) = builder.finish() {
            self.stroke.width = width;
            self.pixmap.stroke_path(
                &path,
                &self.paint,
                &self.stroke,
                Transform::identity(),
                None,
            );
            self.builder = path.clear();
        }
    }
}

impl DebugDraw for Canvas {
    fn clear(&mut self, color: Color) {
        self.pixmap
            .fill(tiny_skia::Color::from_rgba8(color.r, color.g, color.b, 255));
    }

    fn line(&mut self, from: Vec2, to: Vec2, width: f32, color: Color) {
        if !self.visible(from.min(to), from.max(to)) {
            return;
        }
        self.set_color(color);
        self.builder.move_to(from.x, from.y);
        self.builder.line_to(to.x, to.y);
        self.stroke_built(width);
    }

    fn circle(&mut self, center: Vec2, radius: f32, width: f32, color: Color) {
        let r = Vec2::splat(radius);
        if !self.visible(center - r, center + r) {
            return;
        }
        self.set_color(color);
        self.builder.push_circle(center.x, center.y, radius);
        self.stroke_built(width);
    }

    fn polygon(&mut self, corners: &[Vec2], color: Color) {
        let (lo, hi) = corners.iter().fold(
            (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
            |(lo, hi), &p| (lo.min(p), hi.max(p)),
        );
        let [first, rest @ ..] = corners else {
            return;
        };
        if rest.len() < 2 || !self.visible(lo, hi) {
            return;
        }
        self.set_color(color);
        self.builder.move_to(first.x, first.y);
        for p in rest {
            self.builder.line_to(p.x, p.y);
        }
        self.builder.close();
        let builder = std::mem::take(&mut self.builder);
        if let Some(path) = builder.finish() {
            self.pixmap.fill_path(
                &path,
                &self.paint,
                FillRule::Winding,
                Transform::identity(),
                None,
            );
            self.builder = path.clear();
        }
    }
}
