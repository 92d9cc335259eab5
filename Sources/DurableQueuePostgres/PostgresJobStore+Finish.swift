import DurableQueue
import Foundation

extension PostgresJobStore {
    /// Records how attempts ended and claims as `next` asks, in one transaction: the ended jobs'
    /// rows are locked (in id order) and checked against each ending's attempt and owner, every
    /// change and history row is written by one statement, then the refill claim runs.
    package func finish(_ endings: [FinishedAttempt], now: Int64, thenClaim next: ClaimRequest?) async throws -> FinishResult {
        if let next { try Self.validate(next) }
        return try await write("record the end of \(endings.count) attempt(s)", notify: false) { [self] session in
            var rows: [JobID: EndedRow] = [:]
            var cacheInUse = false
            for row in try await session.rows(
                """
                SELECT id, state, lease_owner, attempts, max_attempts, cancel_requested, queue, throttle_interval_ms, group_id,
                       progressed_attempts, EXISTS (SELECT 1 FROM cache_entries)::int
                FROM jobs WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE
                """, [endings.map(\.id.rawValue)])
            {
                let ended = try EndedRow(row)
                rows[ended.id] = ended
                cacheInUse = try row.bool(10)
            }
            var changes: [EndingChange] = []
            var recorded: [JobID: JobState] = [:]
            for (position, ending) in endings.enumerated() {
                guard var row = rows[ending.id] else { continue }  // the job was deleted
                let change = Self.change(for: ending, row: row, position: position, now: now)
                changes.append(change)
                guard change.update, let state = JobState(rawValue: change.state) else { continue }
                recorded[ending.id] = state
                row.state = state
                rows[ending.id] = row
            }
            if !changes.isEmpty {
                try await session.execute(Self.recordEndingsStatement, [try JobCodec.encode(changes), now, channel])
            }
            for (id, state) in recorded.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                guard let row = rows[id] else { continue }
                try await recordEnd(session, queue: row.queue, interval: row.throttleInterval, now: now)
                if state.isTerminal { try await jobEnded(session, id, group: row.group, cacheInUse: cacheInUse, now: now) }
            }
            guard let next else { return FinishResult(states: recorded, claimed: []) }
            return FinishResult(states: recorded, claimed: try await claim(session, next))
        }
    }

    /// A job's row as an ending finds it.
    private struct EndedRow {
        var id: JobID
        var state: JobState
        var owner: String?
        var attempts: Int
        var maxAttempts: Int?
        var cancelRequested: Bool
        var queue: String
        var throttleInterval: Int64
        var group: GroupID?
        var progressed: Int

        init(_ row: PostgresResultRow) throws {
            id = JobID(try row.int64(0))
            state = try JobState(stored: row.string(1))
            owner = try row.optionalString(2)
            attempts = try row.int(3)
            maxAttempts = try row.optionalInt(4)
            cancelRequested = try row.bool(5)
            queue = try row.string(6)
            throttleInterval = try row.int64(7)
            group = try row.optionalInt64(8).map { GroupID($0) }
            progressed = try row.int(9)
        }
    }

    /// What one ending writes, as `jsonb_to_recordset` reads it: the job's new state and the
    /// history row, or (`update` false) only a note that a stale ending was discarded.
    private struct EndingChange: Encodable {
        var position: Int
        var id: Int64
        var update: Bool
        var from: String
        var state: String
        var output: String?
        var error: String?
        var runAt: Int64?
        var finished: Int64?
        var attempt: Int
        var reason: String
        var worker: String
    }

    /// The change `ending` makes to `row`: the state it ends in (a cancel requested before wins; a
    /// retry with no attempts left fails), or a discarded note when the row no longer shows that
    /// attempt running under its owner.
    private static func change(for ending: FinishedAttempt, row: EndedRow, position: Int, now: Int64) -> EndingChange {
        let number = ending.attempt.number
        guard row.state == .running, row.owner == ending.owner, row.attempts == number else {
            return EndingChange(
                position: position, id: row.id.rawValue, update: false, from: row.state.rawValue, state: row.state.rawValue,
                attempt: number, reason: ResolvedEnding.discardedNote(ending.outcome, attempt: number), worker: ending.owner)
        }
        let resolved = ResolvedEnding(
            ending.outcome, attempts: row.attempts, maxAttempts: row.maxAttempts, progressedAttempts: row.progressed,
            cancelRequested: row.cancelRequested, now: now)
        return EndingChange(
            position: position, id: row.id.rawValue, update: true, from: JobState.running.rawValue, state: resolved.state.rawValue,
            output: resolved.output, error: resolved.failure.flatMap { try? JobCodec.encode($0) }, runAt: resolved.runAt,
            finished: resolved.state.isTerminal ? now : nil, attempt: row.attempts, reason: resolved.reason, worker: ending.owner)
    }

    /// Applies the ``EndingChange``s of `$1` at `$2`, appends their history rows in order and
    /// notifies channel `$3`.
    private static let recordEndingsStatement = """
        WITH change AS (
            SELECT * FROM jsonb_to_recordset($1::jsonb)
                AS r("position" int, id bigint, update boolean, "from" text, state text, output text, error text,
                     "runAt" bigint, finished bigint, attempt int, reason text, worker text)
        ),
        updated AS (
            UPDATE jobs AS j SET state = c.state, output = coalesce(c.output::jsonb, j.output),
                                 error = coalesce(c.error::jsonb, j.error), run_at = coalesce(c."runAt", j.run_at),
                                 finished_at = c.finished, lease_owner = NULL, lease_expires_at = NULL, updated_at = $2
            FROM change AS c WHERE j.id = c.id AND c.update
        ),
        events AS (
            INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason, worker)
            SELECT id, $2, "from", state, attempt, reason, worker FROM change ORDER BY "position"
        )
        SELECT pg_notify($3, '')
        """

    /// Saves a running attempt's progress and checkpoint; false if `owner` no longer holds it.
    package func saveProgress(_ attempt: AttemptID, owner: String, progress: Double?, checkpoint: [UInt8]?, now: Int64) async throws
        -> Bool
    {
        if let progress, !(0...1).contains(progress) {
            throw DurableQueueError.invalidArgument("progress", "\(progress) is outside 0…1")
        }
        return try await write("save the progress of job \(attempt.job)", transaction: false) { session in
            try await session.execute(
                """
                UPDATE jobs SET progress = coalesce($3, progress),
                                progressed_attempts = progressed_attempts
                                    + CASE WHEN $4::bytea IS NOT NULL AND checkpoint IS DISTINCT FROM $4::bytea
                                                AND checkpoint_attempt IS DISTINCT FROM attempts THEN 1 ELSE 0 END,
                                checkpoint_attempt = CASE WHEN $4::bytea IS NOT NULL AND checkpoint IS DISTINCT FROM $4::bytea
                                                          THEN attempts ELSE checkpoint_attempt END,
                                checkpoint = coalesce($4::bytea, checkpoint), updated_at = $5
                WHERE id = $1 AND state = 'running' AND lease_owner = $2 AND attempts = $6
                """, [attempt.job.rawValue, owner, progress, checkpoint.map(PostgresBytes.init), now, attempt.number]) == 1
        }
    }
}
