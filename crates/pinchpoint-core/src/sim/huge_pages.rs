//! Transparent huge pages for the run's large arrays (issue 13, "Large N with start jitter").
//!
//! At tens of thousands of flows every hop touches a flow, its transport and several ports
//! that lie megabytes apart, so on 4 KiB pages nearly every such line also misses the TLB, and
//! under a hypervisor each miss walks two page tables. Asking the kernel to back the large
//! arrays with 2 MiB pages (`madvise(MADV_HUGEPAGE)`) before they are first written removes
//! most of those walks. It is a hint: the kernel may ignore it (THP off, no free huge page),
//! it changes no value, and on systems other than Linux it does nothing.

/// Arrays smaller than this are left alone: one huge page is the least the hint can cover.
pub const HUGE_PAGE_BYTES: usize = 2 << 20;

/// Asks for huge pages under the whole 2 MiB pages inside `v`'s allocation (its capacity, not
/// only its length). Call it before the elements are written: a page is given its size when
/// it is first touched.
pub fn advise_huge_pages<T>(v: &Vec<T>) {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    advise_range(v.as_ptr() as usize, bytes);
}

#[cfg(target_os = "linux")]
fn advise_range(start: usize, bytes: usize) {
    let first = (start + HUGE_PAGE_BYTES - 1) & !(HUGE_PAGE_BYTES - 1);
    let end = (start + bytes) & !(HUGE_PAGE_BYTES - 1);
    if end > first {
        // SAFETY: the range lies inside one live allocation of ours; MADV_HUGEPAGE only
        // changes how the kernel backs those pages, never their contents. A failure (THP
        // compiled out, a kernel that refuses) leaves the 4 KiB pages, so it is ignored.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_range(_start: usize, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advising_changes_no_value_whatever_the_size() {
        let mut small: Vec<u64> = Vec::with_capacity(10);
        advise_huge_pages(&small);
        small.extend(0..10);
        let mut large: Vec<u64> = Vec::with_capacity(3 * HUGE_PAGE_BYTES / 8);
        advise_huge_pages(&large);
        large.extend(0..(3 * HUGE_PAGE_BYTES / 8) as u64);
        assert_eq!(small, (0..10).collect::<Vec<_>>());
        assert!(large.iter().enumerate().all(|(i, &x)| x == i as u64));
        let empty: Vec<u8> = Vec::new();
        advise_huge_pages(&empty);
    }
}
