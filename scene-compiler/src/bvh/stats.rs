//! PLACEHOLDER: the BVH helper replaces this file.
use super::Bvh;
#[derive(Clone, Debug, PartialEq)]
pub struct BvhStats {
    pub node_count: usize,
    pub leaf_count: usize,
    pub depth: u32,
    pub leaf_size_histogram: Vec<u32>,
    pub sah_cost: f32,
}
pub fn stats(_bvh: &Bvh) -> BvhStats {
    todo!()
}
