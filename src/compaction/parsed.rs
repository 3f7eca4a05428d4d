//! Records already parsed, found again by their bytes: a preset that reads the same raw records
//! at every plan of a replay (Agent Framework keeps its excluded messages in its list for ever,
//! each carrying its record) parses each of them once, not once per plan; the same for what it
//! makes of a message of the common model, found again by a hash of everything it reads.
//!
//! Owns: the table from a record's xxh3-128 hash (and the type made of it) to what a preset
//! made of those bytes, kept in two generations: `renew` starts a new one, and what the
//! generation before it was not asked for again is dropped then, so the table holds about one
//! history's records. Must not: know any format, or change what a parse gives (a hit is what
//! the same parse of the same bytes gave).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use xxhash_rust::xxh3::xxh3_128;

type Key = (u128, TypeId);
type Table = HashMap<Key, Arc<dyn Any + Send + Sync>>;

#[derive(Default)]
struct Generations {
    current: Table,
    previous: Table,
}

/// What presets made of records, by the records' bytes.
#[derive(Default)]
pub struct Parsed {
    tables: Mutex<Generations>,
}

impl std::fmt::Debug for Parsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Parsed")
    }
}

impl Parsed {
    pub fn new() -> Parsed {
        Parsed::default()
    }

    /// What `parse` makes of `bytes`, parsed once per generation that asks for it.
    pub fn get_or_parse<T: Any + Send + Sync>(
        &self,
        bytes: &[u8],
        parse: impl FnOnce(&[u8]) -> T,
    ) -> Arc<T> {
        self.get_or_make(xxh3_128(bytes), || parse(bytes))
    }

    /// What `make` gives for `key`, a 128-bit hash of everything `make` reads, made once per
    /// generation that asks for it.
    pub fn get_or_make<T: Any + Send + Sync>(&self, key: u128, make: impl FnOnce() -> T) -> Arc<T> {
        let key = (key, TypeId::of::<T>());
        let Ok(mut tables) = self.tables.lock() else {
            return Arc::new(make());
        };
        let found = match tables.current.get(&key) {
            Some(v) => Some(Arc::clone(v)),
            None => tables.previous.remove(&key).inspect(|v| {
                tables.current.insert(key, Arc::clone(v));
            }),
        };
        if let Some(v) = found.and_then(|v| v.downcast::<T>().ok()) {
            return v;
        }
        let made = Arc::new(make());
        tables.current.insert(key, made.clone());
        made
    }

    /// Starts a new generation: entries not asked for since the last one are dropped.
    pub fn renew(&self) {
        if let Ok(mut tables) = self.tables.lock() {
            let current = std::mem::take(&mut tables.current);
            tables.previous = current;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_parsed_once_per_generation_and_dropped_when_unused() {
        let p = Parsed::new();
        let mut calls = 0;
        let mut len = |p: &Parsed, b: &[u8]| {
            *p.get_or_parse(b, |b| {
                calls += 1;
                b.len()
            })
        };
        assert_eq!(len(&p, b"abc"), 3);
        assert_eq!(len(&p, b"abc"), 3);
        assert_eq!(len(&p, b"de"), 2);
        p.renew();
        assert_eq!(len(&p, b"abc"), 3);
        p.renew();
        assert_eq!(len(&p, b"de"), 2);
        assert_eq!(calls, 3);
        let other = p.get_or_parse(b"abc", |b| b.to_vec());
        assert_eq!(other.as_slice(), b"abc");
    }
}
