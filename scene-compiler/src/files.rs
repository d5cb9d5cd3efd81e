//! Reading scene files fast: a 1M-sphere scene is 92 MB of RON, and reading it into
//! memory and checking it is UTF-8 took 90 ms of one core on the 2-core dev machine
//! (most of it the kernel filling fresh pages), before the parse could start. Large
//! files are read and checked in pieces on all cores; the results are those of
//! `std::fs::read` and `std::str::from_utf8`, errors included.
//!
//! Every file a scene names is opened through [`open_input`] first: a device or pipe
//! (a link to `/dev/zero` read to its end is an allocation failure, not an error) or
//! a file larger than [`limits::MAX_INPUT_BYTES`] is refused by its metadata, before
//! a byte is read (issue 37).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use rayon::prelude::*;

use crate::limits;

/// Files and texts of at least this many bytes are read and checked in pieces.
const PAR_MIN_BYTES: usize = 1 << 24;
/// Bytes per piece.
const PIECE: usize = 1 << 22;

/// `path` opened for reading, with its length, if it is a regular file of at most
/// `max` bytes; otherwise an `InvalidInput` error that says which it is not.
pub fn open_input(path: &Path, max: u64) -> io::Result<(File, u64)> {
    let file = File::open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        let kind = if metadata.is_dir() { "a folder" } else { "a device, pipe or socket" };
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("it is {kind}, not a regular file")));
    }
    if metadata.len() > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("it is {} bytes, more than the {max} an input file may have", metadata.len()),
        ));
    }
    Ok((file, metadata.len()))
}

/// The bytes of the file at `path`, as [`std::fs::read`] gives them, if it is an input
/// [`open_input`] accepts with [`limits::MAX_INPUT_BYTES`].
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    read_within(path, limits::MAX_INPUT_BYTES)
}

/// [`read`] of a file of at most `max` bytes.
pub fn read_within(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let (mut file, len) = open_input(path, max)?;
    // A length no `usize` holds (never on 64-bit) reads as an unknown one, like 0.
    let len = usize::try_from(len).unwrap_or(0);
    if len < PAR_MIN_BYTES {
        // What `fs::read` does, on the file already open.
        let mut bytes = Vec::with_capacity(len);
        // Bounded: a file that grows while it is read stops at the limit.
        (&mut file).take(max).read_to_end(&mut bytes)?;
        return Ok(bytes);
    }
    let mut bytes = vec![0u8; len];
    match bytes
        .par_chunks_mut(PIECE)
        .enumerate()
        .try_for_each(|(i, piece)| read_exact_at(&file, (i * PIECE) as u64, piece))
    {
        Ok(()) => {}
        // The file shrank while it was read (an editor rewriting it in place): what
        // `fs::read` would give is whatever is there now.
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
            let (file, _) = open_input(path, max)?;
            let mut bytes = Vec::new();
            file.take(max).read_to_end(&mut bytes)?;
            return Ok(bytes);
        }
        Err(e) => return Err(e),
    }
    // The file may have grown since its length was taken: read the rest as `fs::read` would.
    file.seek(SeekFrom::Start(len as u64))?;
    (&mut file).take(max - len as u64).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Fills `piece` from `file` at `offset`, without moving the file's cursor (so tasks on
/// several cores can read one file); `UnexpectedEof` when the file is shorter.
pub(crate) fn read_exact_at(file: &File, offset: u64, piece: &mut [u8]) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, piece, offset)
    }
    #[cfg(windows)]
    {
        let mut done = 0;
        while done < piece.len() {
            match std::os::windows::fs::FileExt::seek_read(file, &mut piece[done..], offset + done as u64)? {
                0 => return Err(io::ErrorKind::UnexpectedEof.into()),
                n => done += n,
            }
        }
        Ok(())
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder, renamed over
/// `path` once it is complete: a failed or interrupted write never leaves a partial
/// file where `path` was (nor replaces a good one), and the rename is atomic. No
/// `fsync`: that guards against a power cut, not against our own errors, and would add
/// tens to hundreds of ms to an 82 MB blob's compile.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_pending(path, bytes)?.commit()
}

/// [`write_atomic`] with the bytes on disk before the rename, for the user's own files
/// (a scene saved from the editor, its instance file): a power cut then leaves the old
/// file or the new one, never an empty one. Worth its milliseconds there, not for a
/// blob that a compile writes again.
pub fn save_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let (pending, mut file) = create_pending(path)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    pending.commit()
}

/// A complete temporary file that replaces its destination on [`PendingFile::commit`]
/// and is removed when dropped uncommitted: what lets `scene-compiler build` write a
/// blob while it is still being checked, and leave nothing behind if the check fails.
#[must_use = "dropping a PendingFile removes it; commit it to replace the destination"]
pub struct PendingFile {
    temp: std::path::PathBuf,
    path: std::path::PathBuf,
    committed: bool,
}

/// [`write_atomic`] up to the rename: `bytes` in a temporary file beside `path`, which
/// the returned [`PendingFile`] renames over `path` or removes.
pub fn write_pending(path: &Path, bytes: &[u8]) -> io::Result<PendingFile> {
    use std::io::Write;
    let (pending, mut file) = create_pending(path)?;
    file.write_all(bytes)?;
    file.flush()?;
    Ok(pending)
}

/// Bytes from which `scene-compiler build` encodes a blob straight into its file
/// ([`pending_mapped`]) instead of writing it from memory ([`write_pending`]).
pub const MAPPED_MIN_BYTES: usize = PAR_MIN_BYTES;

/// A temporary file beside `path` holding `len` zero bytes (`len` > 0), with those bytes
/// mapped: what is written to them is written to the file, which the [`PendingFile`]
/// renames over `path` or removes. `scene-compiler build` encodes a large blob into
/// them, which saves allocating the blob in memory and copying it out: on the 2-core
/// dev machine 0.1-0.7 s (median 0.3) of a 5.2M-triangle compile, where fresh pages
/// fault in at about 0.6 s per GB; on 16 cores, which fault a file's pages in more
/// slowly, nothing at 21M triangles (docs/performance.md, "Writing through a mapping").
#[cfg(unix)]
pub fn pending_mapped(path: &Path, len: usize) -> io::Result<(PendingFile, crate::blob::AlignedBytes)> {
    let (pending, file) = create_pending(path)?;
    let map = map_reserved(&file, len)?;
    Ok((pending, crate::blob::AlignedBytes::mapped(map)))
}

/// An empty temporary file beside `path`, for a writer that opens files by name (an
/// image encoder) to fill through [`PendingFile::temp_path`]; dropped, it is removed,
/// which makes it the test of whether a file can be created there at all.
pub fn pending_empty(path: &Path) -> io::Result<PendingFile> {
    Ok(create_pending(path)?.0)
}

/// The folder a file path is in (`.` for a bare file name): where its temporary file
/// goes.
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// A new, empty temporary file beside `path` (named after it and this process), open to
/// read and write; the [`PendingFile`] removes it unless committed.
fn create_pending(path: &Path) -> io::Result<(PendingFile, File)> {
    let folder = folder_of(path);
    let name = path.file_name().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(name);
    temp_name.push(format!(".{}.tmp", std::process::id()));
    let pending = PendingFile { temp: folder.join(temp_name), path: path.to_path_buf(), committed: false };
    // From here on, an error drops `pending`, which removes what was written.
    let file =
        std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&pending.temp)?;
    Ok((pending, file))
}

/// The empty `file` grown to `len` zero bytes and mapped (shared) for writing. The
/// blocks are reserved first, so a full disk is an error here rather than a SIGBUS
/// when a store reaches a page. Unmapped without `msync`: like `write`, the pages go to
/// disk with the page cache's writeback, and any later read of the file sees them.
#[cfg(unix)]
fn map_reserved(file: &File, len: usize) -> io::Result<memmap2::MmapMut> {
    use std::os::fd::AsRawFd;
    let len_off = libc::off_t::try_from(len)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "file too large"))?;
    // SAFETY: a plain call on an open descriptor; it returns an error number, never sets errno.
    match unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len_off) } {
        0 => {}
        e => return Err(io::Error::from_raw_os_error(e)),
    }
    // SAFETY: the file is the temporary one `create_pending` just created under a name
    // of this process (nothing else maps, truncates or writes it), and it now has `len`
    // allocated bytes, so every store into the mapping lands in the file.
    unsafe { memmap2::MmapMut::map_mut(file) }
}

impl PendingFile {
    /// The temporary file, renamed over the destination on commit.
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// Renames the temporary file over the destination (atomically).
    pub fn commit(mut self) -> io::Result<()> {
        std::fs::rename(&self.temp, &self.path)?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if self.committed {
            return;
        }
        // Best effort: the error to report is whatever made the caller give up.
        let _ = std::fs::remove_file(&self.temp);
    }
}

/// `bytes` as text, with [`std::str::from_utf8`]'s result and error.
pub fn text(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    if bytes.len() >= PAR_MIN_BYTES {
        // A piece ends where the next one's first byte starts a character, so a valid
        // text is valid piece by piece; an invalid one is checked again whole for the
        // exact error.
        let mut cuts = vec![0];
        cuts.extend((PIECE..bytes.len()).step_by(PIECE).map(|at| {
            let starts = |&i: &usize| bytes.get(i).is_none_or(|&b| (b as i8) >= -0x40);
            (at..at + 4).find(starts).unwrap_or(at)
        }));
        cuts.push(bytes.len());
        let valid = cuts.par_windows(2).all(|w| std::str::from_utf8(&bytes[w[0]..w[1]]).is_ok());
        if valid {
            // SAFETY: every piece is UTF-8 and pieces meet at character boundaries.
            return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
        }
    }
    std::str::from_utf8(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text of `len` bytes mixing one- to four-byte characters, so piece boundaries
    /// fall inside characters.
    fn mixed_text(len: usize) -> Vec<u8> {
        let unit = "ab€ü𝄞 (1.5, 2.0)\n".as_bytes();
        unit.iter().copied().cycle().take(len).collect()
    }

    #[test]
    fn large_texts_check_as_from_utf8_does() {
        let mut bytes = mixed_text(PAR_MIN_BYTES + 3 * PIECE + 5);
        // The cut may end inside a character: trim to the last whole one.
        while std::str::from_utf8(&bytes).is_err() {
            bytes.pop();
        }
        assert_eq!(text(&bytes), std::str::from_utf8(&bytes));
        for at in [PIECE - 1, PIECE, 2 * PIECE + 1, bytes.len() - 1] {
            let mut broken = bytes.clone();
            broken[at] = 0xff;
            assert_eq!(text(&broken), std::str::from_utf8(&broken), "0xff at {at}");
        }
    }

    #[test]
    fn large_files_read_as_fs_read_does() {
        let dir = std::env::temp_dir().join(format!("scene-compiler-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for len in [10, PAR_MIN_BYTES, PAR_MIN_BYTES + PIECE / 2 + 1] {
            let path = dir.join(format!("{len}.ron"));
            let bytes = mixed_text(len);
            std::fs::write(&path, &bytes).unwrap();
            assert_eq!(read(&path).unwrap(), bytes, "{len} bytes");
        }
        let missing = read(&dir.join("missing.ron")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A fresh folder of this test process named after `test`, holding `scene.blob` with
    /// the bytes `old`; and that file's path.
    fn folder_with_an_old_blob(test: &str) -> (std::path::PathBuf, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("scene-compiler-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("scene.blob");
        std::fs::write(&path, b"old").unwrap();
        (dir, path)
    }

    /// The names of the files in `dir`, sorted.
    fn listing(dir: &Path) -> Vec<std::ffi::OsString> {
        let mut names: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        names
    }

    /// A pending file replaces its destination only when committed; dropped, it leaves
    /// the old file as it was and nothing beside it.
    #[test]
    fn pending_files_replace_only_when_committed() {
        let (dir, path) = folder_with_an_old_blob("pending");
        let listing = || listing(&dir);
        let pending = write_pending(&path, b"abandoned").unwrap();
        assert_eq!(listing().len(), 2, "the temporary file is beside the destination");
        drop(pending);
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(listing(), ["scene.blob"]);
        write_pending(&path, b"new").unwrap().commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(listing(), ["scene.blob"]);
        // Large files too: the same bytes, shorter files than the one they replace
        // included, and an abandoned one leaves nothing.
        for len in [PAR_MIN_BYTES + 3 * PIECE + 5, PAR_MIN_BYTES] {
            let bytes = mixed_text(len);
            write_pending(&path, &bytes).unwrap().commit().unwrap();
            assert!(std::fs::read(&path).unwrap() == bytes, "{len} bytes");
        }
        drop(write_pending(&path, &mixed_text(PAR_MIN_BYTES)).unwrap());
        assert_eq!(listing(), ["scene.blob"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A saved file and one filled by name through an empty pending file replace the
    /// destination whole; an empty one dropped leaves nothing.
    #[test]
    fn saves_and_files_filled_by_name_replace_the_destination() {
        let (dir, path) = folder_with_an_old_blob("by-name");
        save_atomic(&path, b"saved").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"saved");
        drop(pending_empty(&path).unwrap());
        assert_eq!(listing(&dir), ["scene.blob"]);
        let pending = pending_empty(&path).unwrap();
        std::fs::write(pending.temp_path(), b"encoded").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"saved", "not replaced before the commit");
        pending.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"encoded");
        assert_eq!(listing(&dir), ["scene.blob"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Bytes written into a pending mapping are the file's: zeros where nothing was
    /// written, the file replaced on commit only, nothing left when dropped.
    #[cfg(unix)]
    #[test]
    fn pending_mappings_are_the_files_bytes() {
        let (dir, path) = folder_with_an_old_blob("mapped");
        let len = MAPPED_MIN_BYTES + 3 * PIECE + 5;
        let (pending, mut bytes) = pending_mapped(&path, len).unwrap();
        assert!(bytes.is_mapped() && bytes.len() == len && (bytes.as_ptr() as usize).is_multiple_of(16));
        assert!(bytes.iter().all(|&b| b == 0), "a fresh mapping reads as zeros");
        let text = mixed_text(len / 2);
        bytes.as_mut_slice()[len - text.len()..].copy_from_slice(&text);
        assert_eq!(std::fs::read(&path).unwrap(), b"old", "not replaced before the commit");
        drop(bytes);
        pending.commit().unwrap();
        let written = std::fs::read(&path).unwrap();
        assert_eq!(written.len(), len);
        assert!(
            written[..len - text.len()].iter().all(|&b| b == 0) && written[len - text.len()..] == text[..]
        );
        let (abandoned, _bytes) = pending_mapped(&path, MAPPED_MIN_BYTES).unwrap();
        drop(abandoned);
        assert_eq!(listing(&dir), ["scene.blob"], "only the blob is left");
        assert_eq!(std::fs::read(&path).unwrap().len(), len);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
