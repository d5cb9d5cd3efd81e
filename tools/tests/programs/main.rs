//! The tools' programs as a user runs them (`rmse`, `scene-gen`), one module each, in
//! one test binary (one link instead of two).

mod rmse;
mod scene_gen;
