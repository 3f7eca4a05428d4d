//! A small deterministic generator the generated-history tests draw shapes from.

pub struct Lcg(pub u64);

impl Lcg {
    /// The next number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}
