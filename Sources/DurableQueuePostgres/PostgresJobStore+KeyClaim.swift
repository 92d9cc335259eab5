import DurableQueue

extension PostgresJobStore {
    /// Claims up to `slots` jobs of `queue`, a queue whose keys are limited, under its lock: walks
    /// its pending jobs in the queue's order a page at a time (each page twice the one before),
    /// reads each new key's state once (one statement per page), lets `keys` decide job by job, and
    /// claims the chosen jobs in one statement. A job with a throttle interval is the last chosen.
    /// Jobs a cancel took meanwhile are not claimed (the claim checks each is still pending).
    func claimByKeys(
        _ session: PostgresSession, queue: String, slots: Int, request: ClaimRequest, keys: inout KeyWalk
    ) async throws -> [PostgresResultRow] {
        var chosen: [Int64] = []
        var offset = 0
        var page = max(16, slots * 4)
        let kinds = request.kinds.columns
        walk: while chosen.count < slots {
            let rows = try await session.rows(
                PendingPage.self, [queue, kinds.names, request.excluding.map(\.rawValue), page, offset, kinds.lowest, kinds.highest])
            let unknown = Set(try rows.compactMap { try $0.optionalString(1) }).filter { !keys.knows($0) }.sorted()
            if !unknown.isEmpty {
                for state in try await session.rows(KeyStates.self, [queue, unknown]) {
                    keys.learn(
                        try state.string(0),
                        state: KeyState(running: try state.int(3), nextStart: try state.int64(1), recentStarts: try state.int64Array(2)))
                }
            }
            for row in rows {
                if let key = try row.optionalString(1) {
                    switch keys.admit(key, read: { _ in KeyState() }) {
                    case .start: break
                    case .skip: continue
                    case .stop: break walk
                    }
                }
                chosen.append(try row.int64(0))
                let throttled = try row.int64(2) > 0
                if chosen.count == slots || throttled { break walk }
            }
            if rows.count < page { break }
            offset += page
            page *= 2
        }
        guard !chosen.isEmpty else { return [] }
        return try await session.rows(ClaimChosen.self, [chosen, request.owner, request.now + request.leaseDuration, request.now])
    }

    /// Stores what `records` say of `queue`'s keys whose jobs a claim started (under the queue's
    /// lock): the later next start, the gap after each end, the recent starts.
    func recordKeyStarts(_ session: PostgresSession, _ records: [KeyStartRecord], queue: String) async throws {
        guard !records.isEmpty else { return }
        try await session.execute(
            """
            INSERT INTO partition_keys (queue, key, last_tag, next_start_at, end_gap_ms, recent_starts)
            SELECT $1, key, 0, next_start_at, end_gap_ms, recent_starts::bigint[]
            FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::text[]) AS r(key, next_start_at, end_gap_ms, recent_starts)
            ON CONFLICT (queue, key) DO UPDATE SET
                next_start_at = greatest(partition_keys.next_start_at, excluded.next_start_at),
                end_gap_ms = excluded.end_gap_ms, recent_starts = excluded.recent_starts
            """,
            [
                queue, records.map(\.key), records.map(\.nextStart), records.map(\.endGap),
                records.map { "{" + $0.recentStarts.map(String.init).joined(separator: ",") + "}" },
            ])
    }

    /// A page of queue `$1`'s pending jobs of the kinds `$2` at the versions `$6` to `$7`, not `$3`, in the queue's order: `$4`
    /// of them after the first `$5` (a walk of idx_jobs_next_pending; a test checks the plan). Each
    /// job's id, partition key and throttle interval.
    package enum PendingPage: PreparedSQL {
        package static let name = "durablequeue_pending_page"
        package static let sql = """
            SELECT id, partition_key, \(PostgresJobStore.throttleInterval(of: "jobs")) AS throttle_interval_ms FROM jobs
            WHERE queue = $1 AND state = 'pending' AND \(runs(kinds: "$2", lowest: "$6", highest: "$7"))
              AND id <> ALL($3::bigint[])
            ORDER BY priority DESC, order_key
            LIMIT $4 OFFSET $5
            """
    }

    /// What a claim needs of keys `$2` of queue `$1`: each key's next allowed start and recent
    /// starts (its partition_keys row, if any) and its running jobs (through
    /// idx_jobs_running).
    package enum KeyStates: PreparedSQL {
        package static let name = "durablequeue_key_states"
        package static let sql = """
            SELECT k.key, coalesce(p.next_start_at, 0), coalesce(p.recent_starts, '{}'::bigint[]),
                   (SELECT count(*) FROM jobs AS r WHERE r.queue = $1 AND r.partition_key = k.key AND r.state = 'running')
            FROM unnest($2::text[]) AS k(key)
            LEFT JOIN partition_keys AS p ON p.queue = $1 AND p.key = k.key
            """
    }

    /// Claims jobs `$1` that are still pending for worker `$2` until `$3`, at `$4`, with their
    /// events (as ``ClaimNext`` does).
    private enum ClaimChosen: PreparedSQL {
        static let name = "durablequeue_claim_chosen"
        static let sql = "WITH " + claimedJobs(where: "j.id = ANY ($1::bigint[]) AND j.state = 'pending'", owner: "$2", leaseExpiresAt: "$3", now: "$4")
    }
}
