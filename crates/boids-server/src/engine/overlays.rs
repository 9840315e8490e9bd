//! Which boids each client wants debug overlays for, and the overlay messages of a frame. What
//! an overlay shows is the core's ([`boids_core::overlay`]): this module only picks the boids,
//! builds the overlays once for all clients that want the same one, and encodes them.

use std::collections::HashMap;

use axum::body::Bytes;
use boids_core::neighbors::Neighbors;
use boids_core::overlay::Overlay;
use boids_core::{Dim, Dimension, Simulation, VecN};

use super::ClientId;
use crate::protocol::{OverlayMessage, OverlayMode, flags};

/// Most boids in an "all boids" overlay; above it an evenly spread subset by id is shown.
pub const OVERLAY_CAP: usize = 2000;
/// Most neighbour links sent with the overlay of the boid under the mouse.
pub const LINK_CAP: usize = 512;

/// A client's overlay wish.
#[derive(Clone, Copy, Debug)]
pub(super) struct OverlayWish {
    pub mode: OverlayMode,
    /// With `Hover`: the point picked (x, y, z; z is 0 in a flat world) and the pick radius,
    /// in world units.
    pub point: Option<([f32; 3], f32)>,
}

/// The overlay messages of the frame of `sim` with `frame_flags`: for every boid (up to
/// [`OVERLAY_CAP`]) if some client wants it, and for the boid under each hovering client's
/// mouse.
pub(super) fn messages<const D: usize>(
    sim: &Simulation<D>,
    frame_flags: u16,
    wishes: &HashMap<ClientId, OverlayWish>,
) -> (Option<Bytes>, HashMap<ClientId, Bytes>)
where
    Dim<D>: Dimension<D>,
{
    let mut hover = HashMap::new();
    if wishes.is_empty() {
        return (None, hover);
    }
    let neighbors = Neighbors::of(sim);
    let message = |hovering: bool, chosen: &[usize]| {
        let (extra, max_links) = if hovering {
            (flags::HOVER, LINK_CAP)
        } else {
            (0, 0)
        };
        let message = OverlayMessage {
            flags: frame_flags & flags::TORUS | extra,
            step: sim.step_count(),
            overlay: Overlay::new(&neighbors, chosen, max_links),
        };
        Bytes::from(message.encode())
    };
    let wants_all = wishes.values().any(|w| w.mode == OverlayMode::All);
    let all = wants_all.then(|| message(false, &all_subset(sim.ids())));
    for (&client, wish) in wishes {
        if let (OverlayMode::Hover, Some((point, radius))) = (wish.mode, wish.point) {
            let point = VecN::<D>::from(std::array::from_fn(|a| point[a]));
            let chosen: Vec<usize> = neighbors.nearest_to(point, radius).into_iter().collect();
            hover.insert(client, message(true, &chosen));
        }
    }
    (all, hover)
}

/// Storage indices of the boids shown in an "all boids" overlay: every boid up to
/// [`OVERLAY_CAP`], else those whose id is a multiple of a stride (the same boids every frame,
/// spread over the flock since positions do not depend on ids).
fn all_subset(ids: &[u32]) -> Vec<usize> {
    let stride = ids.len().div_ceil(OVERLAY_CAP).max(1) as u32;
    ids.iter()
        .enumerate()
        .filter(|(_, id)| *id % stride == 0)
        .map(|(k, _)| k)
        .take(OVERLAY_CAP)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_subset_is_capped_and_stable_by_id() {
        let ids: Vec<u32> = (0..10_000u32).rev().collect();
        let chosen = all_subset(&ids);
        assert!(chosen.len() <= OVERLAY_CAP && chosen.len() >= OVERLAY_CAP / 2);
        assert!(chosen.iter().all(|&k| ids[k].is_multiple_of(5)));
        let small: Vec<u32> = (0..50).collect();
        assert_eq!(all_subset(&small).len(), 50);
    }
}
