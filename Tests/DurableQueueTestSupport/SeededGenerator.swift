import Foundation

/// A small seeded generator (SplitMix64), so a failing run can be repeated with its seed.
package struct SeededGenerator: RandomNumberGenerator {
    package var state: UInt64

    package init(state: UInt64) { self.state = state }

    /// The seed for this run: `DURABLEQ_SEED` from the environment (to repeat a failed run), else random.
    package static var testSeed: UInt64 {
        ProcessInfo.processInfo.environment["DURABLEQ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
