//! The uniform-grid neighbour index, rebuilt every step by counting sort, in two or three
//! dimensions (one generic code path, `GridGeometry<D>`: see `geometry.rs` for why a const
//! parameter).
//!
//! Cells are at least as deep as the largest interaction radius along y (and z) and at least
//! that radius over [`GridGeometry::reach`] wide along x, so every neighbour of a boid lies in
//! the block of cells one cell along y (and z) and `reach` columns around its own (the
//! simulation's cells are half a radius wide: the scan then meets fewer candidates out of
//! range). The index is an `order` array listing boids cell by cell (by id within a cell) and a
//! `cell_start` array of span boundaries; the simulation has the sort move boid data straight
//! into that order instead (`CellIndex::sort_into`), so a neighbour scan reads contiguous
//! memory. Cells are numbered x fastest, then y, then z, so consecutive boids share their
//! neighbour cells, and the cells of a row (a line of cells along x) near them are one span of
//! boids ([`GridGeometry::runs_near`]), which the scan exploits; at a million boids in 2D the
//! three rows a scan touches are a few hundred kilobytes, which stay in a core's L2 cache, so a
//! space-filling curve would gain little here. The sort itself runs in parallel over blocks of
//! cells ([`CellIndex`]); it sees only cell numbers, so it is the same in every dimension.
//!
//! On a torus the block of cells wraps, and each wrapped cell carries the shift (±world size,
//! per axis) that turns its positions into ghost positions beside the boid: minimum-image
//! distances without a division per pair. An axis too short for three cells is one cell, with
//! the minimum image taken per pair instead. In an open world the grid covers the flock's
//! bounding box, and its cell count is capped so a straggler far away cannot blow up memory
//! (cells just get wider: still exact).
//!
//! The grid is three concerns, in three files: its geometry (`geometry.rs`, [`GridGeometry`]:
//! cells, their neighbours, torus shifts), the counting sort that fills it each step (`sort.rs`,
//! [`CellIndex`]), and positions in any order indexed on it with the one ring-by-ring walk of
//! the searches that grow until they are done (`search.rs`, [`GridIndex`] and [`Rings`]: the
//! nearest boid, the k nearest). `tests.rs` holds them to a brute-force neighbour search in 2D
//! and 3D.

mod geometry;
mod search;
mod sort;
#[cfg(test)]
mod tests;

pub(crate) use geometry::bounding_box;
pub use geometry::{GridGeometry, NearCell, NearRun, Position, RunsNear};
pub use search::{GridIndex, Rings, rings_hold};
pub use sort::CellIndex;
pub(crate) use sort::{Destination, reserve_to, warm};
