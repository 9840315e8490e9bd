//! The one perspective projection every three-dimensional drawing goes through.
//!
//! A [`Perspective`] camera sits on a sphere around the point it looks at, placed by a
//! [`CameraAngle`] (azimuth about the vertical axis, elevation above the horizon), far enough
//! that a ball of a given radius around that point fills the image's smaller side. "Up" is −y:
//! world y grows downward, as on a screen and in every seed, so at azimuth 0 and elevation 0 the
//! camera looks along +z and shows x to the right and y down, the picture of the flat renderer.
//! Positive azimuths move the camera toward +x, positive elevations above the flock.
//!
//! A projected point carries its depth along the camera's axis and its scale (pixels per world
//! unit there), so drawings can cue depth: what is nearer is drawn larger ([`Projected::scale`])
//! and brighter ([`Perspective::farness`]). Lines are clipped at a near plane, so a segment that
//! passes behind the camera is drawn up to where it leaves the picture, never through the eye.

use std::str::FromStr;

use boids_core::camera::Focus;
use boids_core::{Params, Vec2, Vec3};

use crate::error::RenderError;
use crate::scene::{FIT_LEAST, FIT_MARGIN};

/// Margin around the world box's ball in the world view, as a share of its radius: the box's
/// corners stay off the picture's edge.
pub const WORLD_MARGIN: f32 = 0.06;

/// Where the camera looks from, in degrees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraAngle {
    /// Turn about the vertical axis: 0 looks along +z, 90 from the +x side.
    pub azimuth: f32,
    /// Height above the horizon: positive looks down on the flock.
    pub elevation: f32,
}

impl CameraAngle {
    /// Azimuths accepted, in degrees.
    pub const AZIMUTH: (f32, f32) = (-360.0, 360.0);
    /// Elevations accepted, in degrees: short of straight up or down, where "right" is undefined.
    pub const ELEVATION: (f32, f32) = (-89.0, 89.0);

    /// The angle of a fresh camera: a little from the +x side and above, so the box shows
    /// three faces and depth reads at once.
    pub const DEFAULT: Self = Self {
        azimuth: 30.0,
        elevation: 20.0,
    };

    /// The same camera turned by `degrees` about the vertical axis.
    pub fn turned(self, degrees: f32) -> Self {
        Self {
            azimuth: (self.azimuth + degrees) % 360.0,
            ..self
        }
    }
}

impl Default for CameraAngle {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl std::fmt::Display for CameraAngle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},{}", self.azimuth, self.elevation)
    }
}

impl FromStr for CameraAngle {
    type Err = RenderError;

    /// Parses `AZ,EL` in degrees, e.g. `30,20`.
    fn from_str(s: &str) -> Result<Self, RenderError> {
        let bad = |reason: String| RenderError::CameraAngle {
            value: s.to_owned(),
            reason,
        };
        let (azimuth, elevation) = s
            .split_once(',')
            .ok_or_else(|| bad("expected AZIMUTH,ELEVATION in degrees, e.g. 30,20".to_owned()))?;
        let degrees = |text: &str, name: &str, (lo, hi): (f32, f32)| {
            let value: f32 = text.trim().parse().map_err(|_| {
                bad(format!(
                    "{name} '{}' is not a number; expected AZIMUTH,ELEVATION in degrees, e.g. 30,20",
                    text.trim()
                ))
            })?;
            if !(lo..=hi).contains(&value) {
                return Err(bad(format!(
                    "{name} {value} is out of range [{lo}, {hi}] degrees"
                )));
            }
            Ok(value)
        };
        Ok(Self {
            azimuth: degrees(azimuth, "azimuth", Self::AZIMUTH)?,
            elevation: degrees(elevation, "elevation", Self::ELEVATION)?,
        })
    }
}

/// A point seen by a [`Perspective`] camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projected {
    /// Pixel position.
    pub at: Vec2,
    /// Distance in front of the camera, along its axis.
    pub depth: f32,
    /// Pixels per world unit at that depth.
    pub scale: f32,
}

/// A pinhole camera looking at a point from a [`CameraAngle`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Perspective {
    eye: Vec3,
    right: Vec3,
    up: Vec3,
    forward: Vec3,
    /// Pixels per world unit at depth 1.
    focal: f32,
    /// Pixel position of the camera's axis (the image centre).
    center: Vec2,
    /// Depth of the point looked at.
    distance: f32,
    /// Radius of the ball around it that fills the picture.
    radius: f32,
}

impl Perspective {
    /// Angle of view across the image's smaller side, in degrees: a normal lens, whose
    /// perspective is marked enough to read depth but does not distort the flock.
    pub const FIELD_OF_VIEW: f32 = 40.0;

    /// A camera at `angle` looking at `target`, as far away as lets the ball of `radius`
    /// (positive) around it just fill the smaller side of a `width` x `height` image.
    pub fn looking_at(
        target: Vec3,
        radius: f32,
        angle: CameraAngle,
        width: u32,
        height: u32,
    ) -> Self {
        let half_view = (0.5 * Self::FIELD_OF_VIEW).to_radians();
        let (azimuth, elevation) = (angle.azimuth.to_radians(), angle.elevation.to_radians());
        let back = Vec3::new(
            azimuth.sin() * elevation.cos(),
            -elevation.sin(),
            -azimuth.cos() * elevation.cos(),
        );
        let distance = radius / half_view.sin();
        let forward = -back;
        let right = forward.cross(Vec3::NEG_Y).normalize();
        let image = Vec2::new(width as f32, height as f32);
        Self {
            eye: target + back * distance,
            right,
            up: right.cross(forward),
            forward,
            focal: 0.5 * image.min_element() / half_view.tan(),
            center: 0.5 * image,
            distance,
            radius,
        }
    }

    /// A camera at `angle` looking at the centre of `params`' world box, framing the whole box
    /// with a margin, on a `width` x `height` image.
    pub fn of_world(params: &Params, angle: CameraAngle, width: u32, height: u32) -> Self {
        let (min, size) = params.world_box::<3>();
        let size = Vec3::from(size);
        let center = Vec3::from(min) + 0.5 * size;
        let radius = 0.5 * size.length() * (1.0 + WORLD_MARGIN);
        Self::looking_at(center, radius, angle, width, height)
    }

    /// A camera at `angle` framing the box of `focus` (the fit camera): the ball around it with
    /// a margin of [`FIT_MARGIN`] of its extent, and at least [`FIT_LEAST`] of the world's
    /// smaller side across along each axis, as the flat fit camera frames it.
    pub fn around(
        focus: &Focus<3>,
        params: &Params,
        angle: CameraAngle,
        width: u32,
        height: u32,
    ) -> Self {
        let (_, size) = params.world_box::<3>();
        let least = FIT_LEAST * size.into_iter().fold(f32::INFINITY, f32::min);
        let half = (focus.half_extent * (1.0 + FIT_MARGIN)).max(Vec3::splat(0.5 * least));
        Self::looking_at(focus.center, half.length(), angle, width, height)
    }

    /// The same camera looking at `target` instead (the follow camera: the world view's
    /// distance, centred on the flock).
    pub fn moved_to(&self, target: Vec3) -> Self {
        Self {
            eye: self.eye + (target - self.target()),
            ..*self
        }
    }

    /// The point the camera looks at.
    pub fn target(&self) -> Vec3 {
        self.eye + self.forward * self.distance
    }

    /// Where the camera is.
    pub fn eye(&self) -> Vec3 {
        self.eye
    }

    /// Image size in pixels.
    pub fn image_size(&self) -> Vec2 {
        2.0 * self.center
    }

    /// The least depth drawn: a thousandth of the way to the point looked at.
    fn near(&self) -> f32 {
        1e-3 * self.distance
    }

    /// `p` in the camera's frame: along its right, up and forward axes.
    fn camera_frame(&self, p: Vec3) -> Vec3 {
        let d = p - self.eye;
        Vec3::new(d.dot(self.right), d.dot(self.up), d.dot(self.forward))
    }

    /// The pixel of a point given in the camera's frame (in front of it).
    fn pixel(&self, c: Vec3) -> Vec2 {
        self.center + Vec2::new(c.x, -c.y) * (self.focal / c.z)
    }

    /// `p` seen by the camera; `None` when it is behind the near plane.
    pub fn project(&self, p: Vec3) -> Option<Projected> {
        let c = self.camera_frame(p);
        (c.z > self.near()).then(|| Projected {
            at: self.pixel(c),
            depth: c.z,
            scale: self.focal / c.z,
        })
    }

    /// The pixels of the segment from `a` to `b`, cut where it passes behind the near plane;
    /// `None` when all of it does.
    pub fn segment(&self, a: Vec3, b: Vec3) -> Option<(Vec2, Vec2)> {
        let (mut a, mut b) = (self.camera_frame(a), self.camera_frame(b));
        let near = self.near();
        if a.z <= near && b.z <= near {
            return None;
        }
        let cut = |from: Vec3, to: Vec3| from + (to - from) * ((near - from.z) / (to.z - from.z));
        if a.z <= near {
            a = cut(a, b);
        } else if b.z <= near {
            b = cut(b, a);
        }
        Some((self.pixel(a), self.pixel(b)))
    }

    /// Pixels per world unit at the point looked at.
    pub fn scale(&self) -> f32 {
        self.focal / self.distance
    }

    /// How far `depth` lies into the framed ball: 0 at its near side (or nearer), 1 at its far
    /// side (or farther).
    pub fn farness(&self, depth: f32) -> f32 {
        ((depth - (self.distance - self.radius)) / (2.0 * self.radius)).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn front(angle: CameraAngle) -> Perspective {
        Perspective::looking_at(Vec3::ZERO, 10.0, angle, 200, 100)
    }

    #[test]
    fn straight_on_the_picture_is_the_flat_one() {
        let camera = front(CameraAngle {
            azimuth: 0.0,
            elevation: 0.0,
        });
        let centre = camera.project(Vec3::ZERO).unwrap();
        assert_eq!(centre.at, Vec2::new(100.0, 50.0));
        let right = camera.project(Vec3::X).unwrap().at - centre.at;
        let down = camera.project(Vec3::Y).unwrap().at - centre.at;
        assert!(right.x > 0.0 && right.y.abs() < 1e-4, "{right}");
        assert!(down.y > 0.0 && down.x.abs() < 1e-4, "{down}");
        assert!(camera.project(Vec3::Z).unwrap().depth > centre.depth);
    }

    #[test]
    fn the_framed_ball_fills_the_smaller_side() {
        let camera = front(CameraAngle::DEFAULT);
        let centre = Vec2::new(100.0, 50.0);
        // Points spread over the ball's surface (a Fibonacci lattice) project within its
        // silhouette, a circle as high as the image.
        let farthest = (0..2000)
            .map(|k| {
                let z = 1.0 - 2.0 * (k as f32 + 0.5) / 2000.0;
                let a = k as f32 * 2.399_963;
                let r = (1.0 - z * z).sqrt();
                let p = Vec3::new(r * a.cos(), r * a.sin(), z) * 10.0;
                (camera.project(p).unwrap().at - centre).length()
            })
            .fold(0.0, f32::max);
        assert!(farthest <= 50.01 && farthest > 48.0, "{farthest}");
    }

    #[test]
    fn nearer_is_larger_and_less_far() {
        let camera = front(CameraAngle::DEFAULT);
        let toward = (camera.eye() - Vec3::ZERO).normalize() * 5.0;
        let (near, far) = (
            camera.project(toward).unwrap(),
            camera.project(-toward).unwrap(),
        );
        assert!(near.scale > far.scale);
        assert!(camera.farness(near.depth) < camera.farness(far.depth));
        assert_eq!(camera.farness(0.0), 0.0);
        assert_eq!(camera.farness(1e9), 1.0);
    }

    #[test]
    fn segments_behind_the_camera_are_cut_or_dropped() {
        let camera = front(CameraAngle {
            azimuth: 0.0,
            elevation: 0.0,
        });
        let behind = camera.eye() - Vec3::Z * 5.0;
        assert!(camera.project(behind).is_none());
        assert!(camera.segment(behind, behind + Vec3::X).is_none());
        let (a, b) = camera.segment(behind + Vec3::X, Vec3::ZERO).unwrap();
        assert!(a.is_finite() && b == Vec2::new(100.0, 50.0), "{a} {b}");
    }

    #[test]
    fn angles_are_read_and_checked() {
        let angle: CameraAngle = "45, -10".parse().unwrap();
        assert_eq!((angle.azimuth, angle.elevation), (45.0, -10.0));
        for (bad, says) in [
            ("30", "AZIMUTH,ELEVATION"),
            ("x,10", "azimuth 'x' is not a number"),
            ("10,90", "elevation 90 is out of range [-89, 89]"),
            ("400,0", "azimuth 400 is out of range [-360, 360]"),
            ("10,NaN", "elevation NaN is out of range"),
        ] {
            let message = bad.parse::<CameraAngle>().unwrap_err().to_string();
            assert!(message.contains(says), "{bad}: {message}");
            assert!(message.contains(&format!("'{bad}'")), "{bad}: {message}");
        }
        assert_eq!(CameraAngle::DEFAULT.turned(350.0).azimuth, 20.0);
    }
}
