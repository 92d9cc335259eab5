/// Aging, written once for every store: the waiting jobs of queues with ``Aging`` rise.
package enum AgingSequences {
    /// Raises by one the priority of each pending job that waited its queue's interval since it
    /// became pending or last rose, up to the queue's limit, each with a history row; `rules`
    /// are the queues that age.
    ///
    /// - Returns: How many jobs rose.
    package static func age(_ rules: [AgingRule], in rows: any AgingRows, now: Int64) async throws -> Int {
        var risen = 0
        for rule in rules {
            let jobs = try await rows.raisePriorities(ofQueue: rule.queue, below: rule.limit, changedBy: rule.waitedSince(now: now), now: now)
                .sorted { $0.id.rawValue < $1.id.rawValue }
            guard !jobs.isEmpty else { continue }
            try await rows.noteRisen(jobs, reasons: jobs.map { rule.reason(risenTo: $0.priority) }, now: now)
            risen += jobs.count
        }
        return risen
    }
}
