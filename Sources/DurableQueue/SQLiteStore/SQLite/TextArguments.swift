/// Copies of the text arguments of one run of a statement, which SQLite reads in place
/// (`SQLITE_STATIC`) instead of copying each into an allocation of its own: the copy, its
/// allocation and its release were a twentieth of a batch's instructions.
///
/// The memory is kept from run to run: ``clear()`` only rewinds it, and only after the statement
/// was reset and its bindings cleared, so SQLite never reads a text after it was overwritten.
/// A statement's run is never entered twice at once, so each statement has its own.
final class TextArguments {
    // Unchecked: only ever used by one statement's run at a time, on one thread; the run-time
    // check of each access was a third of the cost of storing a text.
    @exclusivity(unchecked) private var chunks: [UnsafeMutableRawBufferPointer] = []
    /// The chunk being filled and the bytes used in it.
    @exclusivity(unchecked) private var chunk = 0
    @exclusivity(unchecked) private var used = 0
    private static let chunkSize = 4096

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
        if chunk == chunks.count {
            chunks.append(.allocate(byteCount: max(Self.chunkSize, size), alignment: 1))
        } else if chunks[chunk].count < size {
            // A later chunk, unused in this run, too small for this text: replaced by one that fits.
            chunks[chunk].deallocate()
            chunks[chunk] = .allocate(byteCount: size, alignment: 1)
        }
        let destination = chunks[chunk].baseAddress! + used
        destination.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        destination.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
        used += size
        return UnsafeRawPointer(destination)
    }

    /// Makes the memory free for the next run.
    func clear() {
        chunk = 0
        used = 0
    }
}
