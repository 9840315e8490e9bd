//! A flock resident on the device, and everything its steps use: two copies of the flock (a
//! step reads one and writes the other), a snapshot for an undo, the grid's arrays, the
//! uniforms, and the buffer the state comes back through. It records a batch's steps into
//! submissions, each step clearing the cell counts and dispatching bin, scan, scatter, order
//! and interact, and reads the flock and the report back at the batch's end.

use boids_core::engine::FlockBuffers;
use boids_core::engine::GridStep;
use boids_core::{Dim, Dimension, ScanCounts, VecN};

use crate::constants::{Constants, STEP_STRIDE, WORKGROUP, step_infos};
use crate::device::Gpu;
use crate::pipelines::Pipelines;

/// Steps recorded into one submission: long enough that dispatch overhead is small, short
/// enough that no submission runs for seconds on a large flock (drivers reset those).
pub const STEPS_PER_SUBMISSION: u32 = 32;

/// Most grid cells for `n` boids: the CPU engine's cap ([`boids_core::engine::max_cells`]).
pub fn max_cells(n: u32) -> u32 {
    boids_core::engine::max_cells(n as usize) as u32
}

/// Floats one stored position or velocity takes: 3D vectors are stored in four lanes.
pub const fn stored_lanes(dimensions: usize) -> usize {
    if dimensions == 3 { 4 } else { 2 }
}

/// The first `n` words of `buffer`, copied back, or why the device could not.
pub fn read_words(gpu: &Gpu, buffer: &wgpu::Buffer, n: usize) -> Result<Vec<u32>, String> {
    let bytes = (n as u64 * 4).max(4);
    let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("words back"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut words = copy_back(gpu, &[(buffer, bytes)], &staging)?;
    words.truncate(n);
    Ok(words)
}

/// Copies the first bytes of each of `sources` (buffer, size), one after another, into
/// `staging` and reads them back as 4-byte words, or says why the device could not.
fn copy_back(
    gpu: &Gpu,
    sources: &[(&wgpu::Buffer, u64)],
    staging: &wgpu::Buffer,
) -> Result<Vec<u32>, String> {
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let mut at = 0;
    for &(source, size) in sources {
        encoder.copy_buffer_to_buffer(source, 0, staging, at, size);
        at += size;
    }
    gpu.queue.submit([encoder.finish()]);
    let slice = staging.slice(..);
    slice.map_async(wgpu::MapMode::Read, |_| {});
    // A failed wait or map shows as a mapped range that cannot be had, below.
    let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
    let bytes = slice
        .get_mapped_range()
        .map_err(|error| error.to_string())?;
    let words = bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    drop(bytes);
    staging.unmap();
    Ok(words)
}

/// The flock and the report as they came back, kept apart from the simulation's flock until
/// the device has said the batch went well.
#[derive(Debug)]
pub struct Readback {
    words: Vec<u32>,
    n: usize,
    lanes: usize,
}

impl Readback {
    /// What the batch's end reports.
    pub fn report(&self) -> Report {
        report_of(&self.words[(2 * self.lanes + 1) * self.n..])
    }

    /// Makes what came back `flock`'s state, in id order (groups stay each boid's own).
    pub fn into_flock<const D: usize>(self, flock: &mut FlockBuffers<D>)
    where
        Dim<D>: Dimension<D>,
    {
        let (n, lanes) = (self.n, self.lanes);
        let floats = |words: &[u32]| words.iter().map(|&w| f32::from_bits(w)).collect::<Vec<_>>();
        let (pos, rest) = self.words.split_at(n * lanes);
        let (vel, rest) = rest.split_at(n * lanes);
        let (pos, vel, bias) = (floats(pos), floats(vel), floats(&rest[..n]));
        let vector = |v: &[f32], id: usize| -> VecN<D> {
            let mut a = [0f32; D];
            a.copy_from_slice(&v[id * lanes..id * lanes + D]);
            a.into()
        };
        let mut groups = vec![0u8; n];
        for (k, &id) in flock.id.iter().enumerate() {
            groups[id as usize] = flock.group[k];
        }
        flock.pos = (0..n).map(|id| vector(&pos, id)).collect();
        flock.vel = (0..n).map(|id| vector(&vel, id)).collect();
        flock.bias = bias;
        flock.group = groups;
        flock.id = (0..n as u32).collect();
    }
}

/// What a batch's end reports.
pub struct Report {
    /// The first step of the batch (from 0) that left a boid not finite.
    pub first_broken: Option<u32>,
    /// The neighbour work of the batch's last step.
    pub counts: ScanCounts,
}

/// A flock on the device, with everything its steps use.
#[derive(Debug)]
pub struct Resident {
    pub n: u32,
    /// Positions, velocities and biases, twice: a step reads one copy and writes the other.
    flock: [[wgpu::Buffer; 3]; 2],
    /// The copy the next step reads.
    current: usize,
    /// The flock before the last batch, for an undo.
    snapshot: [wgpu::Buffer; 3],
    groups: wgpu::Buffer,
    cell_count: wgpu::Buffer,
    cell_fill: wgpu::Buffer,
    report: wgpu::Buffer,
    pub neighbours: wgpu::Buffer,
    constants: wgpu::Buffer,
    step_info: wgpu::Buffer,
    uniforms: wgpu::BindGroup,
    /// Group 1 for each copy read.
    storage: [wgpu::BindGroup; 2],
    /// Where the state and the report come back.
    readback: wgpu::Buffer,
    /// Workgroups of a dispatch over the boids, as laid out (x, y).
    boid_groups: (u32, u32),
}

/// A dispatch of `groups` workgroups in rows of at most `row`.
fn layout(groups: u32, row: u32) -> (u32, u32) {
    let x = groups.clamp(1, row);
    (x, groups.div_ceil(x).max(1))
}

impl Resident {
    pub fn new(gpu: &Gpu, pipelines: &Pipelines, n: u32, dimensions: usize) -> Self {
        let device = &gpu.device;
        let vector = (4 * stored_lanes(dimensions)) as u64;
        let n64 = u64::from(n);
        let cells = u64::from(max_cells(n));
        let row = gpu.limits.max_compute_workgroups_per_dimension.min(65_535);
        let boid_groups = layout(n.div_ceil(WORKGROUP), row);
        let tallies = u64::from(boid_groups.0 * boid_groups.1);
        let storage = |label: &str, bytes: u64| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes.max(16),
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        };
        let copy = |label: &str| {
            [
                storage(label, n64 * vector),
                storage(label, n64 * vector),
                storage(label, n64 * 4),
            ]
        };
        let flock = [copy("flock a"), copy("flock b")];
        let snapshot = copy("snapshot");
        let groups = storage("groups", n64 * 4);
        let cell_of = storage("cell of", n64 * 4);
        let cell_count = storage("cell count", cells * 4);
        let cell_fill = storage("cell fill", cells * 4);
        let cell_start = storage("cell start", cells * 4);
        let block_sums = storage("block sums", cells.div_ceil(1024) * 4);
        let unsorted = storage("unsorted", n64 * 4);
        let sorted_id = storage("sorted id", n64 * 4);
        let sorted_pos = storage("sorted pos", n64 * vector);
        let sorted_vel = storage("sorted vel", n64 * vector);
        let report = storage("report", (1 + 3 * tallies) * 4);
        let neighbours = storage("neighbours", n64 * 4);
        let uniform = |label: &str, bytes: u64| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let constants = uniform("constants", size_of::<Constants>() as u64);
        let step_info = uniform("step info", u64::from(STEPS_PER_SUBMISSION) * STEP_STRIDE);
        let uniforms = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("boids uniforms"),
            layout: &pipelines.uniforms,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: constants.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &step_info,
                        offset: 0,
                        size: wgpu::BufferSize::new(32),
                    }),
                },
            ],
        });
        let bind = |read: &[wgpu::Buffer; 3], write: &[wgpu::Buffer; 3]| {
            let buffers = [
                &read[0],
                &read[1],
                &read[2],
                &groups,
                &write[0],
                &write[1],
                &write[2],
                &cell_of,
                &cell_count,
                &cell_fill,
                &cell_start,
                &block_sums,
                &unsorted,
                &sorted_id,
                &sorted_pos,
                &sorted_vel,
                &report,
                &neighbours,
            ];
            let entries: Vec<_> = buffers
                .iter()
                .enumerate()
                .map(|(binding, buffer)| wgpu::BindGroupEntry {
                    binding: binding as u32,
                    resource: buffer.as_entire_binding(),
                })
                .collect();
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("boids storage"),
                layout: &pipelines.storage,
                entries: &entries,
            })
        };
        let storage_groups = [bind(&flock[0], &flock[1]), bind(&flock[1], &flock[0])];
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: n64 * (2 * vector + 4) + (1 + 3 * tallies) * 4,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Self {
            n,
            flock,
            current: 0,
            snapshot,
            groups,
            cell_count,
            cell_fill,
            report,
            neighbours,
            constants,
            step_info,
            uniforms,
            storage: storage_groups,
            readback,
            boid_groups,
        }
    }

    /// Copies `flock` (any storage order) up, each boid at its id.
    pub fn upload<const D: usize>(&mut self, gpu: &Gpu, flock: &FlockBuffers<D>)
    where
        Dim<D>: Dimension<D>,
    {
        let lanes = stored_lanes(D);
        let n = flock.len();
        let mut pos = vec![0f32; n * lanes];
        let mut vel = vec![0f32; n * lanes];
        let mut bias = vec![0f32; n];
        let mut groups = vec![0u32; n];
        for k in 0..n {
            let id = flock.id[k] as usize;
            let (p, v): ([f32; D], [f32; D]) = (flock.pos[k].into(), flock.vel[k].into());
            pos[id * lanes..id * lanes + D].copy_from_slice(&p);
            vel[id * lanes..id * lanes + D].copy_from_slice(&v);
            bias[id] = flock.bias[k];
            groups[id] = u32::from(flock.group[k]);
        }
        let [p, v, b] = &self.flock[self.current];
        let queue = &gpu.queue;
        queue.write_buffer(p, 0, bytemuck::cast_slice(&pos));
        queue.write_buffer(v, 0, bytemuck::cast_slice(&vel));
        queue.write_buffer(b, 0, bytemuck::cast_slice(&bias));
        queue.write_buffer(&self.groups, 0, bytemuck::cast_slice(&groups));
    }

    /// A batch's start: its constants, no step broken yet, and the flock's snapshot.
    pub fn begin(&self, gpu: &Gpu, constants: &Constants) {
        gpu.queue
            .write_buffer(&self.constants, 0, bytemuck::bytes_of(constants));
        gpu.queue
            .write_buffer(&self.report, 0, bytemuck::bytes_of(&u32::MAX));
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        for (from, to) in self.flock[self.current].iter().zip(&self.snapshot) {
            encoder.copy_buffer_to_buffer(from, 0, to, 0, None);
        }
        gpu.queue.submit([encoder.finish()]);
    }

    /// Puts the snapshot back as the flock the next step reads.
    pub fn restore(&self, gpu: &Gpu) {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        for (from, to) in self.snapshot.iter().zip(&self.flock[self.current]) {
            encoder.copy_buffer_to_buffer(from, 0, to, 0, None);
        }
        gpu.queue.submit([encoder.finish()]);
    }

    /// Records and submits `steps` steps from the batch's start.
    pub fn steps<const D: usize>(
        &mut self,
        gpu: &Gpu,
        pipelines: &Pipelines,
        job: &GridStep<'_, D>,
        constants: &Constants,
        steps: u32,
    ) where
        Dim<D>: Dimension<D>,
    {
        let row = gpu.limits.max_compute_workgroups_per_dimension.min(65_535);
        let cells = constants.cells();
        let dispatches = [
            (&pipelines.bin, self.boid_groups),
            (&pipelines.scan_blocks, layout(constants.scan_blocks(), row)),
            (&pipelines.scan_totals, (1, 1)),
            (&pipelines.scan_add, layout(cells.div_ceil(WORKGROUP), row)),
            (&pipelines.scatter, self.boid_groups),
            (&pipelines.order, self.boid_groups),
            (&pipelines.interact, self.boid_groups),
        ];
        let mut done = 0;
        while done < steps {
            let chunk = (steps - done).min(STEPS_PER_SUBMISSION);
            let infos = step_infos::<D>(job.params, job.step, done, chunk);
            gpu.queue.write_buffer(&self.step_info, 0, &infos);
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            for i in 0..chunk {
                encoder.clear_buffer(&self.cell_count, 0, Some(u64::from(cells) * 4));
                encoder.clear_buffer(&self.cell_fill, 0, Some(u64::from(cells) * 4));
                let mut pass = encoder.begin_compute_pass(&Default::default());
                let offset = (u64::from(i) * STEP_STRIDE) as u32;
                pass.set_bind_group(0, &self.uniforms, &[offset]);
                pass.set_bind_group(1, &self.storage[self.current], &[]);
                for (pipeline, (x, y)) in dispatches {
                    pass.set_pipeline(pipeline);
                    pass.dispatch_workgroups(x, y, 1);
                }
                drop(pass);
                self.current ^= 1;
            }
            gpu.queue.submit([encoder.finish()]);
            done += chunk;
        }
    }

    /// Copies the flock and the report back, or says why the device could not.
    pub fn read_back(&self, gpu: &Gpu, dimensions: usize) -> Result<Readback, String> {
        let lanes = stored_lanes(dimensions);
        let n = self.n as usize;
        let [pos, vel, bias] = &self.flock[self.current];
        let vectors = (n * lanes * 4) as u64;
        let sources = [
            (pos, vectors),
            (vel, vectors),
            (bias, n as u64 * 4),
            (&self.report, self.report_bytes() as u64),
        ];
        let words = copy_back(gpu, &sources, &self.readback)?;
        Ok(Readback { words, n, lanes })
    }

    fn report_bytes(&self) -> usize {
        (1 + 3 * (self.boid_groups.0 * self.boid_groups.1) as usize) * 4
    }
}

/// The report's words: the first broken step, then candidates, neighbours and cells visited
/// for each workgroup.
fn report_of(words: &[u32]) -> Report {
    let first_broken = (words[0] != u32::MAX).then_some(words[0]);
    let mut counts = ScanCounts::default();
    for tally in words[1..].chunks_exact(3) {
        counts.candidates += u64::from(tally[0]);
        counts.neighbors += u64::from(tally[1]);
        counts.cells += u64::from(tally[2]);
    }
    Report {
        first_broken,
        counts,
    }
}
