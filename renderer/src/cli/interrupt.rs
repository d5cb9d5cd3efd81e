//! SIGINT and SIGTERM during `render --checkpoint`: the first one sets a flag that the
//! render loop reads between batches (it then saves the film and exits with
//! [`super::EXIT_INTERRUPTED`]); a second one ends the process at once, with the
//! shell's usual code (130 for SIGINT, 143 for SIGTERM), as a user pressing Ctrl-C
//! twice expects. Without `--checkpoint` no handler is installed and the signals keep
//! their default action.
//!
//! Handlers only store into atomics (signal-hook's `flag`), which is async-signal-safe.
//! Not here: what is saved (render.rs, shard/checkpoint.rs), the test hook that sends
//! the signals at exact points (crate::fault).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use signal_hook::consts::{SIGINT, SIGTERM};

use crate::fault::Signal;

/// Whether a stop was asked for, and by which signal.
pub struct Interrupt {
    received: Arc<AtomicBool>,
    which: Arc<AtomicUsize>,
}

impl Interrupt {
    /// Installs the handlers for SIGINT and SIGTERM.
    pub fn install() -> anyhow::Result<Interrupt> {
        let received = Arc::new(AtomicBool::new(false));
        let which = Arc::new(AtomicUsize::new(0));
        for (signal, code) in [(SIGINT, 130), (SIGTERM, 143)] {
            // Registered first, so it sees the flag before this signal sets it: only a
            // second signal exits.
            signal_hook::flag::register_conditional_shutdown(signal, code, Arc::clone(&received))?;
            signal_hook::flag::register_usize(signal, Arc::clone(&which), signal as usize)?;
            signal_hook::flag::register(signal, Arc::clone(&received))?;
        }
        Ok(Interrupt { received, which })
    }

    /// The signal received, as `SIGINT` or `SIGTERM`, if any.
    pub fn received(&self) -> Option<&'static str> {
        if !self.received.load(Ordering::SeqCst) {
            return None;
        }
        Some(match self.which.load(Ordering::SeqCst) as i32 {
            SIGINT => "SIGINT",
            _ => "SIGTERM",
        })
    }
}

/// Sends `signal` to this process (the fault plan's hooks), through the handlers.
pub fn raise(signal: Signal) -> anyhow::Result<()> {
    let number = match signal {
        Signal::Term => SIGTERM,
        Signal::Int => SIGINT,
    };
    signal_hook::low_level::raise(number)?;
    Ok(())
}
