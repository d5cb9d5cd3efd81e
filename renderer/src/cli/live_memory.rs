//! The allocator's settings for the live commands (`view`, `watch`), which copy big
//! lists again and again.
//!
//! Moving one instance of a million copies the scene's million placements (44 MB) into a
//! new list (the editor's edit, `Arc::make_mut`; a save's read of the instance file),
//! and the list it replaces is freed. glibc serves and frees blocks that large by mapping
//! and unmapping them, so each copy lands in pages the process has never touched, and
//! touching them costs more than the copy: on the million-tree forest the copy took
//! 21-27 ms of a 24-31 ms edit on the GPU host's 16 cores and 22-32 ms on the 2-core
//! dev machine, against 4-6 ms into memory the process already holds. So blocks up to
//! 256 MB come from the heap, and up to 1 GB of freed heap is kept instead of returned.
//! One-shot commands (`render`, `bench`) copy nothing twice and keep glibc's defaults.

/// Keeps large freed blocks in the process (see the module docs). Call before the
/// command starts its threads.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn keep_freed_blocks() {
    // SAFETY: mallopt only sets glibc's allocator parameters; it is called before the
    // command starts any thread. A value it refuses leaves the default (it returns 0).
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}

/// Other allocators keep their own policy.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn keep_freed_blocks() {}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;

    /// A block as large as a million placements comes from the heap, not from a mapping
    /// of its own (which glibc would unmap when it is freed).
    #[test]
    fn a_placement_list_sized_block_is_not_mapped_on_its_own() {
        keep_freed_blocks();
        // SAFETY: mallinfo2 only reads the allocator's counters.
        let mapped = || unsafe { libc::mallinfo2() }.hblkhd;
        let before = mapped();
        let block = vec![1u8; 44 << 20];
        // Other tests may free mapped blocks meanwhile, never map one this large.
        assert!(mapped() < before + block.len(), "{} bytes mapped for the block", mapped() - before);
        assert_eq!(block[block.len() - 1], 1);
    }
}
