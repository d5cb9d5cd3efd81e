//! The programs as a user drives them, one module per face: the `renderer` command
//! line (`cli`), `renderer watch` (`watch`), the editor (`view`), the hot-reload
//! session under both (`session`), sharded renders and their merge (`shards`),
//! checkpoints, signals, resume and device failures of long renders (`checkpoints`),
//! the render-farm templates (`deploy`) and the golden images (`cpu_golden`). One test
//! binary instead of seven: each of them linked the editor's GUI stack and the image
//! codecs again (the README's set-up time).

#[path = "../bin_support/mod.rs"]
mod bin_support;
#[path = "../cpu_support/mod.rs"]
mod cpu_support;

mod checkpoints;
mod cli;
mod cpu_golden;
mod deploy;
mod session;
mod shards;
mod view;
mod watch;
