import Testing

@testable import DurableQueueCore

/// The rule of each key's starts (``KeyLimits``, ``KeyPattern``, ``KeyWalk``), as pure functions.
@Suite struct KeyFlowTests {
    @Test func anExactKeyBeatsEveryPrefixAndALongerPrefixAShorterOne() {
        let overrides = [
            "premium:*": KeyLimits(concurrencyLimit: 3), "premium:eu:*": KeyLimits(concurrencyLimit: 4),
            "premium:eu:acme": KeyLimits(concurrencyLimit: 9),
        ]
        let defaults = KeyLimits(concurrencyLimit: 1)
        func limit(_ key: String) -> Int { KeyPattern.limits(of: key, defaults: defaults, overrides: overrides).concurrencyLimit }
        #expect(limit("free:x") == 1)
        #expect(limit("premium:us:x") == 3)
        #expect(limit("premium:eu:x") == 4)
        #expect(limit("premium:eu:acme") == 9)
        #expect(limit("premium") == 1, "a prefix names keys that start with it, not shorter ones")
    }

    @Test func aKeysSlotsAreTheLeastOfItsLimits() {
        let now: Int64 = 10_000
        let limits = KeyLimits(concurrencyLimit: 3, rateLimit: RateLimit(4, per: .seconds(1)))
        #expect(limits.slots(KeyState(running: 1), started: 0, now: now) == 2)
        #expect(limits.slots(KeyState(running: 0, recentStarts: [8_999, 9_500, 9_600, 9_700]), started: 0, now: now) == 1,
                "the start at 8,999 left the window; three remain")
        #expect(limits.slots(KeyState(nextStart: now + 1), started: 0, now: now) == 0)
        let fromStart = KeyLimits(throttle: Throttle(.seconds(1)))
        #expect(fromStart.slots(KeyState(), started: 0, now: now) == 1)
        #expect(fromStart.slots(KeyState(), started: 1, now: now) == 0, "one start per interval")
        let fromEnd = KeyLimits(concurrencyLimit: 5, throttle: Throttle(.seconds(1), measuredFrom: .end))
        #expect(fromEnd.runningLimit == 1 && fromEnd.slots(KeyState(running: 1), started: 0, now: now) == 0)
        #expect(KeyLimits().slots(KeyState(running: 1_000), started: 1_000, now: now) > 0 && !KeyLimits().isLimiting)
    }

    @Test func aStartStoresTheKeysNextStartAndTheStartsItsWindowCounts() {
        let throttled = KeyLimits(throttle: Throttle(.seconds(2)))
        #expect(throttled.record(key: "k", KeyState(), started: 1, now: 1_000)
                == KeyStartRecord(key: "k", nextStart: 3_000, endGap: 0, recentStarts: []))
        let rated = KeyLimits(rateLimit: RateLimit(2, per: .seconds(1)))
        #expect(rated.record(key: "k", KeyState(recentStarts: [100, 600]), started: 1, now: 1_200)
                == KeyStartRecord(key: "k", nextStart: 1_600, endGap: 0, recentStarts: [600, 1_200]))
        #expect(rated.record(key: "k", KeyState(), started: 1, now: 1_200)?.nextStart == 0, "a window with room left")
        let fromEnd = KeyLimits(throttle: Throttle(.milliseconds(500), measuredFrom: .end))
        #expect(fromEnd.record(key: "k", KeyState(), started: 1, now: 1_000)?.endGap == 500)
        #expect(KeyLimits(concurrencyLimit: 2).record(key: "k", KeyState(), started: 1, now: 1_000) == nil)
    }

    @Test func aWalkStopsAfterPassingTooManyJobsOfBlockedKeys() {
        var walk = KeyWalk(defaults: KeyLimits(concurrencyLimit: 1), overrides: [:], now: 0)
        #expect(walk.isActive)
        #expect(walk.admit("hot", read: { _ in KeyState() }) == .start)
        for _ in 0..<KeyWalk.maxSkippedRows { #expect(walk.admit("hot", read: { _ in KeyState() }) == .skip) }
        #expect(walk.admit("hot", read: { _ in KeyState() }) == .stop)
        #expect(!KeyWalk(defaults: KeyLimits(), overrides: ["a": KeyLimits()], now: 0).isActive)
    }
}
