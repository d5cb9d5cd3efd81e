//! PLACEHOLDER: the scene helper replaces this file.
mod model;
pub use model::*;
#[derive(Debug)]
pub struct LoadError;
