//! Packs buffers with known live ranges into one block of memory: XLA's
//! `GlobalDecreasingSizeBestFitHeap`. Buffers are placed one at a time, largest first;
//! each goes into the smallest free gap (best fit) left between the buffers already placed
//! whose live ranges overlap its own, or after all of them when no gap is big enough.
//! Buffers whose lifetimes do not overlap may therefore get the same offsets. Two orders
//! are tried (by size, and by size × lifetime, XLA's spatial and temporal orders) and the
//! smaller heap is kept.
//! XLA: `xla/service/heap_simulator/heap_simulator.cc`.

use super::live_range::LiveRange;

/// One buffer to place.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HeapBuffer {
    /// Bytes.
    pub size: usize,
    /// When it is live.
    pub live: LiveRange,
}

/// Where each buffer went, and the heap's size.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct HeapResult {
    /// Offset of each buffer, in input order; multiples of the alignment.
    pub offsets: Vec<usize>,
    /// Bytes the heap needs: the largest `offset + size`.
    pub heap_size: usize,
}

/// Places `buffers`, every offset a multiple of `alignment`.
pub fn best_fit_heap(buffers: &[HeapBuffer], alignment: usize) -> HeapResult {
    let mut by_size: Vec<usize> = (0..buffers.len()).collect();
    by_size.sort_by_key(|&i| (std::cmp::Reverse(buffers[i].size), buffers[i].live.start, i));
    let mut by_area = by_size.clone();
    by_area.sort_by_key(|&i| {
        let b = &buffers[i];
        let duration = b.live.end - b.live.start + 1;
        (std::cmp::Reverse(b.size * duration), b.live.start, i)
    });
    let spatial = place_in_order(buffers, &by_size, alignment);
    let temporal = place_in_order(buffers, &by_area, alignment);
    if temporal.heap_size < spatial.heap_size {
        temporal
    } else {
        spatial
    }
}

fn align_up(x: usize, alignment: usize) -> usize {
    x.div_ceil(alignment.max(1)) * alignment.max(1)
}

fn place_in_order(buffers: &[HeapBuffer], order: &[usize], alignment: usize) -> HeapResult {
    let mut offsets = vec![0usize; buffers.len()];
    let mut placed: Vec<usize> = Vec::new();
    let mut heap_size = 0;
    for &i in order {
        let b = &buffers[i];
        // The byte ranges taken, during this buffer's lifetime, by buffers already placed.
        let mut taken: Vec<(usize, usize)> = placed
            .iter()
            .filter(|&&j| buffers[j].live.overlaps(&b.live) && buffers[j].size > 0)
            .map(|&j| (offsets[j], offsets[j] + buffers[j].size))
            .collect();
        taken.sort();
        let mut best: Option<(usize, usize)> = None; // (gap size, offset)
        let mut cursor = 0;
        for &(start, end) in &taken {
            let at = align_up(cursor, alignment);
            if start >= at && start - at >= b.size {
                let gap = start - at;
                if best.is_none_or(|(g, _)| gap < g) {
                    best = Some((gap, at));
                }
            }
            cursor = cursor.max(end);
        }
        let offset = match best {
            Some((_, at)) => at,
            None => align_up(cursor, alignment),
        };
        offsets[i] = offset;
        heap_size = heap_size.max(offset + b.size);
        placed.push(i);
    }
    HeapResult { offsets, heap_size }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(size: usize, start: usize, end: usize) -> HeapBuffer {
        HeapBuffer {
            size,
            live: LiveRange { start, end },
        }
    }

    #[test]
    fn disjoint_lifetimes_share_bytes() {
        let r = best_fit_heap(&[buf(100, 0, 1), buf(100, 2, 3)], 64);
        assert_eq!(r.offsets, vec![0, 0]);
        assert_eq!(r.heap_size, 100);
    }

    #[test]
    fn overlapping_lifetimes_do_not() {
        let r = best_fit_heap(&[buf(100, 0, 2), buf(100, 2, 3)], 64);
        // The second starts after the first's 100 bytes, rounded up to 128.
        assert_eq!(r.heap_size, 228);
        assert_ne!(r.offsets[0], r.offsets[1]);
    }

    #[test]
    fn best_fit_picks_the_smallest_gap() {
        // a [0,64) and c [192,256) live all the time, b [64,192) only early: once b is gone
        // a 64-byte buffer fits the 128-byte hole... but best fit prefers an exact 64 gap.
        let buffers = [
            buf(64, 0, 9),  // 0
            buf(128, 0, 1), // 1
            buf(64, 0, 9),  // 2
            buf(64, 5, 6),  // 3: fits where 1 was
        ];
        let r = best_fit_heap(&buffers, 64);
        assert_eq!(r.heap_size, 256);
        assert_eq!(r.offsets[3], r.offsets[1]);
    }
}
