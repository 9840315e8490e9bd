// One step of the boids model's grid path on the GPU: bin every boid into its cell and count
// the cells, scan the counts into cell starts, scatter ids into their cells, order each cell by
// id while gathering positions and velocities into cell order, then the neighbour scan, the
// rules and the move. The rules are a transcription of boids-core's `rules` (mod.rs, limits.rs)
// and its kernel's constants; the comments name the function each follows.
//
// This text is written for both dimensions: `V` is a position or velocity and `S` how it is
// stored (2D: vec2; 3D: vec3 stored in a vec4), `DIMENSIONS` their axes, `XYZ` the swizzle of the world's axes, and
// STORE, WIDEN, ACROSS and NOISE_AND_TURN the bodies that differ (the last in `noise2.wgsl` and
// `noise3.wgsl`). The engine substitutes them before compiling
// (`pipelines.rs`).

alias V = vec2<f32>;
alias S = vec2<f32>;
const DIMENSIONS: i32 = 2;

const WORKGROUP: u32 = 256u;
const SCAN_BLOCK: u32 = 1024u;

struct Constants {
    world_min: vec4<f32>,
    world_size: vec4<f32>,
    grid_lo: vec4<f32>,
    grid_inverse_width: vec4<f32>,
    goal1: vec4<f32>,
    goal2: vec4<f32>,
    // Cells along each axis, and in all (w).
    cells: vec4<u32>,
    // Cell offsets scanned along each axis, from lo to hi.
    scan_lo: vec4<i32>,
    scan_hi: vec4<i32>,
    count: u32,
    boundary: u32,
    flags: u32,
    scan_blocks: u32,
    visual_below: f32,
    protected_below: f32,
    unseen_below: f32,
    centering: f32,
    matching: f32,
    avoid: f32,
    gain: f32,
    boost: f32,
    min_speed: f32,
    max_speed: f32,
    dt: f32,
    margin: f32,
    turnfactor: f32,
    wall_buffer: f32,
    boid_size: f32,
    max_bias: f32,
    bias_increment: f32,
    wander_weight: f32,
    pad0: f32,
    pad1: f32,
    // The heading models: model, noise distribution, and the seed (low, high words).
    heading_model: vec4<u32>,
    // speed, noise, the largest turn a step (turn_rate * dt), informed_weight.
    heading: vec4<f32>,
}

// What changes from one step of a batch to the next.
struct StepInfo {
    wander: vec4<f32>,
    index: u32,
    // The step's number (low, high words): keys its random streams.
    number: vec2<u32>,
}

const TORUS: u32 = 0u;
const MARGINS: u32 = 1u;
const WALLS: u32 = 2u;

const BOIDS: u32 = 0u;
const VICSEK: u32 = 1u;
const GAUSSIAN: u32 = 1u;

const INCLUDE_SELF: u32 = 1u;
const DYNAMIC_BIAS: u32 = 2u;

@group(0) @binding(0) var<uniform> k: Constants;
@group(0) @binding(1) var<uniform> this_step: StepInfo;

@group(1) @binding(0) var<storage, read> pos_in: array<S>;
@group(1) @binding(1) var<storage, read> vel_in: array<S>;
@group(1) @binding(2) var<storage, read> bias_in: array<f32>;
@group(1) @binding(3) var<storage, read> group_of: array<u32>;
@group(1) @binding(4) var<storage, read_write> pos_out: array<S>;
@group(1) @binding(5) var<storage, read_write> vel_out: array<S>;
@group(1) @binding(6) var<storage, read_write> bias_out: array<f32>;
@group(1) @binding(7) var<storage, read_write> cell_of: array<u32>;
@group(1) @binding(8) var<storage, read_write> cell_count: array<atomic<u32>>;
@group(1) @binding(9) var<storage, read_write> cell_fill: array<atomic<u32>>;
@group(1) @binding(10) var<storage, read_write> cell_start: array<u32>;
@group(1) @binding(11) var<storage, read_write> block_sums: array<u32>;
@group(1) @binding(12) var<storage, read_write> unsorted: array<u32>;
@group(1) @binding(13) var<storage, read_write> sorted_id: array<u32>;
@group(1) @binding(14) var<storage, read_write> sorted_pos: array<S>;
@group(1) @binding(15) var<storage, read_write> sorted_vel: array<S>;
// [0]: the first step of the batch that left a boid not finite (u32 max: none); then, per
// workgroup of the interaction, its candidates, neighbours and cells visited.
@group(1) @binding(16) var<storage, read_write> report: array<atomic<u32>>;
// Each boid's neighbours in the last step, by id.
@group(1) @binding(17) var<storage, read_write> neighbours_of: array<u32>;

fn load(s: S) -> V { return s.XYZ; }
fn store(v: V) -> S { STORE }
fn widen(v: V) -> vec4<f32> { return WIDEN; }

// The linear index of a thread in a dispatch of many workgroups, laid out in rows.
fn linear(workgroup: vec3<u32>, groups: vec3<u32>, local: u32) -> u32 {
    return (workgroup.y * groups.x + workgroup.x) * WORKGROUP + local;
}

fn has(flag: u32) -> bool { return (k.flags & flag) != 0u; }

// ---- bin -----------------------------------------------------------------------------------

fn axis_cells() -> vec3<i32> { return vec3<i32>(k.cells.xyz); }

// The cell of a position, clamped into the grid: a boid outside an open world's box joins an
// edge cell, which keeps every pair within a cell width in neighbouring cells.
fn cell_coords(p: V) -> vec3<i32> {
    let c = floor((widen(p).xyz - k.grid_lo.xyz) * k.grid_inverse_width.xyz);
    let top = vec3<f32>(axis_cells() - vec3<i32>(1));
    return vec3<i32>(clamp(c, vec3<f32>(0.0), top));
}

fn cell_index(c: vec3<i32>) -> u32 {
    let n = axis_cells();
    return u32((c.z * n.y + c.y) * n.x + c.x);
}

@compute @workgroup_size(256)
fn bin(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
       @builtin(local_invocation_index) local: u32) {
    let id = linear(wg, groups, local);
    if (id >= k.count) { return; }
    let cell = cell_index(cell_coords(load(pos_in[id])));
    cell_of[id] = cell;
    atomicAdd(&cell_count[cell], 1u);
}

// ---- scan: cell counts to cell starts ------------------------------------------------------

var<workgroup> partial: array<u32, 256>;

// Inclusive scan of `partial` across the workgroup (Hillis and Steele), `value` this thread's.
fn scan_workgroup(local: u32, value: u32) -> u32 {
    partial[local] = value;
    workgroupBarrier();
    for (var offset = 1u; offset < WORKGROUP; offset = offset * 2u) {
        var add = 0u;
        if (local >= offset) { add = partial[local - offset]; }
        workgroupBarrier();
        partial[local] = partial[local] + add;
        workgroupBarrier();
    }
    return partial[local];
}

fn count_at(cell: u32) -> u32 {
    if (cell >= k.cells.w) { return 0u; }
    return atomicLoad(&cell_count[cell]);
}

// Each block of SCAN_BLOCK cells: starts within the block, and the block's total.
@compute @workgroup_size(256)
fn scan_blocks(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
               @builtin(local_invocation_index) local: u32) {
    let block = wg.y * groups.x + wg.x;
    if (block >= k.scan_blocks) { return; }
    let first = block * SCAN_BLOCK + local * 4u;
    let counts = vec4<u32>(count_at(first), count_at(first + 1u), count_at(first + 2u),
                           count_at(first + 3u));
    let own = counts.x + counts.y + counts.z + counts.w;
    let before = scan_workgroup(local, own) - own;
    let starts = vec4<u32>(before, before + counts.x, before + counts.x + counts.y,
                           before + counts.x + counts.y + counts.z);
    for (var i = 0u; i < 4u; i = i + 1u) {
        if (first + i < k.cells.w) { cell_start[first + i] = starts[i]; }
    }
    if (local == WORKGROUP - 1u) { block_sums[block] = before + own; }
}

// The blocks' totals to the blocks' starts, in one workgroup.
@compute @workgroup_size(256)
fn scan_totals(@builtin(local_invocation_index) local: u32) {
    let per_thread = (k.scan_blocks + WORKGROUP - 1u) / WORKGROUP;
    let first = local * per_thread;
    let last = min(first + per_thread, k.scan_blocks);
    var own = 0u;
    for (var b = first; b < last; b = b + 1u) { own = own + block_sums[b]; }
    var start = scan_workgroup(local, own) - own;
    for (var b = first; b < last; b = b + 1u) {
        let total = block_sums[b];
        block_sums[b] = start;
        start = start + total;
    }
}

@compute @workgroup_size(256)
fn scan_add(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
            @builtin(local_invocation_index) local: u32) {
    let cell = linear(wg, groups, local);
    if (cell >= k.cells.w) { return; }
    cell_start[cell] = cell_start[cell] + block_sums[cell / SCAN_BLOCK];
}

// ---- scatter and order ---------------------------------------------------------------------

@compute @workgroup_size(256)
fn scatter(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
           @builtin(local_invocation_index) local: u32) {
    let id = linear(wg, groups, local);
    if (id >= k.count) { return; }
    let cell = cell_of[id];
    unsorted[cell_start[cell] + atomicAdd(&cell_fill[cell], 1u)] = id;
}

// The scatter's order within a cell depends on the hardware's scheduling; each boid's place is
// its rank by id among its cell's boids, so the order (and every sum) is the same every run.
@compute @workgroup_size(256)
fn order(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
         @builtin(local_invocation_index) local: u32) {
    let slot = linear(wg, groups, local);
    if (slot >= k.count) { return; }
    let id = unsorted[slot];
    let cell = cell_of[id];
    let first = cell_start[cell];
    let last = first + atomicLoad(&cell_count[cell]);
    var rank = 0u;
    for (var t = first; t < last; t = t + 1u) {
        rank = rank + select(0u, 1u, unsorted[t] < id);
    }
    let place = first + rank;
    sorted_id[place] = id;
    sorted_pos[place] = pos_in[id];
    sorted_vel[place] = vel_in[id];
}

// ---- rules (boids-core rules/mod.rs and rules/limits.rs) -----------------------------------

fn world_min() -> V { return k.world_min.XYZ; }
fn world_size() -> V { return k.world_size.XYZ; }

// `minimum_image`: the offset to the nearest image across the torus seams.
fn minimum_image(d: V) -> V {
    if (k.boundary != TORUS) { return d; }
    let w = world_size();
    return d - w * round(d / w);
}

// `boundary_steer_lanes`: the margins' turn or the walls' push.
fn boundary_steer(p: V) -> V {
    let lo = world_min();
    let hi = lo + world_size();
    let zero = V(0.0);
    if (k.boundary == MARGINS) {
        let turn = V(k.turnfactor);
        let dv = select(zero, zero + turn, p < lo + V(k.margin));
        return select(dv, dv - turn, p > hi - V(k.margin));
    }
    if (k.boundary == WALLS) {
        let buffer = V(k.wall_buffer);
        let d = select(zero, p - lo, (p - lo) < buffer);
        return select(d, p - hi, (hi - p) < buffer) * k.avoid;
    }
    return zero;
}

// `clamp_speed`: up to the minimum speed (a moving boid), then down to the maximum.
fn clamp_speed(v: V) -> V {
    let speed = length(v);
    var out = v;
    if (speed < k.min_speed && speed > 0.0) { out = v / speed * k.min_speed; }
    if (speed > k.max_speed) { out = out / speed * k.max_speed; }
    return out;
}

// `fmod(t, e)` exactly, as `f32::rem` computes it, for a finite `e > 0` (NaN for `t` not
// finite). Each pass takes off `m`, the largest `e * 2^k` not above the rest `r`: then
// `m <= r < 2m`, so `r - m` is exact (Sterbenz), and every pass removes `r`'s leading power
// of two, so at most one pass per binade between `e` and `r` (254) runs. Built by bits (the
// mantissa of `e`, the exponent of `r`) so no library call rounds. The CPU engine takes this
// path (its `rem_euclid`) for a boid more than a world outside it; `t - e * floor(t / e)`
// there is off by up to an ulp of `t`, which is many worlds for a huge move.
fn exact_remainder(t: f32, e: f32) -> f32 {
    let exponent = 0x7f800000u;
    let e_bits = bitcast<u32>(e);
    var r = abs(t);
    for (var cut = 0u; cut < 256u && r >= e; cut = cut + 1u) {
        var m = bitcast<f32>((e_bits & ~exponent) | (bitcast<u32>(r) & exponent));
        if (m > r) { m = m * 0.5; }
        r = r - m;
    }
    return select(r, -r, t < 0.0);
}

// `wrap_offset` on every axis: `t.rem_euclid(e)`, with its fast paths for a boid less than a
// world outside and the exact remainder beyond.
fn wrap_offset(t: V, e: V) -> V {
    let inside = (t >= V(0.0)) & (t < e);
    let below = (t < V(0.0)) & (t > -e);
    let above = (t >= e) & (t < e + e);
    var far = t;
    if (any(!(inside | below | above))) {
        for (var a = 0; a < DIMENSIONS; a = a + 1) {
            let r = exact_remainder(t[a], e[a]);
            far[a] = select(r, r + e[a], r < 0.0);
        }
    }
    let r = select(far, t - e, above);
    return select(select(r, t + e, below), t, inside);
}

// `wrap_axis` on every axis: into [lo, lo + size), exactly as the CPU engine.
fn wrap(x: V) -> V {
    let lo = world_min();
    let e = world_size();
    let r = wrap_offset(x - lo, e);
    let w = lo + select(r, V(0.0), r >= e);
    return select(w, lo, w >= lo + e);
}

struct Moved {
    position: V,
    velocity: V,
}

// `move_lanes`: the move, then wrap (torus) or bounce off the walls.
fn move_boid(p: V, v: V) -> Moved {
    let moved = p + v * k.dt;
    if (k.boundary == TORUS) { return Moved(wrap(moved), v); }
    if (k.boundary == MARGINS) { return Moved(moved, v); }
    let lo = world_min();
    let hi = lo + world_size();
    let r = V(k.boid_size);
    let below = (moved - r) < lo;
    var against = select(p, lo + r, below);
    var velocity = select(v, abs(v), below);
    let above = (moved + r) > hi;
    against = select(against, hi - r, above);
    velocity = select(velocity, -abs(velocity), above);
    return Moved(select(moved, against, any(below | above)), velocity);
}

// `Dimension::across`: the part of `v` across the unit direction `g`.
fn across(v: V, g: V) -> V {
    ACROSS
}

struct Sums {
    count: f32,
    offset_sum: V,
    velocity_sum: V,
    separation: V,
    // The heading models: the sum of the unit headings of the boid and its neighbours.
    heading_sum: V,
}

struct Boid {
    position: V,
    velocity: V,
    bias: f32,
}

// `advance_lanes`: the rules of one boid from its neighbour sums.
fn advance(acc: Sums, boid: Boid, group: u32) -> Boid {
    let v0 = boid.velocity;
    let seen = acc.count > 0.0;
    let inverse = 1.0 / acc.count;
    let cohesion = select(V(0.0), acc.offset_sum * inverse, seen);
    let alignment = select(V(0.0), acc.velocity_sum * inverse - v0, seen);
    let gain = k.gain;
    let c = cohesion * (k.centering * gain);
    let s = acc.separation * (k.avoid * gain);
    let a = alignment * (k.matching * gain);
    let wander = this_step.wander.XYZ * (k.wander_weight * gain);
    let steer = c + a + s + wander;
    var v = (v0 + steer) * k.boost;
    v = v + boundary_steer(boid.position);
    let scout = group != 0u;
    var goal = k.goal1.XYZ;
    if (group == 2u) { goal = k.goal2.XYZ; }
    if (!scout) { goal = V(0.0); }
    // `scout_bias`: seed 001's dynamic bias.
    var bias = boid.bias;
    if (has(DYNAMIC_BIAS) && scout) {
        let grown = min(k.max_bias, bias + k.bias_increment);
        let shrunk = max(k.bias_increment, bias - k.bias_increment);
        bias = select(shrunk, grown, dot(v, goal) > 0.0);
    }
    if (scout) {
        let along = (1.0 - bias) * dot(v, goal) + bias;
        v = goal * along + across(v, goal);
    }
    v = clamp_speed(v);
    let moved = move_boid(boid.position, v);
    return Boid(moved.position, moved.velocity, bias);
}

// ---- the heading models (boids-core models/mod.rs `steer`, space.rs, rng.rs) -------------

// 64-bit words as (low, high) for the keyed random streams.
alias U64 = vec2<u32>;

fn add64(a: U64, b: U64) -> U64 {
    let low = a.x + b.x;
    return U64(low, a.y + b.y + select(0u, 1u, low < a.x));
}

fn shr64(a: U64, n: u32) -> U64 {
    if (n >= 32u) { return U64(a.y >> (n - 32u), 0u); }
    return U64((a.x >> n) | (a.y << (32u - n)), a.y >> n);
}

fn shl64(a: U64, n: u32) -> U64 {
    if (n >= 32u) { return U64(0u, a.x << (n - 32u)); }
    return U64(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}

fn rotl64(a: U64, n: u32) -> U64 { return shl64(a, n) | shr64(a, 64u - n); }

// The full product of two 32-bit words, from 16-bit halves.
fn mul32(a: u32, b: u32) -> U64 {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let low = a0 * b0;
    let cross1 = a0 * b1;
    let cross2 = a1 * b0;
    let middle = (low >> 16u) + (cross1 & 0xffffu) + (cross2 & 0xffffu);
    let high = a1 * b1 + (cross1 >> 16u) + (cross2 >> 16u) + (middle >> 16u);
    return U64((low & 0xffffu) | (middle << 16u), high);
}

fn mul64(a: U64, b: U64) -> U64 {
    let p = mul32(a.x, b.x);
    return U64(p.x, p.y + a.x * b.y + a.y * b.x);
}

const PHI: U64 = U64(0x7f4a7c15u, 0x9e3779b9u);

// rng.rs `mix` (SplitMix64's output function).
fn mix(z: U64) -> U64 {
    var x = add64(z, PHI);
    x = mul64(x ^ shr64(x, 30u), U64(0x1ce4e5b9u, 0xbf58476du));
    x = mul64(x ^ shr64(x, 27u), U64(0x133111ebu, 0x94d049bbu));
    return x ^ shr64(x, 31u);
}

// Xoshiro256++, seeded as rand_xoshiro's `seed_from_u64` seeds it.
struct Stream {
    s0: U64,
    s1: U64,
    s2: U64,
    s3: U64,
}

const NOISE: U64 = U64(2u, 0u);

// rng.rs `stream(seed, Noise, step, id)`.
fn noise_stream(id: u32) -> Stream {
    let seed = k.heading_model.zw;
    let key = mix(seed ^ mix(NOISE ^ mix(this_step.number ^ mix(U64(id, 0u)))));
    return Stream(mix(key), mix(add64(key, PHI)), mix(add64(key, add64(PHI, PHI))),
                  mix(add64(key, add64(PHI, add64(PHI, PHI)))));
}

// `Stream::unit`: uniform in [0, 1), from the top 24 of the 53 bits the CPU engine uses.
fn unit(s: ptr<function, Stream>) -> f32 {
    let result = add64(rotl64(add64((*s).s0, (*s).s3), 23u), (*s).s0);
    let t = shl64((*s).s1, 17u);
    (*s).s2 = (*s).s2 ^ (*s).s0;
    (*s).s3 = (*s).s3 ^ (*s).s1;
    (*s).s1 = (*s).s1 ^ (*s).s2;
    (*s).s0 = (*s).s0 ^ (*s).s3;
    (*s).s2 = (*s).s2 ^ t;
    (*s).s3 = rotl64((*s).s3, 45u);
    return f32(result.y >> 8u) * (1.0 / 16777216.0);
}

const TAU: f32 = 6.283185307179586;

// `rayleigh`: the radius of a standard 2D normal.
fn rayleigh(s: ptr<function, Stream>) -> f32 {
    return sqrt(-2.0 * log(1.0 - unit(s)));
}

// glam's `normalize_or_zero` and `try_normalize` (zero for "none").
fn normalize_or_zero(v: V) -> V {
    let length = length(v);
    if (length > 0.0 && length < 3.4e38) { return v / length; }
    return V(0.0);
}

fn is_zero(v: V) -> bool { return all(v == V(0.0)); }

// `try_normalize(v).unwrap_or(otherwise)`.
fn normalized_or(v: V, otherwise: V) -> V {
    let unit = normalize_or_zero(v);
    return select(unit, otherwise, is_zero(unit));
}

NOISE_AND_TURN

// `steer`, steps 1 to 6 of the heading models: from the social direction `d` to the next state.
fn steer_heading(d: V, boid: Boid, group: u32, id: u32) -> Boid {
    let speed = k.heading.x;
    let heading = normalize_or_zero(boid.velocity);
    var desired = normalized_or(d, heading);
    let weight = k.heading.w;
    if (group != 0u && weight > 0.0) {
        var goal = k.goal1.XYZ;
        if (group == 2u) { goal = k.goal2.XYZ; }
        desired = normalized_or(desired + goal * weight, desired);
    }
    let push = boundary_steer(boid.position);
    if (!is_zero(push)) {
        desired = normalized_or(desired * speed + push, desired);
    }
    if (is_zero(desired)) {
        return Boid(boid.position, V(0.0), boid.bias);
    }
    if (k.heading.y != 0.0) {
        var stream = noise_stream(id);
        desired = add_noise(desired, &stream);
    }
    var turned = desired;
    if (!is_zero(heading)) { turned = turn_toward(heading, desired, k.heading.z); }
    let moved = move_boid(boid.position, turned * speed);
    return Boid(moved.position, moved.velocity, boid.bias);
}

fn finite(v: V) -> bool {
    let bits = bitcast<vec4<u32>>(widen(v));
    return all((bits & vec4<u32>(0x7f800000u)) != vec4<u32>(0x7f800000u));
}

var<workgroup> tally: array<vec3<u32>, 256>;

// Sums over the cells around the boid at `slot`, in a fixed order (cells z, y, x ascending,
// boids by id within a cell), then its new state, written at its id.
@compute @workgroup_size(256)
fn interact(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
            @builtin(local_invocation_index) local: u32) {
    let slot = linear(wg, groups, local);
    var candidates = 0u;
    var neighbours = 0u;
    var visited = 0u;
    if (slot < k.count) {
        let id = sorted_id[slot];
        let p = load(sorted_pos[slot]);
        let home = cell_coords(p);
        let n = axis_cells();
        var acc = Sums(0.0, V(0.0), V(0.0), V(0.0), V(0.0));
        let vicsek = k.heading_model.x == VICSEK;
        let include_self = has(INCLUDE_SELF);
        for (var dz = k.scan_lo.z; dz <= k.scan_hi.z; dz = dz + 1) {
            for (var dy = k.scan_lo.y; dy <= k.scan_hi.y; dy = dy + 1) {
                for (var dx = k.scan_lo.x; dx <= k.scan_hi.x; dx = dx + 1) {
                    var c = home + vec3<i32>(dx, dy, dz);
                    if (k.boundary == TORUS) {
                        c = (c + n) % n;
                    } else if (any(c < vec3<i32>(0)) || any(c >= n)) {
                        continue;
                    }
                    let cell = cell_index(c);
                    visited = visited + 1u;
                    let first = cell_start[cell];
                    let last = first + atomicLoad(&cell_count[cell]);
                    for (var t = first; t < last; t = t + 1u) {
                        let d = minimum_image(p - load(sorted_pos[t]));
                        let d2 = dot(d, d);
                        let is_self = t == slot;
                        candidates = candidates + 1u;
                        if (vicsek) {
                            // `vicsek::social_direction`: itself and every other within r.
                            let seen = d2 < k.visual_below;
                            if (seen || is_self) {
                                acc.heading_sum = acc.heading_sum
                                    + normalize_or_zero(load(sorted_vel[t]));
                            }
                            neighbours = neighbours + select(0u, 1u, seen && !is_self);
                            continue;
                        }
                        let averaged = d2 < k.visual_below && d2 >= k.unseen_below
                            && (include_self || !is_self);
                        let separated = d2 < k.protected_below;
                        if (averaged) {
                            acc.count = acc.count + 1.0;
                            acc.offset_sum = acc.offset_sum - d;
                            acc.velocity_sum = acc.velocity_sum + load(sorted_vel[t]);
                        }
                        if (separated) { acc.separation = acc.separation + d; }
                        neighbours = neighbours + select(0u, 1u, !is_self && (averaged || separated));
                    }
                }
            }
        }
        neighbours_of[id] = neighbours;
        let boid = Boid(p, load(sorted_vel[slot]), bias_in[id]);
        var next = advance(acc, boid, group_of[id]);
        if (vicsek) { next = steer_heading(acc.heading_sum, boid, group_of[id], id); }
        pos_out[id] = store(next.position);
        vel_out[id] = store(next.velocity);
        bias_out[id] = next.bias;
        if (!finite(next.position) || !finite(next.velocity)) {
            atomicMin(&report[0], this_step.index);
        }
    }
    tally[local] = vec3<u32>(candidates, neighbours, visited);
    workgroupBarrier();
    if (local == 0u) {
        var sum = vec3<u32>(0u);
        for (var i = 0u; i < WORKGROUP; i = i + 1u) { sum = sum + tally[i]; }
        let at = 1u + 3u * (wg.y * groups.x + wg.x);
        atomicStore(&report[at], sum.x);
        atomicStore(&report[at + 1u], sum.y);
        atomicStore(&report[at + 2u], sum.z);
    }
}
