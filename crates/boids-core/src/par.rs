//! The one place that decides between rayon and a plain loop, so the model code reads the same
//! with or without the `parallel` feature.

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

/// Calls `f(start, a, b, c)` on matching chunks of three equally long slices, `start` being the
/// chunk's first index; chunks run in parallel when the feature is on.
pub fn for_each_chunk3<A, B, C, F>(a: &mut [A], b: &mut [B], c: &mut [C], f: F)
where
    A: Send,
    B: Send,
    C: Send,
    F: Fn(usize, &mut [A], &mut [B], &mut [C]) + Sync + Send,
{
    assert!(
        a.len() == b.len() && b.len() == c.len(),
        "chunked slices differ in length"
    );
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        a.par_chunks_mut(MIN_CHUNK)
            .zip(b.par_chunks_mut(MIN_CHUNK))
            .zip(c.par_chunks_mut(MIN_CHUNK))
            .enumerate()
            .for_each(|(i, ((a, b), c))| f(i * MIN_CHUNK, a, b, c));
    }
    #[cfg(not(feature = "parallel"))]
    f(0, a, b, c);
}
