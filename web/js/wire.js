// Reads the server's binary messages: frames (the flock) and overlays (the core's debug data).
// The format, with every offset, is documented in crates/boids-server/src/protocol/mod.rs; the
// names here are its names there. Decoding copies nothing: the typed arrays view the message
// itself, so a frame's boid bytes can go to the GPU as they are. A message of a version this page
// does not know is not read.

import { TAU } from './constants.js';

const MAGIC = 0x424f4944; // "BOID"
const COMMON_HEADER_BYTES = 16; // magic, version, kind, flags, step
const KIND_FRAME = 1;
const KIND_OVERLAY = 2;
const FRAME_VERSION = 2;
const OVERLAY_VERSION = 2;
const FRAME_HEADER_BYTES = 56;
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
const LINK_FLOATS = 2;
/** 4-byte words of one ghost: floats x, y (where it is seen), vx, vy; its index (u32); its group. */
export const GHOST_FLOATS = 6;

function rectAt(dv, at) {
  return { x: dv.getFloat32(at, true), y: dv.getFloat32(at + 4, true), w: dv.getFloat32(at + 8, true), h: dv.getFloat32(at + 12, true) };
}

/**
 * A binary message as `{ frame }` or `{ overlay }`, or null for one this page does not read.
 *
 * frame: { step, count, revision, running, torus, world, quant, boids (Uint8Array, BOID_BYTES
 * a boid), predatorCount, predators (Uint8Array, BOID_BYTES a predator; framePredator reads
 * one) }; overlay: { step, hover, recordCount, linkCount, ghostCount, visualRange,
 * protectedRange, records (Float32Array, RECORD_FLOATS a record), links (Float32Array, x and y
 * a link, record by record), ghosts (Float32Array, GHOST_FLOATS a ghost) }.
 */
export function decode(buffer) {
  if (buffer.byteLength < COMMON_HEADER_BYTES) return null;
  const dv = new DataView(buffer);
  if (dv.getUint32(0, false) !== MAGIC) return null;
  const version = dv.getUint8(4);
  const kind = dv.getUint8(5);
  const flags = dv.getUint16(6, true);
  const step = Number(dv.getBigUint64(8, true));
  if (kind === KIND_FRAME && version === FRAME_VERSION && buffer.byteLength >= FRAME_HEADER_BYTES) {
    const count = dv.getUint32(16, true);
    const predatorsAt = FRAME_HEADER_BYTES + count * BOID_BYTES;
    if (buffer.byteLength < predatorsAt + 4) return null;
    const predatorCount = dv.getUint32(predatorsAt, true);
    if (buffer.byteLength !== predatorsAt + 4 + predatorCount * BOID_BYTES) return null;
    return {
      frame: {
        step, count,
        revision: dv.getUint32(20, true),
        running: (flags & FLAG_RUNNING) !== 0,
        torus: (flags & FLAG_TORUS) !== 0,
        world: rectAt(dv, 24),
        quant: rectAt(dv, 40),
        boids: new Uint8Array(buffer, FRAME_HEADER_BYTES, count * BOID_BYTES),
        predatorCount,
        predators: new Uint8Array(buffer, predatorsAt + 4, predatorCount * BOID_BYTES),
      },
    };
  }
  if (kind === KIND_OVERLAY && version === OVERLAY_VERSION && buffer.byteLength >= OVERLAY_HEADER_BYTES) {
    const recordCount = dv.getUint32(16, true);
    const linkCount = dv.getUint32(20, true);
    const ghostCount = dv.getUint32(32, true);
    const linksAt = OVERLAY_HEADER_BYTES + recordCount * RECORD_FLOATS * 4;
    const ghostsAt = linksAt + linkCount * LINK_FLOATS * 4;
    if (buffer.byteLength !== ghostsAt + ghostCount * GHOST_FLOATS * 4) return null;
    return {
      overlay: {
        step, recordCount, linkCount, ghostCount,
        hover: (flags & FLAG_HOVER) !== 0,
        visualRange: dv.getFloat32(24, true),
        protectedRange: dv.getFloat32(28, true),
        records: new Float32Array(buffer, OVERLAY_HEADER_BYTES, recordCount * RECORD_FLOATS),
        links: new Float32Array(buffer, linksAt, linkCount * LINK_FLOATS),
        ghosts: new Float32Array(buffer, ghostsAt, ghostCount * GHOST_FLOATS),
      },
    };
  }
  return null;
}

/** World position of record `i` of `bytes` (boids or predators), quantised in `q`. */
function quantisedPosition(bytes, q, i) {
  const o = i * BOID_BYTES;
  return {
    x: q.x + ((bytes[o] | (bytes[o + 1] << 8)) / 65535) * q.w,
    y: q.y + ((bytes[o + 2] | (bytes[o + 3] << 8)) / 65535) * q.h,
  };
}

/** World position of boid `i` of a frame, from its quantised coordinates. */
export const boidPosition = (frame, i) => quantisedPosition(frame.boids, frame.quant, i);

/**
 * Predator `k` of a frame: {x, y (world), angle (its heading, radians), pointer (whether it is
 * the one that follows the mouse)}.
 */
export function framePredator(frame, k) {
  const kind = frame.predators[k * BOID_BYTES + 5];
  return {
    ...quantisedPosition(frame.predators, frame.quant, k),
    angle: headingAngle(frame.predators[k * BOID_BYTES + 4]),
    pointer: kind === POINTER_KIND,
  };
}

/** Direction of a heading byte, in radians from +x toward +y. */
export const headingAngle = (heading) => (heading / 256) * TAU;
