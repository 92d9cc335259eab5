import DurableQueue

extension PostgresJobStore {
    /// The earliest wait timeout or hand-off deadline, each the first entry of its partial index.
    package func nextDeadline() async throws -> Int64? {
        try await read("find the next deadline of a wait or a hand-off") { session in
            try await session.int64(
                """
                SELECT least((SELECT min(wait_deadline) FROM jobs WHERE state = 'waiting'),
                             (SELECT min(handoff_deadline) FROM jobs WHERE state = 'handed_off'))
                """)
        }
    }
}
