//! PLACEHOLDER
pub struct CompileOptions;
pub struct Compiled;
pub fn compile_scene() {}
