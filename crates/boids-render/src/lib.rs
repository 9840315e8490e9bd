//! # boids-render
//!
//! Pictures of a flock without a screen: draws a [`boids_core::Simulation`] frame with
//! tiny-skia and writes PNG stills, looping GIFs and MP4 videos (`boids render`).
//!
//! The layers are kept apart so each can be replaced:
//! - [`scene`] decides what a frame shows ([`View`], [`Style`], [`draw_frame`]), in pixels; the
//!   debug overlay it draws is data from the core (`boids_core::overlay`), not computed here;
//! - [`DebugDraw`] is the small drawing interface it talks to, in the manner of rapier's debug
//!   renderer; [`Canvas`] implements it with tiny-skia, and another back end (a browser canvas,
//!   SVG) can implement the same four methods;
//! - [`encode`] turns canvases into files; [`Palette`] is the fixed GIF palette.
//!
//! ```
//! use boids_core::{Params, Simulation};
//! use boids_render::{ImageSize, Renderer};
//!
//! let mut params = Params::preset("cornell").unwrap();
//! params.count = 50;
//! let sim = Simulation::new(params, 1).unwrap();
//! let size: ImageSize = "160x120".parse().unwrap();
//! let mut renderer = Renderer::new(sim.params(), size, true);
//! let png = renderer.draw(&sim).encode_png().unwrap();
//! assert!(png.starts_with(b"\x89PNG"));
//! ```

mod canvas;
mod draw;
pub mod encode;
mod error;
mod palette;
pub mod scene;

pub use canvas::Canvas;
pub use draw::{Color, DebugDraw};
pub use encode::{Format, GifWriter, ImageSize, Mp4Writer, write_png};
pub use error::RenderError;
pub use palette::Palette;
pub use scene::{Style, View, boid_triangle, draw_frame};

use boids_core::overlay::Overlay;
use boids_core::{Params, Simulation};

/// A canvas with its view and style: draws successive frames of one flock.
pub struct Renderer {
    canvas: Canvas,
    view: View,
    style: Style,
    overlay: bool,
}

impl Renderer {
    /// A renderer for flocks with `params`' world, at `size`, with or without debug overlays.
    /// The view is fixed here: parameters changed later that move the world are not followed.
    pub fn new(params: &Params, size: ImageSize, overlay: bool) -> Self {
        Self {
            canvas: Canvas::new(size.width, size.height),
            view: View::for_params(params, size.width, size.height, overlay),
            style: Style::default(),
            overlay,
        }
    }

    /// The style used (to build the GIF palette).
    pub fn style(&self) -> &Style {
        &self.style
    }

    /// Draws the current frame of `sim` (with the core's overlay of every boid, if asked for)
    /// and returns the canvas holding it.
    pub fn draw(&mut self, sim: &Simulation) -> &Canvas {
        let overlay = self.overlay.then(|| Overlay::of_all(sim));
        draw_frame(
            &mut self.canvas,
            sim,
            &self.view,
            &self.style,
            overlay.as_ref(),
        );
        &self.canvas
    }
}
