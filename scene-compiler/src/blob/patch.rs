//! Records rewritten in a sealed blob in place: an edit that moves a few instances of a
//! million (`crate::moves`) rewrites their records and the node boxes above them, not
//! the whole blob. Each write keeps the header's CRC-32 true from the bytes it replaces
//! alone ([`super::crc::crc32_rewritten`]), so the blob stays one that
//! [`super::BlobView::parse`] accepts without being read again, and the byte ranges
//! written are kept ([`BlobEdit`]) for a device copy of the blob to take just those.

use std::ops::Range;

use bytemuck::Pod;

use super::aligned::AlignedBytes;
use super::crc::crc32_rewritten;
use super::layout::{BlobHeader, HEADER_LEN, SectionId};

/// What an in-place edit of a blob rewrote: a device that holds the blob as it was
/// (`before`) is brought up to date by copying these ranges of the edited blob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlobEdit {
    /// The edited blob's header fields that told it apart before the edit: the CRC-32 of
    /// its payload and its length ([`BlobHeader::payload_crc32`], `total_len`).
    pub before: (u32, u64),
    /// Byte ranges of the blob (offsets from its start, all past the header) that were
    /// rewritten, sorted and disjoint; the header changed too (its CRC-32).
    pub ranges: Vec<Range<usize>>,
}

/// The records an edit that moved instances rewrote ([`BlobEdit::moved_records`]), as
/// index ranges into their sections.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MovedRecords {
    pub instances: Vec<Range<usize>>,
    pub node_boxes: Vec<Range<usize>>,
}

impl BlobEdit {
    /// What [`BlobEdit::before`] names a blob by: its header's payload CRC-32 and length.
    pub fn stamp(header: &BlobHeader) -> (u32, u64) {
        (header.payload_crc32, header.total_len)
    }

    /// The instance and node-box records the edit rewrote in the blob with `header`, when
    /// it rewrote nothing else (as moving instances does): what a copy of the blob on a
    /// device reads again. `None` when a range lies outside those two sections.
    pub fn moved_records(&self, header: &BlobHeader) -> Option<MovedRecords> {
        let section = |id: SectionId| {
            let entry = header.sections[id as usize];
            (entry.offset as usize..(entry.offset + entry.len) as usize, id.record_size())
        };
        let (instances, node_boxes) = (section(SectionId::Instances), section(SectionId::NodeBoxes));
        // The records of `section` that `range` overlaps, when it lies inside it.
        let records = |range: &Range<usize>, (section, size): &(Range<usize>, usize)| {
            (section.start <= range.start && range.end <= section.end)
                .then(|| (range.start - section.start) / size..(range.end - section.start).div_ceil(*size))
        };
        let mut moved = MovedRecords { instances: Vec::new(), node_boxes: Vec::new() };
        for range in &self.ranges {
            match (records(range, &instances), records(range, &node_boxes)) {
                (Some(r), _) => moved.instances.push(r),
                (None, Some(r)) => moved.node_boxes.push(r),
                (None, None) => return None,
            }
        }
        Some(moved)
    }
}

/// Writes into a sealed blob's records in place; [`BlobPatch::finish`] seals it again.
pub(crate) struct BlobPatch<'a> {
    buf: &'a mut [u8],
    header: BlobHeader,
    before: (u32, u64),
    ranges: Vec<Range<usize>>,
}

impl<'a> BlobPatch<'a> {
    /// Opens `blob`, a blob that [`super::write`] sealed (its header and sections as
    /// written).
    pub(crate) fn new(blob: &'a mut AlignedBytes) -> BlobPatch<'a> {
        let buf = blob.as_mut_slice();
        let header: BlobHeader = bytemuck::pod_read_unaligned(&buf[..HEADER_LEN]);
        let before = BlobEdit::stamp(&header);
        BlobPatch { buf, header, before, ranges: Vec::new() }
    }

    /// Where record `index` of section `id` lies in the blob.
    fn at<T: Pod>(&self, id: SectionId, index: usize) -> Range<usize> {
        let entry = self.header.sections[id as usize];
        let start = entry.offset as usize + index * size_of::<T>();
        assert!(
            id.record_size() == size_of::<T>()
                && start + size_of::<T>() <= (entry.offset + entry.len) as usize,
            "record {index} of section {id:?} is in the blob"
        );
        start..start + size_of::<T>()
    }

    /// Record `index` of section `id`.
    pub(crate) fn read<T: Pod>(&self, id: SectionId, index: usize) -> T {
        bytemuck::pod_read_unaligned(&self.buf[self.at::<T>(id, index)])
    }

    /// Replaces record `index` of section `id` with `value`.
    pub(crate) fn write<T: Pod>(&mut self, id: SectionId, index: usize, value: &T) {
        let range = self.at::<T>(id, index);
        let new = bytemuck::bytes_of(value);
        let after = (self.buf.len() - range.end) as u64;
        let crc = crc32_rewritten(self.header.payload_crc32, &self.buf[range.clone()], new, after);
        self.header.payload_crc32 = crc;
        self.buf[range.clone()].copy_from_slice(new);
        self.ranges.push(range);
    }

    /// Writes the header back and says what changed: the ranges sorted, and those that
    /// touch joined.
    pub(crate) fn finish(self) -> BlobEdit {
        self.buf[..HEADER_LEN].copy_from_slice(bytemuck::bytes_of(&self.header));
        let mut ranges = self.ranges;
        ranges.sort_by_key(|r| r.start);
        let mut joined: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
        for range in ranges {
            match joined.last_mut() {
                Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
                _ => joined.push(range),
            }
        }
        BlobEdit { before: self.before, ranges: joined }
    }
}
