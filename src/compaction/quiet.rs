//! Cheap trigger answers for a history that only grows: the per-message numbers a preset's
//! trigger sums (exact counts, a framework's rough estimate of a message, event counts), folded
//! once per message and kept between checks, so that asking "does it fire yet?" after each new
//! message costs the new messages only, not the whole history again.
//!
//! Owns: `Memo` (running folds keyed by name, each remembering how many messages it has
//! seen, and states a preset keeps in it when a few numbers are not enough). Must not: know
//! any preset, or decide whether a trigger fires.

use std::any::Any;

/// The state of one fold: a few running numbers (a sum, a count, a last value…).
pub type Acc = [u64; 8];

/// Running folds over the messages of one growing history. Valid only while the history it
/// was fed from grows by appending: a history replaced (by a compaction) needs a new `Memo`.
#[derive(Default)]
pub struct Memo {
    folds: Vec<Fold>,
    states: Vec<(&'static str, Box<dyn Any>)>,
}

#[derive(Debug)]
struct Fold {
    key: &'static str,
    /// Messages folded so far.
    seen: usize,
    acc: Acc,
}

impl Memo {
    pub fn new() -> Memo {
        Memo::default()
    }

    /// The fold `key` over messages `0..len`: `step(acc, i)` is applied to the messages it has
    /// not seen yet, in order. A history shorter than what the fold has seen (not one that grew
    /// from it) starts the fold again from the first message.
    pub fn fold(
        &mut self,
        key: &'static str,
        len: usize,
        mut step: impl FnMut(&mut Acc, usize),
    ) -> Acc {
        let at = match self.folds.iter().position(|f| f.key == key) {
            Some(at) => at,
            None => {
                self.folds.push(Fold {
                    key,
                    seen: 0,
                    acc: [0; 8],
                });
                self.folds.len() - 1
            }
        };
        let fold = &mut self.folds[at];
        if fold.seen > len {
            fold.seen = 0;
            fold.acc = [0; 8];
        }
        for i in fold.seen..len {
            step(&mut fold.acc, i);
        }
        fold.seen = len;
        fold.acc
    }

    /// The state `key` of type `T` (its default the first time, or when the state kept
    /// under `key` is of another type). The caller keeps in it how much history it has seen.
    pub fn state<T: Default + 'static>(&mut self, key: &'static str) -> Option<&mut T> {
        let at = match self
            .states
            .iter()
            .position(|(k, v)| *k == key && v.is::<T>())
        {
            Some(at) => at,
            None => {
                self.states.retain(|(k, _)| *k != key);
                self.states.push((key, Box::new(T::default())));
                self.states.len() - 1
            }
        };
        self.states
            .get_mut(at)
            .and_then(|(_, v)| v.downcast_mut::<T>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fold_sees_each_message_once_and_restarts_on_a_shorter_history() {
        let mut memo = Memo::new();
        let mut calls = 0;
        let sum = |memo: &mut Memo, len: usize, calls: &mut usize| {
            memo.fold("sum", len, |acc, i| {
                *calls += 1;
                acc[0] += i as u64;
            })[0]
        };
        assert_eq!(sum(&mut memo, 3, &mut calls), 3);
        assert_eq!(sum(&mut memo, 5, &mut calls), 10);
        assert_eq!(calls, 5);
        assert_eq!(sum(&mut memo, 2, &mut calls), 1);
        assert_eq!(calls, 7);
    }
}
