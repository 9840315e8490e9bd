// What the world's things look like, shared by the two renderers (webgl.js, canvas2d.js) and
// the overlay canvas (overlays.js: ghosts, predators, attractors, the ground line), so a thing
// looks the same whichever draws it.

export const TAU = Math.PI * 2;

/** Colours as [r, g, b]. */
export const COLOR = {
  bg: [7, 10, 18],
  world: [13, 20, 36],
  // Boids, by scout group, in the colours of `boids render` (Style::default in
  // crates/boids-render/src/scene.rs), so a rendered GIF and the viewer agree;
  // crates/boids-render/tests/web_colours.rs holds the two lists to each other.
  boid: [246, 216, 110],
  scout1: [255, 96, 200],
  scout2: [90, 205, 255],
  // The world's things, in the colours of `boids render` too.
  predator: [255, 150, 50],
  attractor: [200, 170, 255],
  resting: [150, 135, 95],
  ground: [110, 150, 90],
  // Obstacles' bodies and edges in three dimensions (the flat view's are overlays.js's INK).
  obstacle: [150, 160, 185],
  obstacleEdge: [200, 208, 228],
};

/** How opaque an obstacle's body is in three dimensions: boids behind it show through. */
export const OBSTACLE_ALPHA = 0.3;

/** A dart in units of the boid radius, nose at +x: two triangles as (x, y) pairs. */
export const DART = [2.2, 0, -1.3, 1.15, -0.55, 0, 2.2, 0, -0.55, 0, -1.3, -1.15];

/**
 * A boid resting on the ground (perching): a flat bar lying along the ground, in units of the
 * boid radius, as two triangles like DART (so both renderers draw it as they draw a dart).
 */
export const REST_MARK = [-1.6, -0.45, 1.6, -0.45, 1.6, 0.45, -1.6, -0.45, 1.6, 0.45, -1.6, 0.45];

/** The ground line's width in CSS px (perching); resting boids sit on it. */
export const GROUND_WIDTH = 1.5;

/** A predator is drawn as a dart this many times a boid's radius, and never smaller than PREDATOR_MIN_PX. */
export const PREDATOR_SCALE = 2.4;
export const PREDATOR_MIN_PX = 5;

/** The least size of a boid of a flock in three dimensions, in device px (a dart's radius). */
export const MIN_DART_PX = 1.6;
/** Share of a boid's colour left at the world box's farthest corner (depth cueing in 3D). */
export const FAR_BRIGHTNESS = 0.3;
