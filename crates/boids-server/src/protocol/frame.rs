//! The binary messages: the frame codec and the overlay codec, laid out as the [protocol
//! docs](super) say. Encoding is what the server does on every published frame, so it writes
//! straight into one buffer; decoding is for tests and tools (the page has its own decoder).

use boids_core::overlay::{Ghost, Overlay, OverlayBoid};
use boids_core::world::Predator;
use boids_core::{RuleVectors, Vec2};

/// First four bytes of every binary message.
pub const MAGIC: [u8; 4] = *b"BOID";
/// Version of the frame layout (2: a resting bit in the group byte, predators after the boids).
pub const FRAME_VERSION: u8 = 2;
/// Version of the overlay layout (2: scout groups, links per record, ghosts).
pub const OVERLAY_VERSION: u8 = 2;
/// Message kind of a frame.
pub const KIND_FRAME: u8 = 1;
/// Message kind of an overlay.
pub const KIND_OVERLAY: u8 = 2;
/// Size of a frame header.
pub const FRAME_HEADER_BYTES: usize = 56;
/// Size of one boid (and of one predator) in a frame.
pub const FRAME_BOID_BYTES: usize = 6;
/// Bit of a boid's group byte set while it rests on the ground (perching).
pub const RESTING_BIT: u8 = 0x80;
/// Size of an overlay header.
pub const OVERLAY_HEADER_BYTES: usize = 36;
/// Size of one overlay record.
pub const OVERLAY_RECORD_BYTES: usize = 48;
/// Size of one overlay link.
pub const OVERLAY_LINK_BYTES: usize = 8;
/// Size of one overlay ghost.
pub const OVERLAY_GHOST_BYTES: usize = 24;

/// Bits of the flags field.
pub mod flags {
    /// The simulation is running (not paused).
    pub const RUNNING: u16 = 1;
    /// The world is a torus.
    pub const TORUS: u16 = 2;
    /// The overlay is for the boid under the mouse (and carries its neighbour links).
    pub const HOVER: u16 = 4;
}

/// An axis-aligned rectangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub x: f32,
    /// Top edge.
    pub y: f32,
    /// Width.
    pub width: f32,
    /// Height.
    pub height: f32,
}

impl Rect {
    /// The smallest rectangle holding `self` and every point.
    pub fn grown_to_hold(self, points: &[Vec2]) -> Rect {
        let (mut min, mut max) = (
            Vec2::new(self.x, self.y),
            Vec2::new(self.x + self.width, self.y + self.height),
        );
        for &p in points {
            min = min.min(p);
            max = max.max(p);
        }
        Rect {
            x: min.x,
            y: min.y,
            width: max.x - min.x,
            height: max.y - min.y,
        }
    }
}

/// What a frame header says besides the boids.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameHeader {
    /// Flags ([`flags`]).
    pub flags: u16,
    /// Simulation step.
    pub step: u64,
    /// Parameter revision.
    pub revision: u32,
    /// The world rectangle.
    pub world: Rect,
}

fn put_header(out: &mut Vec<u8>, kind: u8, version: u8, flags: u16, step: u64) {
    out.extend_from_slice(&MAGIC);
    out.push(version);
    out.push(kind);
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&step.to_le_bytes());
}

fn put_rect(out: &mut Vec<u8>, r: Rect) {
    for v in [r.x, r.y, r.width, r.height] {
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

/// The direction of `v` in 256ths of a turn. A polynomial arctangent (error below 1e-5 rad, far
/// under the 0.025 rad of one unit) keeps encoding a large flock cheap.
#[inline(always)]
fn heading(v: Vec2) -> u8 {
    let (ax, ay) = (v.x.abs(), v.y.abs());
    let (small, large) = (ax.min(ay), ax.max(ay));
    if large == 0.0 {
        return 0;
    }
    let a = small / large;
    let s = a * a;
    let mut r = (((-0.046_496_474 * s + 0.159_314_22) * s - 0.327_622_76) * s) * a + a;
    if ay > ax {
        r = std::f32::consts::FRAC_PI_2 - r;
    }
    if v.x < 0.0 {
        r = std::f32::consts::PI - r;
    }
    if v.y < 0.0 {
        r = -r;
    }
    ((r * (256.0 / std::f32::consts::TAU)).round() as i32 & 255) as u8
}

/// What a frame shows: the boids in storage order (every slice in that order; `resting` empty
/// when perching is off) and the predators, the pointer's last.
#[derive(Clone, Copy, Debug)]
pub struct FrameContent<'a> {
    /// Boid positions.
    pub positions: &'a [Vec2],
    /// Boid velocities.
    pub velocities: &'a [Vec2],
    /// Scout groups.
    pub groups: &'a [u8],
    /// Steps each boid still rests (0: flying), or empty.
    pub resting: &'a [u32],
    /// The predators.
    pub predators: &'a [Predator],
    /// The pointer's predator.
    pub pointer: Option<&'a Predator>,
}

/// One 6-byte record: quantised position, heading, and a last byte.
#[inline(always)]
fn put_record(out: &mut [u8], p: Vec2, v: Vec2, quant: Rect, scale: (f32, f32), last: u8) {
    let (qx, qy) = (
        quantise(p.x, quant.x, scale.0),
        quantise(p.y, quant.y, scale.1),
    );
    out.copy_from_slice(&[
        qx as u8,
        (qx >> 8) as u8,
        qy as u8,
        (qy >> 8) as u8,
        heading(v),
        last,
    ]);
}

/// Encodes a frame.
pub fn encode_frame(header: &FrameHeader, content: &FrameContent) -> Vec<u8> {
    let FrameContent {
        positions,
        velocities,
        groups,
        resting,
        predators,
        pointer,
    } = *content;
    let n = positions.len();
    let hunters: Vec<(&Predator, u8)> = predators
        .iter()
        .map(|p| (p, 0))
        .chain(pointer.map(|p| (p, 1)))
        .collect();
    let hunter_positions: Vec<Vec2> = hunters.iter().map(|(p, _)| p.position).collect();
    let quant = header
        .world
        .grown_to_hold(positions)
        .grown_to_hold(&hunter_positions);
    let boids_end = FRAME_HEADER_BYTES + FRAME_BOID_BYTES * n;
    let mut out = Vec::with_capacity(boids_end + 4 + FRAME_BOID_BYTES * hunters.len());
    put_header(
        &mut out,
        KIND_FRAME,
        FRAME_VERSION,
        header.flags,
        header.step,
    );
    out.extend_from_slice(&(n as u32).to_le_bytes());
    out.extend_from_slice(&header.revision.to_le_bytes());
    put_rect(&mut out, header.world);
    put_rect(&mut out, quant);
    out.resize(boids_end, 0);
    let scale = (
        quantisation_scale(quant.width),
        quantisation_scale(quant.height),
    );
    let boids = out[FRAME_HEADER_BYTES..].chunks_exact_mut(FRAME_BOID_BYTES);
    for (k, (((b, &p), &v), &g)) in boids.zip(positions).zip(velocities).zip(groups).enumerate() {
        let rests = resting.get(k).is_some_and(|&r| r > 0);
        let last = if rests { g | RESTING_BIT } else { g };
        put_record(b, p, v, quant, scale, last);
    }
    out.extend_from_slice(&(hunters.len() as u32).to_le_bytes());
    for (predator, kind) in hunters {
        let mut record = [0; FRAME_BOID_BYTES];
        put_record(
            &mut record,
            predator.position,
            predator.velocity,
            quant,
            scale,
            kind,
        );
        out.extend_from_slice(&record);
    }
    out
}

/// A frame read back (for tests and tools; the page has its own decoder).
#[derive(Clone, Debug, PartialEq)]
pub struct DecodedFrame {
    /// Header fields.
    pub header: FrameHeader,
    /// The quantisation rectangle.
    pub quant: Rect,
    /// Positions, dequantised.
    pub positions: Vec<Vec2>,
    /// Headings in radians, in `[0, 2 pi)`.
    pub headings: Vec<f32>,
    /// Scout groups.
    pub groups: Vec<u8>,
    /// Whether each boid rests on the ground.
    pub resting: Vec<bool>,
    /// Predators: position, heading in radians, and whether it is the pointer's.
    pub predators: Vec<(Vec2, f32, bool)>,
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

fn read_rect(bytes: &[u8], at: usize) -> Rect {
    Rect {
        x: read_f32(bytes, at),
        y: read_f32(bytes, at + 4),
        width: read_f32(bytes, at + 8),
        height: read_f32(bytes, at + 12),
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

/// Decodes a frame message.
pub fn decode_frame(bytes: &[u8]) -> Result<DecodedFrame, DecodeError> {
    let (flags, step) = check_header(bytes, KIND_FRAME, FRAME_VERSION, FRAME_HEADER_BYTES)?;
    let n = u32::from_le_bytes(read(bytes, 16)) as usize;
    let boids_end = FRAME_HEADER_BYTES + FRAME_BOID_BYTES * n;
    if bytes.len() < boids_end + 4 {
        return Err(DecodeError(format!("{} bytes for {n} boids", bytes.len())));
    }
    let p = u32::from_le_bytes(read(bytes, boids_end)) as usize;
    if bytes.len() != boids_end + 4 + FRAME_BOID_BYTES * p {
        let length = bytes.len();
        return Err(DecodeError(format!(
            "{length} bytes for {n} boids and {p} predators"
        )));
    }
    let header = FrameHeader {
        flags,
        step,
        revision: u32::from_le_bytes(read(bytes, 20)),
        world: read_rect(bytes, 24),
    };
    let quant = read_rect(bytes, 40);
    let record = |r: &[u8]| {
        let qx = f32::from(u16::from_le_bytes([r[0], r[1]]));
        let qy = f32::from(u16::from_le_bytes([r[2], r[3]]));
        let position = Vec2::new(
            quant.x + qx / 65535.0 * quant.width,
            quant.y + qy / 65535.0 * quant.height,
        );
        (
            position,
            f32::from(r[4]) / 256.0 * std::f32::consts::TAU,
            r[5],
        )
    };
    let mut frame = DecodedFrame {
        header,
        quant,
        positions: Vec::with_capacity(n),
        headings: Vec::with_capacity(n),
        groups: Vec::with_capacity(n),
        resting: Vec::with_capacity(n),
        predators: Vec::with_capacity(p),
    };
    for boid in bytes[FRAME_HEADER_BYTES..boids_end].chunks_exact(FRAME_BOID_BYTES) {
        let (position, heading, last) = record(boid);
        frame.positions.push(position);
        frame.headings.push(heading);
        frame.groups.push(last & !RESTING_BIT);
        frame.resting.push(last & RESTING_BIT != 0);
    }
    for predator in bytes[boids_end + 4..].chunks_exact(FRAME_BOID_BYTES) {
        let (position, heading, kind) = record(predator);
        frame.predators.push((position, heading, kind == 1));
    }
    Ok(frame)
}

/// An overlay message: the core's overlay with the frame it belongs to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OverlayMessage {
    /// Flags ([`flags`]).
    pub flags: u16,
    /// Simulation step.
    pub step: u64,
    /// The overlay, as the core computed it.
    pub overlay: Overlay,
}

fn put_u32(out: &mut Vec<u8>, v: usize) {
    let v = u32::try_from(v).expect("overlay counts and indices fit in 32 bits");
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_vec2(out: &mut Vec<u8>, v: Vec2) {
    out.extend_from_slice(&v.x.to_le_bytes());
    out.extend_from_slice(&v.y.to_le_bytes());
}

fn read_u32(bytes: &[u8], at: usize) -> usize {
    u32::from_le_bytes(read(bytes, at)) as usize
}

fn read_vec2(bytes: &[u8], at: usize) -> Vec2 {
    Vec2::new(read_f32(bytes, at), read_f32(bytes, at + 4))
}

impl OverlayMessage {
    /// Encodes the overlay message.
    pub fn encode(&self) -> Vec<u8> {
        let o = &self.overlay;
        let links: usize = o.boids.iter().map(|b| b.links.len()).sum();
        let mut out = Vec::with_capacity(
            OVERLAY_HEADER_BYTES
                + OVERLAY_RECORD_BYTES * o.boids.len()
                + OVERLAY_LINK_BYTES * links
                + OVERLAY_GHOST_BYTES * o.ghosts.len(),
        );
        put_header(
            &mut out,
            KIND_OVERLAY,
            OVERLAY_VERSION,
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
                put_vec2(&mut out, v);
            }
            put_u32(&mut out, b.links.len());
            out.extend_from_slice(&[b.group, 0, 0, 0]);
        }
        for &link in o.boids.iter().flat_map(|b| &b.links) {
            put_vec2(&mut out, link);
        }
        for g in &o.ghosts {
            put_vec2(&mut out, g.position);
            put_vec2(&mut out, g.velocity);
            put_u32(&mut out, g.index);
            out.extend_from_slice(&[g.group, 0, 0, 0]);
        }
        out
    }

    /// Decodes an overlay message.
    pub fn decode(bytes: &[u8]) -> Result<OverlayMessage, DecodeError> {
        let (flags, step) =
            check_header(bytes, KIND_OVERLAY, OVERLAY_VERSION, OVERLAY_HEADER_BYTES)?;
        let (records, links, ghosts) = (
            read_u32(bytes, 16),
            read_u32(bytes, 20),
            read_u32(bytes, 32),
        );
        let links_at = OVERLAY_HEADER_BYTES + OVERLAY_RECORD_BYTES * records;
        let ghosts_at = links_at + OVERLAY_LINK_BYTES * links;
        if bytes.len() != ghosts_at + OVERLAY_GHOST_BYTES * ghosts {
            return Err(DecodeError(format!(
                "{} bytes for {records} records, {links} links and {ghosts} ghosts",
                bytes.len()
            )));
        }
        let mut next_link = links_at;
        let mut boids = Vec::with_capacity(records);
        for k in 0..records {
            let at = OVERLAY_HEADER_BYTES + OVERLAY_RECORD_BYTES * k;
            let own = read_u32(bytes, at + 40);
            if own > (ghosts_at - next_link) / OVERLAY_LINK_BYTES {
                return Err(DecodeError(format!(
                    "the records have more links than the {links} announced"
                )));
            }
            boids.push(OverlayBoid {
                position: read_vec2(bytes, at),
                velocity: read_vec2(bytes, at + 8),
                group: bytes[at + 44],
                rules: RuleVectors {
                    cohesion: read_vec2(bytes, at + 16),
                    separation: read_vec2(bytes, at + 24),
                    alignment: read_vec2(bytes, at + 32),
                },
                links: (0..own)
                    .map(|n| read_vec2(bytes, next_link + OVERLAY_LINK_BYTES * n))
                    .collect(),
            });
            next_link += OVERLAY_LINK_BYTES * own;
        }
        if next_link != ghosts_at {
            return Err(DecodeError(format!(
                "the records have fewer links than the {links} announced"
            )));
        }
        let ghosts = (0..ghosts)
            .map(|k| {
                let at = ghosts_at + OVERLAY_GHOST_BYTES * k;
                Ghost {
                    position: read_vec2(bytes, at),
                    velocity: read_vec2(bytes, at + 8),
                    index: read_u32(bytes, at + 16),
                    group: bytes[at + 20],
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

    #[test]
    fn frame_round_trips_within_quantisation() {
        let header = FrameHeader {
            flags: flags::RUNNING | flags::TORUS,
            step: 12345678901,
            revision: 7,
            world: Rect {
                x: -8.0,
                y: -8.0,
                width: 16.0,
                height: 16.0,
            },
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
        let predators = [Predator {
            position: Vec2::new(2.0, -4.0),
            velocity: Vec2::new(0.0, -1.0),
        }];
        let pointer = Predator {
            position: Vec2::new(-3.0, 5.0),
            velocity: Vec2::ZERO,
        };
        let content = FrameContent {
            positions: &positions,
            velocities: &velocities,
            groups: &groups,
            resting: &[0, 7, 0],
            predators: &predators,
            pointer: Some(&pointer),
        };
        let bytes = encode_frame(&header, &content);
        assert_eq!(bytes.len(), FRAME_HEADER_BYTES + 5 * FRAME_BOID_BYTES + 4);
        let frame = decode_frame(&bytes).unwrap();
        assert_eq!(frame.header, header);
        assert_eq!(frame.quant, header.world);
        assert_eq!(frame.groups, groups);
        assert_eq!(frame.resting, [false, true, false]);
        let [(at, heading, false), (pointed, _, true)] = frame.predators[..] else {
            panic!("{:?}", frame.predators);
        };
        assert!((at - predators[0].position).length() < 1e-3);
        assert!((heading - 0.75 * std::f32::consts::TAU).abs() < 1e-6);
        assert!((pointed - pointer.position).length() < 1e-3);
        for (a, b) in frame.positions.iter().zip(&positions) {
            assert!(
                (*a - *b).abs().max_element() <= 16.0 / 65535.0,
                "{a} vs {b}"
            );
        }
        let expected = [0.0, 0.25, 0.625].map(|t: f32| t * std::f32::consts::TAU);
        for (a, b) in frame.headings.iter().zip(expected) {
            assert!((a - b).abs() < 1e-6, "{a} vs {b}");
        }
    }

    #[test]
    fn headings_match_the_exact_angle() {
        for k in 0..3600 {
            let angle = k as f32 * std::f32::consts::TAU / 3600.0;
            let v = Vec2::new(angle.cos(), angle.sin()) * (1.0 + k as f32);
            let exact = ((angle / std::f32::consts::TAU * 256.0).round() as i32 & 255) as u8;
            let got = heading(v);
            assert!(
                got.wrapping_sub(exact) <= 1 || exact.wrapping_sub(got) <= 1,
                "{k}: {got} vs {exact}"
            );
        }
        assert_eq!(heading(Vec2::ZERO), 0);
        assert_eq!(heading(Vec2::new(0.0, 2.0)), 64);
        assert_eq!(heading(Vec2::new(-1.0, 0.0)), 128);
        assert_eq!(heading(Vec2::new(0.0, -3.0)), 192);
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
            pointer: None,
        }
    }

    #[test]
    fn boids_outside_the_world_grow_the_quantisation_rectangle() {
        let world = Rect {
            x: 0.0,
            y: 0.0,
            width: 640.0,
            height: 480.0,
        };
        let header = FrameHeader {
            flags: 0,
            step: 0,
            revision: 0,
            world,
        };
        let positions = vec![Vec2::new(-100.0, 0.0), Vec2::new(700.0, 500.0)];
        let bytes = encode_frame(&header, &boids(&positions));
        let frame = decode_frame(&bytes).unwrap();
        assert_eq!(frame.header.world, world);
        assert_eq!(
            frame.quant,
            Rect {
                x: -100.0,
                y: 0.0,
                width: 800.0,
                height: 500.0
            }
        );
        assert_eq!(frame.positions, positions);
    }

    #[test]
    fn truncated_or_foreign_messages_are_refused() {
        let header = FrameHeader {
            flags: 0,
            step: 0,
            revision: 0,
            world: Rect {
                x: 0.0,
                y: 0.0,
                width: 1.0,
                height: 1.0,
            },
        };
        let bytes = encode_frame(&header, &boids(&[Vec2::ZERO]));
        assert!(decode_frame(&bytes[..bytes.len() - 1]).is_err());
        assert!(decode_frame(&bytes[..10]).is_err());
        assert!(OverlayMessage::decode(&bytes).is_err());
    }

    fn overlay_message() -> OverlayMessage {
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
        assert_eq!(OverlayMessage::decode(&bytes).unwrap(), message);
    }

    #[test]
    fn overlays_of_another_version_or_inconsistent_counts_are_refused() {
        let bytes = overlay_message().encode();
        let mut old = bytes.clone();
        old[4] = 1;
        let err = OverlayMessage::decode(&old).unwrap_err().to_string();
        assert!(err.contains("not version 2"), "{err}");
        assert!(OverlayMessage::decode(&bytes[..bytes.len() - 1]).is_err());
        // Links move from the last record to the first: the total still matches.
        let links_of = |record: usize| OVERLAY_HEADER_BYTES + OVERLAY_RECORD_BYTES * record + 40;
        let mut shifted = bytes.clone();
        (shifted[links_of(0)], shifted[links_of(2)]) = (3, 0);
        let moved = OverlayMessage::decode(&shifted).unwrap().overlay.boids;
        assert_eq!((moved[0].links.len(), moved[2].links.len()), (3, 0));
        shifted[links_of(0)] = 4;
        let err = OverlayMessage::decode(&shifted).unwrap_err().to_string();
        assert!(err.contains("more links than the 3 announced"), "{err}");
        let mut fewer = bytes;
        fewer[links_of(0)] = 0;
        let err = OverlayMessage::decode(&fewer).unwrap_err().to_string();
        assert!(err.contains("fewer links"), "{err}");
    }
}
