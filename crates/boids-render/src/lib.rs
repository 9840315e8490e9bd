//! # boids-render
//!
//! Pictures of a flock without a screen: draws a [`boids_core::Simulation`] frame with
//! tiny-skia and writes PNG stills, looping GIFs and MP4 videos (`boids render`).
//!
//! The layers are kept apart so each can be replaced:
//! - [`scene`] decides what a frame shows ([`View`], [`Style`], [`draw_frame`]), in pixels; the
//!   debug overlay it draws is data from the core (`boids_core::overlay`), not computed here;
//! - [`scene3d`] does the same for a flock of three dimensions ([`draw_frame_3d`]): the world
//!   box and darts with depth cueing, every point through the one perspective camera of
//!   [`projection`] ([`Perspective`], placed by a [`CameraAngle`]);
//! - [`Renderer`] points the camera (the `camera` parameter: the world, the whole flock fitted,
//!   or the largest flock followed), from the core's focus of the flock (`boids_core::camera`);
//!   it is generic over the dimension, and [`Scene`] says how each dimension is drawn (an
//!   [`Orbit`] turns the 3D camera from frame to frame);
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
pub mod projection;
pub mod scene;
pub mod scene3d;

pub use canvas::Canvas;
pub use draw::{Color, DebugDraw};
pub use encode::{Format, GifWriter, ImageSize, Mp4Writer, write_png};
pub use error::RenderError;
pub use palette::Palette;
pub use projection::{CameraAngle, Perspective};
pub use scene::{Style, View, boid_triangle, draw_frame};
pub use scene3d::draw_frame_3d;

use boids_core::camera::{FOLLOW_RATE, Follower, Framing};
use boids_core::neighbors::Neighbors;
use boids_core::overlay::Overlay;
use boids_core::params::Camera;
use boids_core::{Dim, Dimension, Params, Simulation};

/// Where a three-dimensional camera starts and how it turns: `degrees_per_frame` about the
/// vertical axis after each frame drawn. Frames of a flat flock have no angle.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Orbit {
    /// The angle of the first frame.
    pub angle: CameraAngle,
    /// Turn of the azimuth from one frame to the next, in degrees.
    pub degrees_per_frame: f32,
}

/// How frames of `D` dimensions are drawn: flat in two, in perspective in three.
pub trait Scene<const D: usize>: Dimension<D>
where
    Dim<D>: Dimension<D>,
{
    /// The camera, with what it remembers from frame to frame.
    type Lens;

    /// The camera for flocks with `params`' world and camera parameter, on a `size` image.
    fn lens(params: &Params, size: ImageSize, overlay: bool) -> Self::Lens;

    /// Draws the current frame of `sim` on `canvas` through `lens` (from `angle` in 3D), with
    /// the core's overlay of every boid if `overlay`.
    fn draw(
        lens: &mut Self::Lens,
        canvas: &mut Canvas,
        sim: &Simulation<D>,
        style: &Style,
        overlay: bool,
        angle: CameraAngle,
    );
}

/// A canvas with its camera and style: draws successive frames of one flock of `D`
/// dimensions.
pub struct Renderer<const D: usize = 2>
where
    Dim<D>: Scene<D>,
{
    canvas: Canvas,
    lens: <Dim<D> as Scene<D>>::Lens,
    style: Style,
    overlay: bool,
    orbit: Orbit,
    /// Frames drawn so far: how far the orbit has turned.
    drawn: u64,
}

impl<const D: usize> Renderer<D>
where
    Dim<D>: Scene<D>,
{
    /// A renderer for flocks with `params`' world and camera (the `camera` parameter), at
    /// `size`, with or without debug overlays. The world view is fixed here: parameters changed
    /// later that move the world are not followed.
    pub fn new(params: &Params, size: ImageSize, overlay: bool) -> Self {
        Self {
            canvas: Canvas::new(size.width, size.height),
            lens: <Dim<D> as Scene<D>>::lens(params, size, overlay),
            style: Style::default(),
            overlay,
            orbit: Orbit::default(),
            drawn: 0,
        }
    }

    /// The same renderer with a three-dimensional camera that starts and turns as `orbit` says.
    pub fn orbiting(self, orbit: Orbit) -> Self {
        Self { orbit, ..self }
    }

    /// The style used (to build the GIF palette).
    pub fn style(&self) -> &Style {
        &self.style
    }

    /// Draws the current frame of `sim` (with the core's overlay of every boid, if asked for)
    /// through the camera and returns the canvas holding it.
    pub fn draw(&mut self, sim: &Simulation<D>) -> &Canvas {
        let turn = self.orbit.degrees_per_frame * self.drawn as f32;
        let angle = self.orbit.angle.turned(turn);
        <Dim<D> as Scene<D>>::draw(
            &mut self.lens,
            &mut self.canvas,
            sim,
            &self.style,
            self.overlay,
            angle,
        );
        self.drawn += 1;
        &self.canvas
    }
}

/// The flat camera: the world view, and the follow camera's smoothing.
pub struct FlatLens {
    /// The world camera's view, and the follow camera's scale.
    world_view: View,
    camera: Camera,
    follower: Follower,
}

impl FlatLens {
    /// The camera's view of the current frame of `sim` on a `width` x `height` image: the
    /// world; the whole flock's box (fit); or the world view's scale centred on the largest
    /// flock, smoothed from the frames drawn before (follow).
    fn view(&mut self, sim: &Simulation, width: u32, height: u32) -> View {
        let framing = || {
            let state = sim.state();
            Framing::of(&Neighbors::of_state(sim.params(), &state))
        };
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
}

impl Scene<2> for Dim<2> {
    type Lens = FlatLens;

    fn lens(params: &Params, size: ImageSize, overlay: bool) -> FlatLens {
        FlatLens {
            world_view: View::for_params(params, size.width, size.height, overlay),
            camera: params.camera,
            follower: Follower::new(params, FOLLOW_RATE),
        }
    }

    fn draw(
        lens: &mut FlatLens,
        canvas: &mut Canvas,
        sim: &Simulation,
        style: &Style,
        overlay: bool,
        _: CameraAngle,
    ) {
        let view = lens.view(sim, canvas.width(), canvas.height());
        let overlay = overlay.then(|| Overlay::of_all(sim));
        draw_frame(canvas, sim, &view, style, overlay.as_ref());
    }
}

/// The perspective camera: the `camera` parameter's choice (the world box, the whole flock
/// fitted, or the largest flock followed), the follow camera's smoothing and the image size;
/// the angle comes with each frame.
pub struct DepthLens {
    params: Params,
    size: ImageSize,
    camera: Camera,
    follower: Follower<3>,
}

impl DepthLens {
    /// The camera of the current frame of `sim` from `angle`: the world view; the ball around
    /// the whole flock's box (fit); or the world view moved to the largest flock, smoothed
    /// from the frames drawn before (follow).
    fn perspective(&mut self, sim: &Simulation<3>, angle: CameraAngle) -> Perspective {
        let (width, height) = (self.size.width, self.size.height);
        let world = Perspective::of_world(&self.params, angle, width, height);
        let framing = || {
            let state = sim.state();
            Framing::of(&Neighbors::of_state(sim.params(), &state))
        };
        match self.camera {
            Camera::World => world,
            Camera::Fit => framing().map_or(world, |framing| {
                Perspective::around(&framing.whole, sim.params(), angle, width, height)
            }),
            Camera::Follow => framing().map_or(world, |framing| {
                world.moved_to(self.follower.follow(framing.largest).center)
            }),
        }
    }
}

impl Scene<3> for Dim<3> {
    type Lens = DepthLens;

    fn lens(params: &Params, size: ImageSize, _: bool) -> DepthLens {
        DepthLens {
            params: params.clone(),
            size,
            camera: params.camera,
            follower: Follower::new(params, FOLLOW_RATE),
        }
    }

    fn draw(
        lens: &mut DepthLens,
        canvas: &mut Canvas,
        sim: &Simulation<3>,
        style: &Style,
        overlay: bool,
        angle: CameraAngle,
    ) {
        let camera = lens.perspective(sim, angle);
        let overlay = overlay.then(|| Overlay::of_all(sim));
        draw_frame_3d(canvas, sim, &camera, style, overlay.as_ref());
    }
}
