//! A fixed GIF palette for boids frames, and exact nearest-colour mapping into it.
//!
//! A frame is a dark background with a few inks (boid colours, overlay colours) drawn with
//! anti-aliasing, so nearly every pixel lies on a line from the background to one ink. The
//! palette is exactly that: the background plus a ramp of evenly spaced blends toward each ink,
//! the same for every frame. A fixed palette keeps colours stable across frames (no flicker from
//! per-frame quantisation), needs no per-frame analysis, and lets one global colour table serve
//! the whole GIF. Pixels off the ramps (overlapping translucent shapes) take the nearest entry.

use crate::draw::Color;
use crate::scene::Style;

/// Entries in a GIF colour table.
const MAX_COLORS: usize = 256;
/// Most blend steps per ink: on shapes a few pixels wide 16 steps look as smooth as 31, and
/// fewer distinct edge colours make the GIF about 5% smaller.
const MAX_LEVELS: usize = 16;
/// Slots of the memo of recent colour look-ups (a power of two).
const CACHE_SLOTS: usize = 1 << 16;
/// Channel weights of the colour distance (red, green, blue).
const WEIGHTS: [i32; 3] = [2, 4, 3];
/// Marks a filled memo slot (colours use the low 24 bits).
const FILLED: u32 = 1 << 24;

/// Background plus a ramp toward each ink; maps RGBA pixels to indices.
#[derive(Clone, Debug)]
pub struct Palette {
    colors: Vec<Color>,
    /// The colours' red, green and blue channels as separate arrays, for a vectorised search.
    channels: [Vec<i32>; 3],
    /// Memo of exact nearest-colour answers, keyed by colour hash: `(FILLED | rgb, index)`.
    cache: Vec<(u32, u8)>,
}

impl Palette {
    /// The background (index 0) and, for each ink, a ramp of equally spaced blends from the
    /// background to the ink, as many steps as 256 entries allow, at most 16.
    ///
    /// # Panics
    /// With no inks or more than 255 of them.
    pub fn ramps(background: Color, inks: &[Color]) -> Self {
        assert!(!inks.is_empty() && inks.len() < MAX_COLORS, "1 to 255 inks");
        let levels = ((MAX_COLORS - 1) / inks.len()).min(MAX_LEVELS);
        let mut colors = vec![background.with_alpha(255)];
        for ink in inks {
            colors.extend((1..=levels).map(|k| ink.over(background, k as f32 / levels as f32)));
        }
        let channel = |k: usize| {
            colors
                .iter()
                .map(|c| i32::from([c.r, c.g, c.b][k]))
                .collect()
        };
        Self {
            channels: [channel(0), channel(1), channel(2)],
            colors,
            cache: vec![(0, 0); CACHE_SLOTS],
        }
    }

    /// The palette of frames drawn with `style`.
    pub fn for_style(style: &Style) -> Self {
        Self::ramps(style.background, &style.inks())
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.colors.len()
    }

    /// Whether the palette is empty (never: it always holds the background).
    pub fn is_empty(&self) -> bool {
        self.colors.is_empty()
    }

    /// The colour at `index`.
    pub fn color(&self, index: u8) -> Color {
        self.colors[usize::from(index)]
    }

    /// The colour table as RGB bytes, as a GIF stores it.
    pub fn rgb_bytes(&self) -> Vec<u8> {
        self.colors.iter().flat_map(|c| [c.r, c.g, c.b]).collect()
    }

    /// The index of the entry nearest to an RGB colour (weighted squared distance 2:4:3, which
    /// follows the eye's sensitivity better than plain RGB; ties go to the lower index).
    pub fn nearest(&mut self, r: u8, g: u8, b: u8) -> u8 {
        let key = FILLED | u32::from(r) << 16 | u32::from(g) << 8 | u32::from(b);
        let slot = (key.wrapping_mul(0x9E37_79B1) >> 16) as usize % CACHE_SLOTS;
        if self.cache[slot].0 == key {
            return self.cache[slot].1;
        }
        let [rs, gs, bs] = &self.channels;
        let (r, g, b) = (i32::from(r), i32::from(g), i32::from(b));
        let distances = rs.iter().zip(gs).zip(bs).map(|((&pr, &pg), &pb)| {
            let [wr, wg, wb] = WEIGHTS;
            wr * (pr - r).pow(2) + wg * (pg - g).pow(2) + wb * (pb - b).pow(2)
        });
        let mut best = (i32::MAX, 0);
        for (k, d) in distances.enumerate() {
            if d < best.0 {
                best = (d, k);
            }
        }
        let index = best.1 as u8;
        self.cache[slot] = (key, index);
        index
    }

    /// Maps opaque RGBA pixels to palette indices, written to `out`.
    pub fn index_pixels(&mut self, rgba: &[u8], out: &mut Vec<u8>) {
        out.clear();
        // Frames are mostly runs of one colour (the background): reuse the previous answer.
        let mut last: Option<(&[u8], u8)> = None;
        out.extend(rgba.chunks_exact(4).map(|p| match last {
            Some((q, index)) if q == p => index,
            _ => {
                let index = self.nearest(p[0], p[1], p[2]);
                last = Some((p, index));
                index
            }
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn background_and_inks_map_to_themselves() {
        let style = Style::default();
        let mut palette = Palette::for_style(&style);
        assert!(palette.len() <= MAX_COLORS);
        let bg = style.background;
        assert_eq!(palette.nearest(bg.r, bg.g, bg.b), 0);
        for ink in style.inks() {
            let index = palette.nearest(ink.r, ink.g, ink.b);
            assert_eq!(palette.color(index), ink.with_alpha(255));
        }
    }

    #[test]
    fn a_blend_maps_to_a_close_entry_and_memoised_answers_agree() {
        let style = Style::default();
        let mut palette = Palette::for_style(&style);
        let half = style.cohesion.over(style.background, 0.5);
        let index = palette.nearest(half.r, half.g, half.b);
        let c = palette.color(index);
        assert!(
            (i32::from(c.r) - i32::from(half.r)).abs() <= 8,
            "{c:?} vs {half:?}"
        );
        assert_eq!(palette.nearest(half.r, half.g, half.b), index);
    }
}
