// A WebM's duration, written after recording. A browser's MediaRecorder writes its WebM as a live
// stream, whose Segment has no Duration in its Info, so players can neither show its length nor
// seek in it. `withDuration` writes one: the time of the last frame (its Cluster's Timecode plus
// its block's offset) plus the median interval between frames, in the Info's TimecodeScale.
//
// WebM is EBML (the Matroska specification, RFC 9559): every element is an ID, a size (a
// variable-length integer whose all-ones value means "unknown", as a live stream's Segment and
// Clusters have) and its data. The Duration (ID 0x4489, an 8-byte float) goes at the end of the
// Info element, which grows by its 11 bytes: a known size of the Segment grows with it, and the
// positions that point past the Info (a SeekHead's SeekPosition, a Cues' CueClusterPosition,
// counted from the start of the Segment's data) move with what they point at. A Duration already
// there is overwritten in place. What cannot be read as such a file comes back unchanged.

const ID = {
  ebml: 0x1a45dfa3,
  segment: 0x18538067,
  seekHead: 0x114d9b74,
  seek: 0x4dbb,
  seekPosition: 0x53ac,
  info: 0x1549a966,
  timecodeScale: 0x2ad7b1,
  duration: 0x4489,
  cluster: 0x1f43b675,
  timecode: 0xe7,
  blockGroup: 0xa0,
  block: 0xa1,
  simpleBlock: 0xa3,
  cues: 0x1c53bb6b,
  cuePoint: 0xbb,
  cueTrackPositions: 0xb7,
  cueClusterPosition: 0xf1,
};
/** Elements whose children are read (the rest are stepped over by their size). */
const MASTERS = new Set([ID.segment, ID.seekHead, ID.seek, ID.info, ID.cluster, ID.blockGroup, ID.cues, ID.cuePoint, ID.cueTrackPositions]);

/** The element ID at `at`: {id, length}, or null. IDs keep their marker bits, as written. */
function readId(bytes, at) {
  const first = bytes[at];
  if (first === undefined || first === 0) return null;
  const length = Math.clz32(first) - 23; // 1 for 0x80.., 2 for 0x40.., ...
  if (length > 4 || at + length > bytes.length) return null;
  let id = 0;
  for (let k = 0; k < length; k++) id = id * 256 + bytes[at + k];
  return { id, length };
}

/** The size (a variable-length integer) at `at`: {size (null: unknown), length}, or null. */
function readSize(bytes, at) {
  const first = bytes[at];
  if (first === undefined || first === 0) return null;
  const length = Math.clz32(first) - 23;
  if (at + length > bytes.length) return null;
  let size = first & (0xff >> length);
  let allOnes = size === 0xff >> length;
  for (let k = 1; k < length; k++) {
    size = size * 256 + bytes[at + k];
    allOnes &&= bytes[at + k] === 0xff;
  }
  return { size: allOnes ? null : size, length };
}

/** `value` as a size of exactly `length` bytes, or null where it does not fit. */
function sizeBytes(value, length) {
  if (value >= 2 ** (7 * length) - 1) return null; // all ones would read as unknown
  const out = new Uint8Array(length);
  let v = value;
  for (let k = length - 1; k >= 0; k--) {
    out[k] = v % 256;
    v = Math.floor(v / 256);
  }
  out[0] |= 0x80 >> (length - 1);
  return out;
}

const readUint = (bytes, at, length) => {
  let v = 0;
  for (let k = 0; k < length; k++) v = v * 256 + bytes[at + k];
  return v;
};

function writeUint(bytes, at, length, value) {
  let v = value;
  for (let k = length - 1; k >= 0; k--) {
    bytes[at + k] = v % 256;
    v = Math.floor(v / 256);
  }
  return v === 0; // whether it fit
}

/**
 * Reads the file's elements in order, descending into the MASTERS: what `withDuration` needs.
 * Returns null for what is not a WebM (no EBML header, no Segment, no Info).
 */
function scan(bytes) {
  const head = readId(bytes, 0);
  if (!head || head.id !== ID.ebml) return null;
  const found = { segment: null, info: null, duration: null, timecodeScale: 1e6, positions: [], times: [] };
  let clusterTime = 0;
  let at = 0;
  while (at < bytes.length) {
    const id = readId(bytes, at);
    const size = id && readSize(bytes, at + id.length);
    if (!size) break;
    const data = at + id.length + size.length;
    const element = { at, id: id.id, sizeAt: at + id.length, sizeLength: size.length, data, size: size.size };
    switch (id.id) {
      case ID.segment:
        found.segment ??= element;
        break;
      case ID.info:
        found.info ??= element;
        break;
      case ID.duration:
        found.duration = element;
        break;
      case ID.timecodeScale:
        found.timecodeScale = readUint(bytes, data, size.size);
        break;
      case ID.seekPosition:
      case ID.cueClusterPosition:
        found.positions.push(element);
        break;
      case ID.timecode:
        clusterTime = readUint(bytes, data, size.size);
        break;
      case ID.simpleBlock:
      case ID.block: {
        // The track number (a variable-length integer), then the time from the Cluster's, int16.
        const track = readSize(bytes, data);
        if (track) {
          const offset = (bytes[data + track.length] << 8) | bytes[data + track.length + 1];
          found.times.push(clusterTime + (offset << 16 >> 16));
        }
        break;
      }
      default:
    }
    if (MASTERS.has(id.id)) at = data;
    else if (size.size === null) break; // only masters may be of unknown size
    else at = data + size.size;
  }
  return found.segment && found.info ? found : null;
}

/**
 * The length of the recording in `bytes` (a WebM) in ms: the last frame's time plus the median
 * interval between frames (a still stage adds no frames, so the gaps vary); null where it has
 * no frames.
 */
export function webmFramesDuration(bytes) {
  const found = scan(bytes);
  if (!found || found.times.length === 0) return null;
  const times = found.times.slice().sort((a, b) => a - b);
  const gaps = times.slice(1).map((t, k) => t - times[k]).sort((a, b) => a - b);
  const interval = gaps.length ? gaps[Math.floor(gaps.length / 2)] : 0;
  return ((times[times.length - 1] + interval) * found.timecodeScale) / 1e6;
}

/** The Duration written in `bytes` (a WebM), in ms, or null where there is none. */
export function webmDuration(bytes) {
  const found = scan(bytes);
  const d = found?.duration;
  if (!d || (d.size !== 4 && d.size !== 8)) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset + d.data, d.size);
  const value = d.size === 8 ? view.getFloat64(0) : view.getFloat32(0);
  return (value * found.timecodeScale) / 1e6;
}

/**
 * `bytes` (a WebM, Uint8Array) with the Duration `ms` (by default the frames' own,
 * `webmFramesDuration`) in its Info; `bytes` itself where it is not a WebM it can write one in.
 */
export function withDuration(bytes, ms = webmFramesDuration(bytes)) {
  const found = scan(bytes);
  if (!found || !(ms >= 0) || found.info.size === null) return bytes;
  const value = (ms * 1e6) / found.timecodeScale; // in TimecodeScale units
  const old = found.duration;
  if (old && (old.size === 8 || old.size === 4)) {
    const out = bytes.slice();
    const view = new DataView(out.buffer, out.byteOffset + old.data, old.size);
    if (old.size === 8) view.setFloat64(0, value);
    else view.setFloat32(0, value);
    return out;
  }
  if (old) return bytes;
  // Duration: ID 0x44 0x89, size 8 (0x88), the float.
  const element = new Uint8Array(11);
  element.set([0x44, 0x89, 0x88]);
  new DataView(element.buffer).setFloat64(3, value);
  const info = found.info;
  const infoEnd = info.data + info.size;
  const infoSize = sizeBytes(info.size + element.length, info.sizeLength);
  if (!infoSize) return bytes;
  const out = new Uint8Array(bytes.length + element.length);
  out.set(bytes.subarray(0, infoEnd));
  out.set(infoSize, info.sizeAt);
  out.set(element, infoEnd);
  out.set(bytes.subarray(infoEnd), infoEnd + element.length);
  const segment = found.segment;
  if (segment.size !== null) {
    const segmentSize = sizeBytes(segment.size + element.length, segment.sizeLength);
    if (!segmentSize) return bytes;
    out.set(segmentSize, segment.sizeAt);
  }
  // Positions are counted from the Segment's data; those past the Info move with the bytes.
  for (const p of found.positions) {
    const position = readUint(bytes, p.data, p.size);
    if (segment.data + position < infoEnd) continue;
    const at = p.data < infoEnd ? p.data : p.data + element.length;
    if (!writeUint(out, at, p.size, position + element.length)) return bytes;
  }
  return out;
}
