//! [`FrVec`]: a vector of field elements whose storage may belong to a
//! pool, to which it returns on drop, e.g. page-locked host memory that a
//! GPU reads by DMA without a CPU copy (cuzk-pinned-mem's pool).
//!
//! A pooled buffer never reallocates: growing past its capacity moves the
//! values into ordinary heap memory and gives the pooled buffer back, so a
//! pool's registration always covers exactly the memory it handed out.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use crate::Fr;

/// Where a pooled [`FrVec`]'s storage comes from and goes back to.
pub trait VecHome: Send + Sync + fmt::Debug {
    /// Takes back a buffer this home handed out (cleared, capacity kept).
    fn give_back(&self, v: Vec<Fr>);

    /// True when this home's buffers are page-locked (device DMA reads
    /// them directly).
    fn page_locked(&self) -> bool;
}

/// What a [`FrAlloc`] did since it was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocCounts {
    /// Buffers allocated (for a page-locked pool, each registered once).
    pub made: u64,
    /// Requests served by an idle buffer.
    pub reused: u64,
    /// Idle buffers freed.
    pub freed: u64,
}

/// A source of pooled [`FrVec`]s (cuzk-pinned-mem's `WitnessPool`): what
/// witness synthesis writes into when the prover reads witnesses by DMA.
pub trait FrAlloc: Send + Sync + fmt::Debug {
    /// An empty vector with room for `len` elements.
    fn alloc(&self, len: usize) -> FrVec;

    /// Host bytes held idle for reuse (part of the memory budget).
    fn idle_bytes(&self) -> u64;

    /// Frees idle buffers until at most `max_idle` bytes stay idle besides
    /// the one `alloc(len)` would take, for `next_len = Some(len)`. For a
    /// caller about to make that request with its memory already counted:
    /// freeing that buffer would only make the request allocate and
    /// page-lock a new one.
    fn trim_keeping(&self, max_idle: u64, next_len: Option<usize>);

    /// Its counters.
    fn counts(&self) -> AllocCounts;
}

/// A `Vec<Fr>` that may live in pooled memory. Derefs to `[Fr]`; grows
/// with [`FrVec::push`] and [`FrVec::extend_from_slice`].
#[derive(Default)]
pub struct FrVec {
    v: Vec<Fr>,
    home: Option<Arc<dyn VecHome>>,
}

impl FrVec {
    /// An empty vector on the heap.
    pub const fn new() -> Self {
        FrVec {
            v: Vec::new(),
            home: None,
        }
    }

    /// An empty vector on the heap with room for `n` elements.
    pub fn with_capacity(n: usize) -> Self {
        FrVec {
            v: Vec::with_capacity(n),
            home: None,
        }
    }

    /// Wraps `v`, a buffer `home` handed out; it goes back to `home` when
    /// this value drops. `v` is cleared.
    pub fn pooled(mut v: Vec<Fr>, home: Arc<dyn VecHome>) -> Self {
        v.clear();
        FrVec {
            v,
            home: Some(home),
        }
    }

    /// True when the storage is pooled page-locked memory.
    pub fn is_page_locked(&self) -> bool {
        self.home.as_ref().is_some_and(|h| h.page_locked())
    }

    /// True when the storage belongs to a pool.
    pub fn is_pooled(&self) -> bool {
        self.home.is_some()
    }

    /// Elements the storage holds without growing.
    pub fn capacity(&self) -> usize {
        self.v.capacity()
    }

    /// Removes every element (capacity kept).
    pub fn clear(&mut self) {
        self.v.clear();
    }

    /// Makes room for `extra` more elements: a pooled buffer too small is
    /// left for heap memory (values moved) and given back.
    fn reserve(&mut self, extra: usize) {
        if self.v.capacity() - self.v.len() >= extra {
            return;
        }
        if let Some(home) = self.home.take() {
            let mut heap = Vec::with_capacity((self.v.len() + extra).max(2 * self.v.capacity()));
            heap.extend_from_slice(&self.v);
            home.give_back(std::mem::replace(&mut self.v, heap));
        } else {
            self.v.reserve(extra);
        }
    }

    /// Appends `x`.
    pub fn push(&mut self, x: Fr) {
        self.reserve(1);
        self.v.push(x);
    }

    /// Removes and returns the last element.
    pub fn pop(&mut self) -> Option<Fr> {
        self.v.pop()
    }

    /// Keeps the first `len` elements.
    pub fn truncate(&mut self, len: usize) {
        self.v.truncate(len);
    }

    /// Sets the length to `len`, new elements equal to `value`.
    pub fn resize(&mut self, len: usize, value: Fr) {
        self.reserve(len.saturating_sub(self.v.len()));
        self.v.resize(len, value);
    }

    /// Appends `xs`.
    pub fn extend_from_slice(&mut self, xs: &[Fr]) {
        self.reserve(xs.len());
        self.v.extend_from_slice(xs);
    }
}

impl Drop for FrVec {
    fn drop(&mut self) {
        if let Some(home) = self.home.take() {
            home.give_back(std::mem::take(&mut self.v));
        }
    }
}

impl Deref for FrVec {
    type Target = [Fr];
    fn deref(&self) -> &[Fr] {
        &self.v
    }
}

impl DerefMut for FrVec {
    fn deref_mut(&mut self) -> &mut [Fr] {
        &mut self.v
    }
}

impl<'a> IntoIterator for &'a FrVec {
    type Item = &'a Fr;
    type IntoIter = std::slice::Iter<'a, Fr>;
    fn into_iter(self) -> Self::IntoIter {
        self.v.iter()
    }
}

impl From<Vec<Fr>> for FrVec {
    fn from(v: Vec<Fr>) -> Self {
        FrVec { v, home: None }
    }
}

impl FromIterator<Fr> for FrVec {
    fn from_iter<I: IntoIterator<Item = Fr>>(it: I) -> Self {
        FrVec::from(it.into_iter().collect::<Vec<_>>())
    }
}

/// A clone is ordinary heap memory.
impl Clone for FrVec {
    fn clone(&self) -> Self {
        FrVec::from(self.v.clone())
    }
}

impl PartialEq for FrVec {
    fn eq(&self, other: &Self) -> bool {
        self.v == other.v
    }
}

impl PartialEq<Vec<Fr>> for FrVec {
    fn eq(&self, other: &Vec<Fr>) -> bool {
        &self.v == other
    }
}

impl PartialEq<FrVec> for Vec<Fr> {
    fn eq(&self, other: &FrVec) -> bool {
        self == &other.v
    }
}

/// As a `Vec`'s: the values.
impl fmt::Debug for FrVec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.v.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A home that records the address and capacity of what came back.
    #[derive(Debug, Default)]
    struct Home {
        back: Mutex<Vec<(usize, usize)>>,
    }

    impl VecHome for Home {
        fn give_back(&self, v: Vec<Fr>) {
            self.back
                .lock()
                .unwrap()
                .push((v.as_ptr() as usize, v.capacity()));
        }
        fn page_locked(&self) -> bool {
            true
        }
    }

    #[test]
    fn pooled_storage_returns_on_drop_and_never_reallocates() {
        let home = Arc::new(Home::default());
        let buf = Vec::<Fr>::with_capacity(4);
        let (ptr, cap) = (buf.as_ptr() as usize, buf.capacity());
        let mut v = FrVec::pooled(buf, home.clone());
        assert!(v.is_page_locked() && v.is_pooled());
        for i in 0..4u64 {
            v.push(Fr::from(i));
        }
        assert_eq!(v.as_ptr() as usize, ptr, "within capacity: same storage");
        assert!(home.back.lock().unwrap().is_empty());
        // Past the capacity: values move to the heap, the buffer goes home.
        v.extend_from_slice(&[Fr::from(9u64); 3]);
        assert_eq!(*home.back.lock().unwrap(), vec![(ptr, cap)]);
        assert!(!v.is_pooled() && !v.is_page_locked());
        assert_eq!(v.len(), 7);
        assert_eq!(v[3], Fr::from(3u64));
        assert_eq!(v[6], Fr::from(9u64));
        drop(v);
        assert_eq!(
            home.back.lock().unwrap().len(),
            1,
            "heap storage is not pooled"
        );

        let mut w = FrVec::pooled(Vec::with_capacity(2), home.clone());
        w.push(Fr::from(5u64));
        let copy = w.clone();
        assert!(!copy.is_pooled());
        assert_eq!(copy, w);
        assert_eq!(w.clone(), vec![Fr::from(5u64)]);
        // Resizing within the capacity keeps the pooled storage.
        w.resize(2, Fr::from(6u64));
        assert!(w.is_pooled());
        assert_eq!(w, vec![Fr::from(5u64), Fr::from(6u64)]);
        drop(w);
        assert_eq!(home.back.lock().unwrap().len(), 2);
    }

    #[test]
    fn heap_vectors_behave_as_vec() {
        let mut v = FrVec::new();
        v.extend_from_slice(&[Fr::from(1u64), Fr::from(2u64)]);
        v.push(Fr::from(3u64));
        v[0] = Fr::from(7u64);
        assert_eq!(v.len(), 3);
        assert_eq!(
            v.iter().copied().collect::<Vec<_>>(),
            vec![Fr::from(7u64), Fr::from(2u64), Fr::from(3u64)]
        );
        let x: FrVec = (0..5u64).map(Fr::from).collect();
        assert_eq!(x.len(), 5);
        v.resize(5, Fr::from(4u64));
        assert_eq!(&v[1..], &[2u64, 3, 4, 4].map(Fr::from)[..]);
        v.resize(2, Fr::from(0u64));
        assert_eq!(v.len(), 2);
        v.clear();
        assert!(v.is_empty() && v.capacity() >= 3);
        assert_eq!(FrVec::from(vec![Fr::from(1u64)]), vec![Fr::from(1u64)]);
    }
}
