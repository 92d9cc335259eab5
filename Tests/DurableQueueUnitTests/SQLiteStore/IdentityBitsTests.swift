import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The statement cache finds a statement by its text's identity: the bytes of the string value,
/// whose size differs by platform (16 bytes on 64-bit, 12 on arm64_32).
@Suite struct IdentityBitsTests {
    /// A 12-byte value, as a `String` is where pointers are 32 bits: read whole, zero-padded.
    @Test func aTwelveByteValueIsReadWholeAndPadded() {
        struct TwelveBytes { var first: UInt64; var second: UInt32 }
        #expect(MemoryLayout<TwelveBytes>.size == 12)
        let bits = identityBits(of: TwelveBytes(first: 0x0102_0304_0506_0708, second: 0x0A0B_0C0D))
        #expect(bits.0 == 0x0102_0304_0506_0708 && bits.1 == 0x0A0B_0C0D)
    }

    @Test func theSameStringHasTheSameBitsAndAnotherTextOtherBits() {
        let text = "SELECT id FROM jobs WHERE state = 'pending' ORDER BY priority DESC, run_at LIMIT ?1"
        let same = text
        let other = "SELECT id FROM jobs WHERE state = 'running'"
        #expect(identityBits(of: text) == identityBits(of: same))
        #expect(identityBits(of: text) != identityBits(of: other))
    }
}
