//! What the GPU engine runs: the boids model with every rule the seed presets use, and the
//! Vicsek model, in two and three dimensions. The rest (Couzin's model, k nearest neighbours,
//! a blind angle, the world's obstacles, predators, attractors and perching) it refuses by
//! name, so a flock is never stepped with a setting silently ignored.

use boids_core::engine::Unsupported;
use boids_core::{EngineKind, Model, Params};

/// `Ok` when the GPU engine runs `params`; else the first setting it does not run.
pub fn supports(params: &Params) -> Result<(), Unsupported> {
    let refused = |setting: String| {
        Err(Unsupported {
            engine: EngineKind::Gpu.name(),
            setting,
        })
    };
    if params.model == Model::Couzin {
        let model = params.model.name();
        return refused(format!(
            "model = {model} (the boids and Vicsek models only)"
        ));
    }
    if params.topological_k > 0 {
        let k = params.topological_k;
        return refused(format!("topological_k = {k} (k nearest neighbours)"));
    }
    if params.blind_angle > 0.0 {
        let angle = params.blind_angle;
        return refused(format!("blind_angle = {angle} (a blind angle)"));
    }
    if params.perch {
        return refused("perch = true (perching)".to_owned());
    }
    if !params.obstacles.is_empty() {
        let n = params.obstacles.len();
        return refused(format!("obstacles ({n} of them)"));
    }
    if params.predator_count > 0 {
        let n = params.predator_count;
        return refused(format!("predator_count = {n} (predators)"));
    }
    if !params.attractors.is_empty() {
        let n = params.attractors.len();
        return refused(format!("attractors ({n} of them)"));
    }
    Ok(())
}
