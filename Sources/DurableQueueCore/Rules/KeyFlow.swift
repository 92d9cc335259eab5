/// The patterns of ``QueueConfiguration/keyOverrides``: an exact key, or a prefix ending in `*`.
package enum KeyPattern {
    /// Throws `invalidArgument` for an empty pattern, `*` alone (the queue's own key limits say
    /// that), or a `*` anywhere but at the end.
    package static func validate(_ pattern: String) throws {
        if pattern.isEmpty || pattern == "*" {
            throw DurableQueueError.invalidArgument(
                "key pattern",
                pattern.isEmpty
                    ? "'' names no key"
                    : "'*' names every key, whose limits are the queue's keyLimits (set them with queue[keys: \"*\"]), not an override")
        }
        if pattern.dropLast().contains("*") {
            throw DurableQueueError.invalidArgument("key pattern", "'\(pattern)' has a '*' before its end; only a trailing '*' (a prefix) is allowed")
        }
    }

    /// How specifically `pattern` names `key`: an exact key beats every prefix, a longer prefix a
    /// shorter one; nil when it does not name it.
    package static func specificity(of pattern: String, for key: String) -> Int? {
        guard pattern.hasSuffix("*") else { return pattern == key ? Int.max : nil }
        let prefix = pattern.dropLast()
        return key.hasPrefix(prefix) ? prefix.count : nil
    }

    /// The limits of `key`: those of the most specific override that names it, else `defaults`.
    package static func limits(of key: String, defaults: KeyLimits, overrides: [String: KeyLimits]) -> KeyLimits {
        var best: (specificity: Int, limits: KeyLimits)?
        for (pattern, limits) in overrides {
            guard let specificity = specificity(of: pattern, for: key) else { continue }
            if best == nil || specificity > best!.specificity { best = (specificity, limits) }
        }
        return best?.limits ?? defaults
    }
}

/// What a claim reads of one key when it meets the key's first waiting job.
package struct KeyState: Sendable, Hashable {
    /// The key's running jobs over every process (read only when its limits need it).
    package var running: Int
    /// The key's next allowed start (throttle, rate limit; 0: none), as stored.
    package var nextStart: Int64
    /// The key's recent start times, oldest first (read only under a rate limit).
    package var recentStarts: [Int64]

    package init(running: Int = 0, nextStart: Int64 = 0, recentStarts: [Int64] = []) {
        self.running = running
        self.nextStart = nextStart
        self.recentStarts = recentStarts
    }
}

/// What a claim that started jobs of a throttled or rate-limited key stores for it.
package struct KeyStartRecord: Sendable, Hashable {
    package var key: String
    /// The key's next allowed start (the store keeps the later of it and the stored one); 0: none.
    package var nextStart: Int64
    /// The interval to keep after each of the key's jobs ends (a throttle measured from the end); 0: none.
    package var endGap: Int64
    /// The key's starts its rate limit counts from now on, oldest first.
    package var recentStarts: [Int64]
}

// MARK: - The rule of a key's starts, which both stores apply

extension KeyLimits {
    /// Whether the key's starts are limited at all.
    package var isLimiting: Bool { runningLimit > 0 || needsStartRecord }

    /// The most jobs of the key running at once: 1 when throttled from a job's end, else its
    /// concurrency limit; 0: no limit.
    package var runningLimit: Int {
        if let throttle, throttle.measuredFrom == .end, throttle.interval > .zero { return 1 }
        return concurrencyLimit
    }

    /// Whether a start of the key is stored (its next allowed start, its recent starts).
    package var needsStartRecord: Bool { (throttle.map { $0.interval > .zero } ?? false) || rateLimit != nil }

    /// The interval kept after each job of the key ends; 0 unless throttled from the end.
    package var endGap: Int64 {
        guard let throttle, throttle.measuredFrom == .end else { return 0 }
        return throttle.interval.milliseconds
    }

    /// How many more jobs of a key in `state` may start at `now`, the claim having started
    /// `started` of them already; never negative.
    package func slots(_ state: KeyState, started: Int, now: Int64) -> Int {
        guard state.nextStart <= now else { return 0 }
        var slots = Int.max
        if runningLimit > 0 { slots = min(slots, runningLimit - state.running - started) }
        if let throttle, throttle.measuredFrom == .start, throttle.interval > .zero {
            // The next start waits the interval after this claim's first.
            slots = min(slots, 1 - started)
        }
        if let rateLimit {
            let counted = state.recentStarts.filter { $0 > now - rateLimit.window.milliseconds }.count
            slots = min(slots, rateLimit.count - counted - started)
        }
        return max(0, slots)
    }

    /// What to store for `key` in `state` after `started` (positive) of its jobs started at `now`;
    /// nil when nothing about its starts is stored.
    package func record(key: String, _ state: KeyState, started: Int, now: Int64) -> KeyStartRecord? {
        guard needsStartRecord, started > 0 else { return nil }
        var next: Int64 = 0
        if let throttle, throttle.measuredFrom == .start, throttle.interval > .zero {
            next = now + throttle.interval.milliseconds
        }
        var recent: [Int64] = []
        if let rateLimit {
            let window = rateLimit.window.milliseconds
            recent = state.recentStarts.filter { $0 > now - window } + Array(repeating: now, count: started)
            recent = Array(recent.suffix(rateLimit.count))
            if recent.count >= rateLimit.count { next = max(next, recent[recent.count - rateLimit.count] + window) }
        }
        return KeyStartRecord(key: key, nextStart: next, endGap: endGap, recentStarts: recent)
    }
}

/// What a claim's walk does with a waiting job of a key.
package enum KeyVerdict: Sendable, Hashable {
    /// Start it.
    case start
    /// Leave it (its key may not start more now) and look at the next job.
    case skip
    /// Leave it and end the walk: it has passed ``KeyWalk/maxSkippedRows`` jobs of blocked keys.
    case stop
}

/// The per-key side of one claim of one queue, which both stores' claims consult job by job in
/// the queue's order: each key's limits (its override or the queue's), what was read of it, and
/// how many of its jobs this claim started.
package struct KeyWalk: Sendable {
    /// The most waiting jobs of blocked keys a claim passes before it stops looking: a key with a
    /// million waiting jobs that may not start now costs a claim at most this many rows. On a fair
    /// queue (``Fairness/byKey``) the keys take turns in the order, so each key's next job is near
    /// the front; without fairness, jobs behind more of a blocked key's jobs wait until it may start.
    package static let maxSkippedRows = 1_000

    private let defaults: KeyLimits
    private let overrides: [String: KeyLimits]
    private let now: Int64
    private var keys: [String: (limits: KeyLimits, state: KeyState, started: Int)] = [:]
    private var skipped = 0

    /// A walk at `now` of a queue whose keys have `defaults` unless `overrides` name them.
    package init(defaults: KeyLimits, overrides: [String: KeyLimits], now: Int64) {
        self.defaults = defaults
        self.overrides = overrides
        self.now = now
    }

    /// Whether any key of the queue is limited: otherwise the walk need not be consulted.
    package var isActive: Bool { defaults.isLimiting || overrides.values.contains(where: \.isLimiting) }

    /// The limits of `key`.
    package func limits(of key: String) -> KeyLimits {
        KeyPattern.limits(of: key, defaults: defaults, overrides: overrides)
    }

    /// Whether the walk has read `key` already.
    package func knows(_ key: String) -> Bool { keys[key] != nil }

    /// Takes `state`, read by the store, as `key`'s.
    package mutating func learn(_ key: String, state: KeyState) {
        keys[key] = (limits(of: key), state, 0)
    }

    /// Whether to start the next waiting job, of `key`; `read` gives the key's state when the walk
    /// has not learnt it (given the key's limits: read only what they need).
    package mutating func admit(_ key: String, read: (KeyLimits) throws -> KeyState) rethrows -> KeyVerdict {
        if keys[key] == nil {
            let limits = limits(of: key)
            keys[key] = (limits, limits.isLimiting ? try read(limits) : KeyState(), 0)
        }
        let entry = keys[key]!
        if entry.limits.slots(entry.state, started: entry.started, now: now) > 0 {
            keys[key]!.started += 1
            return .start
        }
        skipped += 1
        return skipped > Self.maxSkippedRows ? .stop : .skip
    }

    /// What to store for the keys whose jobs this claim started.
    package var records: [KeyStartRecord] {
        keys.compactMap { key, entry in entry.limits.record(key: key, entry.state, started: entry.started, now: now) }
            .sorted { $0.key < $1.key }
    }
}

extension QueueConfiguration {
    /// Whether any key of the queue is throttled or rate-limited (by the queue's own key limits or
    /// an override's): only then are keys' starts stored.
    package var limitsKeyStarts: Bool {
        keyLimits.needsStartRecord || keyOverrides.values.contains(where: \.needsStartRecord)
    }

    /// Whether changing the queue from `previous` to these settings ends every throttle and rate
    /// limit of its keys: the keys' stored next starts and end gaps are then cleared, so that none
    /// waits for a limit it no longer has.
    package func endsKeyStartLimits(after previous: QueueConfiguration?) -> Bool {
        (previous?.limitsKeyStarts ?? false) && !limitsKeyStarts
    }
}

extension KeyLimits {
    /// The limits as a store keeps them in columns: a concurrency limit, a throttle interval (0:
    /// none) and where it is measured from, a rate limit's count (0: none) and window.
    package init(stored concurrencyLimit: Int, throttleInterval: Int64, measuredFrom: String, rateCount: Int, rateWindow: Int64) {
        self.init(
            concurrencyLimit: concurrencyLimit,
            throttle: throttleInterval > 0
                ? Throttle(.milliseconds(throttleInterval), measuredFrom: Throttle.Measurement(rawValue: measuredFrom) ?? .start) : nil,
            rateLimit: rateCount > 0 ? RateLimit(rateCount, per: .milliseconds(rateWindow)) : nil)
    }
}
