//! Finding the CUDA driver without panicking, and the last line of defence against
//! cudarc's panics (a missing library or symbol panics inside cudarc).

use std::panic::{AssertUnwindSafe, catch_unwind};

use anyhow::{Context, anyhow, bail};

/// The number of CUDA devices, or why CUDA cannot be used (no libcuda, cuInit
/// failed, no device). Never panics.
pub fn probe_driver() -> anyhow::Result<usize> {
    guard("probing the CUDA driver", || {
        // SAFETY: only tries to dlopen the driver library under its usual names.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            bail!("no CUDA driver: libcuda.so could not be loaded");
        }
        cudarc::driver::result::init().context("the CUDA driver did not initialise (cuInit)")?;
        let count = cudarc::driver::result::device::get_count().context("cuDeviceGetCount")?;
        if count < 1 {
            bail!("the CUDA driver reports no GPU");
        }
        Ok(count as usize)
    })
}

/// True when a CUDA driver loads and reports a GPU (never panics). NVRTC is not
/// checked: [`super::CudaBackend::new`] reports that.
pub fn driver_available() -> bool {
    probe_driver().is_ok()
}

/// Runs `f`, turning a panic (cudarc panics when a library or symbol is missing) into
/// an error that says what was being done.
pub fn guard<T>(what: &str, f: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("(no message)");
        Err(anyhow!("{what}: the CUDA bindings panicked: {message}"))
    })
}
