//! The wire format between the server and the page.
//!
//! Two kinds of WebSocket message flow from server to page: **binary** messages carry the flock
//! (one per published frame) and the debug-overlay data; **text** messages are small JSON objects
//! (the shared state with every parameter, metrics, replies, and `{"type": "notice",
//! "message": ...}` when the server acts on its own, such as undoing a change whose steps
//! overran its budget). The page sends only small JSON
//! requests ([`Request`]).
//!
//! Binary messages are little-endian and start with the same 8 bytes:
//!
//! ```text
//! offset size  field
//!      0    4  magic "BOID"
//!      4    1  version of the kind's layout: 2 for a flat flock, 3 for a flock in three
//!              dimensions (frames and overlays alike)
//!      5    1  kind: 1 = frame, 2 = overlay
//!      6    2  flags: bit 0 running, bit 1 torus world, bit 2 overlay for the boid under the mouse
//! ```
//!
//! A decoder refuses a version it does not know rather than misread the bytes after the header.
//!
//! **Frame** (kind 1, version 2): a 56-byte header, 6 bytes per boid, then the predators, so
//! 100,000 boids take 600 kB.
//!
//! ```text
//!      8    8  u64 step
//!     16    4  u32 count (boids that follow)
//!     20    4  u32 revision: changes with every parameter change or reset (see the state message)
//!     24   16  f32 x, y, width, height: the world rectangle
//!     40   16  f32 x, y, width, height: the quantisation rectangle (the world, grown to hold
//!              every boid and predator that has left it; equal to the world on a torus)
//!     56  6*n  per boid: u16 qx, u16 qy, u8 heading, u8 group (bits 0-1: scout group;
//!              bit 7: resting on the ground, perching)
//!          4   u32 p: predators that follow
//!        6*p   per predator: u16 qx, u16 qy, u8 heading, u8 kind (0: a predator; 1: the one
//!              the pointer moves, always last)
//! ```
//!
//! Version 1 had no resting bit and no predators.
//!
//! A boid's position is `x = qx / 65535 * width + x0` (likewise y) over the quantisation
//! rectangle; with a 640-unit world that is a resolution of 0.01 units. `heading` is the direction
//! of the velocity, `angle = heading / 256 * 2 pi` measured from +x toward +y (y grows downward on
//! screen). `group` is the scout group: 0 none, 1 biased toward +x, 2 toward -x. Boids come in
//! storage order (grid-cell order), which changes from frame to frame; a frame is a picture, not a
//! list of identities.
//!
//! **Frame in three dimensions** (kind 1, version 3): the same layout with z beside x and y, a
//! 72-byte header, 10 bytes per boid (100,000 boids: 1 MB).
//!
//! ```text
//!      8    8  u64 step
//!     16    4  u32 count (boids that follow)
//!     20    4  u32 revision
//!     24   24  f32 x, y, z, width, height, depth: the world box (z from `world_z_min`, depth
//!              `world_depth`)
//!     48   24  f32 x, y, z, width, height, depth: the quantisation box
//!     72 10*n  per boid: u16 qx, u16 qy, u16 qz, u8 azimuth, u8 elevation, u8 group (as in
//!              version 2), u8 zero (records stay 2-byte aligned for the GPU)
//!          4   u32 p: predators that follow
//!       10*p   per predator: as a boid, the group byte its kind (as in version 2)
//! ```
//!
//! `z = qz / 65535 * depth + z0` like x and y. `azimuth` is the heading byte of version 2, the
//! direction of the velocity's (vx, vy); `elevation` its angle above the xy plane,
//! `(elevation / 255 - 1/2) pi`: 0 straight toward -z, 128 level, 255 straight toward +z.
//!
//! **Which version a client gets.** A client says which frame versions it reads when it opens
//! the WebSocket: `/ws?frames=2,3` (the viewer's page does). Without the parameter it reads
//! version 2 only, as every client before version 3 did. A client that does not read the
//! version of the current flock's frames gets no frames: it gets one text message instead,
//! `{"type": "error", "id": null, "message": "..."}` saying which version the flock needs and
//! what to do, and frames again once the flock is one it reads (after `dimensions = 2`).
//!
//! **Overlay** (kind 2, version 2): the core's debug overlay ([`boids_core::overlay::Overlay`])
//! of some boids: a 36-byte header, 48 bytes per boid record, 8 bytes per link, 24 bytes per
//! ghost.
//!
//! ```text
//!      8    8  u64 step
//!     16    4  u32 records (r)
//!     20    4  u32 links (l, all records' together)
//!     24    4  f32 visual range
//!     28    4  f32 protected range
//!     32    4  u32 ghosts (g)
//!     36 48*r  per record: f32 x, y, vx, vy, cohesion x, y, separation x, y, alignment x, y;
//!              u32 its links; u8 scout group; 3 zero bytes
//!         8*l  per link, f32 x, y: where a record's boid sees a neighbour (the minimum image,
//!              outside the world across a torus seam); the first record's links, then the
//!              second's, and so on
//!        24*g  per ghost: f32 x, y where it is seen (outside the world), f32 vx, vy, u32 its
//!              index in the frame's boid order, u8 scout group, 3 zero bytes
//! ```
//!
//! **Overlay in three dimensions** (kind 2, version 3): the same layout with every vector of
//! three f32 (x, y, z): 68 bytes per record (position, velocity, cohesion, separation,
//! alignment; u32 links; u8 group; 3 zero bytes), 12 per link, 32 per ghost (position,
//! velocity, u32 index, u8 group, 3 zero bytes). A client that reads frame version 3 reads it;
//! with `hover`, the `overlay` request's `z` says the picked point's depth.
//!
//! The rule vectors are the weighted velocity contributions of [`boids_core::RuleVectors`].
//! Links come only with the overlay for the boid under the mouse (flag bit 2), at most
//! [`crate::engine::LINK_CAP`]. Ghosts are the neighbours the records' boids see across a torus
//! seam, once per seam crossing. Version 1 had a 32-byte header, 40-byte records, no groups or
//! ghosts, and links for the first record only.
//!
//! The codec of binary messages is in `frame.rs` and the requests and their checks in
//! `request.rs`; this module re-exports what the server and its clients use. Parameter values
//! travel as JSON the way the event log holds them ([`boids_io::param_json`]).

mod frame;
mod request;

pub use frame::{
    DecodeError, DecodedFrame, FRAME_BOID_BYTES, FRAME_BOID_BYTES_3D, FRAME_HEADER_BYTES,
    FRAME_HEADER_BYTES_3D, FRAME_VERSION, FRAME_VERSION_3D, FrameContent, FrameHeader, Hunter,
    KIND_FRAME, KIND_OVERLAY, MAGIC, OVERLAY_GHOST_BYTES, OVERLAY_HEADER_BYTES, OVERLAY_LINK_BYTES,
    OVERLAY_RECORD_BYTES, OVERLAY_VERSION, OVERLAY_VERSION_3D, OverlayMessage, RESTING_BIT,
    WorldBox, decode_frame, encode_frame, flags, frame_version, largest_frame_bytes,
    overlay_version,
};
pub use request::{
    Envelope, MAX_REQUEST_BYTES, MAX_SPEED, MAX_STEP_REQUEST, MIN_SPEED, OverlayMode, Request,
    parse_request,
};
