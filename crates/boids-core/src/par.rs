//! The one place that decides between rayon and a plain loop, so the model code reads the same
//! with or without the `parallel` feature.

use std::ops::Add;

/// Below this many items per task, splitting work costs more than it saves.
pub const MIN_CHUNK: usize = 2048;

/// Calls `f(index, item)` for every item of `out`, in parallel when the feature is on.
pub fn for_each_indexed<T, F>(out: &mut [T], f: F)
where
    T: Send,
    F: Fn(usize, &mut T) + Sync + Send,
{
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        out.par_iter_mut()
            .with_min_len(MIN_CHUNK)
            .enumerate()
            .for_each(|(i, item)| f(i, item));
    }
    #[cfg(not(feature = "parallel"))]
    for (i, item) in out.iter_mut().enumerate() {
        f(i, item);
    }
}

/// `out[k] = source[order[k]]` for every k.
pub fn gather<T: Copy + Default + Send + Sync>(out: &mut Vec<T>, source: &[T], order: &[u32]) {
    out.resize(order.len(), T::default());
    for_each_indexed(out, |k, slot| *slot = source[order[k] as usize]);
}

/// Maps every index `0..n` to a value, in parallel when the feature is on, collecting in order.
pub fn map_collect<T, F>(n: usize, f: F) -> Vec<T>
where
    T: Send,
    F: Fn(usize) -> T + Sync + Send,
{
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        (0..n)
            .into_par_iter()
            .with_min_len(MIN_CHUNK)
            .map(f)
            .collect()
    }
    #[cfg(not(feature = "parallel"))]
    (0..n).map(f).collect()
}

/// The least of `f(i)` over every index `0..n` where it is `Some`, in parallel when the feature
/// is on (the least, so the answer does not depend on the thread count).
pub fn min_of<T, F>(n: usize, f: F) -> Option<T>
where
    T: Ord + Send,
    F: Fn(usize) -> Option<T> + Sync + Send,
{
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        (0..n)
            .into_par_iter()
            .with_min_len(MIN_CHUNK)
            .filter_map(f)
            .min()
    }
    #[cfg(not(feature = "parallel"))]
    (0..n).filter_map(f).min()
}

/// A mutable slice, or a tuple of equally long mutable slices, that can be cut in two: the
/// unit of work of [`sum_parts`].
pub trait Split: Sized + Send {
    /// Number of items (of each slice).
    fn len(&self) -> usize;
    /// The items before `mid` and the rest.
    fn split_at(self, mid: usize) -> (Self, Self);
}

impl<T: Send> Split for &mut [T] {
    fn len(&self) -> usize {
        <[T]>::len(self)
    }

    fn split_at(self, mid: usize) -> (Self, Self) {
        self.split_at_mut(mid)
    }
}

macro_rules! split_tuple {
    ($first:ident $(, $rest:ident)*) => {
        impl<$first: Split $(, $rest: Split)*> Split for ($first, $($rest,)*) {
            fn len(&self) -> usize {
                self.0.len()
            }

            #[allow(non_snake_case)]
            fn split_at(self, mid: usize) -> (Self, Self) {
                let ($first, $($rest,)*) = self;
                let $first = $first.split_at(mid);
                $(let $rest = $rest.split_at(mid);)*
                (($first.0, $($rest.0,)*), ($first.1, $($rest.1,)*))
            }
        }
    };
}

split_tuple!(A, B);
split_tuple!(A, B, C);
split_tuple!(A, B, C, D);

/// Calls `f(start, part)` on consecutive parts of about [`MIN_CHUNK`] items of `data` (a slice
/// or a tuple of equally long slices), `start` being the part's first index, and returns the
/// sum of what the calls return; parts run in parallel when the feature is on. The parts depend
/// only on the length of `data`, not on the thread count.
pub fn sum_parts<S, R, F>(data: S, f: F) -> R
where
    S: Split,
    R: Add<Output = R> + Send,
    F: Fn(usize, S) -> R + Sync + Send,
{
    fn halve<S, R, F>(start: usize, data: S, f: &F) -> R
    where
        S: Split,
        R: Add<Output = R> + Send,
        F: Fn(usize, S) -> R + Sync + Send,
    {
        let len = data.len();
        if len <= MIN_CHUNK {
            return f(start, data);
        }
        let mid = len / 2;
        let (a, b) = data.split_at(mid);
        let (a, b) = join(|| halve(start, a, f), || halve(start + mid, b, f));
        a + b
    }
    halve(0, data, &f)
}

/// Threads that parallel work is shared among (1 without the feature).
pub fn threads() -> usize {
    #[cfg(feature = "parallel")]
    return rayon::current_num_threads();
    #[cfg(not(feature = "parallel"))]
    1
}

/// Runs `f` on a thread of the global pool and returns its result: a loop of steps run there
/// shares each step's parallel work from inside the pool, where a step started from outside
/// hands its work over and waits for a sleeping worker to wake. On the 2-vCPU machine measured
/// that wake-up made a 10,000-boid 2D step 26% slower on one thread (see the guide's
/// performance notes). Call it only after the pool's size is set: its first use starts the
/// pool.
pub fn in_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    #[cfg(feature = "parallel")]
    if rayon::current_thread_index().is_none() {
        return rayon::scope(|_| f());
    }
    f()
}

/// Runs `a` and `b`, in parallel when the feature is on.
pub fn join<A, B>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B)
where
    A: Send,
    B: Send,
{
    #[cfg(feature = "parallel")]
    return rayon::join(a, b);
    #[cfg(not(feature = "parallel"))]
    (a(), b())
}

/// Calls `f(k, chunk_k, &mut b[k])` for the chunks of `chunk` items of `a` (the last may be
/// shorter) with the matching items of `b`, in parallel when the feature is on.
pub fn for_each_chunk_zip<A, B, F>(a: &mut [A], chunk: usize, b: &mut [B], f: F)
where
    A: Send,
    B: Send,
    F: Fn(usize, &mut [A], &mut B) + Sync + Send,
{
    assert_eq!(
        a.len().div_ceil(chunk),
        b.len(),
        "one item of b per chunk of a"
    );
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        a.par_chunks_mut(chunk)
            .zip(b.par_iter_mut())
            .enumerate()
            .for_each(|(k, (a, b))| f(k, a, b));
    }
    #[cfg(not(feature = "parallel"))]
    for (k, (a, b)) in a.chunks_mut(chunk).zip(b.iter_mut()).enumerate() {
        f(k, a, b);
    }
}

/// Calls `f(k, &mut a[k], &mut b[k])` for every index of two slices of the same length, in
/// parallel when the feature is on.
pub fn for_each_zip<A, B, F>(a: &mut [A], b: &mut [B], f: F)
where
    A: Send,
    B: Send,
    F: Fn(usize, &mut A, &mut B) + Sync + Send,
{
    assert_eq!(a.len(), b.len(), "slices of the same length");
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        a.par_iter_mut()
            .zip(b.par_iter_mut())
            .with_min_len(MIN_CHUNK)
            .enumerate()
            .for_each(|(k, (a, b))| f(k, a, b));
    }
    #[cfg(not(feature = "parallel"))]
    for (k, (a, b)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
        f(k, a, b);
    }
}

#[cfg(test)]
mod tests {
    /// `in_pool` runs its closure on a thread of the pool (with the feature) and passes its
    /// result back; called from a thread of the pool, it runs in place.
    #[test]
    fn in_pool_runs_on_a_pool_thread() {
        let (outside, inside) = std::thread::spawn(|| {
            let inside = super::in_pool(|| (rayon::current_thread_index(), 7));
            (rayon::current_thread_index(), inside)
        })
        .join()
        .unwrap();
        assert_eq!(outside, None);
        assert_eq!(inside.1, 7);
        assert_eq!(inside.0.is_some(), cfg!(feature = "parallel"));
        let nested = super::in_pool(|| {
            let here = rayon::current_thread_index();
            super::in_pool(move || rayon::current_thread_index() == here)
        });
        assert!(nested);
    }
}
