//! The grams of the minimizer index: 8-byte grams ranked by a bijective mix, the gram each
//! window of `WINDOW` grams selects (least rank, leftmost among equals — a rule that reads
//! only the window, so a string and the text choose alike wherever they agree), and the kept
//! positions bucketed by rank.
//!
//! Owns: those computations. Must not: answer queries (the index does).

/// Bytes of a gram.
pub const GRAM: usize = 8;
/// Consecutive grams a window spans.
pub const WINDOW: usize = 8;
/// Bytes of one window: the shortest string the minimizer index finds.
pub const ANCHORED: usize = GRAM + WINDOW - 1;

/// The gram starting at byte `at` of `s` (which has at least `GRAM` bytes from there).
pub fn read_gram(s: &[u8], at: usize) -> u64 {
    let mut g = [0u8; GRAM];
    g.copy_from_slice(&s[at..at + GRAM]);
    u64::from_le_bytes(g)
}

/// A gram's rank: the finaliser of splitmix64, a bijection, so equal ranks are equal grams and
/// the order is unrelated to the bytes.
pub fn rank(gram: u64) -> u64 {
    let mut x = gram;
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The bucket of `rank` among `1 << bits`.
pub fn bucket_of(rank: u64, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        (rank >> (64 - bits)) as usize
    }
}

/// Bits of rank that choose a bucket: about one kept position per bucket.
pub fn bucket_bits(kept: usize) -> u32 {
    if kept < 2 {
        0
    } else {
        usize::BITS - 1 - kept.leading_zeros()
    }
}

/// Calls `each(window, offset)` with the offset of the gram each window of `s` selects, in
/// window order, until it returns `false`; nothing when `s` holds no whole window.
pub fn each_window(s: &[u8], mut each: impl FnMut(usize, usize) -> bool) {
    if s.len() < ANCHORED {
        return;
    }
    // The window's ranks by offset modulo WINDOW, and its minimum (leftmost among equals). A
    // new gram of lower rank takes over; when the minimum leaves the window, the window's ranks
    // are read again (about once per two windows, since one gram in WINDOW + 1 is selected).
    let mut ring = [0u64; WINDOW];
    let (mut least, mut at) = (u64::MAX, 0usize);
    for i in 0..=s.len() - GRAM {
        let r = rank(read_gram(s, i));
        ring[i % WINDOW] = r;
        if i >= WINDOW && at + WINDOW <= i {
            least = u64::MAX;
            for j in i + 1 - WINDOW..=i {
                if ring[j % WINDOW] < least {
                    (least, at) = (ring[j % WINDOW], j);
                }
            }
        } else if r < least {
            (least, at) = (r, i);
        }
        if i + 1 >= WINDOW && !each(i + 1 - WINDOW, at) {
            return;
        }
    }
}

/// The distinct positions the windows of `text` select, ascending, in runs one after another:
/// a long text is read in pieces side by side, one per core (each window's choice reads only
/// the window), a run per piece.
pub fn minimizer_runs(text: &[u8]) -> Vec<Vec<u32>> {
    let cores = crate::par::cores();
    minimizers_in(text, cores.min(4).min(text.len() >> 20))
}

/// The distinct positions the windows of `text` select, ascending.
#[cfg(test)]
pub fn minimizers(text: &[u8]) -> Vec<u32> {
    minimizer_runs(text).concat()
}

/// `minimizer_runs`, the windows taken in `pieces` runs read side by side.
pub fn minimizers_in(text: &[u8], pieces: usize) -> Vec<Vec<u32>> {
    let windows = (text.len() + 1).saturating_sub(ANCHORED);
    if pieces <= 1 || windows < pieces {
        return vec![minimizers_of(text, 0)];
    }
    let size = windows.div_ceil(pieces);
    let runs: Vec<std::ops::Range<usize>> = (0..pieces)
        .map(|k| (k * size).min(windows)..((k + 1) * size).min(windows))
        .filter(|r| !r.is_empty())
        .collect();
    let mut runs = crate::par::each(&runs, |r| {
        minimizers_of(
            &text[r.start..(r.end + ANCHORED - 1).min(text.len())],
            r.start,
        )
    });
    // A position the windows on both sides of a cut select is kept by the first run alone.
    for k in 1..runs.len() {
        let last = runs[..k].iter().rev().find_map(|r| r.last().copied());
        if last.is_some() && last == runs[k].first().copied() {
            runs[k].remove(0);
        }
    }
    runs
}

/// The distinct positions the windows of `s` select, ascending, as positions of a text in
/// which `s` starts at `offset`.
fn minimizers_of(s: &[u8], offset: usize) -> Vec<u32> {
    let mut kept: Vec<u32> = Vec::with_capacity(s.len() / 4 + 1);
    each_window(s, |_, j| {
        let at = (offset + j) as u32;
        if kept.last() != Some(&at) {
            kept.push(at);
        }
        true
    });
    kept
}

/// Bits of bucket sorted by the second pass of `bucketed` at most: its counters stay in cache.
const FINE_MAX: u32 = 16;

/// `kept` grouped by bucket (a counting sort, ascending within each): the positions and each
/// bucket's start, `1 << bits` buckets and one past the end. Millions of buckets are sorted in
/// two stable passes — by the top bits, then within each of those by the rest — so that no pass
/// scatters into more places than the cache holds.
pub fn bucketed(text: &[u8], kept: Vec<u32>, bits: u32) -> (Vec<u32>, Vec<u32>) {
    if bits <= FINE_MAX {
        return bucketed_once(text, kept, bits);
    }
    let of = |p: u32| bucket_of(rank(read_gram(text, p as usize)), bits);
    let fine = FINE_MAX.min(bits - 8);
    let coarse = 1usize << (bits - fine);
    let fine_mask = (1usize << fine) - 1;
    // First pass: by the top bits, each position with the rest of its bucket.
    let mut coarse_starts = vec![0usize; coarse + 1];
    for &p in &kept {
        coarse_starts[(of(p) >> fine) + 1] += 1;
    }
    for c in 0..coarse {
        coarse_starts[c + 1] += coarse_starts[c];
    }
    let mut fill = coarse_starts.clone();
    let mut by_coarse = vec![0u32; kept.len()];
    let mut rest = vec![0u16; kept.len()];
    for &p in &kept {
        let b = of(p);
        let at = &mut fill[b >> fine];
        by_coarse[*at] = p;
        rest[*at] = (b & fine_mask) as u16;
        *at += 1;
    }
    // Second pass: each coarse run by the rest, into the first pass's input.
    let mut positions = kept;
    let mut starts = vec![0u32; (1usize << bits) + 1];
    let mut counts = vec![0u32; 1 << fine];
    for c in 0..coarse {
        let run = coarse_starts[c]..coarse_starts[c + 1];
        counts.fill(0);
        for &r in &rest[run.clone()] {
            counts[usize::from(r)] += 1;
        }
        let mut at = run.start as u32;
        for (f, n) in counts.iter_mut().enumerate() {
            starts[(c << fine) + f] = at;
            let here = *n;
            *n = at;
            at += here;
        }
        for i in run {
            let slot = &mut counts[usize::from(rest[i])];
            positions[*slot as usize] = by_coarse[i];
            *slot += 1;
        }
    }
    starts[1usize << bits] = positions.len() as u32;
    (positions, starts)
}

/// `bucketed` of the positions of `runs` one after another, each run grouped by the top
/// bits on a core of its own, then the groups' runs by the rest, side by side.
pub fn bucketed_runs(text: &[u8], mut runs: Vec<Vec<u32>>, bits: u32) -> (Vec<u32>, Vec<u32>) {
    if bits <= FINE_MAX || runs.len() < 2 {
        let kept = match runs.len() {
            1 => runs.pop().unwrap_or_default(),
            _ => runs.concat(),
        };
        return bucketed(text, kept, bits);
    }
    let of = |p: u32| bucket_of(rank(read_gram(text, p as usize)), bits);
    let fine = FINE_MAX.min(bits - 8);
    let coarse = 1usize << (bits - fine);
    let fine_mask = (1usize << fine) - 1;
    // Each run by the top bits: its positions with the rest of their buckets, and where each
    // top-bits group starts in it.
    let grouped: Vec<Grouped> = crate::par::each(&runs, |run| {
        let mut starts = vec![0usize; coarse + 1];
        for &p in run {
            starts[(of(p) >> fine) + 1] += 1;
        }
        for c in 0..coarse {
            starts[c + 1] += starts[c];
        }
        let mut fill = starts.clone();
        let mut positions = vec![0u32; run.len()];
        let mut rest = vec![0u16; run.len()];
        for &p in run {
            let b = of(p);
            let at = &mut fill[b >> fine];
            positions[*at] = p;
            rest[*at] = (b & fine_mask) as u16;
            *at += 1;
        }
        Grouped {
            starts,
            positions,
            rest,
        }
    });
    drop(runs);
    // Where each top-bits group starts in the whole, and the groups cut into one span per
    // core of about as many positions each.
    let total: usize = grouped.iter().map(|g| g.positions.len()).sum();
    let mut group_starts = vec![0usize; coarse + 1];
    for c in 0..coarse {
        let n: usize = grouped.iter().map(|g| g.starts[c + 1] - g.starts[c]).sum();
        group_starts[c + 1] = group_starts[c] + n;
    }
    let spans = crate::par::cores().clamp(1, 8);
    let mut cuts = vec![0usize];
    for (c, &start) in group_starts.iter().enumerate().take(coarse).skip(1) {
        if start * spans >= cuts.len() * total {
            cuts.push(c);
        }
    }
    cuts.push(coarse);
    let mut positions = vec![0u32; total];
    let mut starts = vec![0u32; (1usize << bits) + 1];
    std::thread::scope(|scope| {
        let (mut out, mut out_starts) = (&mut positions[..], &mut starts[..]);
        for w in cuts.windows(2) {
            let (from, to) = (w[0], w[1]);
            let taken = group_starts[to] - group_starts[from];
            let (here, later) = std::mem::take(&mut out).split_at_mut(taken);
            let (here_starts, later_starts) =
                std::mem::take(&mut out_starts).split_at_mut((to - from) << fine);
            (out, out_starts) = (later, later_starts);
            let (grouped, group_starts) = (&grouped, &group_starts);
            scope.spawn(move || {
                let mut counts = vec![0u32; 1 << fine];
                for c in from..to {
                    counts.fill(0);
                    for g in grouped {
                        for &r in &g.rest[g.starts[c]..g.starts[c + 1]] {
                            counts[usize::from(r)] += 1;
                        }
                    }
                    let base = group_starts[from];
                    let mut at = (group_starts[c] - base) as u32;
                    for (f, n) in counts.iter_mut().enumerate() {
                        here_starts[((c - from) << fine) + f] = base as u32 + at;
                        let count = *n;
                        *n = at;
                        at += count;
                    }
                    for g in grouped {
                        for i in g.starts[c]..g.starts[c + 1] {
                            let slot = &mut counts[usize::from(g.rest[i])];
                            here[*slot as usize] = g.positions[i];
                            *slot += 1;
                        }
                    }
                }
            });
        }
    });
    starts[1usize << bits] = total as u32;
    (positions, starts)
}

/// One run's positions grouped by the top bits of their buckets (see `bucketed_runs`).
struct Grouped {
    /// `positions[starts[c]..starts[c + 1]]` is top-bits group `c`.
    starts: Vec<usize>,
    positions: Vec<u32>,
    /// The rest of each position's bucket.
    rest: Vec<u16>,
}

/// `bucketed` in one pass.
fn bucketed_once(text: &[u8], kept: Vec<u32>, bits: u32) -> (Vec<u32>, Vec<u32>) {
    let buckets = 1usize << bits;
    let of = |p: u32| bucket_of(rank(read_gram(text, p as usize)), bits);
    let mut starts = vec![0u32; buckets + 1];
    for &p in &kept {
        starts[of(p) + 1] += 1;
    }
    for b in 0..buckets {
        starts[b + 1] += starts[b];
    }
    let mut fill = starts.clone();
    let mut positions = vec![0u32; kept.len()];
    for &p in &kept {
        let b = of(p);
        positions[fill[b] as usize] = p;
        fill[b] += 1;
    }
    (positions, starts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_window_selects_its_least_rank_leftmost_among_equals() {
        let words = [
            "aaaaaaaaaaaa",
            "ab ",
            "the lazy ",
            "x",
            "\n",
            "abababababab",
        ];
        let text = crate::testing::drawn(17, &words, 5_000).into_bytes();
        let mut got = Vec::new();
        each_window(&text, |w, at| {
            got.push((w, at));
            true
        });
        let want: Vec<(usize, usize)> = (0..=text.len() - ANCHORED)
            .map(|w| {
                let at = (w..w + WINDOW)
                    .min_by_key(|&j| (rank(read_gram(&text, j)), j))
                    .unwrap_or(w);
                (w, at)
            })
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn two_passes_group_as_one_does() {
        let words = ["aaaa", "ab ", "the lazy ", "x", "\n", "0123456789", "é"];
        let text = crate::testing::drawn(13, &words, 400_000).into_bytes();
        let kept = minimizers(&text);
        for bits in [FINE_MAX + 1, FINE_MAX + 3, 24] {
            assert_eq!(
                bucketed(&text, kept.clone(), bits),
                bucketed_once(&text, kept.clone(), bits),
                "{bits} bits"
            );
        }
    }

    #[test]
    fn runs_grouped_side_by_side_group_as_one_pass_does() {
        let words = ["aaaa", "ab ", "the lazy ", "x", "\n", "0123456789", "é"];
        let text = crate::testing::drawn(5, &words, 300_000).into_bytes();
        for pieces in [1, 2, 3, 5] {
            let runs = minimizers_in(&text, pieces);
            let kept = runs.concat();
            for bits in [FINE_MAX - 2, FINE_MAX + 1, FINE_MAX + 3, 24] {
                assert_eq!(
                    bucketed_runs(&text, runs.clone(), bits),
                    bucketed_once(&text, kept.clone(), bits),
                    "{pieces} pieces, {bits} bits"
                );
            }
        }
    }

    #[test]
    fn windows_read_in_pieces_select_what_one_read_selects() {
        let words = ["aaaa", "ab ", "the lazy ", "x", "\n"];
        let text = crate::testing::drawn(11, &words, 20_000).into_bytes();
        for len in [
            0,
            5,
            ANCHORED - 1,
            ANCHORED,
            ANCHORED + 1,
            40,
            1000,
            text.len(),
        ] {
            let t = &text[..len];
            let whole = minimizers_of(t, 0);
            for pieces in [2, 3, 7, 64] {
                assert_eq!(
                    minimizers_in(t, pieces).concat(),
                    whole,
                    "{len} bytes, {pieces} pieces"
                );
            }
        }
    }
}
