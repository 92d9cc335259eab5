import Testing

@testable import DurableQueueCore

/// The rules of job versions (``JobVersions``, ``RunnableKinds``), of parked endings and of steps
/// across releases (``StepRule``), as pure functions.
@Suite struct JobVersionTests {
    private struct V1: Codable { var name: String }
    private struct V2: Codable { var first: String; var last: String }
    private struct V3: Codable { var first: String; var last: String; var language: String }

    private static let from1 = InputMigration.from(1, as: V1.self) { old in
        let parts = old.name.split(separator: " ").map(String.init)
        return V2(first: parts[0], last: parts[1])
    }
    private static let from2 = InputMigration.from(2, as: V2.self) { V3(first: $0.first, last: $0.last, language: "en") }

    @Test func aRegistrationRunsItsOwnVersionAndEveryEarlierOneItsStepsReachWithoutAGap() {
        #expect(JobVersions(kind: "k", version: 1, migrations: []).runs == 1...1)
        #expect(JobVersions(kind: "k", version: 3, migrations: []).runs == 3...3, "no steps: its own version only")
        #expect(JobVersions(kind: "k", version: 3, migrations: [Self.from2]).runs == 2...3)
        #expect(JobVersions(kind: "k", version: 3, migrations: [Self.from1, Self.from2]).runs == 1...3)
        #expect(JobVersions(kind: "k", version: 3, migrations: [Self.from1]).runs == 3...3, "a step from 1 alone leaves 2 a gap")
    }

    @Test func anOldInputGoesThroughEveryStepInOrder() throws {
        let versions = JobVersions(kind: "k", version: 3, migrations: [Self.from2, Self.from1])
        let migrated = try versions.migrate(#"{"name":"Ada Lovelace"}"#, from: 1)
        let decoded = try JobCodec.decode(V3.self, from: migrated)
        #expect(decoded.first == "Ada" && decoded.last == "Lovelace" && decoded.language == "en")
        let fromTwo = try JobCodec.decode(V3.self, from: try versions.migrate(#"{"first":"A","last":"B"}"#, from: 2))
        #expect(fromTwo.language == "en" && fromTwo.first == "A")
        #expect(try versions.migrate("{}", from: 3) == "{}", "its own version is read as stored")
    }

    @Test func aVersionOutsideTheChainOrAStepThatCannotReadItsInputThrows() {
        let versions = JobVersions(kind: "k", version: 2, migrations: [Self.from1])
        #expect(throws: StoredVersionError.self) { try versions.migrate("{}", from: 3) }
        #expect(throws: (any Error).self) { try versions.migrate(#"{"nom":"x"}"#, from: 1) }
    }

    @Test func aWorkerRunsAJobOnlyOfAKindItRegisteredAtAVersionItRuns() {
        let kinds = RunnableKinds(versions: ["greet": 1...3, "mail": 2...2])
        #expect(kinds.runs(kind: "greet", version: 1) && kinds.runs(kind: "greet", version: 3))
        #expect(!kinds.runs(kind: "greet", version: 4), "a newer version waits for newer code")
        #expect(!kinds.runs(kind: "mail", version: 1) && kinds.runs(kind: "mail", version: 2))
        #expect(!kinds.runs(kind: "other", version: 1))
        let columns = kinds.columns
        #expect(columns.names == ["greet", "mail"] && columns.lowest == [1, 2] && columns.highest == [3, 2])
        let plain: RunnableKinds = ["a", "b"]
        #expect(plain.versions == ["a": 1...1, "b": 1...1])
        let waiting = [KindVersion(kind: "greet", version: 4): 2, KindVersion(kind: "greet", version: 2): 5, KindVersion(kind: "x", version: 1): 1]
        #expect(kinds.notRun(among: waiting) == [KindVersion(kind: "greet", version: 4): 2, KindVersion(kind: "x", version: 1): 1])
    }

    @Test func anUnreadableInputParksTheJobWithoutSpendingTheAttempt() {
        let failure = JobFailure(type: "InputDecodingError", message: "the stored input (version 1, read by version 3) …", retryable: false)
        let parked = ResolvedEnding(.parked(failure), attempts: 1, maxAttempts: 1, progressedAttempts: 0, cancelRequested: false, now: 5)
        #expect(parked.state == .parked && !parked.countsAttempt && parked.failure == failure && parked.runAt == nil)
        #expect(parked.reason.hasPrefix("parked: the stored input"))
        #expect(!JobState.parked.isTerminal && !JobFilter.unfinished.contains(.parked))
        let cancelled = ResolvedEnding(.parked(failure), attempts: 1, maxAttempts: 3, progressedAttempts: 0, cancelRequested: true, now: 5)
        #expect(cancelled.state == .cancelled, "a cancel requested meanwhile wins")
    }

    @Test func aParkedJobMayBeRetriedAndCancelledEvenInAGroup() throws {
        try ManualRetry.check(JobID(1), state: .parked, group: GroupID(7), uniqueKey: nil, uniqueKeyHolder: nil)
        #expect(throws: DurableQueueError.self) {
            try ManualRetry.check(JobID(1), state: .failed, group: GroupID(7), uniqueKey: nil, uniqueKeyHolder: nil)
        }
        #expect(throws: DurableQueueError.self) {
            try ManualRetry.check(JobID(1), state: .parked, group: nil, uniqueKey: "k", uniqueKeyHolder: JobID(2))
        }
        #expect(BulkAction.retry.appliesTo.contains(.parked) && BulkAction.cancel.appliesTo.contains(.parked))
        #expect(!BulkAction.delete.appliesTo.contains(.parked))
        #expect(CancelRequest.decide(state: .parked, cancelRequested: false).change == .cancel)
    }

    @Test func aRenamedStepFindsTheOutputRecordedUnderItsFormerName() {
        let recorded = ["charge": "\"r1\"", "bill": "\"r0\"", "email": "{}"]
        #expect(StepRule.recordedOutput(of: "charge card", formerly: ["charge", "bill"], in: recorded) == "\"r1\"", "newest first")
        #expect(StepRule.recordedOutput(of: "email", formerly: ["charge"], in: recorded) == "{}", "its own name first")
        #expect(StepRule.recordedOutput(of: "survey", formerly: [], in: recorded) == nil)
    }

    @Test func theEndingOfAJobNamesTheRecordedStepsItsLastAttemptNeverAskedFor() {
        #expect(StepRule.unaskedNote(recorded: ["a", "b", "sleep 1"], asked: ["a", "sleep 1", "c"]) == "recorded steps not asked for: 'b'")
        #expect(StepRule.unaskedNote(recorded: ["a"], asked: ["a"]) == nil)
        let succeeded = ResolvedEnding(.succeeded(output: "1"), attempts: 1, maxAttempts: 3, progressedAttempts: 0, cancelRequested: false, now: 5)
        #expect(succeeded.noting("recorded steps not asked for: 'b'").reason == "succeeded; recorded steps not asked for: 'b'")
        let retried = ResolvedEnding(
            .retry(JobFailure(type: "E", message: "m", retryable: true), after: 0), attempts: 1, maxAttempts: 3, progressedAttempts: 0,
            cancelRequested: false, now: 5)
        #expect(retried.noting("recorded steps not asked for: 'b'").reason == retried.reason, "only the ending that ends the job says so")
    }
}
