//! A device that fails (here: destroyed, as a driver reset or a removed GPU would lose it) must
//! not abort the process nor lose the flock: the step it could not take is refused with the
//! device's message, the flock stays at its last good step, and the next step goes on, on a
//! new device, to the same bytes as a run that never failed. (Its own test program: the
//! failure is the process's one device's.)

use boids_core::{ParamsBuilder, Simulation, StateError};
use boids_gpu::GpuEngine;

fn bytes(sim: &Simulation<2>) -> Vec<u8> {
    let mut bytes = Vec::new();
    boids_io::state_csv::write(&mut bytes, &sim.state()).unwrap();
    bytes
}

#[test]
fn a_lost_device_refuses_the_step_keeps_the_flock_and_the_next_step_goes_on() {
    let engine = match GpuEngine::<2>::new() {
        Ok(engine) => engine,
        Err(error) if std::env::var("CI").as_deref() != Ok("true") => {
            eprintln!("skipped: {error}");
            return;
        }
        Err(error) => panic!("CI must have a GPU adapter (lavapipe): {error}"),
    };
    let params = ParamsBuilder::preset("cornell").unwrap().build().unwrap();
    let mut sim = Simulation::<2>::with_engine(params.clone(), 1, Box::new(engine)).unwrap();
    sim.step_many(3).unwrap();
    let at_three = bytes(&sim);

    boids_gpu::shared().unwrap().device.destroy();
    let refused = sim.step_many(2).unwrap_err();
    let StateError::EngineFailed { step: 4, failure } = &refused else {
        panic!("{refused}");
    };
    assert_eq!(failure.engine, "gpu");
    let message = refused.to_string();
    eprintln!("{message}");
    assert!(
        message.starts_with("step 4 could not be taken: the gpu engine failed: ")
            && message.contains("the flock stays at step 3"),
        "{message}"
    );
    assert_eq!(sim.step_count(), 3);
    assert_eq!(bytes(&sim), at_three, "the flock stays as it was");

    sim.step_many(2).unwrap();
    let engine = GpuEngine::<2>::new().unwrap();
    let mut unbroken = Simulation::<2>::with_engine(params, 1, Box::new(engine)).unwrap();
    unbroken.step_many(5).unwrap();
    assert_eq!(sim.step_count(), 5);
    assert_eq!(
        bytes(&sim),
        bytes(&unbroken),
        "the run goes on as if nothing failed"
    );
}
