// Record: the stage as a video file the browser downloads, made by the browser itself
// (MediaRecorder on a canvas stream), so nothing is sent to the server and no tool is needed.
// The stage is two canvases (the boids, the overlays on top), so each drawn frame is composed
// onto a canvas of its own, whose stream is recorded; it is composed right after the stage is
// drawn, while a WebGL canvas still holds its picture. While recording, the button shows a
// blinking red dot and the time elapsed, and stops the recording; stopping downloads the file.
// A WebM gets its duration written in (webm.js): MediaRecorder writes a live stream without one,
// in which players cannot seek.

import { $, el, toast } from './dom.js';
import { withDuration } from './webm.js';

/** Video formats in the order they are tried: WebM where the browser makes it, else MP4. */
const TYPES = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm', 'video/mp4'];
/** Frames a second of the recorded stream (at most; a still stage adds none). */
const FPS = 30;

/** The first video format of TYPES this browser records, or null. */
function recordableType() {
  if (typeof MediaRecorder === 'undefined') return null;
  return TYPES.find((type) => MediaRecorder.isTypeSupported(type)) ?? null;
}

/** "m:ss" of a duration in ms. */
function clock(ms) {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * `layers()` gives the stage's canvases, bottom first; `name()` the file's name without its
 * extension; `redraw()` asks for the next frame to draw (the recording's first). Returns `frame()`, to call after each drawing of the stage, and `tick(now)`, to
 * call every animation frame (the indicator's clock).
 */
export function createRecorder({ layers, name, redraw }) {
  const button = $('record');
  const indicator = $('rec-indicator');
  let recording = null; // {recorder, canvas, ctx, started}

  function start() {
    const type = recordableType();
    if (!type) {
      toast('this browser cannot record a video of a canvas (no MediaRecorder)');
      return;
    }
    const [bottom] = layers();
    const canvas = el('canvas', { width: bottom.width, height: bottom.height });
    const ctx = canvas.getContext('2d');
    const recorder = new MediaRecorder(canvas.captureStream(FPS), { mimeType: type });
    const chunks = [];
    recorder.ondataavailable = (e) => e.data.size > 0 && chunks.push(e.data);
    recorder.onstop = async () => {
      const blob = new Blob(chunks, { type: type.split(';')[0] });
      download(blob.type === 'video/webm' ? new Blob([withDuration(new Uint8Array(await blob.arrayBuffer()))], { type: blob.type }) : blob);
    };
    recording = { recorder, canvas, ctx, started: performance.now() };
    recorder.start(1000);
    redraw();
    button.classList.add('recording');
    indicator.hidden = false;
    tick(performance.now());
  }

  function stop() {
    recording.recorder.stop();
    recording = null;
    $('rec-label').textContent = 'Record';
    button.classList.remove('recording');
    indicator.hidden = true;
  }

  function download(blob) {
    const extension = blob.type === 'video/mp4' ? 'mp4' : 'webm';
    const url = URL.createObjectURL(blob);
    const link = el('a', { href: url, download: `${name()}.${extension}` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    toast(`downloading the video (${(blob.size / 1e6).toFixed(1)} MB)`, true);
  }

  /** The stage's canvases onto the recorded one, as they are now. */
  function compose() {
    const { canvas, ctx } = recording;
    const all = layers();
    if (canvas.width !== all[0].width || canvas.height !== all[0].height) {
      // The stream keeps its first size: a resized stage is scaled into it.
      ctx.clearRect(0, 0, canvas.width, canvas.height);
    }
    for (const layer of all) ctx.drawImage(layer, 0, 0, canvas.width, canvas.height);
  }

  function tick(now) {
    if (recording) $('rec-label').textContent = `${clock(now - recording.started)} Stop`;
  }

  button.addEventListener('click', () => (recording ? stop() : start()));

  return {
    /** After the stage is drawn: its picture goes into the recording. */
    frame() {
      if (recording) compose();
    },
    tick,
    get recording() {
      return recording !== null;
    },
  };
}
