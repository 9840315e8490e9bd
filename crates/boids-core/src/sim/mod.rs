//! The simulation: flock state in cell order, and the synchronous step.
//!
//! Each step (1) bins boids into grid cells, (2) moves them and their data into cell order by
//! counting sort ([`grid`]), and (3) computes every boid's new state from that previous frame
//! into the state buffers. Every phase is O(n) and runs in parallel. Reads and writes never
//! share a buffer, so the result does not depend on boid order or thread count.
//!
//! The last phase, the hot loop, is in [`interact`]: how it scans, and why its sums come out
//! the same on any thread count and machine.
//!
//! [`grid`]: crate::grid
//! [`interact`]: crate::interact

use std::time::Instant;

use crate::error::StateError;
use crate::grid::{self, CellIndex, Destination, GridGeometry, reserve_to};
use crate::interact::{Frame, Interaction, LANES, Pull};
use crate::par::{self, Split};
use crate::params::{MAX_COUNT, Params};
use crate::rules::{self, Kernel, group};
use crate::space::{self, Coordinates, Dim, Dimension, VecN};
use crate::state::FlockState;
use crate::stats::{PhaseTimes, ScanCounts, StepStats};
use crate::world::{Hunt, ObstaclePass, Predator};
// Kept at this path too: the command and the engine tests name it here.
pub use crate::state::scout_groups;
use force::Force;
pub use world::WorldStep;
use world::obstacle_index;

mod force;
mod world;

/// The step's sort destination: the boids of [`Stored`] in cell order, in the previous
/// [`Frame`] and the group and id arrays.
struct IntoFrame<'a, const D: usize>
where
    Dim<D>: Dimension<D>,
{
    from: Stored<'a, D>,
    boid: &'a mut [[[f32; D]; 2]],
    bias: &'a mut [f32],
    group: &'a mut [u8],
    id: &'a mut [u32],
}

/// The flock as stored before the sort.
struct Stored<'a, const D: usize>
where
    Dim<D>: Dimension<D>,
{
    pos: &'a [VecN<D>],
    vel: &'a [VecN<D>],
    bias: &'a [f32],
    group: &'a [u8],
    id: &'a [u32],
}

impl<const D: usize> Clone for Stored<'_, D>
where
    Dim<D>: Dimension<D>,
{
    fn clone(&self) -> Self {
        *self
    }
}

impl<const D: usize> Copy for Stored<'_, D> where Dim<D>: Dimension<D> {}

impl<const D: usize> Split for IntoFrame<'_, D>
where
    Dim<D>: Dimension<D>,
{
    fn len(&self) -> usize {
        self.boid.len()
    }

    fn split_at(self, mid: usize) -> (Self, Self) {
        let (from, parts) = (self.from, (self.boid, self.bias, self.group, self.id));
        let ((boid_a, bias_a, group_a, id_a), (boid_b, bias_b, group_b, id_b)) =
            parts.split_at(mid);
        let part = |boid, bias, group, id| IntoFrame {
            from,
            boid,
            bias,
            group,
            id,
        };
        (
            part(boid_a, bias_a, group_a, id_a),
            part(boid_b, bias_b, group_b, id_b),
        )
    }
}

impl<const D: usize> Destination for IntoFrame<'_, D>
where
    Dim<D>: Dimension<D>,
{
    #[inline]
    fn put(&mut self, slot: usize, boid: usize) {
        let Stored {
            pos,
            vel,
            bias,
            group,
            id,
        } = self.from;
        self.boid[slot] = [pos[boid].into(), vel[boid].into()];
        self.bias[slot] = bias[boid];
        self.group[slot] = group[boid];
        self.id[slot] = id[boid];
    }

    #[inline]
    fn id(&self, slot: usize) -> u32 {
        self.id[slot]
    }

    fn warm(&self) {
        grid::warm(self.boid);
        grid::warm(self.bias);
        grid::warm(self.group);
        grid::warm(self.id);
    }

    /// One loop over the few slots between, instead of a rotation of each array.
    #[inline]
    fn move_back(&mut self, from: usize, to: usize) {
        let moved = (
            self.boid[from],
            self.bias[from],
            self.group[from],
            self.id[from],
        );
        for slot in (to..from).rev() {
            self.boid[slot + 1] = self.boid[slot];
            self.bias[slot + 1] = self.bias[slot];
            self.group[slot + 1] = self.group[slot];
            self.id[slot + 1] = self.id[slot];
        }
        (self.boid[to], self.bias[to], self.group[to], self.id[to]) = moved;
    }
}

/// The flock in storage order: what the accessors show and the step writes.
#[derive(Clone, Debug, Default)]
struct Buffers<const D: usize>
where
    Dim<D>: Dimension<D>,
{
    pos: Vec<VecN<D>>,
    vel: Vec<VecN<D>>,
    bias: Vec<f32>,
}

/// A running flock in a world of `D` dimensions (2 or 3).
#[derive(Clone, Debug)]
pub struct Simulation<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    params: Params,
    kernel: Kernel<D>,
    seed: u64,
    step: u64,
    state: Buffers<D>,
    previous: Frame<D>,
    group: Vec<u8>,
    id: Vec<u32>,
    group_scratch: Vec<u8>,
    id_scratch: Vec<u32>,
    index: CellIndex,
    stats: StepStats,
    /// What the obstacles do to a step; `None` without obstacles (the step skips the pass).
    obstacles: Option<ObstaclePass<D>>,
    /// The predators, in index order.
    predators: Vec<Predator<D>>,
    /// A predator the viewer's pointer moves (not hunting by itself, not saved); boids fear
    /// and it catches like the others.
    pointer: Option<Predator<D>>,
    /// How predators move.
    hunt: Hunt<D>,
    /// Steps each boid (storage order) still rests; empty unless perching is on, which takes
    /// the general path, where storage order is id order.
    resting: Vec<u32>,
    /// Boids caught in the last step.
    captures: u64,
}

impl<const D: usize> Simulation<D>
where
    Dim<D>: Dimension<D>,
    Self: WorldStep<D>,
{
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
        mut state: FlockState<D>,
        start_step: u64,
    ) -> Result<Self, StateError> {
        check_state(&params, &mut state, seed)?;
        let n = state.len();
        let mut sim = Self {
            kernel: Kernel::new(&params),
            hunt: Hunt::new(&params),
            seed,
            step: start_step,
            state: Buffers::default(),
            previous: Frame::default(),
            group: Vec::new(),
            id: Vec::new(),
            group_scratch: Vec::new(),
            id_scratch: Vec::new(),
            index: CellIndex::default(),
            stats: StepStats::default(),
            obstacles: None,
            predators: Vec::new(),
            pointer: None,
            resting: Vec::new(),
            captures: 0,
            params,
        };
        sim.reserve(n)?;
        sim.load(state);
        sim.obstacles = ObstaclePass::new(&sim.params);
        WorldStep::check_outside_obstacles(&sim)?;
        Ok(sim)
    }

    /// Reserves every per-boid buffer up front, so a flock too big for memory fails here with a
    /// message instead of aborting mid-run.
    fn reserve(&mut self, n: usize) -> Result<(), StateError> {
        let oom = |_| StateError::OutOfMemory {
            count: n,
            bytes: n * BYTES_PER_BOID,
        };
        reserve_to(&mut self.previous.boid, n + LANES).map_err(oom)?;
        reserve_to(&mut self.previous.bias, n + LANES).map_err(oom)?;
        for field in [&mut self.state.pos, &mut self.state.vel] {
            reserve_to(field, n).map_err(oom)?;
        }
        reserve_to(&mut self.state.bias, n).map_err(oom)?;
        for field in [&mut self.group, &mut self.group_scratch] {
            reserve_to(field, n).map_err(oom)?;
        }
        for field in [&mut self.id, &mut self.id_scratch] {
            reserve_to(field, n).map_err(oom)?;
        }
        self.index.reserve(n, max_cells(n)).map_err(oom)?;
        Ok(())
    }

    fn load(&mut self, mut state: FlockState<D>) {
        if self.params.is_torus() {
            let (min, size) = self.params.world_box::<D>();
            let (min, size) = (VecN::<D>::from(min), VecN::<D>::from(size));
            par::for_each_indexed(&mut state.positions, |_, p| *p = space::wrap(*p, min, size));
            for predator in &mut state.predators {
                predator.position = space::wrap(predator.position, min, size);
            }
        }
        self.predators = state.predators;
        self.resting = state.resting;
        self.state = Buffers {
            pos: state.positions,
            vel: state.velocities,
            bias: state.biases,
        };
        self.group = state.groups;
        self.id = (0..self.state.pos.len() as u32).collect();
    }
}

/// What a simulation shows of itself, in any dimension.
impl<const D: usize> Simulation<D>
where
    Dim<D>: Dimension<D>,
{
    /// The parameters in force.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The model's constants under the parameters in force: the one kernel of this
    /// simulation, which neighbour queries and overlays share with the step.
    pub fn kernel(&self) -> &Kernel<D> {
        &self.kernel
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
    pub fn positions(&self) -> &[VecN<D>] {
        &self.state.pos
    }

    /// Velocities in storage order.
    pub fn velocities(&self) -> &[VecN<D>] {
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

    /// The predators, in index order.
    pub fn predators(&self) -> &[Predator<D>] {
        &self.predators
    }

    /// The predator the viewer's pointer moves, if any.
    pub fn pointer(&self) -> Option<&Predator<D>> {
        self.pointer.as_ref()
    }

    /// Steps each boid still rests on the ground, in storage order (0: flying); empty when
    /// perching is off.
    pub fn resting(&self) -> &[u32] {
        &self.resting
    }

    /// Boids caught by predators in the last step.
    pub fn captures(&self) -> u64 {
        self.captures
    }

    /// What the last step reports about itself: its phases' times and its neighbour work.
    pub fn stats(&self) -> StepStats {
        self.stats
    }

    /// Timing of the last step's phases (`stats().times`).
    pub fn phase_times(&self) -> PhaseTimes {
        self.stats.times
    }

    /// The flock in id order.
    pub fn state(&self) -> FlockState<D> {
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
        if !self.resting.is_empty() {
            par::gather(&mut out.resting, &self.resting, &slot_of_id);
        }
        out.predators = self.predators.clone();
        out
    }

    /// Grid geometry for the given positions under the current parameters: cells a visual
    /// range high and half of one wide ([`COLUMNS_PER_RANGE`]).
    pub fn geometry(params: &Params, positions: &[VecN<D>]) -> GridGeometry<D> {
        let max_cells = max_cells(positions.len());
        let (radius, columns) = (params.visual_range, COLUMNS_PER_RANGE);
        if params.is_torus() {
            let (min, size) = params.world_axes::<D>();
            GridGeometry::torus(min, size, radius, columns, max_cells)
        } else {
            GridGeometry::bounding(positions, radius, columns, max_cells)
        }
    }
}

impl<const D: usize> Simulation<D>
where
    Dim<D>: Dimension<D>,
    Self: WorldStep<D>,
{
    /// Advances the flock by one time step.
    ///
    /// The predators' pull on the boids (`WorldSteer`) and the predators' own move ([`Hunt`])
    /// are both taken from the state at the start of the step, then the boids move, then the
    /// predators catch what they reach (synchronous: no boid or predator sees another's new
    /// position within a step).
    pub fn step(&mut self) {
        self.advance(None);
    }

    /// Advances the flock by one time step with a force from outside the model: `force[id]` is
    /// a change of velocity of boid `id` this step (an acceleration times the time step, in
    /// the model's velocity units), added where the world's pull is added (`Force`: after
    /// the rules and the boundary, before the scouts' bias, the speed limits and the move).
    /// Refuses a force of another length than the flock or with a value that is not finite,
    /// and then leaves the flock as it was.
    pub fn step_with_force(&mut self, force: &[[f32; D]]) -> Result<(), StateError> {
        Force::check(force, self.len())?;
        self.advance(Some(force));
        Ok(())
    }

    /// One step, with `force` (by id) added to the world's pull when given.
    fn advance(&mut self, force: Option<&[[f32; D]]>) {
        let start = Instant::now();
        let world = WorldStep::world_steer(self);
        let world = world.as_ref().map(|w| w as &dyn Pull<D>);
        let forced = force.map(|dv| Force::new(world, dv));
        let pull = forced.as_ref().map(|f| f as &dyn Pull<D>).or(world);
        let hunted = WorldStep::hunt(self);
        let (times, counts) = if self.params.uses_fast_path() {
            self.step_fast(pull)
        } else {
            WorldStep::step_general(self, pull)
        };
        self.predators = hunted;
        self.captures = WorldStep::catch(self);
        self.step += 1;
        let times = PhaseTimes {
            interact: start.elapsed() - times.bin - times.sort,
            ..times
        };
        self.stats = StepStats { times, counts };
    }

    /// The grid fast path: bin, sort into cell order, interact.
    fn step_fast(&mut self, pull: Option<&dyn Pull<D>>) -> (PhaseTimes, ScanCounts) {
        let start = Instant::now();
        let geometry = Self::geometry(&self.params, &self.state.pos);
        self.index.bin(&geometry, &self.state.pos);
        let binned = Instant::now();
        self.sort();
        let sorted = Instant::now();
        let counts = self.interact(&geometry, pull);
        let frame = std::mem::take(&mut self.previous);
        WorldStep::pass_obstacles(self, |k| frame.boid[k][Frame::<D>::POSITION].into());
        self.previous = frame;
        let times = PhaseTimes {
            bin: binned - start,
            sort: sorted - binned,
            ..PhaseTimes::default()
        };
        (times, counts)
    }

    /// Moves the flock into cell order: coordinates into [`Frame`], groups and ids into their
    /// scratch arrays, which then become the current ones (the step writes the new state in
    /// this order). The counting sort copies each boid straight into its slot, reading storage
    /// order front to back, so no list of indices is written and read again.
    fn sort(&mut self) {
        let n = self.len();
        let frame = &mut self.previous;
        frame.boid.resize(n + LANES, [[0.0; D]; 2]);
        frame.bias.resize(n + LANES, 0.0);
        self.group_scratch.resize(n, 0);
        self.id_scratch.resize(n, 0);
        self.index.sort_into(IntoFrame {
            from: Stored {
                pos: &self.state.pos,
                vel: &self.state.vel,
                bias: &self.state.bias,
                group: &self.group,
                id: &self.id,
            },
            boid: &mut frame.boid[..n],
            bias: &mut frame.bias[..n],
            group: &mut self.group_scratch,
            id: &mut self.id_scratch,
        });
        std::mem::swap(&mut self.group, &mut self.group_scratch);
        std::mem::swap(&mut self.id, &mut self.id_scratch);
    }

    /// New state of every boid from the previous frame in cell order, and the scan's counts.
    fn interact(&mut self, geometry: &GridGeometry<D>, pull: Option<&dyn Pull<D>>) -> ScanCounts {
        let n = self.len();
        self.state.pos.resize(n, VecN::<D>::ZERO);
        self.state.vel.resize(n, VecN::<D>::ZERO);
        self.state.bias.resize(n, 0.0);
        let job = Interaction {
            prev: &self.previous,
            geometry,
            cell_start: &self.index.cell_start,
            groups: &self.group,
            ids: &self.id,
            kernel: &self.kernel,
            wander: rules::wander_heading::<D, VecN<D>>(&self.params, self.step).into(),
            world: pull,
        };
        let Buffers { pos, vel, bias } = &mut self.state;
        job.run(pos, vel, bias)
    }

    /// Replaces the parameters while the flock runs (the live viewer's sliders). The flock keeps
    /// its state; boids are added (drawn from the initial distribution) or removed (highest ids
    /// first) to match `count`, and scout groups are reassigned when their fractions change.
    pub fn set_params(&mut self, params: Params) -> Result<(), StateError> {
        check_dimensions::<D>(&params)?;
        let mut state = self.state();
        let n = params.count;
        if n != state.len() {
            let fresh = FlockState::<D>::initial(&params, self.seed);
            state.positions.resize(n, VecN::<D>::ZERO);
            state.velocities.resize(n, VecN::<D>::ZERO);
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
        let obstacles = ObstaclePass::new(&params);
        let index = obstacle_index(&params, obstacles.as_ref());
        let kept = state.predators.len().min(params.predator_count);
        state.predators.truncate(kept);
        state.predators.extend(
            (kept..params.predator_count)
                .map(|k| crate::state::predator_start(&params, &index, self.seed, k)),
        );
        state.resting.resize(if params.perch { n } else { 0 }, 0);
        self.reserve(n)?;
        if let Some(pass) = &obstacles {
            Self::push_out_of_obstacles(pass, &params, &index, self.seed, &mut state);
        }
        self.hunt = Hunt::new(&params);
        self.params = params;
        self.kernel = kernel;
        self.obstacles = obstacles;
        self.load(state);
        Ok(())
    }
}

/// Bytes of per-boid state the simulation holds (both frames, ids and groups twice, the cell
/// of each boid and the cell-start mark of each slot in the index).
pub const BYTES_PER_BOID: usize = 2 * (8 + 8 + 4) + 2 * (4 + 1) + 4 + 1;

/// Columns of cells across one visual range. The scan takes a group of boids with every
/// candidate of the rows of cells around it, from `COLUMNS_PER_RANGE` columns left of its first
/// boid's cell to as many right of its last; narrower cells cut that span closer to the group.
/// Two columns scan about 13% fewer candidates than one on a uniform flock of 25 neighbours a
/// boid (10.2 against 11.7 a boid); three scan 17% fewer, but the sort then spends more on the
/// extra cells than the scan saves.
pub const COLUMNS_PER_RANGE: u32 = 2;

/// Most grid cells for `n` boids: cells are capped near the boid count, so a straggler far
/// from an open-world flock cannot blow up the index.
fn max_cells(n: usize) -> usize {
    2 * n + 64
}

/// Refuses parameters of another dimension than the simulation's `D`.
fn check_dimensions<const D: usize>(params: &Params) -> Result<(), StateError> {
    match params.dimensions == D {
        true => Ok(()),
        false => Err(StateError::Dimensions {
            params: params.dimensions,
            simulation: D,
        }),
    }
}

/// Refuses a state that is ragged, holds a value no boid can have, or predators that do not
/// match `predator_count`; completes what a state may leave out (predators drawn afresh when
/// it has none, no boid resting when it has no countdowns).
fn check_state<const D: usize>(
    params: &Params,
    state: &mut FlockState<D>,
    seed: u64,
) -> Result<(), StateError>
where
    Dim<D>: Dimension<D>,
{
    check_dimensions::<D>(params)?;
    let n = state.len();
    if state.predators.is_empty() && params.predator_count > 0 {
        let obstacles = crate::obstacles::ObstacleIndex::of(params);
        state.predators = (0..params.predator_count)
            .map(|index| crate::state::predator_start(params, &obstacles, seed, index))
            .collect();
    }
    if state.predators.len() != params.predator_count {
        return Err(StateError::PredatorCount {
            found: state.predators.len(),
            expected: params.predator_count,
        });
    }
    for (index, predator) in state.predators.iter().enumerate() {
        for (field, value) in [
            ("position", predator.position),
            ("velocity", predator.velocity),
        ] {
            if !value.to_array().iter().all(|c| c.is_finite()) {
                let value = format!("{value}");
                return Err(StateError::BadPredator {
                    index,
                    field,
                    value,
                });
            }
        }
    }
    match (params.perch, state.resting.len()) {
        (false, _) => state.resting.clear(),
        (true, 0) => state.resting = vec![0; n],
        _ => {}
    }
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
        if params.perch { state.resting.len() } else { n },
    ];
    if lengths.iter().any(|&l| l != n) {
        return Err(StateError::Ragged {
            what: format!(
                "positions {n}, velocities {}, groups {}, biases {}, resting {}",
                lengths[0],
                lengths[1],
                lengths[2],
                state.resting.len()
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
        if !p.to_array().iter().all(|c| c.is_finite()) {
            return bad(i, "position", format!("{p}"), "finite numbers");
        }
        if !v.to_array().iter().all(|c| c.is_finite()) {
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
