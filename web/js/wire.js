// Reads the server's binary messages: frames (the flock) and overlays (the core's debug data).
// The format, with every offset, is documented in crates/boids-server/src/protocol/mod.rs; the
// names here are its names there. Decoding copies nothing: the typed arrays view the message
// itself, so a frame's boid bytes can go to the GPU as they are. A message of a version this page
// does not know is not read. Frames come in two versions: 2 for a flat flock, 3 for a flock in
// three dimensions (z beside x and y, the world box's depth, a heading of azimuth and elevation);
// the page asks for both when it connects (FRAME_VERSIONS).

import { TAU } from './constants.js';

const MAGIC = 0x424f4944; // "BOID"
const COMMON_HEADER_BYTES = 16; // magic, version, kind, flags, step
const KIND_FRAME = 1;
const KIND_OVERLAY = 2;
const FRAME_VERSION = 2;
const FRAME_VERSION_3D = 3;
/** The frame versions this page reads, as the WebSocket's URL says them (/ws?frames=2,3). */
export const FRAME_VERSIONS = [FRAME_VERSION, FRAME_VERSION_3D];
const OVERLAY_VERSION = 2;
const OVERLAY_VERSION_3D = 3;
const FRAME_HEADER_BYTES = 56;
const FRAME_HEADER_BYTES_3D = 72;
const OVERLAY_HEADER_BYTES = 36;
const FLAG_RUNNING = 1;
const FLAG_TORUS = 2;
const FLAG_HOVER = 4;

/**
 * Bytes of one boid (and of one predator) in a frame: u16 qx, u16 qy, u8 heading, u8 group (bits
 * 0-1 the scout group, bit 7 set while the boid rests on the ground) or, for a predator, its kind
 * (1: the pointer's).
 */
export const BOID_BYTES = 6;
/**
 * Bytes of one boid in a frame of a flock in three dimensions: u16 qx, qy, qz, u8 azimuth, u8
 * elevation, u8 group, a zero byte (records stay 2-byte aligned for the GPU).
 */
export const BOID_BYTES_3D = 10;
/** Mask of the scout group in a boid's last byte. */
export const GROUP_MASK = 3;
/** Bit of a boid's last byte set while it rests on the ground (perching). */
export const RESTING_BIT = 0x80;
/** A predator's kind byte for the one that follows the mouse. */
const POINTER_KIND = 1;
/**
 * 4-byte words of one overlay record: floats x, y, then velocity, cohesion, separation, alignment
 * (x, y each); then the record's link count (u32) and its scout group (u8, 3 zero bytes).
 */
export const RECORD_FLOATS = 12;
/** 4-byte words of one overlay record in 3D: as RECORD_FLOATS with x, y, z for each vector. */
export const RECORD_FLOATS_3D = 17;
/** 4-byte words of one ghost: floats x, y (where it is seen), vx, vy; its index (u32); its group. */
export const GHOST_FLOATS = 6;
const GHOST_FLOATS_3D = 8;

function rectAt(dv, at) {
  return { x: dv.getFloat32(at, true), y: dv.getFloat32(at + 4, true), w: dv.getFloat32(at + 8, true), h: dv.getFloat32(at + 12, true) };
}

/** A box of three dimensions: {x, y, z} its near corner, {w, h, d} its size. */
function boxAt(dv, at) {
  const f = (k) => dv.getFloat32(at + 4 * k, true);
  return { x: f(0), y: f(1), z: f(2), w: f(3), h: f(4), d: f(5) };
}

/** Bytes of one boid (and predator) record in a frame of `dimensions`. */
const recordBytes = (dimensions) => (dimensions === 3 ? BOID_BYTES_3D : BOID_BYTES);

/**
 * The frame of a message of `version` (2 or 3) whose header fields are read, or null when its
 * length does not match its counts.
 */
function decodeFrame(buffer, dv, version, flags, step) {
  const dimensions = version === FRAME_VERSION_3D ? 3 : 2;
  const [headerBytes, size] = dimensions === 3 ? [FRAME_HEADER_BYTES_3D, BOID_BYTES_3D] : [FRAME_HEADER_BYTES, BOID_BYTES];
  if (buffer.byteLength < headerBytes) return null;
  const count = dv.getUint32(16, true);
  const predatorsAt = headerBytes + count * size;
  if (buffer.byteLength < predatorsAt + 4) return null;
  const predatorCount = dv.getUint32(predatorsAt, true);
  if (buffer.byteLength !== predatorsAt + 4 + predatorCount * size) return null;
  return {
    dimensions, step, count,
    revision: dv.getUint32(20, true),
    running: (flags & FLAG_RUNNING) !== 0,
    torus: (flags & FLAG_TORUS) !== 0,
    world: dimensions === 3 ? boxAt(dv, 24) : rectAt(dv, 24),
    quant: dimensions === 3 ? boxAt(dv, 48) : rectAt(dv, 40),
    boids: new Uint8Array(buffer, headerBytes, count * size),
    predatorCount,
    predators: new Uint8Array(buffer, predatorsAt + 4, predatorCount * size),
  };
}

/**
 * A binary message as `{ frame }` or `{ overlay }`, or null for one this page does not read.
 *
 * frame: { dimensions (2 or 3), step, count, revision, running, torus, world, quant ({x, y, w,
 * h}, and z, d in 3D), boids (Uint8Array, BOID_BYTES a boid, BOID_BYTES_3D in 3D), predatorCount,
 * predators (Uint8Array, as the boids; framePredator reads one) }; overlay: { dimensions, step,
 * hover, recordCount, linkCount, ghostCount, visualRange, protectedRange, records (Float32Array,
 * RECORD_FLOATS a record, RECORD_FLOATS_3D in 3D), links (Float32Array, x and y, and z in 3D, a
 * link, record by record), ghosts (Float32Array, GHOST_FLOATS a ghost; 8 words in 3D) }.
 */
export function decode(buffer) {
  if (buffer.byteLength < COMMON_HEADER_BYTES) return null;
  const dv = new DataView(buffer);
  if (dv.getUint32(0, false) !== MAGIC) return null;
  const version = dv.getUint8(4);
  const kind = dv.getUint8(5);
  const flags = dv.getUint16(6, true);
  const step = Number(dv.getBigUint64(8, true));
  if (kind === KIND_FRAME && FRAME_VERSIONS.includes(version)) {
    const frame = decodeFrame(buffer, dv, version, flags, step);
    return frame && { frame };
  }
  const overlayDimensions = { [OVERLAY_VERSION]: 2, [OVERLAY_VERSION_3D]: 3 }[version];
  if (kind === KIND_OVERLAY && overlayDimensions && buffer.byteLength >= OVERLAY_HEADER_BYTES) {
    const dimensions = overlayDimensions;
    const [recordFloats, ghostFloats] = dimensions === 3 ? [RECORD_FLOATS_3D, GHOST_FLOATS_3D] : [RECORD_FLOATS, GHOST_FLOATS];
    const recordCount = dv.getUint32(16, true);
    const linkCount = dv.getUint32(20, true);
    const ghostCount = dv.getUint32(32, true);
    const linksAt = OVERLAY_HEADER_BYTES + recordCount * recordFloats * 4;
    const ghostsAt = linksAt + linkCount * dimensions * 4;
    if (buffer.byteLength !== ghostsAt + ghostCount * ghostFloats * 4) return null;
    return {
      overlay: {
        dimensions, step, recordCount, linkCount, ghostCount,
        hover: (flags & FLAG_HOVER) !== 0,
        visualRange: dv.getFloat32(24, true),
        protectedRange: dv.getFloat32(28, true),
        records: new Float32Array(buffer, OVERLAY_HEADER_BYTES, recordCount * recordFloats),
        links: new Float32Array(buffer, linksAt, linkCount * dimensions),
        ghosts: new Float32Array(buffer, ghostsAt, ghostCount * ghostFloats),
      },
    };
  }
  return null;
}

/**
 * World position of record `i` of `bytes` (boids or predators) of a frame of `dimensions`,
 * quantised in `q`: {x, y}, and z in 3D.
 */
function quantisedPosition(bytes, q, i, dimensions) {
  const o = i * recordBytes(dimensions);
  const at = (axis) => (bytes[o + 2 * axis] | (bytes[o + 2 * axis + 1] << 8)) / 65535;
  const p = { x: q.x + at(0) * q.w, y: q.y + at(1) * q.h };
  if (dimensions === 3) p.z = q.z + at(2) * q.d;
  return p;
}

/** World position of boid `i` of a frame, from its quantised coordinates ({x, y}, and z in 3D). */
export const boidPosition = (frame, i) => quantisedPosition(frame.boids, frame.quant, i, frame.dimensions);

/**
 * Predator `k` of a frame: {x, y (world, and z in 3D), angle (its heading, radians; in 3D the
 * azimuth, with `elevation` its angle above the xy plane), pointer (whether it is the one that
 * follows the mouse)}.
 */
export function framePredator(frame, k) {
  const o = k * recordBytes(frame.dimensions);
  const solid = frame.dimensions === 3;
  const kind = frame.predators[o + (solid ? 8 : 5)];
  return {
    ...quantisedPosition(frame.predators, frame.quant, k, frame.dimensions),
    angle: headingAngle(frame.predators[o + 4 + (solid ? 2 : 0)]),
    ...(solid && { elevation: elevationAngle(frame.predators[o + 7]) }),
    pointer: kind === POINTER_KIND,
  };
}

/** Direction of a heading byte, in radians from +x toward +y. */
export const headingAngle = (heading) => (heading / 256) * TAU;

/** Angle above the xy plane of an elevation byte (frames in 3D), in radians from -pi/2 to pi/2. */
export const elevationAngle = (elevation) => (elevation / 255 - 0.5) * Math.PI;
