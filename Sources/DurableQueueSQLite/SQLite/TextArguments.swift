import DurableQueueCore

/// Copies of the text arguments of one run of a statement, which SQLite reads in place
/// (`SQLITE_STATIC`) instead of copying each into an allocation of its own: the copy, its
/// allocation and its release were a twentieth of a batch's instructions.
///
/// One chunk of the usual size is kept from run to run: ``clear()`` rewinds it, and only after the
/// statement was reset and its bindings cleared, so SQLite never reads a text after it was
/// overwritten. Larger or further chunks (long texts, many rows) are given back at the end of the
/// run, as SQLite's own copies were: a statement does not keep the memory of its largest run.
/// A statement's run is never entered twice at once, so each statement has its own.
final class TextArguments {
    // Unchecked: only ever used by one statement's run at a time, on one thread; the run-time
    // check of each access was a third of the cost of storing a text.
    @exclusivity(unchecked) private var chunks: [UnsafeMutableRawBufferPointer] = []
    /// The chunk being filled and the bytes used in it.
    @exclusivity(unchecked) private var chunk = 0
    @exclusivity(unchecked) private var used = 0
    /// Room for a 32-row batch insert of short inputs.
    private static let chunkSize = 16_384

    deinit {
        for chunk in chunks { chunk.deallocate() }
    }

    /// A copy of `bytes` (not empty) followed by a zero byte, that stays in place until ``clear()``.
    func store(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer {
        let size = bytes.count + 1
        if chunk < chunks.count && chunks[chunk].count - used < size {
            chunk += 1
            used = 0
        }
        if chunk == chunks.count {  // the only chunk kept between runs is the first
            chunks.append(.allocate(byteCount: max(Self.chunkSize, size), alignment: 1))
        }
        let destination = chunks[chunk].baseAddress! + used
        destination.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        destination.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
        used += size
        return UnsafeRawPointer(destination)
    }

    /// Makes the memory free for the next run, giving back all but one chunk of the usual size.
    func clear() {
        if chunks.count > 1 || (chunks.first?.count ?? 0) > Self.chunkSize {
            for chunk in chunks.dropFirst() { chunk.deallocate() }
            chunks.removeSubrange(1...)
            if chunks[0].count > Self.chunkSize { chunks.removeFirst().deallocate() }
        }
        chunk = 0
        used = 0
    }
}
