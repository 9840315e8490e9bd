//! The simulation: flock state in cell order, and the synchronous step.
//!
//! Each step (1) bins boids into grid cells and (2) sorts them by counting sort ([`grid`]),
//! (3) gathers their data into cell order, (4) computes every boid's new state from the gathered
//! previous frame into the state buffers. Every phase is O(n) and runs in parallel. Reads and
//! writes never share a buffer, so the result does not depend on boid order or thread count.
//!
//! **Canonical sums.** A boid's candidates lie in at most six contiguous spans of cell-ordered
//! data (its 3x3 block of cells, merged row by row by [`GridGeometry::neighbor_runs`]). Each span
//! is scanned [`LANES`] candidates at a time into `LANES` partial sums, lane `l` taking the
//! candidates at `l`, `l + LANES`, ... of the span, and the partial sums are added pairwise in
//! a fixed pattern at the end. That order is fixed by the cell contents (cells in a fixed order,
//! ascending id within a cell) and the grid, never by storage order, chunking, thread count or
//! the machine's vector width, so a flock restored from a file in id order continues
//! bit-identically, on any machine.
//!
//! **Why lanes.** The per-candidate work is a handful of arithmetic operations and two range
//! tests; written as `LANES` independent accumulators with the tests turned into 0/1 weights (no
//! `if` in the loop), the compiler keeps everything in vector registers and processes a block
//! of candidates per instruction. Lanes past the end of a span read the next span's data (or
//! the padding after the last boid) and are masked out. The loop is compiled for AVX2 and
//! AVX-512 too and the best version chosen at run time (see `interact_chunk`).
//!
//! [`grid`]: crate::grid

use std::time::{Duration, Instant};

use glam::Vec2;

use crate::error::StateError;
use crate::grid::{CellIndex, GridGeometry, reserve_to};
use crate::par;
use crate::params::{MAX_COUNT, Params};
use crate::rng::{self, Purpose};
use crate::rules::{self, Accum, BoidState, Kernel, RuleVectors, group};

/// A flock in boid-id order: what is saved, loaded and measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlockState {
    /// Positions.
    pub positions: Vec<Vec2>,
    /// Velocities.
    pub velocities: Vec<Vec2>,
    /// Scout groups ([`group::NONE`], [`group::RIGHT`], [`group::LEFT`]).
    pub groups: Vec<u8>,
    /// Scout biases (zero for non-scouts).
    pub biases: Vec<f32>,
}

impl FlockState {
    /// Number of boids.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the flock is empty.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The initial flock of `params` for `seed`: boid `id` draws its position and velocity from
    /// its own stream, uniformly from the `init_*` intervals.
    pub fn initial(params: &Params, seed: u64) -> Self {
        let draws = par::map_collect(params.count, |id| {
            let mut s = rng::stream(seed, Purpose::Init, 0, id as u64);
            let p = Vec2::new(
                s.uniform(params.init_x) as f32,
                s.uniform(params.init_y) as f32,
            );
            let v = Vec2::new(
                s.uniform(params.init_vx) as f32,
                s.uniform(params.init_vy) as f32,
            );
            (p, v)
        });
        let (positions, velocities) = draws.into_iter().unzip();
        let groups = scout_groups(params);
        let kernel = Kernel::new(params);
        let biases = groups.iter().map(|&g| kernel.initial_bias(g)).collect();
        Self {
            positions,
            velocities,
            groups,
            biases,
        }
    }
}

/// Scout groups by id: the first `scout_group1_fraction` of ids scout toward +x, the next
/// `scout_group2_fraction` toward -x. (Positions are independent of ids, so this is as random as
/// a draw, and the counts are exact.)
pub fn scout_groups(params: &Params) -> Vec<u8> {
    let n = params.count;
    let right = (params.scout_group1_fraction * n as f64).round() as usize;
    let left = ((params.scout_group2_fraction * n as f64).round() as usize).min(n - right.min(n));
    (0..n)
        .map(|id| match id {
            id if id < right => group::RIGHT,
            id if id < right + left => group::LEFT,
            _ => group::NONE,
        })
        .collect()
}

/// Wall-clock time of each phase of the last step (for `boids bench`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    /// Cell of every boid and the boid count of every cell.
    pub bin: Duration,
    /// Placing boids in cell order, by id within a cell.
    pub sort: Duration,
    /// Gathering boid data into cell order.
    pub gather: Duration,
    /// Neighbour sums, rules and the move.
    pub interact: Duration,
}

impl PhaseTimes {
    /// Every phase with its name, in step order.
    pub fn named(&self) -> [(&'static str, Duration); 4] {
        [
            ("bin", self.bin),
            ("sort", self.sort),
            ("gather", self.gather),
            ("interact", self.interact),
        ]
    }

    /// The whole step.
    pub fn total(&self) -> Duration {
        self.named().iter().map(|(_, d)| *d).sum()
    }
}

/// Candidates the neighbour scan takes at a time (see the module notes). The same on every
/// machine, whatever its vector width, so that sums run in the same order everywhere.
pub const LANES: usize = 8;

/// The flock in storage order: what the accessors show and the step writes.
#[derive(Clone, Debug, Default)]
struct Buffers {
    pos: Vec<Vec2>,
    vel: Vec<Vec2>,
    bias: Vec<f32>,
}

/// The previous frame gathered into cell order, one array per coordinate, so that the scan
/// loads `LANES` consecutive candidates of a field at once. The coordinate arrays carry `LANES`
/// entries of padding, so a block of lanes starting at any boid stays inside them.
#[derive(Clone, Debug, Default)]
struct Gathered {
    x: Vec<f32>,
    y: Vec<f32>,
    vx: Vec<f32>,
    vy: Vec<f32>,
    bias: Vec<f32>,
}

/// A running flock.
#[derive(Clone, Debug)]
pub struct Simulation {
    params: Params,
    kernel: Kernel,
    seed: u64,
    step: u64,
    state: Buffers,
    previous: Gathered,
    group: Vec<u8>,
    id: Vec<u32>,
    group_scratch: Vec<u8>,
    id_scratch: Vec<u32>,
    index: CellIndex,
    times: PhaseTimes,
}

impl Simulation {
    /// A new flock drawn from `params`' initial distribution with `seed`.
    pub fn new(params: Params, seed: u64) -> Result<Self, StateError> {
        let state = FlockState::initial(&params, seed);
        Self::from_state(params, seed, state, 0)
    }

    /// Continues a flock from `state` (id order) at step `start_step`. Positions on a torus are
    /// wrapped into the world.
    pub fn from_state(
        params: Params,
        seed: u64,
        state: FlockState,
        start_step: u64,
    ) -> Result<Self, StateError> {
        check_state(&state)?;
        let n = state.len();
        let mut sim = Self {
            kernel: Kernel::new(&params),
            params,
            seed,
            step: start_step,
            state: Buffers::default(),
            previous: Gathered::default(),
            group: Vec::new(),
            id: Vec::new(),
            group_scratch: Vec::new(),
            id_scratch: Vec::new(),
            index: CellIndex::default(),
            times: PhaseTimes::default(),
        };
        sim.reserve(n)?;
        sim.load(state);
        Ok(sim)
    }

    /// Reserves every per-boid buffer up front, so a flock too big for memory fails here with a
    /// message instead of aborting mid-run.
    fn reserve(&mut self, n: usize) -> Result<(), StateError> {
        let oom = |_| StateError::OutOfMemory {
            count: n,
            bytes: n * BYTES_PER_BOID,
        };
        let g = &mut self.previous;
        for field in [&mut g.x, &mut g.y, &mut g.vx, &mut g.vy] {
            reserve_to(field, n + LANES).map_err(oom)?;
        }
        for field in [&mut self.state.pos, &mut self.state.vel] {
            reserve_to(field, n).map_err(oom)?;
        }
        for field in [&mut self.state.bias, &mut g.bias] {
            reserve_to(field, n).map_err(oom)?;
        }
        for field in [&mut self.group, &mut self.group_scratch] {
            reserve_to(field, n).map_err(oom)?;
        }
        for field in [&mut self.id, &mut self.id_scratch] {
            reserve_to(field, n).map_err(oom)?;
        }
        self.index.reserve(n, max_cells(n)).map_err(oom)?;
        Ok(())
    }

    fn load(&mut self, mut state: FlockState) {
        if self.params.is_torus() {
            let (min, size) = self.world();
            par::for_each_indexed(&mut state.positions, |_, p| *p = rules::wrap(*p, min, size));
        }
        self.state = Buffers {
            pos: state.positions,
            vel: state.velocities,
            bias: state.biases,
        };
        self.group = state.groups;
        self.id = (0..self.state.pos.len() as u32).collect();
    }

    fn world(&self) -> (Vec2, Vec2) {
        let p = &self.params;
        (
            Vec2::new(p.world_x_min as f32, p.world_y_min as f32),
            Vec2::new(p.world_width as f32, p.world_height as f32),
        )
    }

    /// The parameters in force.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The seed of the random streams.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Steps taken so far (counting from the start step).
    pub fn step_count(&self) -> u64 {
        self.step
    }

    /// Number of boids.
    pub fn len(&self) -> usize {
        self.id.len()
    }

    /// Whether the flock is empty (never, for a validated simulation).
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }

    /// Positions in storage order (cell order of the last step); see [`Simulation::ids`].
    pub fn positions(&self) -> &[Vec2] {
        &self.state.pos
    }

    /// Velocities in storage order.
    pub fn velocities(&self) -> &[Vec2] {
        &self.state.vel
    }

    /// Scout groups in storage order.
    pub fn groups(&self) -> &[u8] {
        &self.group
    }

    /// Boid ids in storage order: `ids()[k]` is the id of the boid stored at `k`.
    pub fn ids(&self) -> &[u32] {
        &self.id
    }

    /// Timing of the last step's phases.
    pub fn phase_times(&self) -> PhaseTimes {
        self.times
    }

    /// The flock in id order.
    pub fn state(&self) -> FlockState {
        let n = self.len();
        let mut slot_of_id = vec![0u32; n];
        for (slot, &id) in self.id.iter().enumerate() {
            slot_of_id[id as usize] = slot as u32;
        }
        let mut out = FlockState::default();
        par::gather(&mut out.positions, &self.state.pos, &slot_of_id);
        par::gather(&mut out.velocities, &self.state.vel, &slot_of_id);
        par::gather(&mut out.biases, &self.state.bias, &slot_of_id);
        par::gather(&mut out.groups, &self.group, &slot_of_id);
        out
    }

    /// The shared wandering heading at the current step (seed 004).
    pub fn wander_heading(&self) -> Vec2 {
        let p = &self.params;
        let turns = (self.step / p.wander_period) as f64;
        let angle = p.wander_angle + p.wander_turn * turns;
        Vec2::new(angle.cos() as f32, angle.sin() as f32)
    }

    /// Grid geometry for the given positions under the current parameters.
    pub fn geometry(params: &Params, positions: &[Vec2]) -> GridGeometry {
        let max_cells = max_cells(positions.len());
        if params.is_torus() {
            GridGeometry::torus(
                [params.world_x_min, params.world_y_min],
                [params.world_width, params.world_height],
                params.visual_range,
                max_cells,
            )
        } else {
            GridGeometry::bounding(positions, params.visual_range, max_cells)
        }
    }

    /// Advances the flock by one time step.
    pub fn step(&mut self) {
        let start = Instant::now();
        if !self.params.uses_fast_path() {
            // Vicsek, Couzin, k nearest or a blind angle: the general path, in id order.
            let next = crate::models::step(&self.params, self.seed, self.step, &self.state());
            self.load(next);
            self.step += 1;
            self.times = PhaseTimes {
                interact: start.elapsed(),
                ..PhaseTimes::default()
            };
            return;
        }
        let geometry = Self::geometry(&self.params, &self.state.pos);
        self.index.bin(&geometry, &self.state.pos);
        let binned = Instant::now();
        self.index.sort(&self.id);
        let sorted = Instant::now();
        self.gather();
        let gathered = Instant::now();
        self.interact(&geometry);
        self.step += 1;
        self.times = PhaseTimes {
            bin: binned - start,
            sort: sorted - binned,
            gather: gathered - sorted,
            interact: gathered.elapsed(),
        };
    }

    /// Copies the flock into cell order: coordinates into [`Gathered`], groups and ids into
    /// their scratch arrays, which then become the current ones (the step writes the new state
    /// in this order).
    fn gather(&mut self) {
        let n = self.len();
        let order = &self.index.order[..n];
        let (pos, vel, bias) = (&self.state.pos, &self.state.vel, &self.state.bias);
        let (group, id) = (&self.group, &self.id);
        let g = &mut self.previous;
        for field in [&mut g.x, &mut g.y, &mut g.vx, &mut g.vy] {
            field.resize(n + LANES, 0.0);
        }
        g.bias.resize(n, 0.0);
        self.group_scratch.resize(n, 0);
        self.id_scratch.resize(n, 0);
        let fields = (
            &mut g.x[..n],
            &mut g.y[..n],
            &mut g.vx[..n],
            &mut g.vy[..n],
            &mut g.bias[..],
            &mut self.group_scratch[..],
            &mut self.id_scratch[..],
        );
        par::for_each_part(fields, |start, (x, y, vx, vy, b, gr, ids)| {
            let order = &order[start..start + x.len()];
            for (k, &i) in order.iter().enumerate() {
                let i = i as usize;
                (x[k], y[k], vx[k], vy[k]) = (pos[i].x, pos[i].y, vel[i].x, vel[i].y);
                (b[k], gr[k], ids[k]) = (bias[i], group[i], id[i]);
            }
        });
        std::mem::swap(&mut self.group, &mut self.group_scratch);
        std::mem::swap(&mut self.id, &mut self.id_scratch);
    }

    /// New state of every boid from the gathered previous frame.
    fn interact(&mut self, geometry: &GridGeometry) {
        let n = self.len();
        self.state.pos.resize(n, Vec2::ZERO);
        self.state.vel.resize(n, Vec2::ZERO);
        self.state.bias.resize(n, 0.0);
        let job = Interaction {
            prev: &self.previous,
            geometry,
            cell_start: &self.index.cell_start,
            groups: &self.group,
            kernel: &self.kernel,
            wander: self.wander_heading(),
            visual_below: self.kernel.visual_below,
            protected_below: self.kernel.protected_below,
            include_self: self.params.include_self,
            exclude_protected: self.params.exclude_protected,
            wrap: geometry.pairwise_wrap(),
        };
        let Buffers { pos, vel, bias } = &mut self.state;
        par::for_each_part(
            (&mut pos[..], &mut vel[..], &mut bias[..]),
            |start, (pos, vel, bias)| {
                if job.wrap == Vec2::ZERO {
                    interact_chunk::<false>(&job, start, pos, vel, bias);
                } else {
                    interact_chunk::<true>(&job, start, pos, vel, bias);
                }
            },
        );
    }

    /// Replaces the parameters while the flock runs (the live viewer's sliders). The flock keeps
    /// its state; boids are added (drawn from the initial distribution) or removed (highest ids
    /// first) to match `count`, and scout groups are reassigned when their fractions change.
    pub fn set_params(&mut self, params: Params) -> Result<(), StateError> {
        let mut state = self.state();
        let n = params.count;
        if n != state.len() {
            let fresh = FlockState::initial(&params, self.seed);
            state.positions.resize(n, Vec2::ZERO);
            state.velocities.resize(n, Vec2::ZERO);
            for id in self.len().min(n)..n {
                state.positions[id] = fresh.positions[id];
                state.velocities[id] = fresh.velocities[id];
            }
        }
        let kernel = Kernel::new(&params);
        let groups = scout_groups(&params);
        let biases = (0..n)
            .map(|id| match (state.groups.get(id), state.biases.get(id)) {
                (Some(&old), Some(&bias)) if old == groups[id] => bias,
                _ => kernel.initial_bias(groups[id]),
            })
            .collect();
        state.groups = groups;
        state.biases = biases;
        self.reserve(n)?;
        self.params = params;
        self.kernel = kernel;
        self.load(state);
        Ok(())
    }

    /// The weighted rule vectors of every boid in storage order, for the current state: what the
    /// debug overlays draw.
    pub fn rule_vectors(&self) -> Vec<RuleVectors> {
        let search = NeighborSearch::new(&self.params, &self.state.pos, &self.id);
        par::map_collect(self.len(), |i| {
            let mut acc = Accum::default();
            search.for_each_candidate(i, |j, d| {
                acc.add(&self.kernel, d, self.state.vel[j], j == i)
            });
            RuleVectors::new(&self.kernel, &acc, self.state.vel[i])
        })
    }
}

/// Bytes of per-boid state the simulation holds (both frames, ids and groups twice, the cell
/// and order of the index).
pub const BYTES_PER_BOID: usize = 2 * (8 + 8 + 4) + 2 * (4 + 1) + 4 + 4;

/// Everything the step's last phase reads.
struct Interaction<'a> {
    prev: &'a Gathered,
    geometry: &'a GridGeometry,
    cell_start: &'a [u32],
    groups: &'a [u8],
    kernel: &'a Kernel,
    wander: Vec2,
    visual_below: f32,
    protected_below: f32,
    include_self: bool,
    exclude_protected: bool,
    /// Per-pair minimum-image wrap (single-cell torus axes), else zero.
    wrap: Vec2,
}

/// New state of boids `start..start + pos.len()` (cell order) into `pos`, `vel`, `bias`.
/// `PAIRWISE`: some torus axis is a single cell, and offsets take the minimum image per pair.
///
/// Compiled for the baseline target and again for AVX2 and AVX-512 (Ice Lake / Zen 4 class;
/// its 32 vector and 8 mask registers hold the whole loop, about a quarter faster than AVX2),
/// the best chosen at run time: the lane loops then run eight candidates per instruction. Every
/// version performs the same IEEE operations in the same order (Rust never fuses a multiply
/// and an add unless asked), so all give bit-identical results.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl", "x86_64+avx2"))]
fn interact_chunk<const PAIRWISE: bool>(
    job: &Interaction,
    start: usize,
    pos: &mut [Vec2],
    vel: &mut [Vec2],
    bias: &mut [f32],
) {
    let Interaction {
        prev, cell_start, ..
    } = *job;
    let end = start + pos.len();
    // The cell holding boid `start`: the last one starting at or before it.
    let mut cell = cell_start.partition_point(|&s| s as usize <= start) - 1;
    let mut cell_end = 0;
    let mut spans: [_; 6] = std::array::from_fn(|_| (0..0, Vec2::ZERO));
    let mut len = 0;
    // Sums for a batch of boids first, then their moves: each move is a long chain of
    // dependent operations (square root, divisions), and a batch of independent chains side by
    // side lets the processor overlap them instead of waiting on each in turn.
    let mut sums = [Accum::default(); BATCH];
    for first in (start..end).step_by(BATCH) {
        let batch = first..(first + BATCH).min(end);
        for (sum, k) in sums.iter_mut().zip(batch.clone()) {
            if k >= cell_end {
                while cell_start[cell + 1] as usize <= k {
                    cell += 1;
                }
                cell_end = cell_start[cell + 1] as usize;
                let runs;
                (runs, len) = job.geometry.neighbor_runs(cell as u32);
                for (span, run) in spans.iter_mut().zip(&runs[..len]) {
                    let cells = run.first as usize..run.end as usize;
                    *span = (
                        cell_start[cells.start] as usize..cell_start[cells.end] as usize,
                        run.shift,
                    );
                }
            }
            let p = Vec2::new(prev.x[k], prev.y[k]);
            let mut lanes = Lanes::default();
            for (span, shift) in &spans[..len] {
                // Subtracting a zero shift changes no bits: skip it.
                if *shift == Vec2::ZERO {
                    lanes.scan::<PAIRWISE, false>(job, span.clone(), k, p, *shift);
                } else {
                    lanes.scan::<PAIRWISE, true>(job, span.clone(), k, p, *shift);
                }
            }
            *sum = lanes.sum();
        }
        for (sum, k) in sums.iter().zip(batch) {
            let boid = BoidState {
                position: Vec2::new(prev.x[k], prev.y[k]),
                velocity: Vec2::new(prev.vx[k], prev.vy[k]),
                bias: prev.bias[k],
            };
            let next = rules::advance(job.kernel, sum, boid, job.groups[k], job.wander);
            let out = k - start;
            (pos[out], vel[out], bias[out]) = (next.position, next.velocity, next.bias);
        }
    }
}

/// Boids whose neighbour sums are taken before any of them moves (see [`interact_chunk`]).
const BATCH: usize = 16;

/// Lane numbers, for the masks of a block of candidates.
const LANE: [i32; LANES] = {
    let mut lane = [0; LANES];
    let mut l = 0;
    while l < LANES {
        lane[l] = l as i32;
        l += 1;
    }
    lane
};

/// `LANES` partial sums of each field of [`Accum`].
#[derive(Default)]
struct Lanes {
    count: [f32; LANES],
    offset_x: [f32; LANES],
    offset_y: [f32; LANES],
    velocity_x: [f32; LANES],
    velocity_y: [f32; LANES],
    separation_x: [f32; LANES],
    separation_y: [f32; LANES],
}

impl Lanes {
    /// Adds the candidates `span` (cell-ordered indices) for boid `me` at `p`, whose offsets
    /// take `shift` off: the sums of [`Accum::add`], `LANES` candidates at a time. The range
    /// tests become 0/1 weights that multiply what is added: multiplying by a weight cannot be
    /// turned back into a branch or a masked store, so the loop body stays straight vector code.
    #[inline(always)]
    fn scan<'a, const PAIRWISE: bool, const SHIFTED: bool>(
        &mut self,
        job: &Interaction<'a>,
        span: std::ops::Range<usize>,
        me: usize,
        p: Vec2,
        shift: Vec2,
    ) {
        let prev = job.prev;
        let blocks = span.len().div_ceil(LANES);
        let window = span.start..span.start + blocks * LANES;
        let blocks_of = |field: &'a [f32]| field[window.clone()].as_chunks::<LANES>().0;
        let (xs, ys) = (blocks_of(&prev.x), blocks_of(&prev.y));
        let (vxs, vys) = (blocks_of(&prev.vx), blocks_of(&prev.vy));
        // Candidate positions within the span, as small signed integers so that the masks
        // stay in 32-bit lanes: lanes at or past `len` are not candidates, and the lane at
        // `me_at` is the boid itself (none when the boid is in its own averages).
        let len = span.len() as i32;
        let me_at = if job.include_self {
            -1
        } else {
            me as i32 - span.start as i32
        };
        // Protected neighbours are left out of the averages below this squared distance (zero:
        // none, as no squared distance is below zero).
        let unseen_below = if job.exclude_protected {
            job.protected_below
        } else {
            0.0
        };
        let mut first = 0;
        for (((x, y), vx), vy) in xs.iter().zip(ys).zip(vxs).zip(vys) {
            for l in 0..LANES {
                let at = first + LANE[l];
                let mut d = Vec2::new(p.x - x[l], p.y - y[l]);
                if SHIFTED {
                    d -= shift;
                }
                if PAIRWISE {
                    d = rules::minimum_image(d, job.wrap);
                }
                let d2 = d.x * d.x + d.y * d.y;
                let valid = at < len;
                let averaged =
                    valid & (d2 < job.visual_below) & (d2 >= unseen_below) & (at != me_at);
                let separated = valid & (d2 < job.protected_below);
                let w_avg = if averaged { 1.0 } else { 0.0 };
                let w_sep = if separated { 1.0 } else { 0.0 };
                self.count[l] += w_avg;
                self.offset_x[l] -= d.x * w_avg;
                self.offset_y[l] -= d.y * w_avg;
                self.velocity_x[l] += vx[l] * w_avg;
                self.velocity_y[l] += vy[l] * w_avg;
                self.separation_x[l] += d.x * w_sep;
                self.separation_y[l] += d.y * w_sep;
            }
            first += LANES as i32;
        }
    }

    /// The partial sums added pairwise: lane `l` to lane `l + LANES / 2`, and so on by halves
    /// (a fixed order, which vectorises).
    #[inline(always)]
    fn sum(&self) -> Accum {
        let total = |lanes: &[f32; LANES]| {
            let half: [f32; LANES / 2] = std::array::from_fn(|l| lanes[l] + lanes[l + LANES / 2]);
            let quarter: [f32; LANES / 4] = std::array::from_fn(|l| half[l] + half[l + LANES / 4]);
            quarter[0] + quarter[1]
        };
        Accum {
            count: total(&self.count),
            offset_sum: Vec2::new(total(&self.offset_x), total(&self.offset_y)),
            velocity_sum: Vec2::new(total(&self.velocity_x), total(&self.velocity_y)),
            separation: Vec2::new(total(&self.separation_x), total(&self.separation_y)),
        }
    }
}

/// Most grid cells for `n` boids: cells are capped near the boid count, so a straggler far
/// from an open-world flock cannot blow up the index.
fn max_cells(n: usize) -> usize {
    2 * n + 64
}

fn check_state(state: &FlockState) -> Result<(), StateError> {
    let n = state.len();
    if n == 0 || n > MAX_COUNT {
        return Err(StateError::Count {
            count: n,
            max: MAX_COUNT,
        });
    }
    let lengths = [
        state.velocities.len(),
        state.groups.len(),
        state.biases.len(),
    ];
    if lengths.iter().any(|&l| l != n) {
        return Err(StateError::Ragged {
            what: format!(
                "positions {n}, velocities {}, groups {}, biases {}",
                lengths[0], lengths[1], lengths[2]
            ),
        });
    }
    let bad = |index, field, value: String, allowed: &str| {
        Err(StateError::BadValue {
            index,
            field,
            value,
            allowed: allowed.to_owned(),
        })
    };
    for i in 0..n {
        let (p, v) = (state.positions[i], state.velocities[i]);
        if !p.is_finite() {
            return bad(i, "position", format!("{p}"), "finite numbers");
        }
        if !v.is_finite() {
            return bad(i, "velocity", format!("{v}"), "finite numbers");
        }
        if state.groups[i] > group::LEFT {
            return bad(
                i,
                "group",
                state.groups[i].to_string(),
                "0 (none), 1 (+x) or 2 (-x)",
            );
        }
        if !(0.0..=1.0).contains(&state.biases[i]) {
            return bad(i, "bias", state.biases[i].to_string(), "a number in [0, 1]");
        }
    }
    Ok(())
}

/// An exact neighbour search over positions in any order (metrics, overlays, tests). The hot
/// loop of [`Simulation::step`] does the same scan on gathered data instead.
pub struct NeighborSearch<'a> {
    geometry: GridGeometry,
    index: CellIndex,
    positions: &'a [Vec2],
}

impl<'a> NeighborSearch<'a> {
    /// Indexes `positions` (with their `ids`, for the canonical order) under `params`.
    pub fn new(params: &Params, positions: &'a [Vec2], ids: &[u32]) -> Self {
        let geometry = Simulation::geometry(params, positions);
        let mut index = CellIndex::default();
        index.rebuild(&geometry, positions, ids);
        Self {
            geometry,
            index,
            positions,
        }
    }

    /// Calls `f(j, d)` for every boid `j` in the 3x3 block of cells around boid `i` (itself
    /// included), with `d = p_i - p_j` as the minimum image. Every boid within the visual range
    /// is among them; the caller applies the range test.
    #[inline]
    pub fn for_each_candidate(&self, i: usize, mut f: impl FnMut(usize, Vec2)) {
        let p = self.positions[i];
        let wrap = self.geometry.pairwise_wrap();
        let (cells, len) = self.geometry.neighbor_cells(self.geometry.cell_of(p));
        for neighbor in &cells[..len] {
            for &j in &self.index.order[self.index.span(neighbor.cell)] {
                let j = j as usize;
                f(
                    j,
                    rules::minimum_image(p - self.positions[j] - neighbor.shift, wrap),
                );
            }
        }
    }

    /// Distance from boid `i` to its nearest other boid (minimum image on a torus), or infinity
    /// when it is alone. Searches rings of cells outward until no closer boid can remain.
    pub fn nearest_distance(&self, i: usize) -> f32 {
        let p = self.positions[i];
        let wrap = self.geometry.torus_size().unwrap_or(Vec2::ZERO);
        let home = self.geometry.cell_of(p);
        let mut best = f32::INFINITY;
        for ring in 0..=self.geometry.max_ring() {
            self.geometry.for_each_cell_in_ring(home, ring, |cell| {
                for &j in &self.index.order[self.index.span(cell)] {
                    if j as usize != i {
                        let d = rules::minimum_image(p - self.positions[j as usize], wrap);
                        best = best.min(d.length());
                    }
                }
            });
            if f64::from(best) <= f64::from(ring) * self.geometry.min_cell_width() {
                break;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The lane scan adds up exactly the candidates `Accum::add` would, for spans of any length
    /// and alignment, with the boid itself inside or outside the span, for every combination of
    /// the averaging choices, with and without per-pair wrapping.
    #[test]
    fn lane_scan_sums_what_accum_adds() {
        let n = 120;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let mut random = || rng.random::<f32>();
        let mut field =
            |scale: f32| -> Vec<f32> { (0..n + LANES).map(|_| (random() - 0.5) * scale).collect() };
        let prev = Gathered {
            x: field(100.0),
            y: field(100.0),
            vx: field(4.0),
            vy: field(4.0),
            bias: vec![0.0; n],
        };
        let mut p = Params::preset("cornell").unwrap();
        let geometry = Simulation::geometry(&p, &[Vec2::ZERO, Vec2::splat(30.0)]);
        for (include_self, exclude_protected, wrap) in [
            (false, true, Vec2::ZERO),
            (true, false, Vec2::ZERO),
            (true, true, Vec2::new(25.0, 0.0)),
            (false, false, Vec2::new(0.0, 25.0)),
        ] {
            (p.include_self, p.exclude_protected) = (include_self, exclude_protected);
            let kernel = Kernel::new(&p);
            let job = Interaction {
                prev: &prev,
                geometry: &geometry,
                cell_start: &[],
                groups: &[],
                kernel: &kernel,
                wander: Vec2::ZERO,
                visual_below: kernel.visual_below,
                protected_below: kernel.protected_below,
                include_self,
                exclude_protected,
                wrap,
            };
            let spans = [(0, 0, 0), (3, 1, 3), (5, 17, 9), (40, 24, 2), (64, 56, 119)];
            for ((start, len, me), shift) in spans.into_iter().zip([
                Vec2::ZERO,
                Vec2::new(1.5, -2.0),
                Vec2::ZERO,
                Vec2::new(0.0, 60.0),
                Vec2::ZERO,
            ]) {
                let span = start..start + len;
                let pos = |j: usize| Vec2::new(prev.x[j], prev.y[j]);
                let mut lanes = Lanes::default();
                let (p, s) = (pos(me), span.clone());
                match (wrap == Vec2::ZERO, shift == Vec2::ZERO) {
                    (true, true) => lanes.scan::<false, false>(&job, s, me, p, shift),
                    (true, false) => lanes.scan::<false, true>(&job, s, me, p, shift),
                    (false, true) => lanes.scan::<true, false>(&job, s, me, p, shift),
                    (false, false) => lanes.scan::<true, true>(&job, s, me, p, shift),
                }
                let got = lanes.sum();
                let mut want = Accum::default();
                for j in span {
                    let d = rules::minimum_image(pos(me) - pos(j) - shift, wrap);
                    want.add(&kernel, d, Vec2::new(prev.vx[j], prev.vy[j]), j == me);
                }
                let case = format!("{include_self} {exclude_protected} {wrap} {start}+{len}");
                assert_eq!(got.count, want.count, "{case}");
                for (a, b) in [
                    (got.offset_sum, want.offset_sum),
                    (got.velocity_sum, want.velocity_sum),
                    (got.separation, want.separation),
                ] {
                    assert!(
                        (a - b).length() <= 1e-4 * (1.0 + b.length()),
                        "{case}: {a} {b}"
                    );
                }
            }
        }
    }
}
