//! What the shaders read besides the flock: the kernel's constants and the grid, once a batch
//! (`Constants`), and what changes each step (`StepInfo`), laid out as WGSL's uniform buffers
//! lay them out (`step.wgsl` declares the same structs).

use boids_core::rules::{Kernel, wander_heading};
use boids_core::{Boundary, Dim, Dimension, Model, NoiseDistribution, Params, VecN};
use bytemuck::{Pod, Zeroable};

/// Threads of every workgroup (`WORKGROUP` in the shader).
pub const WORKGROUP: u32 = 256;
/// Cells of one block of the scan (`SCAN_BLOCK` in the shader).
pub const SCAN_BLOCK: u32 = 1024;
/// Bytes between two steps' [`StepInfo`]: every adapter allows a dynamic offset of this.
pub const STEP_STRIDE: u64 = 256;

/// The kernel's constants and the grid, as the shader's `Constants`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct Constants {
    world_min: [f32; 4],
    world_size: [f32; 4],
    grid_lo: [f32; 4],
    grid_inverse_width: [f32; 4],
    goal1: [f32; 4],
    goal2: [f32; 4],
    cells: [u32; 4],
    scan_lo: [i32; 4],
    scan_hi: [i32; 4],
    count: u32,
    boundary: u32,
    flags: u32,
    scan_blocks: u32,
    rules: [f32; 20],
    heading_model: [u32; 4],
    heading: [f32; 4],
}

/// One step's [`StepInfo`] in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct StepInfo {
    wander: [f32; 4],
    index: u32,
    pad: u32,
    number: [u32; 2],
}

/// The uniform grid of a batch: cells at least a range wide along every axis of the world box
/// (a torus's cells tile it exactly), at most `max_cells` in all.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    lo: [f32; 3],
    inverse_width: [f32; 3],
    cells: [u32; 3],
    scan_lo: [i32; 3],
    scan_hi: [i32; 3],
}

impl Grid {
    /// The grid of `params` for `D` dimensions with at most `max_cells` cells.
    pub fn new<const D: usize>(params: &Params, max_cells: u64) -> Self {
        let (min, size) = params.world_box::<D>();
        // A hair wider than the range, so that rounding in a boid's cell never puts two boids
        // within range more than one cell apart.
        let mut width = params.visual_range.max(params.protected_range) as f32 * 1.0001;
        let cells_at = |width: f32| {
            let mut cells = [1u32; 3];
            for a in 0..D {
                cells[a] = ((size[a] / width).floor() as u32).max(1);
            }
            cells
        };
        let mut cells = cells_at(width);
        while cells.iter().map(|&c| u64::from(c)).product::<u64>() > max_cells {
            width *= 1.25;
            cells = cells_at(width);
        }
        let mut grid = Grid {
            lo: [0.0; 3],
            inverse_width: [0.0; 3],
            cells,
            scan_lo: [0; 3],
            scan_hi: [0; 3],
        };
        for a in 0..D {
            grid.lo[a] = min[a];
            grid.inverse_width[a] = cells[a] as f32 / size[a];
            // A torus of one or two cells along an axis has no third to scan.
            let torus = params.is_torus();
            grid.scan_lo[a] = if torus && cells[a] < 2 { 0 } else { -1 };
            grid.scan_hi[a] = if torus && cells[a] < 3 { 0 } else { 1 };
        }
        grid
    }

    /// Cells in all.
    pub fn total(&self) -> u32 {
        self.cells.iter().product()
    }
}

/// A 64-bit number as the shader's (low, high) words.
fn words(x: u64) -> [u32; 2] {
    [x as u32, (x >> 32) as u32]
}

/// Pads `v` to the four lanes of a `vec4`.
fn lanes<const N: usize>(v: [f32; N]) -> [f32; 4] {
    let mut out = [0.0; 4];
    out[..N].copy_from_slice(&v);
    out
}

const INCLUDE_SELF: u32 = 1;
const DYNAMIC_BIAS: u32 = 2;

impl Constants {
    /// The constants of a flock of `count` boids under `params` (and its `kernel`) on `grid`,
    /// its random streams keyed by `seed`.
    pub fn new<const D: usize>(
        (params, kernel): (&Params, &Kernel<D>),
        grid: &Grid,
        count: u32,
        seed: u64,
    ) -> Self {
        let k = kernel;
        let boundary = match k.boundary {
            Boundary::Torus => 0,
            Boundary::Margins => 1,
            Boundary::Walls => 2,
        };
        let flags = if k.include_self { INCLUDE_SELF } else { 0 }
            | if k.dynamic_bias { DYNAMIC_BIAS } else { 0 };
        let total = grid.total();
        Self {
            world_min: lanes(k.world_min),
            world_size: lanes(k.world_size),
            grid_lo: lanes(grid.lo),
            grid_inverse_width: lanes(grid.inverse_width),
            goal1: lanes(k.goal[1]),
            goal2: lanes(k.goal[2]),
            cells: [grid.cells[0], grid.cells[1], grid.cells[2], total],
            scan_lo: [grid.scan_lo[0], grid.scan_lo[1], grid.scan_lo[2], 0],
            scan_hi: [grid.scan_hi[0], grid.scan_hi[1], grid.scan_hi[2], 0],
            count,
            boundary,
            flags,
            scan_blocks: total.div_ceil(SCAN_BLOCK),
            rules: [
                k.visual_below,
                k.protected_below,
                k.unseen_below(),
                k.centering,
                k.matching,
                k.avoid,
                k.gain,
                k.boost,
                k.min_speed,
                k.max_speed,
                k.dt,
                k.margin,
                k.turnfactor,
                k.wall_buffer,
                k.boid_size,
                k.max_bias,
                k.bias_increment,
                k.wander_weight,
                0.0,
                0.0,
            ],
            heading_model: [
                u32::from(params.model == Model::Vicsek),
                u32::from(params.noise_distribution == NoiseDistribution::Gaussian),
                words(seed)[0],
                words(seed)[1],
            ],
            heading: [
                params.speed as f32,
                params.noise as f32,
                (params.turn_rate * params.dt) as f32,
                params.informed_weight as f32,
            ],
        }
    }

    /// Cells in all.
    pub fn cells(&self) -> u32 {
        self.cells[3]
    }

    /// Blocks of the scan over the cells.
    pub fn scan_blocks(&self) -> u32 {
        self.scan_blocks
    }
}

/// The [`StepInfo`] of `steps` steps of a batch that starts at step number `start`, from its
/// step `from` on, each at its [`STEP_STRIDE`]: the shared wandering heading of each step and
/// its place in the batch.
pub fn step_infos<const D: usize>(params: &Params, start: u64, from: u32, steps: u32) -> Vec<u8>
where
    Dim<D>: Dimension<D>,
{
    let mut bytes = vec![0u8; steps as usize * STEP_STRIDE as usize];
    for i in 0..steps {
        let index = from + i;
        let heading: VecN<D> = wander_heading::<D, VecN<D>>(params, start + u64::from(index));
        let info = StepInfo {
            wander: lanes::<D>(heading.into()),
            index,
            pad: 0,
            number: words(start + u64::from(index)),
        };
        let at = i as usize * STEP_STRIDE as usize;
        bytes[at..at + size_of::<StepInfo>()].copy_from_slice(bytemuck::bytes_of(&info));
    }
    bytes
}
