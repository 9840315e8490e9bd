//! The grid as a whole against brute force, in two and three dimensions: binning, the counting
//! sort and `cells_near` together find exactly the points within a radius of each point
//! (minimum image on a torus, across every seam, edge and corner; in an open box), each once.
//! One generic check serves both dimensions, as one generic grid does.

use glam::Vec3;
use rand::{Rng, SeedableRng};

use super::{CellIndex, GridGeometry, GridIndex};

/// `x` as the minimum image on an axis of size `w` (`w = 0`: no wrap), with the arithmetic of
/// [`crate::space::minimum_image`].
fn image(x: f32, w: f32) -> f32 {
    if w > 0.0 { x - w * (x / w).round() } else { x }
}

fn length_squared<const D: usize>(d: [f32; D]) -> f32 {
    d.iter().map(|x| x * x).sum()
}

/// The points within `radius` of point `i` (strictly), by brute force over all points: the
/// minimum image along every axis of a torus of size `torus`.
fn brute_force<const D: usize>(
    pts: &[[f32; D]],
    i: usize,
    torus: [f32; D],
    radius: f32,
) -> Vec<usize> {
    (0..pts.len())
        .filter(|&j| {
            let d: [f32; D] = std::array::from_fn(|a| image(pts[i][a] - pts[j][a], torus[a]));
            length_squared(d) < radius * radius
        })
        .collect()
}

/// The points within `radius` of point `i` among the cells near its own, ascending; panics if
/// a point comes twice.
fn by_grid<const D: usize>(
    g: &GridGeometry<D>,
    index: &CellIndex,
    pts: &[[f32; D]],
    i: usize,
    radius: f32,
) -> Vec<usize> {
    let wrap = g.pairwise_wrap();
    let mut found = vec![];
    for near in g.cells_near(g.cell_of(pts[i])) {
        for &j in &index.order[index.span(near.cell)] {
            let j = j as usize;
            let d: [f32; D] =
                std::array::from_fn(|a| image(pts[i][a] - pts[j][a] - near.shift[a], wrap[a]));
            if length_squared(d) < radius * radius {
                found.push(j);
            }
        }
    }
    let listed = found.len();
    found.sort_unstable();
    found.dedup();
    assert_eq!(found.len(), listed, "point {i} found twice");
    found
}

/// Checks the grid against brute force for every point.
fn assert_exact<const D: usize>(g: &GridGeometry<D>, pts: &[[f32; D]], radius: f32) {
    let ids: Vec<u32> = (0..pts.len() as u32).rev().collect();
    let mut index = CellIndex::default();
    index.rebuild(g, pts, &ids);
    let torus = g.torus_size().unwrap_or([0.0; D]);
    let mut pairs = 0;
    for i in 0..pts.len() {
        let want = brute_force(pts, i, torus, radius);
        assert_eq!(by_grid(g, &index, pts, i, radius), want, "{g:?} point {i}");
        pairs += want.len();
    }
    assert!(pairs > 2 * pts.len(), "a test with neighbours: {pairs}");
}

/// Points over `[origin, origin + size)`: half uniform, half packed on seams, edges and
/// corners: each coordinate on the world's edge (either side of the seam), on a cell border or
/// one step either side of it, or random.
fn points<const D: usize>(
    g: &GridGeometry<D>,
    origin: [f64; D],
    size: [f64; D],
    n: usize,
    seed: u64,
) -> Vec<[f32; D]> {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let dims = g.dims();
    (0..n)
        .map(|k| {
            std::array::from_fn(|a| {
                let (low, extent) = (origin[a], size[a]);
                let random = (low + extent * rng.random::<f64>()) as f32;
                let end = ((low + extent) as f32).next_down();
                let border = (low
                    + extent * f64::from(rng.random_range(0..dims[a])) / f64::from(dims[a]))
                    as f32;
                let packed = match rng.random_range(0..6) {
                    0 => low as f32,
                    1 => end,
                    2 => border,
                    3 => border.next_up(),
                    4 => border.next_down().max(low as f32),
                    _ => random,
                };
                if k % 2 == 0 {
                    random.min(end)
                } else {
                    packed.min(end)
                }
            })
        })
        .collect()
}

/// Tori of every kind in `D` dimensions: many cells along every axis; one axis too short for
/// three cells (the minimum image per pair there); every axis short; an origin off zero.
fn tori<const D: usize>() -> Vec<([f64; D], [f64; D])> {
    let sized = |sizes: [f64; 3]| std::array::from_fn(|a| sizes[a]);
    vec![
        ([0.0; D], sized([10.0, 7.0, 6.0])),
        ([0.0; D], sized([10.0, 2.5, 6.0])),
        ([0.0; D], sized([6.0, 7.0, 2.2])),
        ([0.0; D], sized([2.2, 5.0, 4.0])),
        ([0.0; D], sized([2.5, 2.2, 2.9])),
        (sized([-5.0, 2.0, -3.5]), sized([4.5, 3.3, 3.1])),
    ]
}

fn assert_tori_exact<const D: usize>() {
    for columns in [1, 2] {
        for (case, (origin, size)) in tori::<D>().into_iter().enumerate() {
            let g = GridGeometry::torus(origin, size, 1.0, columns, usize::MAX);
            let pts = points(&g, origin, size, 700, case as u64);
            assert_exact(&g, &pts, 1.0);
        }
    }
}

fn assert_open_exact<const D: usize>() {
    let (origin, size) = ([-3.0; D], [7.0; D]);
    for (columns, max_cells) in [(1, usize::MAX), (2, usize::MAX), (1, 20)] {
        let same_cells = GridGeometry::torus(origin, size, 1.0, columns, max_cells);
        let mut pts = points(&same_cells, origin, size, 700, 7);
        pts.push([40.0; D]);
        let g = GridGeometry::bounding(&pts, 1.0, columns, max_cells);
        assert!(g.cell_count() <= max_cells);
        assert_exact(&g, &pts, 1.0);
    }
}

#[test]
fn torus_2d_finds_exactly_the_brute_force_neighbours() {
    assert_tori_exact::<2>();
}

#[test]
fn torus_3d_finds_exactly_the_brute_force_neighbours() {
    assert_tori_exact::<3>();
}

#[test]
fn open_box_finds_exactly_the_brute_force_neighbours() {
    assert_open_exact::<2>();
    assert_open_exact::<3>();
}

/// A 3D grid's positions come in as `Vec3`, and cells are numbered x fastest, then y, then z.
#[test]
fn cells_3d_are_numbered_x_then_y_then_z() {
    let g = GridGeometry::torus([0.0; 3], [4.5, 3.5, 6.5], 1.0, 1, usize::MAX);
    assert_eq!(g.dims(), [4, 3, 6]);
    assert_eq!(g.cell_of(Vec3::new(1.5, 0.5, 0.5)), 1);
    assert_eq!(g.cell_of(Vec3::new(0.5, 1.5, 0.5)), 4);
    assert_eq!(g.cell_of(Vec3::new(0.5, 0.5, 1.5)), 12);
    assert_eq!(g.coords(4 * 3 * 5 + 4 * 2 + 3), [3, 2, 5]);
    let capped = GridGeometry::torus([0.0; 3], [100.0; 3], 1.0, 1, 1000);
    let [nx, ny, nz] = capped.dims();
    assert!(
        nx == ny && ny == nz && (9..=10).contains(&nx),
        "every axis alike"
    );
    assert!(capped.cell_count() <= 1000);
}

/// Around every cell of a 3D torus lie the (2·reach_x + 1)·3·3 cells of its block, each once
/// and in ascending order of the unwrapped block, and the shifts met are all 26 images of the
/// world and the world itself.
#[test]
fn cells_near_in_3d_are_the_block_around_with_26_images() {
    for columns in [1, 2] {
        let g = GridGeometry::torus([0.0; 3], [10.0, 4.0, 3.5], 1.0, columns, usize::MAX);
        let mut shifts = vec![];
        for cell in 0..g.cell_count() as u32 {
            let near: Vec<_> = g.cells_near(cell).collect();
            assert_eq!(near.len() as u32, (2 * columns + 1) * 9);
            let mut cells: Vec<u32> = near.iter().map(|n| n.cell).collect();
            cells.sort_unstable();
            cells.dedup();
            assert_eq!(cells.len(), near.len(), "cell {cell}");
            // A shifted cell lies a world's width of cells below or above its wrapped place.
            let unwrap = |c: u32, shift: f32, n: u32| match shift {
                0.0 => i64::from(c),
                s if s < 0.0 => i64::from(c) - i64::from(n),
                _ => i64::from(c) + i64::from(n),
            };
            let unwrapped: Vec<[i64; 3]> = near
                .iter()
                .map(|n| {
                    let at = g.coords(n.cell);
                    std::array::from_fn(|a| unwrap(at[a], n.shift[a], g.dims()[a]))
                })
                .collect();
            assert!(near.iter().zip(&unwrapped).all(|(n, u)| n.column == u[0]));
            let mut ascending = unwrapped.clone();
            ascending.sort_by_key(|&[x, y, z]| (z, y, x));
            assert_eq!(unwrapped, ascending, "cell {cell}");
            shifts.extend(near.iter().map(|n| n.shift.map(f32::to_bits)));
        }
        shifts.sort_unstable();
        shifts.dedup();
        assert_eq!(shifts.len(), 27);
    }
}

/// Rings in 3D: in an open grid, ring `r` is every cell at Chebyshev distance `r`, each once;
/// on a torus the rings up to [`super::Rings::last`] reach every cell, each once.
#[test]
fn rings_in_3d() {
    let pts = [Vec3::ZERO, Vec3::new(5.5, 3.5, 4.5)];
    let open = GridIndex::new(
        GridGeometry::bounding(&pts, 1.0, 1, usize::MAX),
        &pts,
        &[0, 1],
    );
    let at = Vec3::new(2.0, 1.0, 3.0);
    let grid = open.geometry();
    let centre = grid.coords(grid.cell_of(at)).map(i64::from);
    let rings = open.rings_around(at);
    for ring in 0..=rings.last() + 1 {
        let mut got = vec![];
        rings.for_each_cell(ring, |c| got.push(c));
        let want: Vec<u32> = (0..grid.cell_count() as u32)
            .filter(|&c| {
                let at = grid.coords(c).map(i64::from);
                (0..3).map(|a| (at[a] - centre[a]).abs()).max() == Some(i64::from(ring))
            })
            .collect();
        assert_eq!(got, want, "ring {ring}");
    }
    let torus = GridGeometry::torus([0.0; 3], [5.5, 3.5, 4.5], 1.0, 1, usize::MAX);
    let torus = GridIndex::new(torus, &pts, &[0, 1]);
    let mut seen = vec![0; torus.geometry().cell_count()];
    let rings = torus.rings_around(Vec3::new(1.5, 1.5, 0.5));
    for ring in 0..=rings.last() {
        rings.for_each_cell(ring, |c| seen[c as usize] += 1);
    }
    assert!(seen.iter().all(|&s| s == 1), "{seen:?}");
}
