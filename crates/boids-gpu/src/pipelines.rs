//! The compiled step: `step.wgsl` for the flock's dimension, one bind group layout that every
//! entry point shares (so one bind group serves the whole step), and a compute pipeline per
//! stage.

use std::num::NonZeroU64;

use crate::constants::{Constants, StepInfo};

/// Storage bindings of group 1 that the shaders only read.
const READ_ONLY: [u32; 4] = [0, 1, 2, 3];
/// Storage bindings of group 1 in all.
pub const STORAGE_BINDINGS: u32 = 18;

/// The step's pipelines, in the order a step runs them.
#[derive(Debug)]
pub struct Pipelines {
    /// Layout of group 0: the constants and the step's info.
    pub uniforms: wgpu::BindGroupLayout,
    /// Layout of group 1: the flock, the grid and the report.
    pub storage: wgpu::BindGroupLayout,
    /// Cell of every boid, and the count of every cell.
    pub bin: wgpu::ComputePipeline,
    /// Starts within blocks of cells, and each block's total.
    pub scan_blocks: wgpu::ComputePipeline,
    /// The blocks' starts.
    pub scan_totals: wgpu::ComputePipeline,
    /// Every cell's start.
    pub scan_add: wgpu::ComputePipeline,
    /// Ids into their cells.
    pub scatter: wgpu::ComputePipeline,
    /// Ids by rank within each cell, positions and velocities gathered into cell order.
    pub order: wgpu::ComputePipeline,
    /// Neighbour sums, rules and move.
    pub interact: wgpu::ComputePipeline,
}

/// `step.wgsl` written out for `dimensions` (2 or 3).
pub fn source(dimensions: usize) -> String {
    let text = include_str!("step.wgsl");
    let noise_and_turn = if dimensions == 3 {
        include_str!("noise3.wgsl")
    } else {
        include_str!("noise2.wgsl")
    };
    let (vector, stored, swizzle, store, widen, across) = if dimensions == 3 {
        (
            "vec3<f32>",
            "vec4<f32>",
            ".xyz",
            "return S(v, 0.0);",
            "vec4<f32>(v, 0.0)",
            "return v - g * dot(v, g);",
        )
    } else {
        (
            "vec2<f32>",
            "vec2<f32>",
            ".xy",
            "return v;",
            "vec4<f32>(v, 0.0, 0.0)",
            "let axis = vec2<f32>(-g.y, g.x);\n    return axis * dot(v, axis);",
        )
    };
    text.replace("alias V = vec2<f32>;", &format!("alias V = {vector};"))
        .replace("alias S = vec2<f32>;", &format!("alias S = {stored};"))
        .replace(
            "const DIMENSIONS: i32 = 2;",
            &format!("const DIMENSIONS: i32 = {dimensions};"),
        )
        .replace(".XYZ", swizzle)
        .replace("{ STORE }", &format!("{{ {store} }}"))
        .replace("return WIDEN;", &format!("return {widen};"))
        .replace("    ACROSS\n", &format!("    {across}\n"))
        .replace("NOISE_AND_TURN\n", noise_and_turn)
}

impl Pipelines {
    /// Compiles the step for `dimensions` on `device`.
    pub fn new(device: &wgpu::Device, dimensions: usize) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("boids step"),
            source: wgpu::ShaderSource::Wgsl(source(dimensions).into()),
        });
        let uniform = |binding, dynamic, size: usize| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: dynamic,
                min_binding_size: NonZeroU64::new(size as u64),
            },
            count: None,
        };
        let uniforms = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("boids uniforms"),
            entries: &[
                uniform(0, false, size_of::<Constants>()),
                uniform(1, true, size_of::<StepInfo>()),
            ],
        });
        let entries: Vec<_> = (0..STORAGE_BINDINGS)
            .map(|binding| wgpu::BindGroupLayoutEntry {
                binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage {
                        read_only: READ_ONLY.contains(&binding),
                    },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let storage = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("boids storage"),
            entries: &entries,
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("boids step"),
            bind_group_layouts: &[Some(&uniforms), Some(&storage)],
            immediate_size: 0,
        });
        let pipeline = |entry: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        Self {
            bin: pipeline("bin"),
            scan_blocks: pipeline("scan_blocks"),
            scan_totals: pipeline("scan_totals"),
            scan_add: pipeline("scan_add"),
            scatter: pipeline("scatter"),
            order: pipeline("order"),
            interact: pipeline("interact"),
            uniforms,
            storage,
        }
    }
}
