//! The CPU engine: the grid path on every core. Each step (1) bins boids into grid cells,
//! (2) moves them and their data into cell order by counting sort ([`grid`]), and (3) computes
//! every boid's new state from that previous frame on the neighbour walk ([`walk`], the hot
//! loop: how it scans, and why its sums come out the same on any thread count and machine),
//! under the model's rules: the boids rules ([`interact`]), Vicsek and Couzin
//! ([`models::lanes`]), or any of them with k nearest neighbours ([`models::nearest`], on a
//! grid of its own). Every stage is O(n) and runs in parallel; reads and writes never share a
//! buffer, so the result does not depend on boid order or thread count.
//!
//! [`grid`]: crate::grid
//! [`walk`]: crate::walk
//! [`interact`]: crate::interact
//! [`models::lanes`]: crate::models::lanes
//! [`models::nearest`]: crate::models::nearest

use std::collections::TryReserveError;
use std::time::Instant;

use super::{Before, Engine, EngineFailure, EngineKind, FlockBuffers, GridStep};
use crate::grid::{self, CellIndex, Destination, GridGeometry, reserve_to};
use crate::interact::{self, Frame, Interaction, LANES};
use crate::models::lanes::{CouzinRule, VicsekRule};
use crate::models::nearest;
use crate::models::neighborhood::nearest_geometry;
use crate::par::Split;
use crate::params::{Model, Params};
use crate::rules;
use crate::space::{Coordinates, Dim, Dimension, VecN};
use crate::stats::{ScanCounts, Stage, StageTimes};

/// Columns of cells across one visual range. The scan takes a group of boids with every
/// candidate of the rows of cells around it, from `COLUMNS_PER_RANGE` columns left of its first
/// boid's cell to as many right of its last; narrower cells cut that span closer to the group.
/// Two columns scan about 13% fewer candidates than one on a uniform flock of 25 neighbours a
/// boid (10.2 against 11.7 a boid); three scan 17% fewer, but the sort then spends more on the
/// extra cells than the scan saves.
pub const COLUMNS_PER_RANGE: u32 = 2;

/// Bytes of per-boid state a simulation on the CPU engine holds (both frames, ids and groups
/// twice, the cell of each boid and the cell-start mark of each slot in the index).
pub const BYTES_PER_BOID: usize = 2 * (8 + 8 + 4) + 2 * (4 + 1) + 4 + 1;

/// Most grid cells for `n` boids: cells are capped near the boid count, so a straggler far
/// from an open-world flock cannot blow up the index.
pub fn max_cells(n: usize) -> usize {
    2 * n + 64
}

/// Grid geometry for `positions` under `params`: cells a visual range high and half of one
/// wide ([`COLUMNS_PER_RANGE`]), the grid of the step and of every neighbour question.
pub(crate) fn geometry<const D: usize>(params: &Params, positions: &[VecN<D>]) -> GridGeometry<D>
where
    Dim<D>: Dimension<D>,
{
    let max_cells = max_cells(positions.len());
    let (radius, columns) = (params.visual_range, COLUMNS_PER_RANGE);
    if params.is_torus() {
        let (min, size) = params.world_axes::<D>();
        GridGeometry::torus(min, size, radius, columns, max_cells)
    } else {
        GridGeometry::bounding(positions, radius, columns, max_cells)
    }
}

/// The grid of the step: [`geometry`]'s, or for k nearest neighbours cells sized for about
/// `k` boids a block ([`nearest_geometry`], which marks the cells that hold boids in
/// `occupied`).
fn step_geometry<const D: usize>(
    params: &Params,
    positions: &[VecN<D>],
    occupied: &mut Vec<bool>,
) -> GridGeometry<D>
where
    Dim<D>: Dimension<D>,
{
    match params.topological_k {
        0 => geometry(params, positions),
        _ => nearest_geometry(params, positions, nearest::cells::<D>(), occupied),
    }
}

/// The CPU engine's state between steps: the grid index and the previous frame in cell order,
/// with the scratch arrays the sort fills.
#[derive(Clone, Debug)]
pub struct CpuEngine<const D: usize>
where
    Dim<D>: Dimension<D>,
{
    index: CellIndex,
    previous: Frame<D>,
    group_scratch: Vec<u8>,
    id_scratch: Vec<u32>,
    /// The cells of a k-nearest grid that hold boids, as it is sized ([`step_geometry`]).
    occupied: Vec<bool>,
}

impl<const D: usize> Default for CpuEngine<D>
where
    Dim<D>: Dimension<D>,
{
    fn default() -> Self {
        Self {
            index: CellIndex::default(),
            previous: Frame::default(),
            group_scratch: Vec::new(),
            id_scratch: Vec::new(),
            occupied: Vec::new(),
        }
    }
}

impl<const D: usize> Engine<D> for CpuEngine<D>
where
    Dim<D>: Dimension<D>,
{
    fn kind(&self) -> EngineKind {
        EngineKind::Cpu
    }

    fn reserve(&mut self, n: usize) -> Result<(), TryReserveError> {
        reserve_to(&mut self.previous.boid, n + LANES)?;
        reserve_to(&mut self.previous.bias, n + LANES)?;
        reserve_to(&mut self.group_scratch, n)?;
        reserve_to(&mut self.id_scratch, n)?;
        self.index.reserve(n, max_cells(n))
    }

    fn step(
        &mut self,
        job: &GridStep<'_, D>,
        flock: &mut FlockBuffers<D>,
        times: &mut StageTimes,
    ) -> Result<ScanCounts, EngineFailure> {
        let start = Instant::now();
        let geometry = step_geometry(job.params, &flock.pos, &mut self.occupied);
        self.index.bin(&geometry, &flock.pos);
        times.add(Stage::Bin, start.elapsed());
        times.time(Stage::Sort, || {
            self.sort(flock);
            if job.params.model != Model::Boids {
                self.previous.make_headings();
            }
        });
        Ok(times.time(Stage::Interact, || self.interact(job, &geometry, flock)))
    }

    fn before(&self) -> Before<'_, D> {
        Before::Frame(&self.previous.boid)
    }

    fn undo(&mut self, flock: &mut FlockBuffers<D>) {
        let n = flock.len();
        let frame = &self.previous;
        for (k, &[position, velocity]) in frame.boid[..n].iter().enumerate() {
            (flock.pos[k], flock.vel[k]) = (position.into(), velocity.into());
        }
        flock.bias.copy_from_slice(&frame.bias[..n]);
    }

    fn boxed_clone(&self) -> Box<dyn Engine<D>> {
        Box::new(self.clone())
    }
}

impl<const D: usize> CpuEngine<D>
where
    Dim<D>: Dimension<D>,
{
    /// Moves the flock into cell order: coordinates into [`Frame`], groups and ids into their
    /// scratch arrays, which then become the flock's (the step writes the new state in this
    /// order). The counting sort copies each boid straight into its slot, reading storage
    /// order front to back, so no list of indices is written and read again.
    fn sort(&mut self, flock: &mut FlockBuffers<D>) {
        let n = flock.len();
        let frame = &mut self.previous;
        frame.boid.resize(n + LANES, [[0.0; D]; 2]);
        frame.bias.resize(n + LANES, 0.0);
        self.group_scratch.resize(n, 0);
        self.id_scratch.resize(n, 0);
        self.index.sort_into(IntoFrame {
            from: Stored {
                pos: &flock.pos,
                vel: &flock.vel,
                bias: &flock.bias,
                group: &flock.group,
                id: &flock.id,
            },
            boid: &mut frame.boid[..n],
            bias: &mut frame.bias[..n],
            group: &mut self.group_scratch,
            id: &mut self.id_scratch,
        });
        std::mem::swap(&mut flock.group, &mut self.group_scratch);
        std::mem::swap(&mut flock.id, &mut self.id_scratch);
    }

    /// New state of every boid from the previous frame in cell order, and the scan's counts.
    fn interact(
        &self,
        job: &GridStep<'_, D>,
        geometry: &GridGeometry<D>,
        flock: &mut FlockBuffers<D>,
    ) -> ScanCounts {
        let n = flock.len();
        flock.pos.resize(n, VecN::<D>::ZERO);
        flock.vel.resize(n, VecN::<D>::ZERO);
        flock.bias.resize(n, 0.0);
        let scan = Interaction {
            prev: &self.previous,
            geometry,
            cell_start: &self.index.cell_start,
            groups: &flock.group,
            ids: &flock.id,
            params: job.params,
            kernel: job.kernel,
            seed: job.seed,
            step: job.step,
            wander: rules::wander_heading::<D, VecN<D>>(job.params, job.step).into(),
            world: job.pull,
        };
        let FlockBuffers { pos, vel, bias, .. } = flock;
        if job.params.topological_k > 0 {
            return nearest::step(&scan, pos, vel, bias);
        }
        match job.params.model {
            Model::Boids => interact::step(&scan, pos, vel, bias),
            Model::Vicsek => scan.run(&VicsekRule, pos, vel, bias),
            Model::Couzin => scan.run(&CouzinRule, pos, vel, bias),
        }
    }
}

/// The sort's destination: the boids of [`Stored`] in cell order, in the previous [`Frame`]
/// and the group and id arrays.
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
