import DurableQueue
import Foundation

extension PostgresJobStore {
    /// The workers holding running jobs, each once.
    package func leaseOwners() async throws -> [String] {
        try await read("list the workers running jobs") { session in
            try await session.rows("SELECT DISTINCT lease_owner FROM jobs WHERE state = 'running' AND lease_owner IS NOT NULL")
                .map { try $0.string(0) }
        }
    }

    /// Extends the leases of `attempts` that `owner` still holds (a heartbeat) and its row in
    /// `workers`, in one statement; returns the attempts still held, with their cancel flags.
    ///
    /// The heartbeat never waits for a row lock: it locks the rows it renews in id order with
    /// `SKIP LOCKED`, so a row another transaction holds (most often this worker's own ending being
    /// recorded, or a cancel) is not renewed this time. Such an attempt is still reported held, as
    /// the last committed row shows it (``HeldLease/isRenewed`` false): the next heartbeat renews it
    /// or finds it gone. A statement that never waits takes no part in a deadlock.
    package func renewLeases(_ attempts: [AttemptID], owner: String, expiresAt: Int64) async throws -> [HeldLease] {
        try await write("renew the leases of worker '\(owner)'", notify: false, transaction: false) { session in
            try await session.rows(RenewLeases.self, [attempts.map(\.job.rawValue), attempts.map { Int64($0.number) }, owner, expiresAt])
                .map { row in
                    HeldLease(
                        attempt: AttemptID(job: JobID(try row.int64(0)), number: try row.int(1)), cancelRequested: try row.bool(2),
                        isRenewed: try row.bool(3))
                }
        }
    }

    /// The heartbeat of ``renewLeases(_:owner:expiresAt:)``: attempts `$1` (ids) and `$2` (numbers)
    /// of worker `$3`, renewed until `$4`. `current` reads the rows by primary key (a condition on
    /// `state` there let the planner walk idx_jobs_running, dead entries and all: 100 ms and more
    /// under a busy drain, with the rows locked); `held` keeps those as last committed, unlocked;
    /// `locked` locks those it can at once; the others are returned held but not renewed. The
    /// worker's row in `workers` (made by the claim that took its first attempt) is renewed too,
    /// unless a claim of the worker's holds it: that claim moves it as far.
    package enum RenewLeases: PreparedSQL {
        package static let name = "durablequeue_renew_leases"
        package static let sql = """
            WITH current AS MATERIALIZED (
                SELECT id, attempts, cancel_requested, state, lease_owner FROM jobs WHERE id = ANY($1::bigint[])
            ),
            held AS (
                SELECT c.id, c.attempts, c.cancel_requested
                FROM current AS c JOIN unnest($1::bigint[], $2::bigint[]) AS a(id, attempt) ON c.id = a.id AND c.attempts = a.attempt
                WHERE c.state = 'running' AND c.lease_owner = $3
            ),
            locked AS (
                SELECT j.id FROM jobs AS j JOIN held ON j.id = held.id
                WHERE j.state = 'running' AND j.lease_owner = $3 AND j.attempts = held.attempts
                ORDER BY j.id
                FOR NO KEY UPDATE OF j SKIP LOCKED
            ),
            renewed AS (
                UPDATE jobs AS j SET lease_expires_at = $4 FROM locked WHERE j.id = locked.id
                RETURNING j.id, j.cancel_requested
            ),
            worker AS (
                UPDATE workers AS w SET alive_until = greatest(w.alive_until, $4), updated_at = now_ms()
                WHERE w.id = (SELECT id FROM workers WHERE id = $3 FOR UPDATE SKIP LOCKED)
            )
            SELECT held.id, held.attempts, coalesce(renewed.cancel_requested, held.cancel_requested),
                   (renewed.id IS NOT NULL)::int
            FROM held LEFT JOIN renewed ON renewed.id = held.id
            """
    }

    /// Calls `onChange` whenever another node (or this one) commits a change.
    package func observeChanges(_ onChange: @escaping @Sendable () -> Void) -> Bool {
        changes.observe(onChange)
        return true
    }

    /// Whether the store's `LISTEN` connection is up.
    package nonisolated var hearsChanges: Bool { changes.isListening }

    /// Listens for other nodes' changes for at least `duration` from now (see ``ChangeFeed``): a
    /// store nobody waits on (one that only enqueues) keeps no listening connection, which the
    /// server would wake at every commit.
    package nonisolated func keepHearingChanges(for duration: Duration) {
        changes.keepListening(for: duration)
    }

    /// Changes nothing: connections to a server hold no lock on a file of this device, and a
    /// connection the server dropped during a suspension is replaced at its next use.
    package func setPaused(_ paused: Bool) async {}

    /// None: the database is on a server (stored paths' `{queue}` is the working directory).
    package nonisolated var directory: String? { nil }
}
