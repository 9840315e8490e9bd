//! The binary messages: the frame codec and the overlay codec, laid out as the [protocol
//! docs](super) say. Encoding is what the server does on every published frame, so it writes
//! straight into one buffer; decoding is for tests and tools (the page has its own decoder).

use boids_core::overlay::{Ghost, Overlay, OverlayBoid};
use boids_core::params::MAX_PREDATORS;
use boids_core::{Coordinates, Dim, Dimension, RuleVectors, VecN};

/// First four bytes of every binary message.
pub const MAGIC: [u8; 4] = *b"BOID";
/// Version of the frame layout of a flat flock (2: a resting bit in the group byte, predators
/// after the boids).
pub const FRAME_VERSION: u8 = 2;
/// Version of the frame layout of a flock in three dimensions (z, the world's depth, a heading
/// of two bytes).
pub const FRAME_VERSION_3D: u8 = 3;
/// Version of the overlay layout of a flat flock (2: scout groups, links per record, ghosts).
pub const OVERLAY_VERSION: u8 = 2;
/// Version of the overlay layout of a flock in three dimensions (every vector with z).
pub const OVERLAY_VERSION_3D: u8 = 3;
/// Message kind of a frame.
pub const KIND_FRAME: u8 = 1;
/// Message kind of an overlay.
pub const KIND_OVERLAY: u8 = 2;
/// Size of a frame header (version 2).
pub const FRAME_HEADER_BYTES: usize = frame_header_bytes(2);
/// Size of one boid (and of one predator) in a frame (version 2).
pub const FRAME_BOID_BYTES: usize = frame_boid_bytes(2);
/// Size of a frame header (version 3).
pub const FRAME_HEADER_BYTES_3D: usize = frame_header_bytes(3);
/// Size of one boid (and of one predator) in a frame (version 3).
pub const FRAME_BOID_BYTES_3D: usize = frame_boid_bytes(3);
/// Bit of a boid's group byte set while it rests on the ground (perching).
pub const RESTING_BIT: u8 = 0x80;
/// Size of an overlay header.
pub const OVERLAY_HEADER_BYTES: usize = 36;
/// Size of one overlay record (version 2).
pub const OVERLAY_RECORD_BYTES: usize = overlay_record_bytes(2);
/// Size of one overlay link (version 2).
pub const OVERLAY_LINK_BYTES: usize = 8;
/// Size of one overlay ghost (version 2).
pub const OVERLAY_GHOST_BYTES: usize = overlay_ghost_bytes(2);

/// The largest frame of a flock of at most `boids` boids, in either dimension: its predators
/// (at most [`MAX_PREDATORS`], and the pointer's) take records of their own.
pub const fn largest_frame_bytes(boids: usize) -> usize {
    let records = boids.saturating_add(MAX_PREDATORS as usize + 1);
    records
        .saturating_mul(FRAME_BOID_BYTES_3D)
        .saturating_add(FRAME_HEADER_BYTES_3D)
}

/// The frame version of a flock of `dimensions` (2 or 3): 2 for a flat one, 3 for one with z.
pub const fn frame_version(dimensions: usize) -> u8 {
    if dimensions == 3 {
        FRAME_VERSION_3D
    } else {
        FRAME_VERSION
    }
}

/// A frame header of `dimensions`: 24 bytes, then the world box and the quantisation box, each
/// a near corner and a size of `dimensions` f32.
const fn frame_header_bytes(dimensions: usize) -> usize {
    24 + 2 * 2 * 4 * dimensions
}

/// A boid record of `dimensions`: a u16 per axis, a heading of `dimensions - 1` bytes (the
/// azimuth, then in 3D the elevation), the group byte ([`group_byte`]), and a zero byte if that
/// makes an odd length: records stay 2-byte aligned, so that the page hands a frame's bytes to
/// the GPU as they are (WebGL reads a u16 attribute only at an even offset and stride).
const fn frame_boid_bytes(dimensions: usize) -> usize {
    (group_byte(dimensions) + 2) & !1
}

/// Where a boid record of `dimensions` keeps its group byte: after the coordinates and heading.
const fn group_byte(dimensions: usize) -> usize {
    2 * dimensions + (dimensions - 1)
}

/// Bits of the flags field.
pub mod flags {
    /// The simulation is running (not paused).
    pub const RUNNING: u16 = 1;
    /// The world is a torus.
    pub const TORUS: u16 = 2;
    /// The overlay is for the boid under the mouse (and carries its neighbour links).
    pub const HOVER: u16 = 4;
}

/// An axis-aligned box of `D` dimensions: a rectangle in 2D (x, y, width, height), a cuboid in
/// 3D (x, y, z, width, height, depth).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldBox<const D: usize = 2> {
    /// The near corner (smallest x, y, z).
    pub min: [f32; D],
    /// Extent along each axis.
    pub size: [f32; D],
}

impl<const D: usize> WorldBox<D> {
    /// The smallest box holding `self` and every point.
    pub fn grown_to_hold<P: Coordinates<D>>(self, points: &[P]) -> WorldBox<D> {
        let mut min = self.min;
        let mut max: [f32; D] = std::array::from_fn(|a| self.min[a] + self.size[a]);
        for p in points {
            let p = p.to_array();
            for a in 0..D {
                min[a] = min[a].min(p[a]);
                max[a] = max[a].max(p[a]);
            }
        }
        WorldBox {
            min,
            size: std::array::from_fn(|a| max[a] - min[a]),
        }
    }
}

/// What a frame header says besides the boids.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameHeader<const D: usize = 2> {
    /// Flags ([`flags`]).
    pub flags: u16,
    /// Simulation step.
    pub step: u64,
    /// Parameter revision.
    pub revision: u32,
    /// The world box.
    pub world: WorldBox<D>,
}

fn put_header(out: &mut Vec<u8>, kind: u8, version: u8, flags: u16, step: u64) {
    out.extend_from_slice(&MAGIC);
    out.push(version);
    out.push(kind);
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&step.to_le_bytes());
}

fn put_box<const D: usize>(out: &mut Vec<u8>, b: WorldBox<D>) {
    for v in b.min.into_iter().chain(b.size) {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// Quantises `v` in `[origin, origin + 65535 / scale]` to 16 bits.
#[inline(always)]
fn quantise(v: f32, origin: f32, scale: f32) -> u16 {
    ((v - origin) * scale).round().clamp(0.0, 65535.0) as u16
}

/// `65535 / extent`, the quantisation scale of an axis (zero for an empty axis).
fn quantisation_scale(extent: f32) -> f32 {
    if extent > 0.0 { 65535.0 / extent } else { 0.0 }
}

/// The angle of `(x, y)` from +x toward +y, in `(-pi, pi]`. A polynomial arctangent (error
/// below 1e-5 rad, far under the 0.025 rad of one heading unit) keeps encoding a large flock
/// cheap.
#[inline(always)]
fn angle(x: f32, y: f32) -> f32 {
    let (ax, ay) = (x.abs(), y.abs());
    let (small, large) = (ax.min(ay), ax.max(ay));
    if large == 0.0 {
        return 0.0;
    }
    let a = small / large;
    let s = a * a;
    let mut r = (((-0.046_496_474 * s + 0.159_314_22) * s - 0.327_622_76) * s) * a + a;
    if ay > ax {
        r = std::f32::consts::FRAC_PI_2 - r;
    }
    if x < 0.0 {
        r = std::f32::consts::PI - r;
    }
    if y < 0.0 { -r } else { r }
}

/// The direction of `(x, y)` in 256ths of a turn: the heading byte (the azimuth in 3D).
#[inline(always)]
fn heading(x: f32, y: f32) -> u8 {
    ((angle(x, y) * (256.0 / std::f32::consts::TAU)).round() as i32 & 255) as u8
}

/// The elevation of `v` above the xy plane, from 0 (straight toward -z) through 127.5 (level)
/// to 255 (straight toward +z): `elevation = (byte / 255 - 1/2) pi`.
#[inline(always)]
fn elevation(v: [f32; 3]) -> u8 {
    let level = (v[0] * v[0] + v[1] * v[1]).sqrt();
    let up = angle(level, v[2]);
    ((up / std::f32::consts::PI + 0.5) * 255.0)
        .round()
        .clamp(0.0, 255.0) as u8
}

/// The heading bytes of velocity `v` into `out`: the azimuth, then in 3D the elevation.
#[inline(always)]
fn put_heading(out: &mut [u8], v: &[f32]) {
    out[0] = heading(v[0], v[1]);
    if let &[x, y, z] = v {
        out[1] = elevation([x, y, z]);
    }
}

/// A predator as a frame shows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hunter<const D: usize>
where
    Dim<D>: Dimension<D>,
{
    /// Where it is.
    pub position: VecN<D>,
    /// Its velocity.
    pub velocity: VecN<D>,
    /// Whether it is the pointer's (kind 1; always last).
    pub pointer: bool,
}

/// What a frame shows: the boids in storage order (every slice in that order; `resting` empty
/// when perching is off) and the predators, the pointer's last.
#[derive(Clone, Copy, Debug)]
pub struct FrameContent<'a, const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// Boid positions.
    pub positions: &'a [VecN<D>],
    /// Boid velocities.
    pub velocities: &'a [VecN<D>],
    /// Scout groups.
    pub groups: &'a [u8],
    /// Steps each boid still rests (0: flying), or empty.
    pub resting: &'a [u32],
    /// The predators, the pointer's last.
    pub predators: &'a [Hunter<D>],
}

/// How positions map to 16-bit coordinates: the quantisation box and each axis's scale.
struct Quantiser<const D: usize> {
    quant: WorldBox<D>,
    scale: [f32; D],
}

impl<const D: usize> Quantiser<D> {
    /// One record: a u16 per axis, the heading bytes, and `last`.
    #[inline(always)]
    fn put_record(&self, out: &mut [u8], p: [f32; D], v: [f32; D], last: u8) {
        for a in 0..D {
            let q = quantise(p[a], self.quant.min[a], self.scale[a]);
            out[2 * a..2 * a + 2].copy_from_slice(&q.to_le_bytes());
        }
        put_heading(&mut out[2 * D..], &v);
        out[group_byte(D)] = last;
    }
}

/// Encodes a frame: version 2 for a flat flock, version 3 for one in three dimensions.
pub fn encode_frame<const D: usize>(header: &FrameHeader<D>, content: &FrameContent<D>) -> Vec<u8>
where
    Dim<D>: Dimension<D>,
{
    let FrameContent {
        positions,
        velocities,
        groups,
        resting,
        predators,
    } = *content;
    let (header_bytes, record_bytes) = (frame_header_bytes(D), frame_boid_bytes(D));
    let n = positions.len();
    let hunter_positions: Vec<VecN<D>> = predators.iter().map(|p| p.position).collect();
    let quant = header
        .world
        .grown_to_hold(positions)
        .grown_to_hold(&hunter_positions);
    let quantiser = Quantiser {
        quant,
        scale: quant.size.map(quantisation_scale),
    };
    let boids_end = header_bytes + record_bytes * n;
    let mut out = Vec::with_capacity(boids_end + 4 + record_bytes * predators.len());
    put_header(
        &mut out,
        KIND_FRAME,
        frame_version(D),
        header.flags,
        header.step,
    );
    out.extend_from_slice(&(n as u32).to_le_bytes());
    out.extend_from_slice(&header.revision.to_le_bytes());
    put_box(&mut out, header.world);
    put_box(&mut out, quant);
    out.resize(boids_end, 0);
    let boids = out[header_bytes..].chunks_exact_mut(record_bytes);
    for (k, (((b, &p), &v), &g)) in boids.zip(positions).zip(velocities).zip(groups).enumerate() {
        let rests = resting.get(k).is_some_and(|&r| r > 0);
        let last = if rests { g | RESTING_BIT } else { g };
        quantiser.put_record(b, p.to_array(), v.to_array(), last);
    }
    out.extend_from_slice(&(predators.len() as u32).to_le_bytes());
    for hunter in predators {
        let mut record = [0; FRAME_BOID_BYTES_3D];
        let record = &mut record[..record_bytes];
        let kind = u8::from(hunter.pointer);
        quantiser.put_record(
            record,
            hunter.position.to_array(),
            hunter.velocity.to_array(),
            kind,
        );
        out.extend_from_slice(record);
    }
    out
}

/// A frame read back (for tests and tools; the page has its own decoder).
#[derive(Clone, Debug, PartialEq)]
pub struct DecodedFrame<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// Header fields.
    pub header: FrameHeader<D>,
    /// The quantisation box.
    pub quant: WorldBox<D>,
    /// Positions, dequantised.
    pub positions: Vec<VecN<D>>,
    /// Headings as unit vectors.
    pub directions: Vec<VecN<D>>,
    /// Scout groups.
    pub groups: Vec<u8>,
    /// Whether each boid rests on the ground.
    pub resting: Vec<bool>,
    /// Predators: position, heading as a unit vector, and whether it is the pointer's.
    pub predators: Vec<(VecN<D>, VecN<D>, bool)>,
}

/// Why a binary message could not be decoded.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("bad binary message: {0}")]
pub struct DecodeError(String);

fn read<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    bytes[at..at + N].try_into().expect("length checked")
}

fn read_f32(bytes: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(read(bytes, at))
}

fn read_box<const D: usize>(bytes: &[u8], at: usize) -> WorldBox<D> {
    WorldBox {
        min: std::array::from_fn(|a| read_f32(bytes, at + 4 * a)),
        size: std::array::from_fn(|a| read_f32(bytes, at + 4 * (D + a))),
    }
}

fn check_header(
    bytes: &[u8],
    kind: u8,
    version: u8,
    header_len: usize,
) -> Result<(u16, u64), DecodeError> {
    if bytes.len() < header_len {
        return Err(DecodeError(format!(
            "{} bytes, shorter than the {header_len}-byte header",
            bytes.len()
        )));
    }
    if bytes[0..4] != MAGIC || bytes[4] != version || bytes[5] != kind {
        return Err(DecodeError(format!(
            "header {:?} is not version {version} kind {kind}",
            &bytes[0..6]
        )));
    }
    Ok((
        u16::from_le_bytes(read(bytes, 6)),
        u64::from_le_bytes(read(bytes, 8)),
    ))
}

/// The unit vector of heading bytes (an azimuth, then in 3D an elevation).
fn direction<const D: usize>(heading: &[u8]) -> VecN<D>
where
    Dim<D>: Dimension<D>,
{
    let azimuth = f32::from(heading[0]) / 256.0 * std::f32::consts::TAU;
    let up = match heading.get(1) {
        Some(&e) if D == 3 => (f32::from(e) / 255.0 - 0.5) * std::f32::consts::PI,
        _ => 0.0,
    };
    let all = [azimuth.cos() * up.cos(), azimuth.sin() * up.cos(), up.sin()];
    VecN::<D>::from(std::array::from_fn(|a| all[a]))
}

/// Decodes a frame message of a flock of `D` dimensions (version 2 for 2, 3 for 3).
pub fn decode_frame<const D: usize>(bytes: &[u8]) -> Result<DecodedFrame<D>, DecodeError>
where
    Dim<D>: Dimension<D>,
{
    let (header_bytes, record_bytes) = (frame_header_bytes(D), frame_boid_bytes(D));
    let (flags, step) = check_header(bytes, KIND_FRAME, frame_version(D), header_bytes)?;
    let n = u32::from_le_bytes(read(bytes, 16)) as usize;
    let boids_end = n
        .checked_mul(record_bytes)
        .and_then(|b| b.checked_add(header_bytes))
        .filter(|&end| end + 4 <= bytes.len())
        .ok_or_else(|| DecodeError(format!("{} bytes for {n} boids", bytes.len())))?;
    let p = u32::from_le_bytes(read(bytes, boids_end)) as usize;
    if bytes.len() != boids_end + 4 + record_bytes * p {
        let length = bytes.len();
        return Err(DecodeError(format!(
            "{length} bytes for {n} boids and {p} predators"
        )));
    }
    let header = FrameHeader {
        flags,
        step,
        revision: u32::from_le_bytes(read(bytes, 20)),
        world: read_box(bytes, 24),
    };
    let quant: WorldBox<D> = read_box(bytes, 24 + 8 * D);
    let record = |r: &[u8]| {
        let position: [f32; D] = std::array::from_fn(|a| {
            let q = f32::from(u16::from_le_bytes([r[2 * a], r[2 * a + 1]]));
            quant.min[a] + q / 65535.0 * quant.size[a]
        });
        (
            VecN::<D>::from(position),
            direction::<D>(&r[2 * D..group_byte(D)]),
            r[group_byte(D)],
        )
    };
    let mut frame = DecodedFrame {
        header,
        quant,
        positions: Vec::with_capacity(n),
        directions: Vec::with_capacity(n),
        groups: Vec::with_capacity(n),
        resting: Vec::with_capacity(n),
        predators: Vec::with_capacity(p),
    };
    for boid in bytes[header_bytes..boids_end].chunks_exact(record_bytes) {
        let (position, direction, last) = record(boid);
        frame.positions.push(position);
        frame.directions.push(direction);
        frame.groups.push(last & !RESTING_BIT);
        frame.resting.push(last & RESTING_BIT != 0);
    }
    for predator in bytes[boids_end + 4..].chunks_exact(record_bytes) {
        let (position, direction, kind) = record(predator);
        frame.predators.push((position, direction, kind == 1));
    }
    Ok(frame)
}

/// An overlay message: the core's overlay with the frame it belongs to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OverlayMessage<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// Flags ([`flags`]).
    pub flags: u16,
    /// Simulation step.
    pub step: u64,
    /// The overlay, as the core computed it.
    pub overlay: Overlay<D>,
}

/// The overlay version of a flock of `dimensions`: 2 for a flat one, 3 for one with z.
pub const fn overlay_version(dimensions: usize) -> u8 {
    if dimensions == 3 {
        OVERLAY_VERSION_3D
    } else {
        OVERLAY_VERSION
    }
}

/// An overlay record of `dimensions`: five vectors (position, velocity, the three rule vectors),
/// its link count, its scout group and three zero bytes.
const fn overlay_record_bytes(dimensions: usize) -> usize {
    5 * 4 * dimensions + 8
}

/// An overlay ghost of `dimensions`: position, velocity, index, scout group and three zero bytes.
const fn overlay_ghost_bytes(dimensions: usize) -> usize {
    2 * 4 * dimensions + 8
}

fn put_u32(out: &mut Vec<u8>, v: usize) {
    let v = u32::try_from(v).expect("overlay counts and indices fit in 32 bits");
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_vector<const D: usize, P: Coordinates<D>>(out: &mut Vec<u8>, v: P) {
    for c in v.to_array() {
        out.extend_from_slice(&c.to_le_bytes());
    }
}

fn read_u32(bytes: &[u8], at: usize) -> usize {
    u32::from_le_bytes(read(bytes, at)) as usize
}

fn read_vector<const D: usize>(bytes: &[u8], at: usize) -> VecN<D>
where
    Dim<D>: Dimension<D>,
{
    VecN::<D>::from(std::array::from_fn(|a| read_f32(bytes, at + 4 * a)))
}

impl<const D: usize> OverlayMessage<D>
where
    Dim<D>: Dimension<D>,
{
    /// Encodes the overlay message (version 2 for a flat flock, 3 for one in three dimensions).
    pub fn encode(&self) -> Vec<u8> {
        let o = &self.overlay;
        let links: usize = o.boids.iter().map(|b| b.links.len()).sum();
        let mut out = Vec::with_capacity(
            OVERLAY_HEADER_BYTES
                + overlay_record_bytes(D) * o.boids.len()
                + 4 * D * links
                + overlay_ghost_bytes(D) * o.ghosts.len(),
        );
        put_header(
            &mut out,
            KIND_OVERLAY,
            overlay_version(D),
            self.flags,
            self.step,
        );
        put_u32(&mut out, o.boids.len());
        put_u32(&mut out, links);
        out.extend_from_slice(&o.visual_range.to_le_bytes());
        out.extend_from_slice(&o.protected_range.to_le_bytes());
        put_u32(&mut out, o.ghosts.len());
        for b in &o.boids {
            let r = &b.rules;
            for v in [
                b.position,
                b.velocity,
                r.cohesion,
                r.separation,
                r.alignment,
            ] {
                put_vector(&mut out, v);
            }
            put_u32(&mut out, b.links.len());
            out.extend_from_slice(&[b.group, 0, 0, 0]);
        }
        for &link in o.boids.iter().flat_map(|b| &b.links) {
            put_vector(&mut out, link);
        }
        for g in &o.ghosts {
            put_vector(&mut out, g.position);
            put_vector(&mut out, g.velocity);
            put_u32(&mut out, g.index);
            out.extend_from_slice(&[g.group, 0, 0, 0]);
        }
        out
    }

    /// Decodes an overlay message of a flock of `D` dimensions.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let (record_bytes, link_bytes, ghost_bytes) =
            (overlay_record_bytes(D), 4 * D, overlay_ghost_bytes(D));
        let (flags, step) = check_header(
            bytes,
            KIND_OVERLAY,
            overlay_version(D),
            OVERLAY_HEADER_BYTES,
        )?;
        let (records, links, ghosts) = (
            read_u32(bytes, 16),
            read_u32(bytes, 20),
            read_u32(bytes, 32),
        );
        let links_at = OVERLAY_HEADER_BYTES + record_bytes * records;
        let ghosts_at = links_at + link_bytes * links;
        if bytes.len() != ghosts_at + ghost_bytes * ghosts {
            return Err(DecodeError(format!(
                "{} bytes for {records} records, {links} links and {ghosts} ghosts",
                bytes.len()
            )));
        }
        let vector = |at: usize| read_vector::<D>(bytes, at);
        let mut next_link = links_at;
        let mut boids = Vec::with_capacity(records);
        for k in 0..records {
            let at = OVERLAY_HEADER_BYTES + record_bytes * k;
            let own = read_u32(bytes, at + 20 * D);
            if own > (ghosts_at - next_link) / link_bytes {
                return Err(DecodeError(format!(
                    "the records have more links than the {links} announced"
                )));
            }
            boids.push(OverlayBoid {
                position: vector(at),
                velocity: vector(at + 4 * D),
                group: bytes[at + 20 * D + 4],
                rules: RuleVectors {
                    cohesion: vector(at + 8 * D),
                    separation: vector(at + 12 * D),
                    alignment: vector(at + 16 * D),
                },
                links: (0..own)
                    .map(|n| vector(next_link + link_bytes * n))
                    .collect(),
            });
            next_link += link_bytes * own;
        }
        if next_link != ghosts_at {
            return Err(DecodeError(format!(
                "the records have fewer links than the {links} announced"
            )));
        }
        let ghosts = (0..ghosts)
            .map(|k| {
                let at = ghosts_at + ghost_bytes * k;
                Ghost {
                    position: vector(at),
                    velocity: vector(at + 4 * D),
                    index: read_u32(bytes, at + 8 * D),
                    group: bytes[at + 8 * D + 4],
                }
            })
            .collect();
        Ok(OverlayMessage {
            flags,
            step,
            overlay: Overlay {
                visual_range: read_f32(bytes, 24),
                protected_range: read_f32(bytes, 28),
                boids,
                ghosts,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use boids_core::{Vec2, Vec3};

    fn rect(x: f32, y: f32, width: f32, height: f32) -> WorldBox {
        WorldBox {
            min: [x, y],
            size: [width, height],
        }
    }

    /// The heading of a decoded direction, in turns from +x toward +y, in `[0, 1)`.
    fn turns(direction: Vec2) -> f32 {
        direction
            .y
            .atan2(direction.x)
            .rem_euclid(std::f32::consts::TAU)
            / std::f32::consts::TAU
    }

    #[test]
    fn frame_round_trips_within_quantisation() {
        let header = FrameHeader {
            flags: flags::RUNNING | flags::TORUS,
            step: 12345678901,
            revision: 7,
            world: rect(-8.0, -8.0, 16.0, 16.0),
        };
        let positions = vec![
            Vec2::new(-8.0, -8.0),
            Vec2::new(7.999, 0.5),
            Vec2::new(1.25, 3.0),
        ];
        let velocities = vec![
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, 1.0),
            Vec2::new(-1.0, -1.0),
        ];
        let groups = vec![0, 1, 2];
        let predators = [
            Hunter {
                position: Vec2::new(2.0, -4.0),
                velocity: Vec2::new(0.0, -1.0),
                pointer: false,
            },
            Hunter {
                position: Vec2::new(-3.0, 5.0),
                velocity: Vec2::ZERO,
                pointer: true,
            },
        ];
        let content = FrameContent {
            positions: &positions,
            velocities: &velocities,
            groups: &groups,
            resting: &[0, 7, 0],
            predators: &predators,
        };
        let bytes = encode_frame(&header, &content);
        assert_eq!(bytes.len(), FRAME_HEADER_BYTES + 5 * FRAME_BOID_BYTES + 4);
        assert_eq!(bytes[4], FRAME_VERSION);
        let frame = decode_frame::<2>(&bytes).unwrap();
        assert_eq!(frame.header, header);
        assert_eq!(frame.quant, header.world);
        assert_eq!(frame.groups, groups);
        assert_eq!(frame.resting, [false, true, false]);
        let [(at, heading, false), (pointed, _, true)] = frame.predators[..] else {
            panic!("{:?}", frame.predators);
        };
        assert!((at - predators[0].position).length() < 1e-3);
        assert!((turns(heading) - 0.75).abs() < 1e-6);
        assert!((pointed - predators[1].position).length() < 1e-3);
        for (a, b) in frame.positions.iter().zip(&positions) {
            assert!(
                (*a - *b).abs().max_element() <= 16.0 / 65535.0,
                "{a} vs {b}"
            );
        }
        for (a, b) in frame.directions.iter().zip([0.0, 0.25, 0.625]) {
            assert!((turns(*a) - b).abs() < 1e-6, "{a} vs {b}");
        }
    }

    #[test]
    fn a_frame_in_three_dimensions_carries_z_and_the_elevation() {
        let header = FrameHeader {
            flags: flags::TORUS,
            step: 42,
            revision: 3,
            world: WorldBox {
                min: [0.0, 0.0, -240.0],
                size: [640.0, 480.0, 480.0],
            },
        };
        let positions = vec![
            Vec3::new(0.0, 0.0, -240.0),
            Vec3::new(320.0, 100.0, 0.0),
            Vec3::new(639.9, 479.9, 239.9),
        ];
        let velocities = vec![
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 5.0),
            Vec3::new(-1.0, 1.0, -1.0),
        ];
        let content = FrameContent {
            positions: &positions,
            velocities: &velocities,
            groups: &[1, 0, 2],
            resting: &[],
            predators: &[],
        };
        let bytes = encode_frame(&header, &content);
        assert_eq!(
            bytes.len(),
            FRAME_HEADER_BYTES_3D + 3 * FRAME_BOID_BYTES_3D + 4
        );
        assert_eq!(bytes[4], FRAME_VERSION_3D);
        assert_eq!(
            &bytes[24..36],
            &[0.0f32, 0.0, -240.0].map(f32::to_le_bytes).concat()
        );
        let frame = decode_frame::<3>(&bytes).unwrap();
        assert_eq!(frame.header, header);
        assert_eq!(frame.groups, [1, 0, 2]);
        for (a, b) in frame.positions.iter().zip(&positions) {
            assert!(
                (*a - *b).abs().max_element() <= 640.0 / 65535.0,
                "{a} vs {b}"
            );
        }
        for (a, v) in frame.directions.iter().zip(&velocities) {
            assert!(a.angle_between(*v) < 0.02, "{a} vs {v}");
        }
        // Even-sized records (the group byte, then a zero byte), for the page's GPU upload.
        let records = &bytes[FRAME_HEADER_BYTES_3D..FRAME_HEADER_BYTES_3D + 30];
        let tails: Vec<[u8; 2]> = records.chunks(10).map(|r| [r[8], r[9]]).collect();
        assert_eq!(tails, [[1, 0], [0, 0], [2, 0]]);
        // Straight up is the top elevation byte; level is the middle.
        let up = FRAME_HEADER_BYTES_3D + FRAME_BOID_BYTES_3D + 7;
        assert_eq!(bytes[up], 255);
        assert_eq!(bytes[FRAME_HEADER_BYTES_3D + 7], 128);
        // A version 2 decoder refuses it rather than misread it.
        let err = decode_frame::<2>(&bytes).unwrap_err().to_string();
        assert!(err.contains("not version 2"), "{err}");
    }

    #[test]
    fn headings_match_the_exact_angle() {
        for k in 0..3600 {
            let angle = k as f32 * std::f32::consts::TAU / 3600.0;
            let v = Vec2::new(angle.cos(), angle.sin()) * (1.0 + k as f32);
            let exact = ((angle / std::f32::consts::TAU * 256.0).round() as i32 & 255) as u8;
            let got = heading(v.x, v.y);
            assert!(
                got.wrapping_sub(exact) <= 1 || exact.wrapping_sub(got) <= 1,
                "{k}: {got} vs {exact}"
            );
        }
        assert_eq!(heading(0.0, 0.0), 0);
        assert_eq!(heading(0.0, 2.0), 64);
        assert_eq!(heading(-1.0, 0.0), 128);
        assert_eq!(heading(0.0, -3.0), 192);
    }

    #[test]
    fn elevations_match_the_exact_angle() {
        for k in 0..=180 {
            let up = (k as f32 - 90.0).to_radians();
            let v = [up.cos() * 0.6, up.cos() * -0.8, up.sin()].map(|c| c * 3.0);
            let exact = ((up / std::f32::consts::PI + 0.5) * 255.0).round() as i32;
            assert!((i32::from(elevation(v)) - exact).abs() <= 1, "{k}");
        }
        assert_eq!(elevation([0.0, 0.0, -1.0]), 0);
        assert_eq!(elevation([0.0, 0.0, 0.0]), 128);
    }

    /// A frame of `positions` heading along +x, in group 0, with no predators.
    fn boids(positions: &[Vec2]) -> FrameContent<'_> {
        const N: usize = 8;
        assert!(positions.len() <= N);
        FrameContent {
            positions,
            velocities: &[Vec2::X; N][..positions.len()],
            groups: &[0; N][..positions.len()],
            resting: &[],
            predators: &[],
        }
    }

    #[test]
    fn boids_outside_the_world_grow_the_quantisation_rectangle() {
        let world = rect(0.0, 0.0, 640.0, 480.0);
        let header = FrameHeader {
            flags: 0,
            step: 0,
            revision: 0,
            world,
        };
        let positions = vec![Vec2::new(-100.0, 0.0), Vec2::new(700.0, 500.0)];
        let bytes = encode_frame(&header, &boids(&positions));
        let frame = decode_frame::<2>(&bytes).unwrap();
        assert_eq!(frame.header.world, world);
        assert_eq!(frame.quant, rect(-100.0, 0.0, 800.0, 500.0));
        assert_eq!(frame.positions, positions);
    }

    #[test]
    fn truncated_or_foreign_messages_are_refused() {
        let header = FrameHeader {
            flags: 0,
            step: 0,
            revision: 0,
            world: rect(0.0, 0.0, 1.0, 1.0),
        };
        let bytes = encode_frame(&header, &boids(&[Vec2::ZERO]));
        assert!(decode_frame::<2>(&bytes[..bytes.len() - 1]).is_err());
        assert!(decode_frame::<2>(&bytes[..10]).is_err());
        assert!(decode_frame::<3>(&bytes).is_err());
        assert!(OverlayMessage::<2>::decode(&bytes).is_err());
    }

    fn overlay_message() -> OverlayMessage<2> {
        let boid = |x: f32, group: u8, links: Vec<Vec2>| OverlayBoid {
            position: Vec2::new(x, 2.0),
            velocity: Vec2::new(3.0, 4.0),
            group,
            rules: RuleVectors {
                cohesion: Vec2::new(5.0, 6.0),
                separation: Vec2::new(7.0, 8.0),
                alignment: Vec2::new(9.0, 10.0),
            },
            links,
        };
        OverlayMessage {
            flags: flags::HOVER | flags::TORUS,
            step: 9,
            overlay: Overlay {
                visual_range: 40.0,
                protected_range: 8.0,
                boids: vec![
                    boid(1.0, 1, vec![Vec2::new(-1.5, 2.5), Vec2::new(641.0, 3.0)]),
                    boid(-1.0, 0, Vec::new()),
                    boid(0.5, 2, vec![Vec2::new(0.25, -3.0)]),
                ],
                ghosts: vec![Ghost {
                    index: 70_000,
                    position: Vec2::new(-1.5, 2.5),
                    velocity: Vec2::new(0.5, -0.5),
                    group: 2,
                }],
            },
        }
    }

    #[test]
    fn overlay_round_trips_exactly() {
        let message = overlay_message();
        let bytes = message.encode();
        assert_eq!(
            bytes.len(),
            OVERLAY_HEADER_BYTES
                + 3 * OVERLAY_RECORD_BYTES
                + 3 * OVERLAY_LINK_BYTES
                + OVERLAY_GHOST_BYTES
        );
        assert_eq!(&bytes[4..6], [OVERLAY_VERSION, KIND_OVERLAY]);
        assert_eq!(OverlayMessage::<2>::decode(&bytes).unwrap(), message);
    }

    #[test]
    fn an_overlay_in_three_dimensions_round_trips_with_z() {
        let v = |x: f32| Vec3::new(x, x + 0.5, -x);
        let message = OverlayMessage::<3> {
            flags: flags::HOVER,
            step: 4,
            overlay: Overlay {
                visual_range: 40.0,
                protected_range: 8.0,
                boids: vec![OverlayBoid {
                    position: v(1.0),
                    velocity: v(2.0),
                    group: 1,
                    rules: RuleVectors {
                        cohesion: v(3.0),
                        separation: v(4.0),
                        alignment: v(5.0),
                    },
                    links: vec![v(6.0), v(7.0)],
                }],
                ghosts: vec![Ghost {
                    index: 9,
                    position: v(-8.0),
                    velocity: v(0.25),
                    group: 2,
                }],
            },
        };
        let bytes = message.encode();
        assert_eq!(&bytes[4..6], [OVERLAY_VERSION_3D, KIND_OVERLAY]);
        assert_eq!(bytes.len(), OVERLAY_HEADER_BYTES + 68 + 2 * 12 + 32);
        assert_eq!(OverlayMessage::<3>::decode(&bytes).unwrap(), message);
        assert!(OverlayMessage::<2>::decode(&bytes).is_err());
    }

    #[test]
    fn overlays_of_another_version_or_inconsistent_counts_are_refused() {
        let bytes = overlay_message().encode();
        let mut old = bytes.clone();
        old[4] = 1;
        let err = OverlayMessage::<2>::decode(&old).unwrap_err().to_string();
        assert!(err.contains("not version 2"), "{err}");
        assert!(OverlayMessage::<2>::decode(&bytes[..bytes.len() - 1]).is_err());
        // Links move from the last record to the first: the total still matches.
        let links_of = |record: usize| OVERLAY_HEADER_BYTES + OVERLAY_RECORD_BYTES * record + 40;
        let mut shifted = bytes.clone();
        (shifted[links_of(0)], shifted[links_of(2)]) = (3, 0);
        let moved = OverlayMessage::<2>::decode(&shifted).unwrap().overlay.boids;
        assert_eq!((moved[0].links.len(), moved[2].links.len()), (3, 0));
        shifted[links_of(0)] = 4;
        let err = OverlayMessage::<2>::decode(&shifted)
            .unwrap_err()
            .to_string();
        assert!(err.contains("more links than the 3 announced"), "{err}");
        let mut fewer = bytes;
        fewer[links_of(0)] = 0;
        let err = OverlayMessage::<2>::decode(&fewer).unwrap_err().to_string();
        assert!(err.contains("fewer links"), "{err}");
    }
}
