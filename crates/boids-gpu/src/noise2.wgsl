// The heading models' noise and turn in two dimensions (boids-core space.rs, `Dim<2>`).

// `rotate`: `v` turned by `angle`.
fn rotate(v: V, angle: f32) -> V {
    let c = cos(angle);
    let s = sin(angle);
    return V(c * v.x - s * v.y, s * v.x + c * v.y);
}

// `add_noise`: `d` turned by an angle uniform in [-noise/2, noise/2], or normal with s.d. noise.
fn add_noise(d: V, s: ptr<function, Stream>) -> V {
    let noise = k.heading.y;
    var angle = 0.0;
    if (k.heading_model.y == GAUSSIAN) {
        let radius = rayleigh(s);
        angle = noise * radius * cos(TAU * unit(s));
    } else {
        angle = noise * (unit(s) - 0.5);
    }
    return rotate(d, angle);
}

// `turn_toward`: the unit vector `current` turned toward `wanted` by at most `limit` radians.
fn turn_toward(current: V, wanted: V, limit: f32) -> V {
    let angle = atan2(current.x * wanted.y - current.y * wanted.x, dot(current, wanted));
    if (abs(angle) <= limit) { return wanted; }
    return rotate(current, select(-limit, limit, angle >= 0.0));
}
