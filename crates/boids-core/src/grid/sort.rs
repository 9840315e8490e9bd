//! The counting sort that lists boids cell by cell each step, binning included.
//!
//! The index is an `order` array listing boids cell by cell (by id within a cell) and a
//! `cell_start` array of span boundaries; the simulation has the sort move boid data straight
//! into that order instead ([`CellIndex::sort_into`]), so a neighbour scan reads contiguous
//! memory. The sort runs in parallel over blocks of cells ([`CellIndex`]).

use std::collections::TryReserveError;

use super::{GridGeometry, Position};
use crate::par::{self, Split};
use crate::simd::Build;

/// Boids per source chunk of the sort: the unit whose range of cells is recorded, so that a
/// block of cells reads only the chunks that can hold its boids.
const SOURCE_CHUNK: usize = 4096;

/// Boids per block of cells in the parallel sort, about (fewer where [`BLOCKS_PER_THREAD`]
/// asks for more blocks): a block's destination, about 25 bytes a boid in the simulation, then
/// fits in a core's L2 cache (1 MiB on the machine measured) beside its sources.
const BLOCK_BOIDS: usize = 32768;

/// Blocks per thread in the parallel sort, at least, so that no thread waits long for another.
const BLOCKS_PER_THREAD: usize = 4;

/// The parallel sort may read each boid's cell at most this many times in all (summed over
/// blocks); a flock stored far from cell order (the first step after loading a file in id
/// order) is sorted as one block instead.
const MAX_SCANS: usize = 8;

/// Boids listed cell by cell: the result of one counting sort.
///
/// The sort is a stable counting sort from storage order, then an insertion sort by id within
/// each cell (spans are short and mostly sorted already, since storage order is the previous
/// step's cell order). It runs in parallel over blocks of consecutive cells: each block counts
/// and places only its own boids, writing a disjoint part of `order`, so no two threads write
/// the same memory and the result is the same for any number of blocks. A block finds its boids
/// by reading the source chunks whose cell range overlaps it; in a flock kept in cell order that
/// is about one chunk per block more than its own boids. Blocks also keep the sort in cache: a
/// block writes its slots cell by cell, thousands of places at once, so it first reads them
/// front to back (`Destination::warm`), which the processor prefetches, and its scattered
/// writes then find their lines in cache instead of each waiting for memory. One thread sorts
/// in blocks too.
#[derive(Clone, Debug, Default)]
pub struct CellIndex {
    /// `cell_start[c]..cell_start[c + 1]` is cell `c`'s span in `order`.
    pub cell_start: Vec<u32>,
    /// Storage indices of the boids, cell by cell, ascending id within a cell.
    pub order: Vec<u32>,
    /// Cell of each boid, in storage order.
    cell_of: Vec<u32>,
    /// Lowest and highest cell of each source chunk.
    chunk_cells: Vec<[u32; 2]>,
    /// Per cell: the count, then the next free slot while placing.
    cursor: Vec<u32>,
    /// Per block: its boid count, then its first slot in `order`.
    block_start: Vec<u32>,
    /// Per slot of `order`: 1 where a cell's span starts, else 0.
    first_in_cell: Vec<u8>,
    /// Cells per block.
    block_cells: usize,
}

impl CellIndex {
    /// Reserves room for `n` boids in up to `cells` cells, so that binning and
    /// `CellIndex::sort_into` never allocate (the `order` list is only made by
    /// [`CellIndex::sort`]).
    pub fn reserve(&mut self, n: usize, cells: usize) -> Result<(), TryReserveError> {
        reserve_to(&mut self.cell_of, n)?;
        reserve_to(&mut self.first_in_cell, n)?;
        reserve_to(&mut self.cell_start, cells + 1)?;
        reserve_to(&mut self.cursor, cells)?;
        reserve_to(&mut self.chunk_cells, n.div_ceil(SOURCE_CHUNK))?;
        reserve_to(&mut self.block_start, n / BLOCK_BOIDS + 2)
    }

    /// Sorts `positions` into the cells of `geometry`. Within a cell, boids are ordered by
    /// `ids`, so the order is a function of the flock alone, never of how it was stored.
    pub fn rebuild<const D: usize, P: Position<D>>(
        &mut self,
        geometry: &GridGeometry<D>,
        positions: &[P],
        ids: &[u32],
    ) {
        self.bin(geometry, positions);
        self.sort(ids);
    }

    /// The first half of [`CellIndex::rebuild`]: the cell of every boid, and how many boids
    /// each cell holds.
    pub fn bin<const D: usize, P: Position<D>>(
        &mut self,
        geometry: &GridGeometry<D>,
        positions: &[P],
    ) {
        let n = positions.len();
        let cells = geometry.cell_count();
        self.cell_of.resize(n, 0);
        self.chunk_cells.resize(n.div_ceil(SOURCE_CHUNK), [0, 0]);
        let build = Build::best();
        par::for_each_chunk_zip(
            &mut self.cell_of,
            SOURCE_CHUNK,
            &mut self.chunk_cells,
            |k, cell_of, range| {
                *range = bin_chunk(build, geometry, &positions[k * SOURCE_CHUNK..], cell_of);
            },
        );

        self.block_cells = self.plan_blocks(n, cells);
        let blocks = cells.div_ceil(self.block_cells);
        self.cursor.resize(cells, 0);
        self.block_start.resize(blocks + 1, 0);
        let scan = Scan {
            cell_of: &self.cell_of,
            chunk_cells: &self.chunk_cells,
            block_start: &[],
            block_cells: self.block_cells,
            cells,
        };
        par::for_each_chunk_zip(
            &mut self.cursor,
            self.block_cells,
            &mut self.block_start[..blocks],
            |block, counts, total| {
                counts.fill(0);
                let first = block * scan.block_cells;
                scan.for_each_in_block(first, counts.len(), |_, local| counts[local] += 1);
                *total = counts.iter().sum();
            },
        );
        let mut start = 0;
        for slot in &mut self.block_start {
            (*slot, start) = (start, start + *slot);
        }
    }

    /// The second half of [`CellIndex::rebuild`]: every boid placed in its cell's span of
    /// `order`, by id within the cell.
    pub fn sort(&mut self, ids: &[u32]) {
        let mut order = std::mem::take(&mut self.order);
        order.resize(self.cell_of.len(), 0);
        self.sort_into(Order {
            order: &mut order,
            ids,
        });
        self.order = order;
    }

    /// The second half of [`CellIndex::rebuild`], placing each boid straight into `into`: slot
    /// `k` of it receives the boid `order[k]` would name (`order` itself is left as it was).
    pub(crate) fn sort_into<D: Destination>(&mut self, into: D) {
        let n = self.cell_of.len();
        assert_eq!(into.len(), n, "one slot per boid");
        let cells = self.cursor.len();
        self.cell_start.resize(cells + 1, 0);
        self.cell_start[cells] = n as u32;
        let mut cursor = std::mem::take(&mut self.cursor);
        let mut cell_start = std::mem::take(&mut self.cell_start);
        let mut first_in_cell = std::mem::take(&mut self.first_in_cell);
        first_in_cell.resize(n, 0);
        let blocks = self.block_start.len() - 1;
        self.scan(cells).place(
            0..blocks,
            Placing {
                into: (into, &mut first_in_cell[..]),
                cursor: &mut cursor,
                cell_start: &mut cell_start[..cells],
            },
        );
        (self.cursor, self.cell_start) = (cursor, cell_start);
        self.first_in_cell = first_in_cell;
    }

    /// Cells per block: blocks small enough for the cache and enough of them to share the
    /// work, but none of fewer than [`par::MIN_CHUNK`] boids (a small flock's blocks would read
    /// the same chunks again and again), unless the flock is so far from cell order that
    /// blocks would read most chunks many times.
    fn plan_blocks(&self, n: usize, cells: usize) -> usize {
        let blocks = (n / BLOCK_BOIDS)
            .max(BLOCKS_PER_THREAD * par::threads())
            .min(n / par::MIN_CHUNK)
            .min(cells);
        if blocks <= 1 {
            return cells.max(1);
        }
        let block_cells = cells.div_ceil(blocks);
        let reads: usize = self
            .chunk_cells
            .iter()
            .map(|&[low, high]| {
                let spanned = high as usize / block_cells - low as usize / block_cells + 1;
                spanned * SOURCE_CHUNK
            })
            .sum();
        if reads > MAX_SCANS * n.max(1) {
            cells.max(1)
        } else {
            block_cells
        }
    }

    fn scan(&self, cells: usize) -> Scan<'_> {
        Scan {
            cell_of: &self.cell_of,
            chunk_cells: &self.chunk_cells,
            block_start: &self.block_start,
            block_cells: self.block_cells,
            cells,
        }
    }

    /// The span of cell `c` in `order` (and in data moved into that order).
    #[inline]
    pub fn span(&self, c: u32) -> std::ops::Range<usize> {
        self.cell_start[c as usize] as usize..self.cell_start[c as usize + 1] as usize
    }
}

/// What every block of the sort reads.
#[derive(Clone, Copy)]
struct Scan<'a> {
    cell_of: &'a [u32],
    chunk_cells: &'a [[u32; 2]],
    block_start: &'a [u32],
    block_cells: usize,
    cells: usize,
}

/// Where the counting sort puts the boids, slot by slot of the sorted order: a list of
/// storage indices ([`CellIndex::order`]), or the boids' data itself, moved in one pass.
pub(crate) trait Destination: Split {
    /// Puts the boid stored at `boid` into slot `slot` (of this part).
    fn put(&mut self, slot: usize, boid: usize);
    /// The id of the boid in slot `slot`.
    fn id(&self, slot: usize) -> u32;
    /// Moves the boid of slot `from` back to slot `to`, and the boids of `to..from` one slot
    /// forward.
    fn move_back(&mut self, from: usize, to: usize);
    /// Reads every slot once, front to back, to bring them into the cache before the scattered
    /// writes of [`Destination::put`].
    fn warm(&self);
}

/// The sorted order as storage indices.
struct Order<'a> {
    order: &'a mut [u32],
    ids: &'a [u32],
}

impl Split for Order<'_> {
    fn len(&self) -> usize {
        self.order.len()
    }

    fn split_at(self, mid: usize) -> (Self, Self) {
        let (a, b) = self.order.split_at_mut(mid);
        let ids = self.ids;
        (Order { order: a, ids }, Order { order: b, ids })
    }
}

impl Destination for Order<'_> {
    fn put(&mut self, slot: usize, boid: usize) {
        self.order[slot] = boid as u32;
    }

    fn id(&self, slot: usize) -> u32 {
        self.ids[self.order[slot] as usize]
    }

    fn move_back(&mut self, from: usize, to: usize) {
        self.order[to..=from].rotate_right(1);
    }

    fn warm(&self) {
        warm(self.order);
    }
}

/// The parts of the index that a run of blocks writes, split as the blocks are.
struct Placing<'a, D> {
    /// The destination, and which of its slots start a cell.
    into: (D, &'a mut [u8]),
    cursor: &'a mut [u32],
    cell_start: &'a mut [u32],
}

impl Scan<'_> {
    /// Calls `f(boid, cell - first)` for every boid whose cell lies in `first..first + len`, in
    /// storage order.
    #[inline]
    fn for_each_in_block(&self, first: usize, len: usize, mut f: impl FnMut(u32, usize)) {
        let (low, high) = (first as u32, (first + len) as u32);
        for (k, &[chunk_low, chunk_high]) in self.chunk_cells.iter().enumerate() {
            if chunk_high < low || chunk_low >= high {
                continue;
            }
            let start = k * SOURCE_CHUNK;
            let end = (start + SOURCE_CHUNK).min(self.cell_of.len());
            for (i, &c) in (start..end).zip(&self.cell_of[start..end]) {
                let local = c.wrapping_sub(low) as usize;
                if local < len {
                    f(i as u32, local);
                }
            }
        }
    }

    /// Places the boids of `blocks`, halving the run of blocks between two tasks until one
    /// block is left.
    fn place<D: Destination>(&self, blocks: std::ops::Range<usize>, out: Placing<'_, D>) {
        if blocks.len() > 1 {
            let mid = blocks.start + blocks.len() / 2;
            let boids = (self.block_start[mid] - self.block_start[blocks.start]) as usize;
            let cells = (mid - blocks.start) * self.block_cells;
            let (into_a, into_b) = out.into.split_at(boids);
            let (cursor_a, cursor_b) = out.cursor.split_at_mut(cells);
            let (start_a, start_b) = out.cell_start.split_at_mut(cells);
            par::join(
                || {
                    let out = Placing {
                        into: into_a,
                        cursor: cursor_a,
                        cell_start: start_a,
                    };
                    self.place(blocks.start..mid, out)
                },
                || {
                    let out = Placing {
                        into: into_b,
                        cursor: cursor_b,
                        cell_start: start_b,
                    };
                    self.place(mid..blocks.end, out)
                },
            );
            return;
        }
        let Placing {
            into: (mut into, first_in_cell),
            cursor,
            cell_start,
        } = out;
        let base = self.block_start[blocks.start];
        let mut next = base;
        for (count, start) in cursor.iter_mut().zip(cell_start.iter_mut()) {
            *start = next;
            next += *count;
            *count = *start - base;
        }
        into.warm();
        let first = blocks.start * self.block_cells;
        let len = cursor.len().min(self.cells - first);
        self.for_each_in_block(first, len, |boid, local| {
            let slot = &mut cursor[local];
            into.put(*slot as usize, boid as usize);
            *slot += 1;
        });
        // Marked in a pass of its own: inside the loop above, the marks cost the sort 0.4 ms at
        // a million boids.
        first_in_cell.fill(0);
        for &start in &cell_start[..] {
            // An empty cell at the block's end starts past its last slot.
            if let Some(first) = first_in_cell.get_mut((start - base) as usize) {
                *first = 1;
            }
        }
        sort_by_id(&mut into, first_in_cell);
    }
}

/// The cell of each of `positions` into `cell_of` (as long as `positions`), and the lowest and
/// highest, by `build`, which must be [`Build::supported`]: the same loop, vectorised by the
/// compiler for the build's instructions (the conversions are exact, so every build gives the
/// same cells).
fn bin_chunk<const D: usize, P: Position<D>>(
    build: Build,
    geometry: &GridGeometry<D>,
    positions: &[P],
    cell_of: &mut [u32],
) -> [u32; 2] {
    debug_assert!(build.supported());
    match build {
        Build::Arrays => cells_of(geometry, positions, cell_of),
        // SAFETY (both): the caller checked that the processor has the build's features.
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        Build::Avx2 => unsafe { x86::cells_of_avx2(geometry, positions, cell_of) },
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        Build::Avx512 => unsafe { x86::cells_of_avx512(geometry, positions, cell_of) },
    }
}

/// [`bin_chunk`] in any build.
#[inline(always)]
fn cells_of<const D: usize, P: Position<D>>(
    geometry: &GridGeometry<D>,
    positions: &[P],
    cell_of: &mut [u32],
) -> [u32; 2] {
    let mut low = u32::MAX;
    let mut high = 0;
    for (c, p) in cell_of.iter_mut().zip(positions) {
        *c = geometry.cell_of(*p);
        low = low.min(*c);
        high = high.max(*c);
    }
    [low, high]
}

/// [`cells_of`] compiled for the x86 vector extensions (in every dimension: generic functions
/// take their target features into each instantiation).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{GridGeometry, Position, cells_of};

    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    pub fn cells_of_avx512<const D: usize, P: Position<D>>(
        g: &GridGeometry<D>,
        positions: &[P],
        cell_of: &mut [u32],
    ) -> [u32; 2] {
        cells_of(g, positions, cell_of)
    }

    #[target_feature(enable = "avx2")]
    pub fn cells_of_avx2<const D: usize, P: Position<D>>(
        g: &GridGeometry<D>,
        positions: &[P],
        cell_of: &mut [u32],
    ) -> [u32; 2] {
        cells_of(g, positions, cell_of)
    }
}

/// Reads one item of each cache line of `slots`, front to back ([`Destination::warm`]).
pub(crate) fn warm<T: Copy>(slots: &[T]) {
    const LINE_BYTES: usize = 64;
    let step = (LINE_BYTES / std::mem::size_of::<T>()).max(1);
    for k in (0..slots.len()).step_by(step) {
        std::hint::black_box(slots[k]);
    }
}

/// Makes room in `v` for `len` items in all (not `len` more). When it holds room for more than
/// twice that (the buffer of a flock that shrank), it is first cut to `len` items and the rest
/// given back, so a viewer that went from ten million boids to a thousand does not keep
/// gigabytes: every buffer reserved is refilled before it is read.
pub(crate) fn reserve_to<T>(v: &mut Vec<T>, len: usize) -> Result<(), TryReserveError> {
    if v.capacity() > 2 * len {
        v.truncate(len);
        v.shrink_to_fit();
    }
    v.try_reserve_exact(len.saturating_sub(v.len()))
}

/// Insertion sort by id within each cell, the cells' spans starting at the slots marked in
/// `first_in_cell`: spans are short and nearly sorted already, so most boids stay where they
/// are after one comparison, and a boid that must go back is moved once, however far. One loop
/// runs over all the slots (no loop per cell, whose exit the processor would mispredict); a
/// cell's first slot compares with 0 instead of its predecessor, so it is never moved back.
fn sort_by_id<D: Destination>(into: &mut D, first_in_cell: &[u8]) {
    for from in 1..first_in_cell.len() {
        let id = into.id(from);
        // All ones within a cell, zero at its first slot.
        let within = u32::from(first_in_cell[from]).wrapping_sub(1);
        if into.id(from - 1) & within > id {
            let mut to = from - 1;
            while first_in_cell[to] == 0 && into.id(to - 1) > id {
                to -= 1;
            }
            into.move_back(from, to);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Vec2, Vec3};
    use rand::{Rng, SeedableRng};

    /// Every build of the binning loop gives the cell of [`GridGeometry::cell_of`], also for
    /// positions on cell borders, outside the grid (clamped) and far away (saturated).
    #[test]
    fn every_build_bins_as_cell_of() {
        let grids = [
            GridGeometry::torus([-5.0, 2.0], [1013.0, 480.0], 40.0, 1, usize::MAX),
            GridGeometry::bounding(&[Vec2::new(-3.0, 0.5), Vec2::new(90.0, 7.0)], 2.5, 1, 64),
        ];
        for g in grids {
            let borders = (0..g.dims()[0]).map(|c| {
                let x = -5.0 + f64::from(c) * 1013.0 / f64::from(g.dims()[0]);
                Vec2::new(x as f32, 100.0)
            });
            let positions: Vec<Vec2> = awkward_positions(5).chain(borders).collect();
            assert_every_build_bins_as_cell_of(&g, &positions);
        }
    }

    /// [`every_build_bins_as_cell_of`] in three dimensions, borders along z.
    #[test]
    fn every_build_bins_as_cell_of_in_3d() {
        let g = GridGeometry::torus([-5.0, 2.0, 1.0], [1013.0, 480.0, 300.0], 40.0, 2, 1 << 20);
        let borders = (0..g.dims()[2]).map(|c| {
            let z = 1.0 + f64::from(c) * 300.0 / f64::from(g.dims()[2]);
            Vec3::new(100.0, 100.0, z as f32)
        });
        let depths = awkward_positions(6).zip(awkward_positions(7));
        let positions: Vec<Vec3> = depths
            .map(|(p, q)| p.extend(q.x.max(q.y) * 0.3))
            .chain(borders)
            .collect();
        assert_every_build_bins_as_cell_of(&g, &positions);
    }

    /// Random positions over and beyond a world of 1000 by 500, then far, tiny and signed-zero
    /// ones.
    fn awkward_positions(seed: u64) -> impl Iterator<Item = Vec2> {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let random: Vec<Vec2> = (0..3000)
            .map(|_| {
                Vec2::new(
                    rng.random_range(-50.0..1100.0),
                    rng.random_range(-50.0..600.0),
                )
            })
            .collect();
        let special = [-1e30, -1.0, -0.0, 0.0, 1e-30, 40.0, 1e9, 1e30, f32::MAX].map(Vec2::splat);
        random.into_iter().chain(special)
    }

    fn assert_every_build_bins_as_cell_of<const D: usize, P: Position<D>>(
        g: &GridGeometry<D>,
        positions: &[P],
    ) {
        let want: Vec<u32> = positions.iter().map(|&p| g.cell_of(p)).collect();
        for build in Build::ALL.iter().filter(|b| b.supported()) {
            let mut got = vec![0; positions.len()];
            let range = bin_chunk(*build, g, positions, &mut got);
            assert_eq!(got, want, "{build:?}");
            let low = want.iter().min().copied();
            assert_eq!(range, [low.unwrap(), *want.iter().max().unwrap()]);
        }
    }

    /// Checks that `index` lists every boid once, cells ascending, ids ascending within a cell.
    fn assert_sorted(index: &CellIndex, g: &GridGeometry<2>, pts: &[Vec2], ids: &[u32]) {
        let mut seen = vec![false; pts.len()];
        for c in 0..g.cell_count() as u32 {
            let span = &index.order[index.span(c)];
            for pair in span.windows(2) {
                assert!(ids[pair[0] as usize] < ids[pair[1] as usize], "cell {c}");
            }
            for &i in span {
                assert_eq!(g.cell_of(pts[i as usize]), c);
                assert!(!std::mem::replace(&mut seen[i as usize], true));
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    #[cfg(feature = "parallel")]
    fn blocks_sort_exactly_as_one_block() {
        // Enough boids for many blocks; the second sort starts from (nearly) cell order, as in
        // a running simulation, so the blocked path is taken.
        let n = 5 * BLOCK_BOIDS + 123;
        let g = GridGeometry::torus([0.0, 0.0], [300.0, 200.0], 1.0, 1, usize::MAX);
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(12345);
        let mut random = || rng.random::<f32>();
        let pts: Vec<Vec2> = (0..n)
            .map(|_| Vec2::new(random() * 300.0, random() * 200.0))
            .collect();
        let ids: Vec<u32> = (0..n as u32).rev().collect();
        let mut first = CellIndex::default();
        first.rebuild(&g, &pts, &ids);
        let near: Vec<Vec2> = first
            .order
            .iter()
            .map(|&i| {
                let p = pts[i as usize] + Vec2::new(random() - 0.5, random() - 0.5) * 0.3;
                p.clamp(Vec2::ZERO, Vec2::new(299.9, 199.9))
            })
            .collect();
        let near_ids: Vec<u32> = first.order.iter().map(|&i| ids[i as usize]).collect();
        let sorted = |threads: usize, pts: &[Vec2], ids: &[u32]| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut index = CellIndex::default();
            pool.install(|| index.rebuild(&g, pts, ids));
            index
        };
        let ids_in_order = |index: &CellIndex, ids: &[u32]| -> Vec<u32> {
            index.order.iter().map(|&i| ids[i as usize]).collect()
        };
        // The same boids stored where `pts` were, at random, far from cell order: the blocked
        // path would read every chunk for every block, so they are sorted as one block.
        let (mut random_pts, mut random_ids) = (vec![Vec2::ZERO; n], vec![0; n]);
        for (slot, &k) in first.order.iter().enumerate() {
            (random_pts[k as usize], random_ids[k as usize]) = (near[slot], near_ids[slot]);
        }
        let one = sorted(2, &random_pts, &random_ids);
        assert_eq!(one.block_cells, g.cell_count(), "one block");
        assert_sorted(&one, &g, &random_pts, &random_ids);
        for threads in [1, 2, 3] {
            let many = sorted(threads, &near, &near_ids);
            assert!(g.cell_count() / many.block_cells >= 4, "blocked path taken");
            assert_sorted(&many, &g, &near, &near_ids);
            let (blocked, whole) = (
                ids_in_order(&many, &near_ids),
                ids_in_order(&one, &random_ids),
            );
            assert_eq!(blocked, whole, "{threads} threads");
            assert_eq!(many.cell_start, one.cell_start, "{threads} threads");
        }
    }

    #[test]
    fn counting_sort_lists_every_boid_once_by_cell_then_id() {
        let g = GridGeometry::torus([0.0, 0.0], [4.0, 4.0], 1.0, 1, usize::MAX);
        let pts = [
            Vec2::new(3.5, 3.5),
            Vec2::new(0.5, 0.5),
            Vec2::new(0.6, 0.4),
            Vec2::new(3.9, 0.1),
        ];
        let ids = [0, 3, 1, 2];
        let mut index = CellIndex::default();
        index.rebuild(&g, &pts, &ids);
        assert_eq!(index.order, vec![2, 1, 3, 0]);
        assert_sorted(&index, &g, &pts, &ids);
        assert_eq!(index.span(0), 0..2);
        assert_eq!(*index.cell_start.last().unwrap(), 4);
    }
}
