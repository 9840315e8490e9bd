// The keyboard shortcuts (listed under the stage in #keys): Space start / stop, → or . step,
// R reset, O cycle the overlays, G colour by scout group; every other key goes to the world tool
// bar (world-tools.js: its tools' and the camera's letters, and Enter, Delete and Esc for the
// chosen tool). Keys typed into a text box or a select are theirs.

/**
 * `actions`: togglePlay, step, reset, cycleOverlayMode, toggleByGroup, and worldKey(key), true
 * when the world tools did something with the key.
 */
export function bindShortcuts(actions) {
  document.addEventListener('keydown', (e) => {
    const t = e.target;
    if (t instanceof HTMLInputElement && t.type !== 'checkbox' && t.type !== 'range') return;
    if (t instanceof HTMLSelectElement || e.ctrlKey || e.metaKey || e.altKey) return;
    switch (e.key) {
      case ' ': e.preventDefault(); actions.togglePlay(); break;
      case 'ArrowRight': case '.': if (t instanceof HTMLInputElement) return; actions.step(); break;
      case 'r': case 'R': actions.reset(); break;
      case 'o': case 'O': actions.cycleOverlayMode(); break;
      case 'g': case 'G': actions.toggleByGroup(); break;
      default: if (actions.worldKey(e.key)) e.preventDefault();
    }
  });
}
