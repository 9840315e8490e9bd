//! A device that fails (out of memory, lost) must not abort the process: the step it could not
//! take is refused like a step that is not finite, and the device's own message is printed.
//! (Its own test program: the failure stays with the process's one device.)

use boids_core::{ParamsBuilder, Simulation, StateError};
use boids_gpu::GpuEngine;

#[test]
fn a_failed_device_refuses_the_step_instead_of_aborting() {
    let engine = match GpuEngine::<2>::new() {
        Ok(engine) => engine,
        Err(error) if std::env::var("CI").as_deref() != Ok("true") => {
            eprintln!("skipped: {error}");
            return;
        }
        Err(error) => panic!("CI must have a GPU adapter (lavapipe): {error}"),
    };
    let params = ParamsBuilder::preset("cornell").unwrap().build().unwrap();
    let mut sim = Simulation::<2>::with_engine(params, 1, Box::new(engine)).unwrap();
    sim.step().unwrap();
    // An allocation over the device's limit: the device reports it on its own.
    let gpu = boids_gpu::shared().unwrap();
    let _too_big = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("too big"),
        size: gpu.limits.max_buffer_size.saturating_add(4),
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    assert!(gpu.failure().is_some());
    let refused = sim.step().unwrap_err();
    assert!(
        matches!(refused, StateError::NonFinite { step: 2, .. }),
        "{refused}"
    );
    assert_eq!(sim.step_count(), 1);
}
