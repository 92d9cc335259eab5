import CDurableQueueCrashVFS
import DurableQueueMigrations
import DurableQueueTestSupport
import Foundation
import Testing

@testable import DurableQueueCore
@testable import DurableQueueSQLite

/// The upgrade that rebuilds `jobs` (version 29), run by a worker process on a file of every
/// feature (``UpgradeFixtureTests/fixture``) whose power is cut, or whose disk fails for good, at
/// each of the upgrade's writes and syncs in turn (the close's checkpoint included): the file opens
/// at the old version with every row or at the new one with every row, never between, and the
/// next open finishes the upgrade.
@Suite(.tags(.crash), .timeLimit(.minutes(5))) struct MigrationCutTests {
    /// A power cut: the writes no sync made durable are dropped, or torn by sector.
    @Test(arguments: [(Durability.processCrash, false), (.powerLoss, false), (.processCrash, true), (.powerLoss, true)])
    func anUpgradeCutAtEachWriteOrSyncLeavesTheOldOrTheNewVersionWithEveryRow(durability: Durability, torn: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let expected = try Self.fixtureContents()
        var versionsAfterACut: Set<Int> = []
        var cut = 1
        while true {
            let path = directory.path("cut-\(cut).sqlite")
            try FileManager.default.copyItem(atPath: UpgradeFixtureTests.fixture.path, toPath: path)
            let worker = try WorkerProcess(
                ["open", path],
                environment: [
                    "CRASHVFS_CUT_AT": "\(cut)", "CRASHVFS_DURABILITY": durability.rawValue, "CRASHVFS_TORN": torn ? "1" : "0",
                    "CRASHVFS_SEED": "\(cut)",
                ])
            let status = await worker.waitForExit()
            if status == 0 { break }  // the cut fell past the open's last write: every one was tried
            try #require(status == Int32(CRASHVFS_EXIT_CODE), "cut \(cut): exit \(status)")
            versionsAfterACut.insert(try Self.checkKeepsEveryRow(path, expected: expected, "cut \(cut)"))
            try #require(cut < 2_000, "the open never ended")
            cut += 1
        }
        #expect(cut > 40, "the upgrade writes more than \(cut - 1) times")
        #expect(versionsAfterACut == [28, SchemaMigrations.latestVersion], "cuts fell before and after the upgrade's commit")
    }

    /// A disk that fills up (or fails) at the upgrade's n-th write, sync or truncate and stays so:
    /// the open fails with an error naming the file and the cause, the file stays at the old version
    /// with every row; once the disk works, the next open upgrades it.
    @Test(arguments: ["full", "io"])
    func anUpgradeMeetingADiskThatFailsAtEachWriteLeavesTheOldVersionWithEveryRow(code: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let expected = try Self.fixtureContents()
        var failedOpens = 0
        var failAt = 1
        while true {
            let path = directory.path("fail-\(failAt).sqlite")
            let errors = directory.path("fail-\(failAt).err")
            try FileManager.default.copyItem(atPath: UpgradeFixtureTests.fixture.path, toPath: path)
            let worker = try WorkerProcess(
                ["open", path], errorLog: errors,
                environment: ["CRASHVFS_FAIL_AT": "\(failAt)", "CRASHVFS_FAIL_COUNT": "-1", "CRASHVFS_FAIL_CODE": code])
            let output = await worker.readOutput()
            let status = await worker.waitForExit()
            let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            let version = try Self.checkKeepsEveryRow(path, expected: expected, "fail at \(failAt)")
            if status == 0 {
                // Past the upgrade's commit, only the close's checkpoint can fail, which nobody awaits.
                #expect(version == SchemaMigrations.latestVersion, "fail at \(failAt)")
                if output.contains("opened, 0 operations failed") { break }  // past the open's last write
            } else {
                failedOpens += 1
                #expect(status == 1 && version == 28, "fail at \(failAt): exit \(status), version \(version)")
                #expect(message.contains(path) && message.contains(code == "full" ? "disk is full" : "I/O"), "fail at \(failAt): \(message)")
            }
            try #require(failAt < 2_000, "the open never ended")
            failAt += 1
        }
        #expect(failedOpens > 40, "the upgrade writes more than \(failedOpens) times")
    }

    /// The fixture's rows, read back as the upgrade tests read them.
    static func fixtureContents() throws -> Set<String> {
        let lines = try UpgradeFixtureTests.contents(SQLiteConnection(path: UpgradeFixtureTests.fixture.path, options: StorageOptions(readOnly: true)))
        #expect(Set(lines).count == lines.count, "each row is told apart from the others")
        return Set(lines)
    }

    /// Checks the file a cut or a fault left: intact, at version 28 or the newest with every row;
    /// then opens it with the store, which finishes the upgrade, every row still there. Returns the
    /// version the cut left.
    static func checkKeepsEveryRow(_ path: String, expected: Set<String>, _ what: String) throws -> Int {
        let left: Int
        do {
            let connection = try SQLiteConnection(path: path, options: StorageOptions())
            #expect(integrityCheck(ofSQLiteFileAt: path) == "ok", "\(what)")
            left = try SQLiteMigrator.userVersion(connection)
            #expect(left == 28 || left == SchemaMigrations.latestVersion, "\(what): version \(left)")
            let found = try UpgradeFixtureTests.contents(connection)
            #expect(
                Set(found) == expected && found.count == expected.count,
                "\(what) at version \(left): \(Set(found).symmetricDifference(expected).sorted().prefix(5))")
        }
        _ = try SQLiteJobStore(path: path)
        let connection = try SQLiteConnection(path: path, options: StorageOptions())
        #expect(try SQLiteMigrator.userVersion(connection) == SchemaMigrations.latestVersion, "\(what): the next open upgrades")
        let found = try UpgradeFixtureTests.contents(connection)
        #expect(
            Set(found) == expected && found.count == expected.count,
            "\(what), upgraded: \(Set(found).symmetricDifference(expected).sorted().prefix(5))")
        #expect(try connection.scalarInt64("SELECT count(*) FROM pragma_foreign_key_check") == 0, "\(what)")
        return left
    }
}
