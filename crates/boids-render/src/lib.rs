//! # boids-render
//!
//! Pictures of a flock without a screen: draws a [`boids_core::Simulation`] frame with
//! tiny-skia and writes PNG stills, looping GIFs and MP4 videos (`boids render`).
//!
//! The layers are kept apart so each can be replaced:
//! - [`scene`] decides what a frame shows ([`View`], [`Style`], [`draw_frame`]), in pixels; the
//!   debug overlay it draws is data from the core (`boids_core::overlay`), not computed here;
//! - [`Renderer`] points the camera (the `camera` parameter: the world, the whole flock fitted,
//!   or the largest flock followed), from the core's focus of the flock (`boids_core::camera`);
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
//! let sim = Simulation::<2>::new(params, 1).unwrap();
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

use boids_core::camera::{FOLLOW_RATE, Follower, Framing};
use boids_core::neighbors::Neighbors;
use boids_core::overlay::Overlay;
use boids_core::params::Camera;
use boids_core::{Params, Simulation};

/// A canvas with its camera and style: draws successive frames of one flock.
pub struct Renderer {
    canvas: Canvas,
    /// The world camera's view, and the follow camera's scale.
    world_view: View,
    camera: Camera,
    follower: Follower,
    style: Style,
    overlay: bool,
}

impl Renderer {
    /// A renderer for flocks with `params`' world and camera (the `camera` parameter), at
    /// `size`, with or without debug overlays. The world view is fixed here: parameters changed
    /// later that move the world are not followed.
    pub fn new(params: &Params, size: ImageSize, overlay: bool) -> Self {
        Self {
            canvas: Canvas::new(size.width, size.height),
            world_view: View::for_params(params, size.width, size.height, overlay),
            camera: params.camera,
            follower: Follower::new(params, FOLLOW_RATE),
            style: Style::default(),
            overlay,
        }
    }

    /// The style used (to build the GIF palette).
    pub fn style(&self) -> &Style {
        &self.style
    }

    /// The camera's view of the current frame of `sim`: the world; the whole flock's box
    /// (fit); or the world view's scale centred on the largest flock, smoothed from the frames
    /// drawn before (follow).
    pub fn view(&mut self, sim: &Simulation) -> View {
        let framing = || {
            let state = sim.state();
            Framing::of(&Neighbors::of_state(sim.params(), &state))
        };
        let (width, height) = (self.canvas.width(), self.canvas.height());
        match self.camera {
            Camera::World => self.world_view,
            Camera::Fit => framing().map_or(self.world_view, |framing| {
                View::around(&framing.whole, sim.params(), width, height)
            }),
            Camera::Follow => framing().map_or(self.world_view, |framing| {
                let focus = self.follower.follow(framing.largest);
                View::centred(focus.center, self.world_view.scale(), width, height)
            }),
        }
    }

    /// Draws the current frame of `sim` (with the core's overlay of every boid, if asked for)
    /// through the camera and returns the canvas holding it.
    pub fn draw(&mut self, sim: &Simulation) -> &Canvas {
        let view = self.view(sim);
        let overlay = self.overlay.then(|| Overlay::of_all(sim));
        draw_frame(&mut self.canvas, sim, &view, &self.style, overlay.as_ref());
        &self.canvas
    }
}
