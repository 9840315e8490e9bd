//! [`GpuEngine`]: the flock resident on the device (`resident.rs`), stepped in batches. A batch
//! copies the flock up only when the simulation changed it since the engine's last step,
//! snapshots it on the device (for an undo), records its steps in submissions of
//! `STEPS_PER_SUBMISSION`, and copies the state back once at the end with the report of the
//! last step: the first step that left a boid not finite, and the neighbour work. A batch with
//! such a step is run again up to it, which the simulation then refuses. What comes back becomes
//! the simulation's flock only once the device has said the batch went well: a batch the device
//! fails (out of memory, lost) leaves the flock at its last good step, and a lost device is
//! replaced before the next batch.

use std::sync::Arc;

use boids_core::engine::{
    Batch, Before, Engine, EngineFailure, FlockBuffers, GridStep, Unavailable, Unsupported,
};
use boids_core::rules::Kernel;
use boids_core::{Dim, Dimension, EngineKind, FlockState, Params, ScanCounts, Stage, StageTimes};

use crate::constants::{Constants, Grid};
use crate::device::{Gpu, shared};
use crate::pipelines::Pipelines;
use crate::resident::{Readback, Resident, max_cells, read_words, stored_lanes};

/// Device memory a flock takes per boid in `dimensions`: two copies of the flock and a
/// snapshot, the sort's arrays in cell order, the cell arrays at their cap (two cells a boid),
/// and the host-visible copy the state comes back through.
pub fn bytes_per_boid(dimensions: usize) -> usize {
    let vector = 4 * stored_lanes(dimensions);
    let flock = 2 * vector + 4;
    let copies = 3 * flock + 4;
    let sort = 4 * 4 + 2 * vector;
    let cells = 2 * 3 * 4;
    copies + sort + cells + flock
}

/// The GPU engine (see the crate docs).
#[derive(Debug)]
pub struct GpuEngine<const D: usize>
where
    Dim<D>: Dimension<D>,
{
    gpu: Arc<Gpu>,
    pipelines: Arc<Pipelines>,
    resident: Option<Resident>,
    /// The flock before the last step, when that step left a boid not finite: what an undo
    /// puts back.
    before_broken: Option<Readback>,
}

impl<const D: usize> GpuEngine<D>
where
    Dim<D>: Dimension<D>,
{
    /// An engine on the process's device ([`shared`]), or why there is none.
    pub fn new() -> Result<Self, Unavailable> {
        let gpu = shared()?;
        Ok(Self {
            pipelines: gpu.pipelines(D),
            gpu,
            resident: None,
            before_broken: None,
        })
    }

    /// Each boid's neighbours (others within its visual or protected range) in `state` under
    /// `params`, by id: what one step's scan finds, for the tests and for diagnostics; or why
    /// the device could not say.
    pub fn neighbour_counts(
        &mut self,
        params: &Params,
        state: &FlockState<D>,
    ) -> Result<Vec<u32>, EngineFailure> {
        let kernel = Kernel::<D>::new(params);
        let job = GridStep {
            params,
            kernel: &kernel,
            seed: 0,
            step: 0,
            pull: None,
            changed: true,
        };
        let n = state.len();
        let mut flock = FlockBuffers {
            pos: state.positions.clone(),
            vel: state.velocities.clone(),
            bias: state.biases.clone(),
            group: state.groups.clone(),
            id: (0..n as u32).collect(),
        };
        self.run(&job, &mut flock, 1, false, &mut StageTimes::default())?;
        let resident = self.resident.as_ref();
        let resident = resident.ok_or_else(|| failure("the flock is not on the device".into()))?;
        let counts = self
            .gpu
            .guarded(|| read_words(&self.gpu, &resident.neighbours, n));
        counts.flatten().map_err(failure)
    }

    /// Refuses a flock whose largest buffer is over the adapter's limit for one buffer.
    fn fits(&self, count: usize) -> Result<(), Unsupported> {
        let cells = boids_core::engine::max_cells(count) as u64 * 4;
        let count = count as u64;
        let vectors = count * 4 * stored_lanes(D) as u64;
        let limits = &self.gpu.limits;
        let limit = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        if vectors.max(cells) <= limit && count <= u64::from(u32::MAX / 4) {
            return Ok(());
        }
        Err(Unsupported {
            engine: EngineKind::Gpu.name(),
            setting: format!(
                "count = {count} on {} (its largest buffer, {} bytes, is over the adapter's limit of {limit} bytes a buffer)",
                self.gpu.info.name,
                vectors.max(cells)
            ),
        })
    }

    /// The adapter the engine runs on.
    pub fn adapter(&self) -> &wgpu::AdapterInfo {
        &self.gpu.info
    }

    /// Runs `steps` steps of `job`'s flock from what is resident (copied up first if the
    /// simulation changed it, or if the device is new), and makes the state that comes back
    /// `flock`'s, timing the device's work as *interact* and the copies as *transfer*. With
    /// `keep_finite`, a batch in which a step left a boid not finite is run again up to that
    /// step; without, the state comes back as the last step left it, and the flock before it
    /// is kept for an undo. A device that fails (out of memory, lost) fails the batch and
    /// leaves `flock` as it was; a lost device is replaced first.
    fn run(
        &mut self,
        job: &GridStep<'_, D>,
        flock: &mut FlockBuffers<D>,
        steps: u64,
        keep_finite: bool,
        times: &mut StageTimes,
    ) -> Result<Batch, EngineFailure> {
        if self.gpu.lost().is_some() {
            self.replace_device()?;
        }
        let gpu = Arc::clone(&self.gpu);
        let done = gpu.guarded(|| self.run_on_device(job, flock, steps, keep_finite, times));
        match done.flatten() {
            Ok((batch, back)) => {
                times.time(Stage::Transfer, || back.into_flock(flock));
                Ok(batch)
            }
            Err(reason) => {
                self.resident = None;
                Err(failure(reason))
            }
        }
    }

    /// [`GpuEngine::run`]'s work on the device: the batch's steps, and what came back.
    fn run_on_device(
        &mut self,
        job: &GridStep<'_, D>,
        flock: &FlockBuffers<D>,
        steps: u64,
        keep_finite: bool,
        times: &mut StageTimes,
    ) -> Result<(Batch, Readback), String> {
        let n = flock.len() as u32;
        let steps = steps.min(u64::from(u32::MAX - 1)) as u32;
        let (gpu, pipelines) = (&self.gpu, &self.pipelines);
        let resident = match &mut self.resident {
            Some(resident) if resident.n == n && !job.changed => resident,
            resident => {
                let fresh = resident.take().filter(|r| r.n == n);
                let made = fresh.unwrap_or_else(|| Resident::new(gpu, pipelines, n, D));
                let resident = resident.insert(made);
                times.time(Stage::Transfer, || resident.upload::<D>(gpu, flock));
                resident
            }
        };
        let grid = Grid::new::<D>(job.params, u64::from(max_cells(n)));
        let constants = Constants::new((job.params, job.kernel), &grid, n, job.seed);
        let step = |resident: &mut Resident, steps: u32, times: &mut StageTimes| {
            times.time(Stage::Interact, || {
                resident.steps::<D>(gpu, pipelines, job, &constants, steps);
                let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
            });
            times.time(Stage::Transfer, || resident.read_back(gpu, D))
        };
        resident.begin(gpu, &constants);
        let batch = |taken: u32, counts| Batch {
            taken: u64::from(taken),
            counts,
        };
        let back = step(resident, steps, times)?;
        let report = back.report();
        let Some(broken) = report.first_broken else {
            return Ok((batch(steps, report.counts), back));
        };
        resident.restore(gpu);
        let before = step(resident, if keep_finite { broken } else { 0 }, times)?;
        if keep_finite {
            let counts = before.report().counts;
            return Ok((batch(broken, counts), before));
        }
        self.before_broken = Some(before);
        Ok((batch(steps, report.counts), back))
    }

    /// Moves the engine to the process's new device, after its own was lost: the flock goes
    /// up again whole at the next step.
    fn replace_device(&mut self) -> Result<(), EngineFailure> {
        let gpu = shared().map_err(|unavailable| failure(unavailable.to_string()))?;
        self.pipelines = gpu.pipelines(D);
        self.gpu = gpu;
        self.resident = None;
        Ok(())
    }
}

/// The engine's failure, for `reason`.
fn failure(reason: String) -> EngineFailure {
    EngineFailure {
        engine: EngineKind::Gpu.name(),
        reason,
    }
}

impl<const D: usize> Engine<D> for GpuEngine<D>
where
    Dim<D>: Dimension<D>,
{
    fn kind(&self) -> EngineKind {
        EngineKind::Gpu
    }

    fn supports(&self, params: &Params) -> Result<(), Unsupported> {
        crate::support::supports(params)?;
        self.fits(params.count)
    }

    fn takes(&self, params: &Params) -> bool {
        crate::support::supports(params).is_ok()
    }

    fn takes_pulls(&self) -> bool {
        false
    }

    fn batches(&self) -> bool {
        true
    }

    /// Device memory is taken when the flock first steps; a flock too big for the device
    /// fails there, with the device's own message.
    fn reserve(&mut self, _n: usize) -> Result<(), std::collections::TryReserveError> {
        Ok(())
    }

    fn step(
        &mut self,
        job: &GridStep<'_, D>,
        flock: &mut FlockBuffers<D>,
        times: &mut StageTimes,
    ) -> Result<ScanCounts, EngineFailure> {
        self.run(job, flock, 1, false, times)
            .map(|batch| batch.counts)
    }

    fn batch(
        &mut self,
        job: &GridStep<'_, D>,
        flock: &mut FlockBuffers<D>,
        steps: u64,
        times: &mut StageTimes,
    ) -> Result<Option<Batch>, EngineFailure> {
        self.run(job, flock, steps, true, times).map(Some)
    }

    /// Nothing: the obstacle pass, the only stage that asks, does not run on this engine.
    fn before(&self) -> Before<'_, D> {
        Before::Positions(&[])
    }

    /// Puts back the flock the last step broke, as it came back before that step (the
    /// simulation copies it up again at the next step).
    fn undo(&mut self, flock: &mut FlockBuffers<D>) {
        if let Some(before) = self.before_broken.take() {
            before.into_flock(flock);
        }
    }

    /// A copy on the same device, which copies its flock up at its first step.
    fn boxed_clone(&self) -> Box<dyn Engine<D>> {
        Box::new(Self {
            gpu: Arc::clone(&self.gpu),
            pipelines: Arc::clone(&self.pipelines),
            resident: None,
            before_broken: None,
        })
    }
}
