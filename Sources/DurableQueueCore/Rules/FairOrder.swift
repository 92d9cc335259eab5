/// The rule of fair queues (``Fairness/byKey``), which both stores apply: start-time fair queuing
/// in the jobs' order keys. Each job's order key is a tag given at enqueue — the larger of the
/// queue's virtual time (the tag of the latest job it started) and its key's last tag, plus a step —
/// so that the claim, walking the pending jobs by priority then order key, visits the keys in turn.
package enum FairOrder {
    /// The step between two tags of one key.
    package static let step: Int64 = 1_000

    /// The key a job takes its turn with: its partition key, or the one all unkeyed jobs share.
    package static func key(of partitionKey: String?) -> String { partitionKey ?? "" }

    /// The tag of a job of a key whose latest tag is `lastTag` (nil: the key's first job) on a
    /// queue whose virtual time is `virtualTime`: a key that waited comes next, and a key that
    /// was given many tags goes on after its last.
    package static func tag(virtualTime: Int64, lastTag: Int64?) -> Int64 {
        max(virtualTime, lastTag ?? virtualTime) + step
    }

    /// The virtual time a claim that started jobs tagged `started` moves its queue to (the store
    /// writes it only over an earlier time: the virtual time never goes back); nil when none started.
    package static func virtualTime(afterStarting started: [Int64]) -> Int64? {
        started.max()
    }

    /// The virtual time of a queue that becomes fair when its unfinished jobs' largest order key is
    /// `latestOrderKey` (nil: none): the new tags follow every job already waiting.
    package static func virtualTime(_ current: Int64, becomingFairAfter latestOrderKey: Int64?) -> Int64 {
        max(current, latestOrderKey ?? current)
    }
}
