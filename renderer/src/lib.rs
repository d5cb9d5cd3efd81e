//! Path tracer over scene-compiler blobs (filled by the renderer issue).
