//! The boids rules on the neighbour walk (`walk/`): each lane's three sums (cohesion's offsets,
//! alignment's velocities, separation's offsets) and the rules applied to eight boids at once.
//!
//! **Canonical sums.** Each lane adds its candidates one after another in the order the walk
//! visits them, and a candidate out of range leaves the sums bit for bit unchanged (a select,
//! see [`Sums::add`]). That is the order of [`NeighborSearch`]'s `for_each_candidate` with
//! [`Sums::add`], so a flock restored from a file in id order continues bit-identically, on
//! any machine, and the debug overlays see the same sums.
//!
//! The lane sums are kept as plain registers rather than as a `rules::Sums<S::F, D>`: wrapped,
//! the same operations compile to other machine code in the walk's loop (stack layout and
//! register choice, checked on the AVX2 and AVX-512 builds). Three of the seven 2D sums go to
//! the multipliers (`Simd::add_where_by_multiplier`), which the walk leaves idler. The
//! neighbours are counted by a population count of the range mask on the scalar units: a
//! vector counter would add an operation to the busy vector pipes (5 to 14% more time in this
//! phase, measured, against about 2% for the population count).
//!
//! [`Sums::add`]: crate::rules::Sums::add
//! [`NeighborSearch`]: crate::neighbors::NeighborSearch

use crate::real::{Real, Vector};
use crate::rules::{self, Boids, Scouts, group};
use crate::simd::{Pack, Simd};
use crate::space::{Dim, Dimension, VecN};
use crate::stats::ScanCounts;
use crate::walk::{Candidate, Gather, Group, LaneModel, Lanes, Next};
pub(crate) use crate::walk::{Frame, Interaction, LANES};

/// The boids rules as a model of the walk.
/// `SKIP_SELF`: each lane must leave its own boid out by index ([`Kernel::must_skip_self`]).
///
/// [`Kernel::must_skip_self`]: crate::rules::Kernel::must_skip_self
pub(crate) struct BoidsRules<const SKIP_SELF: bool>;

/// The new state of every boid (cell order) under the boids rules, and what the walk did.
pub(crate) fn step<const D: usize>(
    job: &Interaction<D>,
    pos: &mut [VecN<D>],
    vel: &mut [VecN<D>],
    bias: &mut [f32],
) -> ScanCounts
where
    Dim<D>: Dimension<D>,
{
    match job.kernel.must_skip_self() {
        false => job.run(&BoidsRules::<false>, pos, vel, bias),
        true => job.run(&BoidsRules::<true>, pos, vel, bias),
    }
}

impl<const D: usize, const SKIP_SELF: bool> LaneModel<D> for BoidsRules<SKIP_SELF>
where
    Dim<D>: Dimension<D>,
{
    type Scratch = ();
    type Sums<'s, S: Simd> = Sums<S, D, SKIP_SELF>;

    #[inline(always)]
    fn empty<'s, S: Simd>(&self, _: &Lanes<'_, S, D>, _: &'s mut ()) -> Self::Sums<'s, S> {
        let zero = S::splat(0.0);
        Sums {
            in_range: 0,
            count: zero,
            offset: [zero; D],
            velocity: [zero; D],
            separation: [zero; D],
        }
    }

    #[inline(always)]
    fn finish<S: Simd>(
        &self,
        job: &Interaction<D>,
        group: &Group<D>,
        sums: Self::Sums<'_, S>,
        counts: &mut ScanCounts,
    ) -> Next<D> {
        // Every lane found its own boid in range (at distance zero) once.
        counts.neighbors += u64::from(sums.in_range) - group.len as u64;
        let next = advance(job, group, &sums);
        Next {
            position: next.position.0.map(|c| S::to_array(c.0)),
            velocity: next.velocity.0.map(|c| S::to_array(c.0)),
            bias: S::to_array(next.bias.0),
        }
    }
}

/// The rules applied to every lane of `group` ([`rules::advance`] on eight boids at once).
#[inline(always)]
fn advance<S: Simd, const D: usize, const SKIP_SELF: bool>(
    job: &Interaction<D>,
    group: &Group<D>,
    sums: &Sums<S, D, SKIP_SELF>,
) -> Boids<Pack<S>, D>
where
    Dim<D>: Dimension<D>,
{
    let prev = job.prev;
    let load = |lanes: [f32; LANES]| -> Pack<S> { Pack(S::load(lanes)) };
    // A plain loop: closures here are not inlined into the vector builds.
    let (mut goal, mut scout) = ([[0.0; LANES]; D], [0.0; LANES]);
    for l in 0..group.len {
        let g = job.groups[group.first + l];
        let preferred = job.kernel.goal[usize::from(g)];
        for a in 0..D {
            goal[a][l] = preferred[a];
        }
        scout[l] = f32::from(u8::from(g != group::NONE));
    }
    let scouts = Scouts {
        goal: Vector(goal.map(load)),
        scout: load(scout).gt(Pack::splat(0.0)),
    };
    let velocity = std::array::from_fn(|a| prev.lanes(group.first, Frame::<D>::VELOCITY, a));
    let boids = Boids {
        position: Vector(group.position.map(load)),
        velocity: Vector(velocity.map(load)),
        bias: load(
            prev.bias[group.first..group.first + LANES]
                .try_into()
                .expect("LANES entries"),
        ),
    };
    let pack = |v: [S::F; D]| Vector(v.map(Pack));
    let acc = rules::Sums {
        count: Pack(sums.count),
        offset_sum: pack(sums.offset),
        velocity_sum: pack(sums.velocity),
        separation: pack(sums.separation),
    };
    let world = job.world.map(|steer| {
        let mut pull = [[0.0; LANES]; D];
        let (mut lo, mut hi) = ([f32::INFINITY; D], [f32::NEG_INFINITY; D]);
        for l in 0..group.len {
            let p = group.position_of(l);
            for a in 0..D {
                (lo[a], hi[a]) = (lo[a].min(p[a]), hi[a].max(p[a]));
            }
        }
        // Most groups are far from every predator: their pull is zero, as `pull` gives it.
        if steer.reaches(lo.into(), hi.into()) {
            for l in 0..group.len {
                let at = group.position_of(l).into();
                let lane: [f32; D] = steer.pull(job.ids[group.first + l], at).into();
                for (axis, value) in pull.iter_mut().zip(lane) {
                    axis[l] = value;
                }
            }
        }
        Vector(pull.map(load))
    });
    rules::advance_lanes(job.kernel, &acc, boids, &scouts, job.wander, world)
}

/// The fields of [`rules::Sums`] as registers of lanes, one lane per boid of a group, and the
/// group's neighbour count.
pub(crate) struct Sums<S: Simd, const D: usize, const SKIP_SELF: bool> {
    /// Candidates within the visual range over all lanes, each lane's own boid among them: for
    /// [`ScanCounts::neighbors`], counted on the scalar units beside the vector sums.
    in_range: u32,
    count: S::F,
    offset: [S::F; D],
    velocity: [S::F; D],
    separation: [S::F; D],
}

impl<S: Simd, const D: usize, const SKIP_SELF: bool> Gather<S, D> for Sums<S, D, SKIP_SELF>
where
    Dim<D>: Dimension<D>,
{
    /// [`rules::Sums::add`] in every lane at once.
    #[inline(always)]
    fn add<const MASKED: bool>(&mut self, lanes: &Lanes<'_, S, D>, c: &Candidate<S, D, MASKED>) {
        let seen = c.within(lanes.visual_below);
        let separated = c.within(lanes.protected_below);
        // Kernel::joins, lane by lane.
        let mut averaged = S::ge_where(seen, c.d2, lanes.unseen_below);
        if SKIP_SELF {
            averaged = S::and_not(averaged, lanes.own(c.slot));
        }
        self.in_range += S::count(seen);
        let one = lanes.opaque_one;
        self.count = S::add_where_by_multiplier(averaged, self.count, one, one);
        for a in 0..D {
            self.offset[a] = S::sub_where(averaged, self.offset[a], c.d[a]);
        }
        for a in 0..D {
            let v = S::splat(c.velocity[a]);
            self.velocity[a] = S::add_where_by_multiplier(averaged, self.velocity[a], v, one);
        }
        for a in 0..D {
            self.separation[a] = S::add_where(separated, self.separation[a], c.d[a]);
        }
    }
}

impl<S: Simd, const D: usize, const SKIP_SELF: bool> Clone for Sums<S, D, SKIP_SELF> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Simd, const D: usize, const SKIP_SELF: bool> Copy for Sums<S, D, SKIP_SELF> {}

#[cfg(test)]
mod tests {
    use glam::Vec2;
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::grid::{CellIndex, GridGeometry};
    use crate::neighbors::NeighborSearch;
    use crate::params::{Boundary, Params};
    use crate::rules::{self, BoidState, Kernel, Sums};
    use crate::sim::Simulation;
    use crate::simd::Build;
    use crate::walk::Part;

    /// One part of the step by `build` under the boids rules.
    fn run_part<const D: usize>(job: &Interaction<D>, build: Build, part: Part<D>) -> ScanCounts
    where
        Dim<D>: Dimension<D>,
    {
        match job.kernel.must_skip_self() {
            false => job.run_part(&BoidsRules::<false>, build, part),
            true => job.run_part(&BoidsRules::<true>, build, part),
        }
    }

    /// Worlds that take every path: margins with protected neighbours left out of the averages
    /// (no self test), a torus with seams, averages that must skip the boid itself, walls, an
    /// open world, and a torus too narrow for three cells (per-pair minimum image).
    fn worlds() -> Vec<Params> {
        let preset = |name: &str, edit: &dyn Fn(&mut Params)| {
            let mut p = Params::preset(name).unwrap();
            edit(&mut p);
            p
        };
        vec![
            preset("cornell", &|_| {}),
            preset("cornell", &|p| {
                p.boundary = Boundary::Torus;
                p.exclude_protected = false;
            }),
            preset("canvas", &|_| {}),
            preset("functional", &|p| p.include_self = true),
            preset("occoids", &|_| {}),
            preset("functional", &|p| {
                (p.world_width, p.world_height, p.visual_range) = (1.5, 0.9, 0.4);
            }),
            preset("cornell", &|p| {
                p.boundary = Boundary::Torus;
                p.inclusive_ranges = true;
                p.world_width = 1013.0;
            }),
        ]
    }

    /// The smallest `x` in column `column` or beyond, on the row of height `y`.
    fn column_border(geometry: &GridGeometry<2>, column: u32, y: f32, mut low: f32) -> f32 {
        let inside = |x: f32| geometry.coords(geometry.cell_of(Vec2::new(x, y)))[0] >= column;
        let mut high = low + 1.0;
        while !inside(high) {
            high = low + 2.0 * (high - low);
        }
        while high.next_down() > low {
            let mid = low + (high - low) / 2.0;
            match mid > low && mid < high {
                true if inside(mid) => high = mid,
                true => low = mid,
                false => low = high.next_down(),
            }
        }
        high
    }

    /// Moves every fourth boid onto a column border, just inside one cell or the other, at one
    /// of four heights: the pairs that the scan meets two columns apart are then as close as
    /// such pairs can be.
    fn pack_on_borders(geometry: &GridGeometry<2>, pos: &mut [Vec2], p: &Params) {
        let nx = geometry.dims()[0];
        if nx < 2 {
            return;
        }
        let (x_min, y_min) = (p.world_x_min as f32, p.world_y_min as f32);
        let height = p.world_height as f32;
        for (i, p) in pos.iter_mut().enumerate().filter(|(i, _)| i % 4 == 2) {
            p.y = y_min + height * (i / 8 % 4) as f32 / 4.0;
            let column = 1 + (i / 32) as u32 % (nx - 1);
            let border = column_border(geometry, column, p.y, x_min);
            p.x = if i % 8 == 2 {
                border
            } else {
                border.next_down()
            };
        }
    }

    /// Random boids over the world, a quarter of them in one dense clump.
    fn positions(p: &Params, n: usize, seed: u64) -> (Vec<Vec2>, Vec<Vec2>) {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let (x0, y0) = (p.world_x_min as f32, p.world_y_min as f32);
        let (w, h) = (p.world_width as f32, p.world_height as f32);
        let r = p.visual_range as f32;
        let mut random = move |a: f32, b: f32| a + rng.random::<f32>() * (b - a);
        let pos = (0..n)
            .map(|i| match i % 4 {
                0 => Vec2::new(x0 + w * 0.3 + random(0.0, r), y0 + h * 0.6 + random(0.0, r)),
                _ => Vec2::new(random(x0, x0 + w), random(y0, y0 + h)),
            })
            .collect();
        let speed = p.max_speed as f32;
        let vel = (0..n)
            .map(|_| Vec2::new(random(-speed, speed), random(-speed, speed)))
            .collect();
        (pos, vel)
    }

    /// Every build of the loop, split into chunks anywhere, gives the bits of the definition
    /// (also with boids packed on cell borders, so that the scan's extra candidates, two
    /// columns away, are as close as they can be):
    /// the candidates of [`NeighborSearch::for_each_candidate`] in order, summed by
    /// [`Sums::add`], moved by [`rules::advance`]. It counts the other boids within the visual
    /// range among those candidates as neighbours, and every build counts the same work.
    #[test]
    fn every_build_gives_the_definitions_bits() {
        for (case, mut p) in worlds().into_iter().enumerate() {
            p.count = 700;
            let (mut pos, vel) = positions(&p, p.count, case as u64);
            pack_on_borders(&Simulation::geometry(&p, &pos), &mut pos, &p);
            let geometry = Simulation::geometry(&p, &pos);
            let ids: Vec<u32> = (0..p.count as u32).collect();
            let mut index = CellIndex::default();
            index.rebuild(&geometry, &pos, &ids);
            let order: Vec<usize> = index.order.iter().map(|&i| i as usize).collect();
            let frame = Frame {
                boid: order
                    .iter()
                    .map(|&i| [pos[i].into(), vel[i].into()])
                    .chain([[[0.0; 2]; 2]; LANES])
                    .collect(),
                bias: vec![0.0; p.count + LANES],
                heading: Vec::new(),
            };
            let groups: Vec<u8> = order.iter().map(|&i| (i % 3) as u8).collect();
            let kernel = Kernel::<2>::new(&p);
            let wander = Vec2::new(0.6, 0.8);

            let sorted: Vec<Vec2> = order.iter().map(|&i| pos[i]).collect();
            let sorted_ids: Vec<u32> = order.iter().map(|&i| i as u32).collect();
            let search = NeighborSearch::<2>::new(&p, &sorted, &sorted_ids);
            let mut neighbors = 0;
            let want: Vec<[u32; 5]> = (0..p.count)
                .map(|k| {
                    let mut acc = Sums::<f32, 2>::default();
                    search.for_each_candidate(k, |j, d| {
                        let v = Vec2::from(frame.boid[j][Frame::<2>::VELOCITY]);
                        acc.add(&kernel, d, v, j == k);
                        neighbors += u64::from(j != k && d.length_squared() < kernel.visual_below);
                    });
                    let boid = BoidState {
                        position: sorted[k],
                        velocity: Vec2::from(frame.boid[k][Frame::<2>::VELOCITY]),
                        bias: 0.0,
                    };
                    let b = rules::advance(&kernel, &acc, boid, groups[k], wander, None);
                    [
                        b.position.x,
                        b.position.y,
                        b.velocity.x,
                        b.velocity.y,
                        b.bias,
                    ]
                    .map(f32::to_bits)
                })
                .collect();

            let job = Interaction {
                prev: &frame,
                geometry: &geometry,
                cell_start: &index.cell_start,
                groups: &groups,
                ids: &[],
                params: &p,
                kernel: &kernel,
                seed: 0,
                step: 0,
                wander: wander.into(),
                world: None,
            };
            let mut work_by_cut = std::collections::HashMap::new();
            for build in Build::ALL.iter().filter(|b| b.supported()) {
                for cut in [0, 1, 37, 350] {
                    let n = p.count;
                    let (mut pos, mut vel, mut bias) =
                        (vec![Vec2::ZERO; n], vec![Vec2::ZERO; n], vec![0.0; n]);
                    let (pos_a, pos_b) = pos.split_at_mut(cut);
                    let (vel_a, vel_b) = vel.split_at_mut(cut);
                    let (bias_a, bias_b) = bias.split_at_mut(cut);
                    let counts = run_part(&job, *build, (0, pos_a, vel_a, bias_a))
                        + run_part(&job, *build, (cut, pos_b, vel_b, bias_b));
                    assert_eq!(
                        counts.neighbors, neighbors,
                        "case {case}, {build:?}, cut {cut}"
                    );
                    let work = work_by_cut.entry(cut).or_insert(counts);
                    assert_eq!(counts, *work, "case {case}, {build:?}, cut {cut}");
                    for k in 0..n {
                        let got =
                            [pos[k].x, pos[k].y, vel[k].x, vel[k].y, bias[k]].map(f32::to_bits);
                        assert_eq!(got, want[k], "case {case}, {build:?}, cut {cut}, boid {k}");
                    }
                }
            }
            let missing: Vec<_> = Build::ALL.iter().filter(|b| !b.supported()).collect();
            if !missing.is_empty() {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "CI runs every build; this machine lacks {missing:?}"
                );
                eprintln!("SKIPPED builds {missing:?}: this processor lacks their features");
            }
        }
    }

    /// In three dimensions every build, split into chunks anywhere, gives the bits of the
    /// baseline build, and the same counts of work: on a torus cube (seams, edges, corners),
    /// in a box with margins, and on a torus too narrow for three cells along some axis.
    #[test]
    fn every_build_gives_the_same_bits_in_3d() {
        let cases = [
            ("cornell", vec!["boundary=\"torus\""]),
            ("cornell", vec![]),
            ("functional", vec!["world_width=1.5", "world_depth=0.9"]),
        ];
        for (case, (preset, sets)) in cases.into_iter().enumerate() {
            let mut builder = crate::ParamsBuilder::preset(preset).unwrap();
            for set in sets.into_iter().chain(["dimensions=3", "count=900"]) {
                let source = crate::Source::Flag(set.to_owned());
                builder = builder.apply_assignment(set, source).unwrap();
            }
            let p = builder.build().unwrap();
            let state = crate::FlockState::<3>::initial(&p, case as u64);
            let geometry = Simulation::<3>::geometry(&p, &state.positions);
            let ids: Vec<u32> = (0..p.count as u32).collect();
            let mut index = CellIndex::default();
            index.rebuild(&geometry, &state.positions, &ids);
            let order: Vec<usize> = index.order.iter().map(|&i| i as usize).collect();
            let frame = Frame {
                boid: order
                    .iter()
                    .map(|&i| [state.positions[i].into(), state.velocities[i].into()])
                    .chain([[[0.0; 3]; 2]; LANES])
                    .collect(),
                bias: vec![0.001; p.count + LANES],
                heading: Vec::new(),
            };
            let groups: Vec<u8> = order.iter().map(|&i| (i % 3) as u8).collect();
            let kernel = Kernel::<3>::new(&p);
            let job = Interaction {
                prev: &frame,
                geometry: &geometry,
                cell_start: &index.cell_start,
                groups: &groups,
                ids: &[],
                params: &p,
                kernel: &kernel,
                seed: 0,
                step: 0,
                wander: [0.6, 0.8, 0.0],
                world: None,
            };
            let n = p.count;
            let run = |build: Build, cut: usize| {
                let (mut pos, mut vel, mut bias) = (
                    vec![glam::Vec3::ZERO; n],
                    vec![glam::Vec3::ZERO; n],
                    vec![0.0; n],
                );
                let (pos_a, pos_b) = pos.split_at_mut(cut);
                let (vel_a, vel_b) = vel.split_at_mut(cut);
                let (bias_a, bias_b) = bias.split_at_mut(cut);
                let counts = run_part(&job, build, (0, pos_a, vel_a, bias_a))
                    + run_part(&job, build, (cut, pos_b, vel_b, bias_b));
                let bits: Vec<u32> = (0..n)
                    .flat_map(|k| pos[k].to_array().into_iter().chain(vel[k].to_array()))
                    .chain(bias)
                    .map(f32::to_bits)
                    .collect();
                (counts, bits)
            };
            let (baseline, bits) = run(Build::Arrays, 0);
            assert!(
                baseline.neighbors > n as u64,
                "case {case}: too few neighbours"
            );
            for cut in [0, 1, 37, 350] {
                // The work counted depends on how the cut groups boids, not on the build.
                let (work, _) = run(Build::Arrays, cut);
                for build in Build::ALL.iter().filter(|b| b.supported()) {
                    let (counts, got) = run(*build, cut);
                    assert_eq!(counts, work, "case {case}, {build:?}, cut {cut}");
                    assert_eq!(counts.neighbors, baseline.neighbors);
                    assert!(got == bits, "case {case}, {build:?}, cut {cut}: other bits");
                }
            }
        }
    }
}
