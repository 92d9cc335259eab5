/// What a store offers an application's transaction (see ``JobQueue/transaction(_:)``): its own
/// SQL with bound values, and jobs inserted in the same transaction. Valid only while the store's
/// transaction runs; every call is synchronous (the transaction holds the store).
package protocol AppTransaction {
    /// Runs one statement of the application's SQL with `arguments` bound; how many rows it changed.
    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int
    /// Runs one statement of the application's SQL with `arguments` bound; its rows.
    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [[SQLValue]]
    /// Inserts `job` (or applies its unique-key policy) with its event row.
    func insert(_ job: NewJob) throws -> EnqueueOutcome
    /// Records `step` of running `attempt` in this transaction, fenced as ``JobStore/recordStep(_:attempt:owner:)``.
    func recordStep(_ step: StepRecord, attempt: AttemptID, owner: String) throws -> Bool
}
