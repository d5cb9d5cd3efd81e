//! Prefix counts on every core: where each chunk's share of a count starts, so that
//! chunks can number or place what they hold side by side (the inner nodes of a
//! tree, the instances among a tree's primitives).

use rayon::prelude::*;

/// Items per task of [`chunk_starts`] and the passes that follow it.
pub(crate) const CHUNK: usize = 1 << 16;

/// For each [`CHUNK`] of `items`, how many items before it are `counted`: where each
/// chunk's count starts (a prefix count, on every core).
pub(crate) fn chunk_starts<T: Sync>(items: &[T], counted: impl Fn(&T) -> bool + Sync) -> Vec<u32> {
    let counts: Vec<u32> =
        items.par_chunks(CHUNK).map(|c| c.iter().filter(|x| counted(x)).count() as u32).collect();
    counts
        .iter()
        .scan(0u32, |next, &n| {
            let start = *next;
            *next += n;
            Some(start)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_starts_count_what_comes_before_each_chunk() {
        let items: Vec<u32> = (0..3 * CHUNK as u32 + 5).collect();
        let starts = chunk_starts(&items, |&x| x.is_multiple_of(3));
        let by_hand: Vec<u32> = (0..4)
            .map(|c| items[..c * CHUNK].iter().filter(|&&x| x.is_multiple_of(3)).count() as u32)
            .collect();
        assert_eq!(starts, by_hand);
    }
}
