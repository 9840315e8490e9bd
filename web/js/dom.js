// Small helpers over the page shared by its parts: find an element, build one, show a toast,
// and the device pixel ratio every canvas is sized by.

export const $ = (id) => document.getElementById(id);

/** Device pixels per CSS pixel. */
export const pixelRatio = () => window.devicePixelRatio || 1;

/**
 * A new element: `attrs` become properties where the element has one and the value is not a
 * string (listeners, booleans), attributes otherwise; `class` sets the class name.
 */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k in e && typeof v !== 'string') e[k] = v;
    else e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}

/** A message in the corner of the stage for six seconds; `ok` marks it as good news. */
export function toast(message, ok) {
  const t = el('div', { class: ok ? 'toast ok' : 'toast' }, message);
  $('toasts').append(t);
  setTimeout(() => t.remove(), 6000);
}
