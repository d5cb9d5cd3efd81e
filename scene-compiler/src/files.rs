//! Reading scene files fast: a 1M-sphere scene is 92 MB of RON, and reading it into
//! memory and checking it is UTF-8 took 90 ms of one core on the 2-core dev machine
//! (most of it the kernel filling fresh pages), before the parse could start. Large
//! files are read and checked in pieces on all cores; the results are those of
//! `std::fs::read` and `std::str::from_utf8`, errors included.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use rayon::prelude::*;

/// Files and texts of at least this many bytes are read and checked in pieces.
const PAR_MIN_BYTES: usize = 1 << 24;
/// Bytes per piece.
const PIECE: usize = 1 << 22;

/// The bytes of the file at `path`, as [`std::fs::read`] gives them.
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = File::open(path)?;
    // A length no `usize` holds (never on 64-bit) reads as an unknown one, like 0.
    let len = usize::try_from(file.metadata()?.len()).unwrap_or(0);
    if len < PAR_MIN_BYTES {
        // What `fs::read` does, on the file already open.
        let mut bytes = Vec::with_capacity(len);
        file.read_to_end(&mut bytes)?;
        return Ok(bytes);
    }
    let mut bytes = vec![0u8; len];
    match bytes
        .par_chunks_mut(PIECE)
        .enumerate()
        .try_for_each(|(i, piece)| read_piece(&file, i * PIECE, piece))
    {
        Ok(()) => {}
        // The file shrank while it was read (an editor rewriting it in place): what
        // `fs::read` would give is whatever is there now.
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return std::fs::read(path),
        Err(e) => return Err(e),
    }
    // The file may have grown since its length was taken: read the rest as `fs::read` would.
    file.seek(SeekFrom::Start(len as u64))?;
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Fills `piece` from `file` at `offset`; `UnexpectedEof` when the file is shorter.
fn read_piece(file: &File, offset: usize, piece: &mut [u8]) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, piece, offset as u64)
    }
    #[cfg(windows)]
    {
        let mut done = 0;
        while done < piece.len() {
            match std::os::windows::fs::FileExt::seek_read(file, &mut piece[done..], (offset + done) as u64)?
            {
                0 => return Err(io::ErrorKind::UnexpectedEof.into()),
                n => done += n,
            }
        }
        Ok(())
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
}
