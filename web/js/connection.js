// The WebSocket to the server (/ws): connects, reconnects after a loss (waiting 0.5 s, doubling to
// at most 5 s), and pairs requests with their replies. Replies are handled here; every other
// message goes to the caller: JSON text (state, metrics) decoded, binary as it came.

import { FRAME_VERSIONS } from './wire.js';

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 5000;

/**
 * Callbacks: `onOpen()` and `onClose()` as the socket opens and closes; `onText(message)` for a
 * state or metrics message; `onBinary(buffer)` for a frame or overlay; `onRefused(key, text)`
 * when the server refused a request, with the key it was sent with (see `request`).
 */
export function createConnection({ onOpen, onClose, onText, onBinary, onRefused }) {
  let ws = null;
  let retry = FIRST_RETRY_MS;
  let nextId = 1;
  const pending = new Map(); // request id -> its key

  function open() {
    // The frame versions this page reads: the server sends a flock in three dimensions only to
    // a page that says it reads version 3.
    ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws?frames=${FRAME_VERSIONS.join(',')}`);
    ws.binaryType = 'arraybuffer';
    ws.onopen = () => {
      retry = FIRST_RETRY_MS;
      onOpen();
    };
    ws.onclose = () => {
      onClose();
      setTimeout(open, retry);
      retry = Math.min(retry * 2, LAST_RETRY_MS);
    };
    ws.onmessage = (event) => {
      if (typeof event.data === 'string') received(JSON.parse(event.data));
      else onBinary(event.data);
    };
  }

  function received(message) {
    switch (message.type) {
      case 'ok':
        pending.delete(message.id);
        return;
      case 'error': {
        const key = pending.get(message.id);
        pending.delete(message.id);
        onRefused(key, message.message);
        return;
      }
      default:
        onText(message);
    }
  }

  /** Sends `message` if the socket is open; drops it otherwise. */
  function send(message) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  }

  /**
   * Sends `message` with a fresh id; should the server refuse it, `onRefused` gets `key` (by
   * default the message's type): the parameter a `set` changes, say.
   */
  function request(message, key) {
    const id = nextId++;
    pending.set(id, key || message.type);
    send({ ...message, id });
  }

  return { open, send, request };
}
