//! Texts for unit tests: pieces drawn from a list by a fixed pseudo-random sequence, so a test
//! reads the same text on every run and machine.
//!
//! Owns: that one generator. Compiled for tests only.

/// Pieces of `list` drawn one after another, from `seed`, until the text holds `bytes` bytes
/// or more.
pub fn drawn(seed: u64, list: &[&str], bytes: usize) -> String {
    let mut text = String::new();
    let mut x = seed;
    while text.len() < bytes && !list.is_empty() {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        text.push_str(list[(x >> 33) as usize % list.len()]);
    }
    text
}
