//! The first item a check rejects, looked for on all cores: what every check of a
//! large scene or blob does (a 21M-triangle model, a 1.3 GB blob), with the error
//! naming the same item a loop would.
//!
//! In chunks, each scanned by a plain loop: rayon's `position_first` over single
//! items took as long as one core's loop (5.2M triangles of a model: 70 ms on the
//! 2-core dev machine either way; in chunks, 11 ms).

use rayon::prelude::*;

/// Items a rayon task scans in one loop.
const CHUNK: usize = 1 << 16;

/// The index of the first of `items` that is `bad`.
pub(crate) fn position<T: Sync>(items: &[T], bad: impl Fn(&T) -> bool + Sync) -> Option<usize> {
    items
        .par_chunks(CHUNK)
        .enumerate()
        .find_map_first(|(k, chunk)| chunk.iter().position(&bad).map(|i| k * CHUNK + i))
}

/// The first of `items` that `problem` finds fault with, and the fault: the same item
/// a loop would name, its fault worked out once more for the message.
pub(crate) fn problem<T: Sync, P>(
    items: &[T],
    problem: impl Fn(&T) -> Option<P> + Sync,
) -> Option<(usize, P)> {
    let i = position(items, |item| problem(item).is_some())?;
    problem(&items[i]).map(|p| (i, p))
}

/// The first of `0..count` that is `bad`.
pub(crate) fn index(count: usize, bad: impl Fn(usize) -> bool + Sync) -> Option<usize> {
    (0..count.div_ceil(CHUNK))
        .into_par_iter()
        .find_map_first(|k| (k * CHUNK..count.min((k + 1) * CHUNK)).find(|&i| bad(i)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowest_bad_index_as_a_loop_finds_it() {
        let items: Vec<u32> =
            (0..5 * CHUNK as u32 + 17).map(|i| i.wrapping_mul(2_654_435_761) % 1000).collect();
        for target in [0, 1, 999, 998, 500] {
            let expected = items.iter().position(|&x| x == target);
            assert_eq!(position(&items, |&x| x == target), expected, "{target}");
            assert_eq!(index(items.len(), |i| items[i] == target), expected, "{target}");
        }
        // Only in the last partial chunk, and nowhere.
        let last = items.len() - 1;
        assert_eq!(index(items.len(), |i| i == last), Some(last));
        assert_eq!(position(&items, |&x| x > 1000), None);
        assert_eq!(index(0, |_| true), None);
        let odd = |&x: &u32| (x % 2 == 1).then_some(x);
        assert_eq!(problem(&items, odd), items.iter().position(|&x| x % 2 == 1).map(|i| (i, items[i])));
    }
}
