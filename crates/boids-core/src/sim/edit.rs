//! Live changes to a running simulation: new parameters (the viewer's sliders, an event log's
//! `set`), the viewer's edits of the predators, and another engine. The flock keeps its state;
//! the world carries its own over ([`World::carry_over`](crate::world::World::carry_over)).

use super::{Simulation, out_of_memory};
use crate::engine::Engine;
use crate::error::StateError;
use crate::params::Params;
use crate::rules::Kernel;
use crate::space::{Coordinates, Dim, Dimension, VecN};
use crate::state::{FlockState, check_dimensions, scout_groups};

impl<const D: usize> Simulation<D>
where
    Dim<D>: Dimension<D>,
{
    /// Moves the flock to `engine` from the step it is at (to go on on the CPU after the GPU
    /// failed, say): the same state, stepped from now on by the other engine. Refuses an engine
    /// that does not run the parameters, or has no memory for the flock, and keeps its own then.
    pub fn use_engine(&mut self, mut engine: Box<dyn Engine<D>>) -> Result<(), StateError> {
        engine.supports(&self.params)?;
        let count = self.len();
        engine.reserve(count).map_err(|_| out_of_memory(count))?;
        self.engine = engine;
        self.changed = true;
        Ok(())
    }

    /// Replaces the parameters while the flock runs (the live viewer's sliders). The flock keeps
    /// its state; boids are added (drawn from the initial distribution) or removed (highest ids
    /// first) to match `count`, and scout groups are reassigned when their fractions change.
    pub fn set_params(&mut self, params: Params) -> Result<(), StateError> {
        check_dimensions::<D>(&params)?;
        self.engine.supports(&params)?;
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
            // Fewer boids: the memory of the others goes back (the rest is `reserve`'s).
            state.positions.shrink_to_fit();
            state.velocities.shrink_to_fit();
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
        let FlockState {
            positions,
            predators,
            resting,
            ..
        } = &mut state;
        let world = self
            .world
            .carry_over(&params, self.seed, positions, predators, resting);
        self.reserve(n)?;
        self.params = params;
        self.kernel = kernel;
        self.world = world;
        self.load(state);
        Ok(())
    }

    /// Adds a predator at `position` (wrapped into a torus world), heading as the next
    /// predator's start would, and raises `predator_count` by one: the viewer's "place a
    /// predator". Equal to raising `predator_count` and moving the new predator there.
    pub fn add_predator(&mut self, position: VecN<D>) -> Result<(), StateError> {
        self.check_pulls("a predator (predator_count > 0)")?;
        self.world.add_predator(&self.params, self.seed, position)?;
        self.params.predator_count = self.world.predators().len();
        Ok(())
    }

    /// Puts predator `index` at `position` (wrapped into a torus world), keeping its heading.
    pub fn move_predator(&mut self, index: usize, position: VecN<D>) -> Result<(), StateError> {
        self.world.move_predator(&self.params, index, position)
    }

    /// Removes predator `index` (the later ones move down by one) and lowers `predator_count`.
    pub fn remove_predator(&mut self, index: usize) -> Result<(), StateError> {
        self.world.remove_predator(index)?;
        self.params.predator_count = self.world.predators().len();
        Ok(())
    }

    /// Moves the pointer's predator to `position` (making it if there is none), its velocity
    /// the move itself; `None` removes it. It does not hunt by itself; boids fear it and it
    /// catches as the others do. It is not part of the saved state.
    pub fn set_pointer(&mut self, position: Option<VecN<D>>) -> Result<(), StateError> {
        if position.is_some() {
            self.check_pulls("the pointer's predator")?;
        }
        self.world.set_pointer(&self.params, position)
    }
}
