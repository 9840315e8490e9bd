// Calls at a bounded rate, for what the pointer sends as it moves (the mouse's predator, a
// dragged attractor): a message per mouse event would flood the server and the event log.

/**
 * A function that calls `fn` with its latest arguments at most once every `ms` milliseconds:
 * at once when the last call was longer ago, else once the interval is over (the last arguments
 * win). `cancel()` drops a call still waiting.
 */
export function throttled(fn, ms) {
  let last = -Infinity;
  let timer = null;
  let args = null;
  const fire = () => {
    timer = null;
    last = performance.now();
    fn(...args);
  };
  const call = (...latest) => {
    args = latest;
    if (timer) return;
    const wait = last + ms - performance.now();
    if (wait <= 0) fire();
    else timer = setTimeout(fire, wait);
  };
  call.cancel = () => {
    clearTimeout(timer);
    timer = null;
  };
  return call;
}
