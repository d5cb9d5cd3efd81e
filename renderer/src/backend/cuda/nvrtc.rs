//! NVRTC, the run-time CUDA C++ compiler, loaded by hand from the shared library.
//!
//! Not cudarc's `nvrtc` module: built for CUDA 12 it tries only `libnvrtc.so`,
//! `.so.12`, `.so.11`… (a machine with CUDA 13 alone has `libnvrtc.so.13`), it cannot
//! be pointed at a path, and it panics when nothing loads. We need nine functions.
//! Compiling needs no GPU, so CI checks the kernels with this module alone.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::PathBuf;

use anyhow::{Context, bail};

use super::sources::KernelSources;

/// Env var naming the NVRTC library file to load, instead of searching for it.
pub const NVRTC_LIB_ENV: &str = "RENDERER_NVRTC_LIB";

type Program = *mut c_void;
type Status = c_int;

/// `NVRTC_SUCCESS`.
const SUCCESS: Status = 0;

/// The NVRTC entry points we call (signatures from nvrtc.h, stable since CUDA 11.1).
struct Api {
    get_error_string: unsafe extern "C" fn(Status) -> *const c_char,
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> Status,
    create_program: unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> Status,
    destroy_program: unsafe extern "C" fn(*mut Program) -> Status,
    compile_program: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> Status,
    get_program_log_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    get_program_log: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    get_cubin_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    get_cubin: unsafe extern "C" fn(Program, *mut c_char) -> Status,
}

/// A loaded NVRTC library.
pub struct Nvrtc {
    api: Api,
    /// The file or library name that loaded.
    name: String,
    version: (i32, i32),
    // Declared last: dropped after `api`, whose function pointers point into it.
    _lib: libloading::Library,
}

/// The result of a successful compile: a CUBIN for one architecture and NVRTC's log.
#[derive(Clone, Debug)]
pub struct Cubin {
    pub image: Vec<u8>,
    /// Warnings and `ptxas info` lines (registers, spills), locations as `file:line`.
    pub log: String,
}

impl Nvrtc {
    /// Loads NVRTC: the file in `$RENDERER_NVRTC_LIB` if set, else the first that loads
    /// of the usual names and toolkit folders. The error lists every name tried.
    pub fn load() -> anyhow::Result<Nvrtc> {
        let names = match std::env::var_os(NVRTC_LIB_ENV) {
            Some(path) => vec![PathBuf::from(path)],
            None => candidates(),
        };
        let mut tried = Vec::new();
        for name in &names {
            // SAFETY: loading NVRTC runs its initialisers, which have no preconditions.
            match unsafe { libloading::Library::new(name) } {
                Ok(lib) => return Nvrtc::from_library(lib, name.display().to_string()),
                Err(e) => {
                    // dlerror's text; "No such file" (most candidates) is said by the name alone.
                    let detail =
                        std::error::Error::source(&e).map_or_else(|| e.to_string(), |s| s.to_string());
                    if detail.contains("No such file") {
                        tried.push(name.display().to_string());
                    } else {
                        tried.push(format!("{} ({detail})", name.display()));
                    }
                }
            }
        }
        bail!(
            "NVRTC not found: set {NVRTC_LIB_ENV} to the libnvrtc file or add its folder to LD_LIBRARY_PATH (tried {})",
            tried.join(", ")
        )
    }

    fn from_library(lib: libloading::Library, name: String) -> anyhow::Result<Nvrtc> {
        macro_rules! symbol {
            ($name:literal) => {
                // SAFETY: the type is the nvrtc.h prototype of this symbol, and `lib` outlives
                // the copied pointer (it is kept in the same `Nvrtc`, dropped after `api`).
                *unsafe { lib.get($name) }.with_context(|| format!("{name} has no {:?}", $name))?
            };
        }
        let api = Api {
            get_error_string: symbol!(c"nvrtcGetErrorString"),
            version: symbol!(c"nvrtcVersion"),
            create_program: symbol!(c"nvrtcCreateProgram"),
            destroy_program: symbol!(c"nvrtcDestroyProgram"),
            compile_program: symbol!(c"nvrtcCompileProgram"),
            get_program_log_size: symbol!(c"nvrtcGetProgramLogSize"),
            get_program_log: symbol!(c"nvrtcGetProgramLog"),
            get_cubin_size: symbol!(c"nvrtcGetCUBINSize"),
            get_cubin: symbol!(c"nvrtcGetCUBIN"),
        };
        let (mut major, mut minor) = (0, 0);
        // SAFETY: two valid out-pointers.
        let status = unsafe { (api.version)(&mut major, &mut minor) };
        let mut nvrtc = Nvrtc { api, name, version: (0, 0), _lib: lib };
        nvrtc.check(status, "nvrtcVersion")?;
        nvrtc.version = (major, minor);
        Ok(nvrtc)
    }

    /// NVRTC's (major, minor) version.
    pub fn version(&self) -> (i32, i32) {
        self.version
    }

    /// The library file or name that loaded.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Compiles `sources` (entry file plus headers, all in memory) with `options`,
    /// which must include `--gpu-architecture=sm_XY`. A compile error returns NVRTC's
    /// log with locations rewritten to `<origin>/<file>:<line>`.
    pub fn compile(&self, sources: &KernelSources, options: &[String]) -> anyhow::Result<Cubin> {
        let (entry, headers) = sources.files.split_first().context("no kernel sources")?;
        let cstring = |s: &str| CString::new(s).context("kernel source or option contains a NUL byte");
        let entry_text = cstring(&entry.text)?;
        let entry_name = cstring(&entry.name)?;
        let header_texts = headers.iter().map(|h| cstring(&h.text)).collect::<anyhow::Result<Vec<_>>>()?;
        let header_names = headers.iter().map(|h| cstring(&h.name)).collect::<anyhow::Result<Vec<_>>>()?;
        let header_text_ptrs: Vec<*const c_char> = header_texts.iter().map(|s| s.as_ptr()).collect();
        let header_name_ptrs: Vec<*const c_char> = header_names.iter().map(|s| s.as_ptr()).collect();
        let option_strings = options.iter().map(|o| cstring(o)).collect::<anyhow::Result<Vec<_>>>()?;
        let option_ptrs: Vec<*const c_char> = option_strings.iter().map(|s| s.as_ptr()).collect();

        let mut program: Program = std::ptr::null_mut();
        // SAFETY: every pointer is a NUL-terminated string alive until the call returns
        // (NVRTC copies them); the two header arrays have `headers.len()` entries.
        let status = unsafe {
            (self.api.create_program)(
                &mut program,
                entry_text.as_ptr(),
                entry_name.as_ptr(),
                headers.len() as c_int,
                header_text_ptrs.as_ptr(),
                header_name_ptrs.as_ptr(),
            )
        };
        self.check(status, "nvrtcCreateProgram")?;
        let program = ProgramGuard { nvrtc: self, program };

        // SAFETY: a live program and `options.len()` valid option strings.
        let status = unsafe {
            (self.api.compile_program)(program.program, option_ptrs.len() as c_int, option_ptrs.as_ptr())
        };
        let log = sources.rewrite_locations(&program.log()?);
        if status != SUCCESS {
            bail!(
                "NVRTC {}.{} could not compile the kernels in {} ({}):\n{}",
                self.version.0,
                self.version.1,
                sources.origin.display(),
                self.error_string(status),
                log.trim_end()
            );
        }
        let mut size = 0usize;
        // SAFETY: a compiled program and a valid out-pointer.
        self.check(unsafe { (self.api.get_cubin_size)(program.program, &mut size) }, "nvrtcGetCUBINSize")?;
        let mut image = vec![0u8; size];
        // SAFETY: `image` has the `size` bytes NVRTC asked for.
        self.check(
            unsafe { (self.api.get_cubin)(program.program, image.as_mut_ptr().cast()) },
            "nvrtcGetCUBIN",
        )?;
        if image.is_empty() {
            bail!("NVRTC returned no CUBIN: the options need a real architecture (sm_XY), not compute_XY");
        }
        Ok(Cubin { image, log })
    }

    fn check(&self, status: Status, call: &str) -> anyhow::Result<()> {
        if status == SUCCESS { Ok(()) } else { bail!("{call} failed: {}", self.error_string(status)) }
    }

    fn error_string(&self, status: Status) -> String {
        // SAFETY: nvrtcGetErrorString returns a static string (or null for unknown codes).
        let text = unsafe { (self.api.get_error_string)(status) };
        if text.is_null() {
            return format!("NVRTC error {status}");
        }
        // SAFETY: non-null, NUL-terminated, static.
        unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
    }
}

/// Destroys the NVRTC program on every exit path.
struct ProgramGuard<'a> {
    nvrtc: &'a Nvrtc,
    program: Program,
}

impl ProgramGuard<'_> {
    fn log(&self) -> anyhow::Result<String> {
        let api = &self.nvrtc.api;
        let mut size = 0usize;
        // SAFETY: a live program and a valid out-pointer.
        self.nvrtc.check(
            unsafe { (api.get_program_log_size)(self.program, &mut size) },
            "nvrtcGetProgramLogSize",
        )?;
        let mut bytes = vec![0u8; size.max(1)];
        // SAFETY: `bytes` holds the `size` bytes (NUL included) NVRTC asked for.
        self.nvrtc.check(
            unsafe { (api.get_program_log)(self.program, bytes.as_mut_ptr().cast()) },
            "nvrtcGetProgramLog",
        )?;
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        Ok(String::from_utf8_lossy(&bytes[..end]).into_owned())
    }
}

impl Drop for ProgramGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: the program was created by nvrtcCreateProgram and is destroyed once.
        // Nothing useful can be done with a failure here.
        let _ = unsafe { (self.nvrtc.api.destroy_program)(&mut self.program) };
    }
}

/// Where NVRTC may live, in search order: names for the dynamic loader's path
/// (LD_LIBRARY_PATH, ld.so.cache), then the same names in the usual toolkit folders.
/// `libnvrtc.so` is the toolkit's development link, `.so.13`/`.so.12` the runtime
/// libraries of CUDA 13 and 12 (also the PyPI `nvidia-cuda-nvrtc-cu12` wheel).
fn candidates() -> Vec<PathBuf> {
    const NAMES: [&str; 4] = ["libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"];
    let mut dirs: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"]
        .iter()
        .filter_map(std::env::var_os)
        .map(|root| PathBuf::from(root).join("lib64"))
        .collect();
    dirs.extend(["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"].map(PathBuf::from));
    let mut out: Vec<PathBuf> = NAMES.iter().map(PathBuf::from).collect();
    for dir in dirs {
        out.extend(NAMES.iter().map(|name| dir.join(name)));
    }
    out
}
