//! PLACEHOLDER: the BVH helper replaces this file.
use super::Bvh;
pub fn reorder(_bvh: &Bvh) -> Bvh {
    todo!()
}
