// The heading models' noise and turn in three dimensions (boids-core space.rs, `Dim<3>`).

// glam's `any_orthonormal_pair` of a unit vector (Duff et al.); its second is glam's
// `any_orthonormal_vector`.
fn orthonormal_pair(d: V) -> array<V, 2> {
    let sign = select(-1.0, 1.0, d.z >= 0.0);
    let a = -1.0 / (sign + d.z);
    let b = d.x * d.y * a;
    return array<V, 2>(V(1.0 + sign * d.x * d.x * a, sign * b, -sign * d.x),
                       V(b, sign + d.y * d.y * a, -d.y));
}

// `add_noise`: `d` turned by a polar angle uniform on the cap of half-angle noise/2 (by solid
// angle), or spherically wrapped normal with s.d. noise, in a uniform azimuth.
fn add_noise(d: V, s: ptr<function, Stream>) -> V {
    let noise = k.heading.y;
    var cos_polar = 0.0;
    var sin_polar = 0.0;
    if (k.heading_model.y == GAUSSIAN) {
        let polar = noise * rayleigh(s);
        cos_polar = cos(polar);
        sin_polar = sin(polar);
    } else {
        cos_polar = 1.0 - unit(s) * (1.0 - cos(noise / 2.0));
        sin_polar = sqrt(max(1.0 - cos_polar * cos_polar, 0.0));
    }
    let azimuth = TAU * unit(s);
    let pair = orthonormal_pair(d);
    let side = pair[0] * cos(azimuth) + pair[1] * sin(azimuth);
    return normalize(d * cos_polar + side * sin_polar);
}

// `turn_toward`: `current` turned in the plane of `current` and `wanted` by at most `limit` radians (when
// `wanted` is exactly behind, in the plane of a fixed perpendicular).
fn turn_toward(current: V, wanted: V, limit: f32) -> V {
    let across = wanted - current * dot(current, wanted);
    let angle = atan2(length(across), dot(current, wanted));
    if (angle <= limit) { return wanted; }
    var side = normalize_or_zero(across);
    if (is_zero(side)) { side = orthonormal_pair(current)[1]; }
    return current * cos(limit) + side * sin(limit);
}
