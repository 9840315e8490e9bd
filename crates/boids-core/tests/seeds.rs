//! Each preset against a small, independent re-implementation of its seed's rules, written here
//! from the seed documents (in f64, brute force, synchronous), with only the deviations that
//! `presets.rs` documents. The first steps must agree to within f32 rounding.

use boids_core::{FlockState, Params, Simulation, group};

type V = [f64; 2];

/// One step of a seed's rules: boids, parameters, step number.
type SeedStep = dyn Fn(&[Boid], &Params, u64) -> Vec<Boid>;

struct Boid {
    p: V,
    v: V,
    group: u8,
    bias: f64,
}

fn boids_of(state: &FlockState) -> Vec<Boid> {
    (0..state.len())
        .map(|i| Boid {
            p: [state.positions[i].x as f64, state.positions[i].y as f64],
            v: [state.velocities[i].x as f64, state.velocities[i].y as f64],
            group: state.groups[i],
            bias: state.biases[i] as f64,
        })
        .collect()
}

/// Minimum-image difference on a torus of the given size.
fn torus_diff(a: V, b: V, size: V) -> V {
    let axis = |d: f64, w: f64| d - w * (d / w).round();
    [axis(a[0] - b[0], size[0]), axis(a[1] - b[1], size[1])]
}

fn wrap(p: V, min: V, size: V) -> V {
    [
        min[0] + (p[0] - min[0]).rem_euclid(size[0]),
        min[1] + (p[1] - min[1]).rem_euclid(size[1]),
    ]
}

fn norm(v: V) -> f64 {
    (v[0] * v[0] + v[1] * v[1]).sqrt()
}

/// Seed 001's per-boid pseudocode, line by line.
fn cornell_step(b: &[Boid], p: &Params) -> Vec<Boid> {
    let (vr, pr) = (p.visual_range, p.protected_range);
    b.iter()
        .enumerate()
        .map(|(i, boid)| {
            let (mut xpos, mut ypos, mut xvel, mut yvel, mut n, mut cdx, mut cdy) =
                (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
            for (j, other) in b.iter().enumerate() {
                if i == j {
                    continue;
                }
                let dx = boid.p[0] - other.p[0];
                let dy = boid.p[1] - other.p[1];
                if dx.abs() < vr && dy.abs() < vr {
                    let sq = dx * dx + dy * dy;
                    if sq < pr * pr {
                        cdx += boid.p[0] - other.p[0];
                        cdy += boid.p[1] - other.p[1];
                    } else if sq < vr * vr {
                        xpos += other.p[0];
                        ypos += other.p[1];
                        xvel += other.v[0];
                        yvel += other.v[1];
                        n += 1.0;
                    }
                }
            }
            let [mut vx, mut vy] = boid.v;
            let [x, y] = boid.p;
            if n > 0.0 {
                let (xpos, ypos, xvel, yvel) = (xpos / n, ypos / n, xvel / n, yvel / n);
                vx = vx + (xpos - x) * p.centering_factor + (xvel - vx) * p.matching_factor;
                vy = vy + (ypos - y) * p.centering_factor + (yvel - vy) * p.matching_factor;
            }
            vx += cdx * p.avoid_factor;
            vy += cdy * p.avoid_factor;
            let (left, right, top, bottom) = (
                p.margin,
                p.world_width - p.margin,
                p.margin,
                p.world_height - p.margin,
            );
            if y < top {
                vy += p.turnfactor;
            }
            if x > right {
                vx -= p.turnfactor;
            }
            if x < left {
                vx += p.turnfactor;
            }
            if y > bottom {
                vy -= p.turnfactor;
            }
            let mut bias = boid.bias;
            if p.dynamic_bias {
                let preferred = match boid.group {
                    group::RIGHT => Some(vx > 0.0),
                    group::LEFT => Some(vx < 0.0),
                    _ => None,
                };
                bias = match preferred {
                    Some(true) => p.max_bias.min(bias + p.bias_increment),
                    Some(false) => p.bias_increment.max(bias - p.bias_increment),
                    None => bias,
                };
            }
            match boid.group {
                group::RIGHT => vx = (1.0 - bias) * vx + bias,
                group::LEFT => vx = (1.0 - bias) * vx - bias,
                _ => {}
            }
            let speed = (vx * vx + vy * vy).sqrt();
            if speed < p.min_speed {
                vx = vx / speed * p.min_speed;
                vy = vy / speed * p.min_speed;
            }
            if speed > p.max_speed {
                vx = vx / speed * p.max_speed;
                vy = vy / speed * p.max_speed;
            }
            Boid {
                p: [x + vx, y + vy],
                v: [vx, vy],
                group: boid.group,
                bias,
            }
        })
        .collect()
}

/// Seed 000's `oneboid` over `findNeighbors` (neighbours within 0.4 on the torus, the boid
/// itself once, as documented).
fn functional_step(b: &[Boid], p: &Params) -> Vec<Boid> {
    let (min, size) = (
        [p.world_x_min, p.world_y_min],
        [p.world_width, p.world_height],
    );
    b.iter()
        .map(|boid| {
            // Neighbour positions as seen from the boid (the KD-tree's wrapped, adjusted copies).
            let hood: Vec<(V, V)> = b
                .iter()
                .filter_map(|o| {
                    let d = torus_diff(o.p, boid.p, size);
                    (norm(d) <= 0.4).then_some(([boid.p[0] + d[0], boid.p[1] + d[1]], o.v))
                })
                .collect();
            let m = hood.len() as f64;
            let centroid = [
                hood.iter().map(|h| h.0[0]).sum::<f64>() / m,
                hood.iter().map(|h| h.0[1]).sum::<f64>() / m,
            ];
            let c = [
                (centroid[0] - boid.p[0]) * 0.0075,
                (centroid[1] - boid.p[1]) * 0.0075,
            ];
            let mut sep = [0.0, 0.0];
            for (q, _) in &hood {
                let d = [q[0] - boid.p[0], q[1] - boid.p[1]];
                if norm(d) < 0.1 {
                    sep = [sep[0] - d[0], sep[1] - d[1]];
                }
            }
            let s = [sep[0] * 1.25, sep[1] * 1.25];
            let mean_v = [
                hood.iter().map(|h| h.1[0]).sum::<f64>() / m,
                hood.iter().map(|h| h.1[1]).sum::<f64>() / m,
            ];
            let a = [(mean_v[0] - boid.v[0]) / 1.8, (mean_v[1] - boid.v[1]) / 1.8];
            let v1 = [
                boid.v[0] + 0.1 * (c[0] + s[0] + a[0]),
                boid.v[1] + 0.1 * (c[1] + s[1] + a[1]),
            ];
            let mut v2 = [v1[0] * 1.0025, v1[1] * 1.0025];
            let speed = norm(v2);
            if speed > 0.04 {
                v2 = [v2[0] / speed * 0.04, v2[1] / speed * 0.04];
            }
            let moved = wrap([boid.p[0] + v2[0], boid.p[1] + v2[1]], min, size);
            Boid {
                p: moved,
                v: v2,
                group: boid.group,
                bias: boid.bias,
            }
        })
        .collect()
}

/// Seed 002's `Boid.update` (all rules read the frame's velocity; no rule without neighbours).
fn canvas_step(b: &[Boid], p: &Params) -> Vec<Boid> {
    let (w, h, size, dt) = (p.world_width, p.world_height, p.boid_size, p.dt);
    b.iter()
        .enumerate()
        .map(|(i, boid)| {
            let neighbors: Vec<&Boid> = b
                .iter()
                .enumerate()
                .filter(|&(j, o)| j != i && norm([boid.p[0] - o.p[0], boid.p[1] - o.p[1]]) < 100.0)
                .map(|(_, o)| o)
                .collect();
            let [x, y] = boid.p;
            let mut v = boid.v;
            let n = neighbors.len() as f64;
            for o in neighbors
                .iter()
                .filter(|o| norm([x - o.p[0], y - o.p[1]]) < 33.0)
            {
                v[0] += (x - o.p[0]) * 0.05;
                v[1] += (y - o.p[1]) * 0.05;
            }
            if n > 0.0 {
                let avg_v = [
                    neighbors.iter().map(|o| o.v[0]).sum::<f64>() / n,
                    neighbors.iter().map(|o| o.v[1]).sum::<f64>() / n,
                ];
                let avg_p = [
                    neighbors.iter().map(|o| o.p[0]).sum::<f64>() / n,
                    neighbors.iter().map(|o| o.p[1]).sum::<f64>() / n,
                ];
                v[0] += (avg_v[0] - boid.v[0]) * 0.02 + (avg_p[0] - x) * 0.03;
                v[1] += (avg_v[1] - boid.v[1]) * 0.02 + (avg_p[1] - y) * 0.03;
            }
            let (mut dx, mut dy) = (0.0, 0.0);
            if x < 100.0 {
                dx = x;
            }
            if w - x < 100.0 {
                dx = x - w;
            }
            if y < 100.0 {
                dy = y;
            }
            if h - y < 100.0 {
                dy = y - h;
            }
            v[0] += dx * 0.05;
            v[1] += dy * 0.05;
            let speed = norm(v);
            if speed > 100.0 {
                v = [v[0] / speed * 100.0, v[1] / speed * 100.0];
            }
            if speed < 20.0 {
                v = [v[0] / speed * 20.0, v[1] / speed * 20.0];
            }
            let (ddx, ddy) = (v[0] * dt, v[1] * dt);
            let mut pos = boid.p;
            let mut collided = false;
            if x + ddx - size < 0.0 {
                pos[0] = size;
                v[0] = v[0].abs();
                collided = true;
            }
            if x + ddx + size > w {
                pos[0] = w - size;
                v[0] = -v[0].abs();
                collided = true;
            }
            if y + ddy - size < 0.0 {
                pos[1] = size;
                v[1] = v[1].abs();
                collided = true;
            }
            if y + ddy + size > h {
                pos[1] = h - size;
                v[1] = -v[1].abs();
                collided = true;
            }
            if !collided {
                pos = [x + ddx, y + ddy];
            }
            Boid {
                p: pos,
                v,
                group: boid.group,
                bias: boid.bias,
            }
        })
        .collect()
}

/// Seed 003's `steer` with weights (S, K, M) = (avoid, centering, matching), sight radius
/// inclusive and the boid itself in its perception; alignment as mean velocity minus own.
fn allegheny_step(b: &[Boid], p: &Params) -> Vec<Boid> {
    let size = [p.world_width, p.world_height];
    b.iter()
        .map(|boid| {
            let seen: Vec<(V, V)> = b
                .iter()
                .filter_map(|o| {
                    let d = torus_diff(o.p, boid.p, size);
                    (norm(d) <= p.visual_range).then_some((d, o.v))
                })
                .collect();
            let m = seen.len() as f64;
            let s = [
                -seen.iter().map(|x| x.0[0]).sum::<f64>(),
                -seen.iter().map(|x| x.0[1]).sum::<f64>(),
            ];
            let k = [
                seen.iter().map(|x| x.0[0]).sum::<f64>() / m,
                seen.iter().map(|x| x.0[1]).sum::<f64>() / m,
            ];
            let mv = [
                seen.iter().map(|x| x.1[0]).sum::<f64>() / m - boid.v[0],
                seen.iter().map(|x| x.1[1]).sum::<f64>() / m - boid.v[1],
            ];
            let (sw, kw, mw) = (p.avoid_factor, p.centering_factor, p.matching_factor);
            let v = [
                boid.v[0] + sw * s[0] + kw * k[0] + mw * mv[0],
                boid.v[1] + sw * s[1] + kw * k[1] + mw * mv[1],
            ];
            let moved = wrap(
                [boid.p[0] + v[0] / 500.0, boid.p[1] + v[1] / 500.0],
                [0.0, 0.0],
                size,
            );
            Boid {
                p: moved,
                v,
                group: boid.group,
                bias: boid.bias,
            }
        })
        .collect()
}

/// Seed 004's `boid'` with the bias angle of frame `t`, the limiter clamping to 0.007.
fn occoids_step(b: &[Boid], t: u64) -> Vec<Boid> {
    let angle = 0.5 * (t / 101) as f64;
    b.iter()
        .enumerate()
        .map(|(i, boid)| {
            let rel: Vec<(V, V)> = b
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, o)| (torus_diff(o.p, boid.p, [1.0, 1.0]), o.v))
                .filter(|(d, _)| norm(*d) < 0.05)
                .collect();
            let n = rel.len() as f64;
            let average = |f: &dyn Fn(&(V, V)) -> f64| {
                if n > 0.0 {
                    rel.iter().map(f).sum::<f64>() / n
                } else {
                    0.0
                }
            };
            let mean_vel = if n > 0.0 {
                [
                    average(&|r| r.1[0]) - boid.v[0],
                    average(&|r| r.1[1]) - boid.v[1],
                ]
            } else {
                [0.0, 0.0]
            };
            let close = rel.iter().filter(|(d, _)| norm(*d) < 0.02);
            let repulse = close.fold([0.0, 0.0], |acc, (d, _)| [acc[0] - d[0], acc[1] - d[1]]);
            let keep_close = [average(&|r| r.0[0]), average(&|r| r.0[1])];
            let acc = [
                mean_vel[0] / 8.0 + repulse[0] / 4.0 + keep_close[0] / 30.0 + angle.cos() / 10000.0,
                mean_vel[1] / 8.0 + repulse[1] / 4.0 + keep_close[1] / 30.0 + angle.sin() / 10000.0,
            ];
            let mut v = [boid.v[0] + acc[0] / 5.0, boid.v[1] + acc[1] / 5.0];
            let speed = norm(v);
            if speed > 0.007 {
                v = [v[0] / speed * 0.007, v[1] / speed * 0.007];
            }
            let moved = wrap([boid.p[0] + v[0], boid.p[1] + v[1]], [0.0, 0.0], [1.0, 1.0]);
            Boid {
                p: moved,
                v,
                group: boid.group,
                bias: boid.bias,
            }
        })
        .collect()
}

/// Runs the engine and the re-implementation side by side and compares every boid each step.
fn agree(
    preset: &str,
    count: usize,
    steps: u64,
    start_step: u64,
    tolerance: f64,
    seed_step: &SeedStep,
) {
    let mut params = Params::preset(preset).unwrap();
    params.count = count;
    params.dynamic_bias = preset == "cornell";
    let state = FlockState::<2>::initial(&params, 11);
    let mut expected = boids_of(&state);
    let mut sim = Simulation::<2>::from_state(params.clone(), 11, state, start_step).unwrap();
    let size = [params.world_width, params.world_height];
    let mut neighbours_seen = false;
    for t in start_step..start_step + steps {
        expected = seed_step(&expected, &params, t);
        sim.step().unwrap();
        let got = boids_of(&sim.state());
        for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
            let dp = if params.is_torus() {
                norm(torus_diff(g.p, e.p, size))
            } else {
                norm([g.p[0] - e.p[0], g.p[1] - e.p[1]])
            };
            let dv = norm([g.v[0] - e.v[0], g.v[1] - e.v[1]]);
            // f32 rounding grows a little each step: compare against the preset's speed scale.
            let speed_limit = if params.max_speed.is_finite() {
                params.max_speed
            } else {
                0.0
            };
            let scale = norm(e.v).max(speed_limit);
            assert!(
                dp <= tolerance * size[0],
                "{preset} step {t} boid {i}: position {:?} vs seed {:?}",
                g.p,
                e.p
            );
            assert!(
                dv <= tolerance * 10.0 * scale,
                "{preset} step {t} boid {i}: velocity {:?} vs seed {:?}",
                g.v,
                e.v
            );
            assert!(
                (g.bias - e.bias).abs() < 1e-6,
                "{preset} step {t} boid {i}: bias"
            );
            neighbours_seen |= dv > 0.0;
        }
    }
    assert!(neighbours_seen);
}

#[test]
fn cornell_follows_seed_001() {
    agree("cornell", 400, 8, 0, 1e-5, &|b, p, _| cornell_step(b, p));
}

#[test]
fn functional_follows_seed_000() {
    agree("functional", 400, 5, 0, 1e-5, &|b, p, _| {
        functional_step(b, p)
    });
}

#[test]
fn canvas_follows_seed_002() {
    agree("canvas", 30, 8, 0, 1e-5, &|b, p, _| canvas_step(b, p));
}

#[test]
fn allegheny_follows_seed_003() {
    agree("allegheny", 200, 8, 0, 1e-5, &|b, p, _| {
        allegheny_step(b, p)
    });
}

#[test]
fn occoids_follows_seed_004_across_a_bias_turn() {
    // Steps 98..106 straddle the heading turn at frame 101.
    agree("occoids", 300, 8, 98, 1e-5, &|b, _, t| occoids_step(b, t));
}

/// A boid of the 3D reading of seed 001.
#[derive(Clone, Copy, Debug)]
struct Boid3 {
    p: [f64; 3],
    v: [f64; 3],
    group: u8,
    bias: f64,
}

/// Seed 001's pseudocode with a z axis, as issue 15 reads it: the box test on |dx|, |dy|, |dz|,
/// the protected and visual tests on the 3D squared distance, z margins like x and y (the
/// turn factor added to vz below the near margin, subtracted beyond the far one), the speed
/// limits on the 3D speed, and the scout bias on vx alone.
fn cornell_3d_step(b: &[Boid3], p: &Params) -> Vec<Boid3> {
    let (vr, pr) = (p.visual_range, p.protected_range);
    b.iter()
        .enumerate()
        .map(|(i, boid)| {
            let (mut xpos, mut ypos, mut zpos) = (0.0, 0.0, 0.0);
            let (mut xvel, mut yvel, mut zvel) = (0.0, 0.0, 0.0);
            let (mut n, mut cdx, mut cdy, mut cdz) = (0.0, 0.0, 0.0, 0.0);
            for (j, other) in b.iter().enumerate() {
                if i == j {
                    continue;
                }
                let dx = boid.p[0] - other.p[0];
                let dy = boid.p[1] - other.p[1];
                let dz = boid.p[2] - other.p[2];
                if dx.abs() < vr && dy.abs() < vr && dz.abs() < vr {
                    let sq = dx * dx + dy * dy + dz * dz;
                    if sq < pr * pr {
                        cdx += dx;
                        cdy += dy;
                        cdz += dz;
                    } else if sq < vr * vr {
                        xpos += other.p[0];
                        ypos += other.p[1];
                        zpos += other.p[2];
                        xvel += other.v[0];
                        yvel += other.v[1];
                        zvel += other.v[2];
                        n += 1.0;
                    }
                }
            }
            let [mut vx, mut vy, mut vz] = boid.v;
            let [x, y, z] = boid.p;
            if n > 0.0 {
                let (cf, mf) = (p.centering_factor, p.matching_factor);
                vx = vx + (xpos / n - x) * cf + (xvel / n - vx) * mf;
                vy = vy + (ypos / n - y) * cf + (yvel / n - vy) * mf;
                vz = vz + (zpos / n - z) * cf + (zvel / n - vz) * mf;
            }
            vx += cdx * p.avoid_factor;
            vy += cdy * p.avoid_factor;
            vz += cdz * p.avoid_factor;
            let turn = |c: f64, v: &mut f64, extent: f64| {
                if c < p.margin {
                    *v += p.turnfactor;
                }
                if c > extent - p.margin {
                    *v -= p.turnfactor;
                }
            };
            turn(x, &mut vx, p.world_width);
            turn(y, &mut vy, p.world_height);
            turn(z, &mut vz, p.world_depth);
            let mut bias = boid.bias;
            let preferred = match boid.group {
                group::RIGHT => Some(vx > 0.0),
                group::LEFT => Some(vx < 0.0),
                _ => None,
            };
            if p.dynamic_bias {
                bias = match preferred {
                    Some(true) => p.max_bias.min(bias + p.bias_increment),
                    Some(false) => p.bias_increment.max(bias - p.bias_increment),
                    None => bias,
                };
            }
            match boid.group {
                group::RIGHT => vx = (1.0 - bias) * vx + bias,
                group::LEFT => vx = (1.0 - bias) * vx - bias,
                _ => {}
            }
            let speed = (vx * vx + vy * vy + vz * vz).sqrt();
            for limit in [p.min_speed, p.max_speed] {
                let crossed = match limit == p.min_speed {
                    true => speed < limit,
                    false => speed > limit,
                };
                if crossed {
                    (vx, vy, vz) = (vx / speed * limit, vy / speed * limit, vz / speed * limit);
                }
            }
            Boid3 {
                p: [x + vx, y + vy, z + vz],
                v: [vx, vy, vz],
                group: boid.group,
                bias,
            }
        })
        .collect()
}

/// The engine's 3D `cornell` against [`cornell_3d_step`], from `start` for `steps` steps.
fn agree_3d(params: &Params, start: Vec<Boid3>, steps: usize) {
    let state = FlockState::<3> {
        positions: start.iter().map(|b| b.p.map(|c| c as f32).into()).collect(),
        velocities: start.iter().map(|b| b.v.map(|c| c as f32).into()).collect(),
        groups: start.iter().map(|b| b.group).collect(),
        biases: start.iter().map(|b| b.bias as f32).collect(),
        ..FlockState::default()
    };
    let mut sim = Simulation::<3>::from_state(params.clone(), 0, state, 0).unwrap();
    let mut expected = start;
    for t in 0..steps {
        expected = cornell_3d_step(&expected, params);
        sim.step().unwrap();
        let got = sim.state();
        for (i, e) in expected.iter().enumerate() {
            let (gp, gv) = (got.positions[i].to_array(), got.velocities[i].to_array());
            for a in 0..3 {
                assert!(
                    (f64::from(gp[a]) - e.p[a]).abs() < 1e-3,
                    "step {t} boid {i}: position {gp:?} vs seed {:?}",
                    e.p
                );
                assert!(
                    (f64::from(gv[a]) - e.v[a]).abs() < 1e-4,
                    "step {t} boid {i}: velocity {gv:?} vs seed {:?}",
                    e.v
                );
            }
            assert!((f64::from(got.biases[i]) - e.bias).abs() < 1e-6);
        }
    }
}

#[test]
fn cornell_in_3d_follows_seed_001_with_a_z_axis_on_hand_made_cases() {
    let mut params = Params::preset("cornell").unwrap();
    (params.dimensions, params.dynamic_bias, params.count) = (3, true, 7);
    let boid = |p: [f64; 3], v: [f64; 3], group: u8| Boid3 {
        p,
        v,
        group,
        bias: if group == group::NONE { 0.0 } else { 0.001 },
    };
    let cases = vec![
        // A boid at the centre with a protected neighbour 5 away along z, a visual neighbour
        // 30 away along a diagonal, one inside the box test but outside the visual sphere
        // (|dx|, |dy|, |dz| all 35 < 40), and one beyond the box along z.
        boid([320.0, 240.0, 240.0], [3.0, 1.0, -2.0], group::NONE),
        boid([320.0, 240.0, 245.0], [0.0, 4.0, 1.0], group::NONE),
        boid([337.3, 257.3, 257.3], [-2.0, 0.5, 3.5], group::NONE),
        boid([355.0, 275.0, 275.0], [5.0, 0.0, 0.0], group::NONE),
        boid([320.0, 240.0, 281.0], [0.0, 0.0, 5.0], group::NONE),
        // Scouts in the near z margin and beyond the far one, moving against their bias.
        boid([200.0, 300.0, 50.0], [-4.0, 0.0, -1.0], group::RIGHT),
        boid([450.0, 150.0, 430.0], [4.0, 1.0, 2.0], group::LEFT),
    ];
    agree_3d(&params, cases, 6);
}

#[test]
fn cornell_in_3d_follows_seed_001_with_a_z_axis_on_a_random_flock() {
    let mut params = Params::preset("cornell").unwrap();
    (params.dimensions, params.dynamic_bias, params.count) = (3, true, 400);
    let state = FlockState::<3>::initial(&params, 11);
    let start = (0..state.len())
        .map(|i| Boid3 {
            p: state.positions[i].to_array().map(f64::from),
            v: state.velocities[i].to_array().map(f64::from),
            group: state.groups[i],
            bias: f64::from(state.biases[i]),
        })
        .collect();
    agree_3d(&params, start, 8);
}
