// What a boid looks like, shared by the two renderers (webgl.js, canvas2d.js) and the overlay's
// ghosts (overlays.js), so a boid looks the same whichever draws it.

export const TAU = Math.PI * 2;

/** Colours as [r, g, b]. */
export const COLOR = {
  bg: [7, 10, 18],
  world: [13, 20, 36],
  boid: [223, 232, 255],
  // Scout groups in the colours of `boids render` (Style::default in
  // crates/boids-render/src/scene.rs), so a rendered GIF and the viewer agree.
  scout1: [255, 96, 200],
  scout2: [90, 205, 255],
};

/** A dart in units of the boid radius, nose at +x: two triangles as (x, y) pairs. */
export const DART = [2.2, 0, -1.3, 1.15, -0.55, 0, 2.2, 0, -0.55, 0, -1.3, -1.15];
