import Foundation
import Testing

/// A real PostgreSQL server for the tests: Debian's `postgresql`, initialised on a temporary
/// directory and started on 127.0.0.1 the first time a test asks for it, as a non-root user when the
/// tests run as root; stopped when the test process exits. A server that cannot start fails the
/// tests that need it, with its log: they never skip.
///
/// `DURABLEQUEUE_TEST_POSTGRES_PORT` names a server started elsewhere (trust authentication for
/// user `postgres` on 127.0.0.1) instead.
package enum TestPostgresServer {
    /// The port of the running server (started on first use).
    package static func port() async throws -> Int { try await started.value.port }

    /// A `postgres://` URL for schema `schema` of database `database` (by default the server's
    /// own). Each store opens at most four connections (and one that listens): many tests run at
    /// once, each with a store or several.
    package static func url(schema: String, database: String = "postgres") async throws -> String {
        "postgres://postgres@127.0.0.1:\(try await port())/\(database)?schema=\(schema)&sslmode=disable&max_connections=4"
    }

    /// Creates database `name` (lower-case letters, digits and `_`) unless it exists: for a test
    /// that reads the server's statistics or log of its own database alone.
    package static func createDatabase(_ name: String) async throws {
        guard name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }) else {
            throw ServerError("'\(name)' is not a plain database name")
        }
        let exists = try await query("SELECT count(*) FROM pg_database WHERE datname = '\(name)'")
        if exists == "0" { _ = try await query("CREATE DATABASE \(name)") }
    }

    /// Forgets the statements run so far in database `name` (`pg_stat_statements`), for
    /// ``statementsRun(inDatabase:)``.
    package static func resetStatementCounts(inDatabase name: String) async throws {
        _ = try await psql(
            """
            CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
            SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = :'name'), 0);
            """, variables: ["name": name])
    }

    /// How many statements clients sent to database `name` since ``resetStatementCounts(inDatabase:)``
    /// (`BEGIN` and `COMMIT` included): each is a round trip.
    package static func statementsRun(inDatabase name: String) async throws -> Int {
        let text = try await psql(
            """
            SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = :'name');
            """, variables: ["name": name])
        guard let count = Int(text) else { throw ServerError("no statement count for database \(name): \(text)") }
        return count
    }

    /// The statements behind ``statementsRun(inDatabase:)``, the most called first: how often
    /// each ran, and its start.
    package static func statementCounts(inDatabase name: String) async throws -> String {
        try await psql(
            """
            SELECT calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 80) FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = :'name') ORDER BY calls DESC;
            """, variables: ["name": name])
    }

    /// The server log's lines about database `name` that tell of a deadlock or of a lock waited for
    /// longer than `deadlock_timeout` (the server runs with `log_lock_waits` on); nil when the
    /// server was started elsewhere and its log is not known.
    package static func lockProblems(inDatabase name: String) async throws -> [String]? {
        guard let log = try await started.value.log else { return nil }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter { line in
            line.contains(" db=\(name) ") && (line.contains("deadlock detected") || line.contains("still waiting for"))
        }
    }

    /// Holds schema `schema`'s `jobs` table locked against every write (`EXCLUSIVE` mode), or
    /// against reads too (`ACCESS EXCLUSIVE` mode) when `againstReads`, from a session of its own
    /// until the returned call ends it: a store that waits for a busy database.
    package static func lockJobsTable(ofSchema schema: String, againstReads: Bool = false) async throws
        -> @Sendable () async throws -> Void
    {
        let (mode, lockName) = againstReads ? ("ACCESS EXCLUSIVE", "AccessExclusiveLock") : ("EXCLUSIVE", "ExclusiveLock")
        // The session's name is the schema's: tests running beside this one hold locks of their own.
        let session = Task {
            try? await psql(
                """
                SET application_name = :'schema';
                BEGIN;
                LOCK TABLE :"schema".jobs IN \(mode) MODE;
                SELECT pg_sleep(600);
                """, variables: ["schema": schema])
        }
        try await eventually("the lock is held") {
            try await psql(
                """
                SELECT count(*) FROM pg_locks JOIN pg_stat_activity USING (pid)
                WHERE application_name = :'schema' AND mode = :'mode' AND locktype = 'relation' AND granted;
                """, variables: ["schema": schema, "mode": lockName]) == "1"
        }
        return {
            _ = try await psql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = :'schema';", variables: ["schema": schema])
            _ = await session.value
        }
    }

    /// Holds the transaction-level advisory lock `name` (as a store names a queue's lock) from a
    /// session named `session` until the returned call ends it: a claim of that queue waits for it.
    package static func holdAdvisoryLock(named name: String, session: String) async throws -> @Sendable () async throws -> Void {
        let holder = Task {
            try? await psql(
                """
                SET application_name = :'session';
                BEGIN;
                SELECT pg_advisory_xact_lock(hashtext(:'name'));
                SELECT pg_sleep(600);
                """, variables: ["session": session, "name": name])
        }
        try await eventually("the advisory lock is held") {
            try await psql(
                """
                SELECT count(*) FROM pg_locks JOIN pg_stat_activity USING (pid)
                WHERE application_name = :'session' AND locktype = 'advisory' AND granted;
                """, variables: ["session": session]) == "1"
        }
        return {
            _ = try await psql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = :'session';", variables: ["session": session])
            _ = await holder.value
        }
    }

    /// Holds the lock a foreign-key check takes (`FOR KEY SHARE`) on every row of schema
    /// `schema`'s `jobs`, `groups` and `queues` from a session of its own until the returned call
    /// ends it: a transaction inserting rows that reference them all, as concurrent writers do.
    package static func holdForeignKeyChecks(ofSchema schema: String) async throws -> @Sendable () async throws -> Void {
        let session = "\(schema)_fk"
        let holder = Task {
            try? await psql(
                """
                SET application_name = :'session';
                BEGIN;
                SELECT count(*) FROM (SELECT 1 FROM :"schema".jobs FOR KEY SHARE) AS held;
                SELECT count(*) FROM (SELECT 1 FROM :"schema".groups FOR KEY SHARE) AS held;
                SELECT count(*) FROM (SELECT 1 FROM :"schema".queues FOR KEY SHARE) AS held;
                SELECT pg_sleep(600);
                """, variables: ["schema": schema, "session": session])
        }
        try await eventually("the key-share locks are held") {
            try await psql(
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE application_name = :'session' AND state = 'active' AND query LIKE '%pg_sleep%';
                """, variables: ["session": session]) == "1"
        }
        return {
            _ = try await psql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = :'session';", variables: ["session": session])
            _ = await holder.value
        }
    }

    /// What `psql` prints for `sql` (one value, unaligned), run on the server's own database.
    private static func query(_ sql: String) async throws -> String { try await psql(sql) }

    /// What `psql` prints (unaligned, rows only) for `script`, run from a file on `database` (the
    /// server's own by default) with `variables` set (`:'name'` puts one in as a literal, `:"name"` as an identifier),
    /// stopping at its first error, which it throws with psql's output (verbose: with the SQLSTATE).
    package static func psql(_ script: String, variables: [String: String] = [:], database: String = "postgres") async throws -> String {
        try await psql(script, variables: variables, database: database, port: try await port())
    }

    /// ``psql(_:variables:database:)`` on the server listening on 127.0.0.1 at `port`.
    fileprivate static func psql(_ script: String, variables: [String: String], database: String, port: Int) async throws -> String {
        let bin = try binaries()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dq-psql-\(UUID().uuidString).sql")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let settings = (["ON_ERROR_STOP": "1", "VERBOSITY": "verbose"].merging(variables) { $1 }).sorted { $0.key < $1.key }
        return try await onOwnThread {
            Result {
                try output(
                    of: ["\(bin)/psql", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-X", "-q", "-t", "-A"]
                        + settings.flatMap { ["-v", "\($0.key)=\($0.value)"] } + ["-f", file.path]
                ).trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }.get()
    }

    /// A schema name of its own for the store in `directory`: the same directory, the same schema
    /// (two stores on it are two processes sharing one database).
    package static func schema(for directory: TemporaryDirectory) -> String {
        "t_" + sha256Hex(Array(directory.url.path.utf8)).prefix(24)
    }

    /// The start, on a thread of its own: initdb and pg_ctl take seconds, and waiting for them on
    /// the tests' cooperative threads (two on a 2-core machine) stalled every other test meanwhile.
    private static let started = Task<Running, any Error> {
        if let port = ProcessInfo.processInfo.environment["DURABLEQUEUE_TEST_POSTGRES_PORT"].flatMap(Int.init) {
            return Running(port: port, log: nil)
        }
        return try await onOwnThread { Result { try start() } }.get()
    }

    /// The server's port, and its log file when the tests started it.
    private struct Running: Sendable {
        var port: Int
        var log: String?
    }

    /// How many connections the server has in each state, and what every busy one is doing
    /// (`pg_stat_activity`: state, wait, the transaction's age, the statement), for a test that finds
    /// something stuck. Idle connections, outside a transaction, are only counted.
    package static func activity() async -> String {
        guard let port = try? await port(), let bin = try? binaries() else { return "no server" }
        let counts = "SELECT state, count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY state"
        let busy = """
            SELECT pid, state, wait_event_type, wait_event, now() - xact_start AS in_transaction, left(query, 100)
            FROM pg_stat_activity
            WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND (state <> 'idle' OR xact_start IS NOT NULL)
            ORDER BY xact_start
            """
        return await onOwnThread {
            (try? output(of: ["\(bin)/psql", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-X", "-c", counts, "-c", busy]))
                ?? "psql failed"
        }
    }

    /// Waits (up to 10 s) until the server has no connection left of the process `pid`, which was
    /// killed: a transaction whose COMMIT it sent before dying still commits after its death, so what
    /// the process last wrote is known only once its connections are gone.
    package static func waitForConnectionsToEnd(ofProcess pid: Int32) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let left = try await psql(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE :'pattern';",
                variables: ["pattern": "DurableQueue pid \(pid) on %"])
            if left == "0" { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ServerError("process \(pid)'s connections were still open 10 s after it was killed")
    }

    /// A directory in memory (Linux's /dev/shm) for the server's files, if there is one: every test
    /// creates a schema of its own, and on a disk the server's processes waited on creating those
    /// files (state D) while the tests timed out; what the server writes need not outlive the run.
    private static var memoryBackedDirectory: URL? {
        let shm = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        return access(shm.path, W_OK) == 0 ? shm : nil
    }

    /// Where Debian installs the server's programs.
    private static func binaries() throws -> String {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let newest = versions.compactMap(Int.init).max() else {
            throw ServerError("PostgreSQL is not installed (no /usr/lib/postgresql/<version>/bin): apt-get install postgresql")
        }
        return "/usr/lib/postgresql/\(newest)/bin"
    }

    private static func start() throws -> Running {
        let server = try Server.initialise()
        Stopper.register(stop: server.stopCommand, directory: server.directory)
        return Running(port: server.port, log: server.log)
    }

    /// A server initialised on a directory of its own and started.
    fileprivate struct Server: Sendable {
        let directory: TemporaryDirectory
        let data: String
        let log: String
        let port: Int
        /// The prefix that runs a command as the postgres user when the tests run as root.
        let runAs: [String]
        let bin: String
        /// Whether every commit is flushed before it returns (the shared server trades that away
        /// for speed: a crash of it would lose commits).
        let durable: Bool
        /// The addresses it listens on (`listen_addresses`).
        let listenAddresses: String

        /// Initialises a server (initdb, trust authentication) on a new directory and starts it on a
        /// free port, listening on 127.0.0.1 and `alsoListeningOn` (whose /16 it then trusts too).
        static func initialise(durable: Bool = false, alsoListeningOn address: String? = nil) throws -> Server {
            let bin = try binaries()
            let directory = try TemporaryDirectory(in: memoryBackedDirectory ?? FileManager.default.temporaryDirectory)
            // initdb refuses to run as root: the server runs as the postgres user Debian creates.
            let runAs = geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []
            if geteuid() == 0 {
                try run(["/bin/chown", "postgres:postgres", directory.url.path])
            }
            let server = Server(
                directory: directory, data: directory.path("data"), log: directory.path("server.log"), port: try freePort(),
                runAs: runAs, bin: bin, durable: durable, listenAddresses: ["127.0.0.1", address].compactMap { $0 }.joined(separator: ","))
            try run(runAs + ["\(bin)/initdb", "-D", server.data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"])
            // Lock waits longer than deadlock_timeout (1 s) and deadlocks are logged, each line with its
            // database, for the tests that must show there are none.
            let settings = "log_lock_waits = on\nlog_line_prefix = '%m [%p] db=%d '\n"
            let configuration = try FileHandle(forWritingTo: URL(fileURLWithPath: server.data + "/postgresql.conf"))
            try configuration.seekToEnd()
            try configuration.write(contentsOf: Data(settings.utf8))
            try configuration.close()
            if let address {
                let network = address.split(separator: ".").prefix(2).joined(separator: ".") + ".0.0/16"
                let hba = try FileHandle(forWritingTo: URL(fileURLWithPath: server.data + "/pg_hba.conf"))
                try hba.seekToEnd()
                try hba.write(contentsOf: Data("host all all \(network) trust\n".utf8))
                try hba.close()
            }
            try server.start()
            return server
        }

        /// Starts the server (after a crash: it recovers from its log first).
        func start() throws {
            let options = (
                ["-p \(port)", "-k \(directory.url.path)", "-c listen_addresses=\(listenAddresses)", "-c max_connections=600",
                 "-c shared_preload_libraries=pg_stat_statements", "-c pg_stat_statements.track=top"]
                    + (durable ? [] : ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"])
            ).joined(separator: " ")
            do {
                try run(runAs + ["\(bin)/pg_ctl", "-D", data, "-l", log, "-w", "-t", "60", "-o", options, "start"])
            } catch {
                let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw ServerError("PostgreSQL did not start: \(error)\n\(output)")
            }
        }

        /// The command that stops the server at once.
        var stopCommand: [String] { runAs + ["\(bin)/pg_ctl", "-D", data, "-m", "immediate", "stop"] }
    }

    /// Runs `arguments` and waits for it (posix_spawn and waitpid: nothing else reaps it); its
    /// output goes to a file, read back for the error if it fails.
    private static func run(_ arguments: [String]) throws {
        _ = try output(of: arguments)
    }

    /// ``run(_:)``, returning what the program printed.
    private static func output(of arguments: [String]) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("dq-pg-\(UUID().uuidString).log").path
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of this process: the server lives on (pg_ctl detaches it), and a pipe another
        // test had open at that moment (a child's output, read to its end) would never reach its end
        // — CI hung 40 minutes on one.
        closeInheritedDescriptors(&actions)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw ServerError("could not start \(arguments[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw ServerError("\(arguments.joined(separator: " ")) failed (status \(status)): \(text)")
        }
        return text
    }

    /// Adds "close every descriptor from 3 on" to `actions` (glibc's
    /// `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not show).
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }

    /// A TCP port nothing listens on now, chosen by the kernel (free again once the bound socket
    /// closes).
    private static func freePort() throws -> Int {
        try RefusingPort().port
    }

    /// Stops the servers when the test process exits.
    private enum Stopper {
        nonisolated(unsafe) static var servers: [(command: [String], directory: TemporaryDirectory)] = []
        static let lock = NSLock()

        static func register(stop: [String], directory: TemporaryDirectory) {
            lock.withLock {
                if servers.isEmpty {
                    atexit {
                        for server in Stopper.lock.withLock({ Stopper.servers }) {
                            try? TestPostgresServer.run(server.command)
                            server.directory.remove()
                        }
                    }
                }
                servers.append((stop, directory))
            }
        }
    }

    /// A server of one test's own, durable (every commit flushed), which the test crashes (every
    /// server process killed with SIGKILL, as the OOM killer would) and starts again.
    package final class Own: Sendable {
        private let server: Server

        private init(_ server: Server) { self.server = server }

        /// Initialises and starts a server (seconds: on a thread of its own), listening on 127.0.0.1
        /// and `alsoListeningOn` (an address of this host, such as a ``NetworkNamespace``'s).
        package static func start(alsoListeningOn address: String? = nil) async throws -> Own {
            let server = try await onOwnThread { Result { try Server.initialise(durable: true, alsoListeningOn: address) } }.get()
            Stopper.register(stop: server.stopCommand, directory: server.directory)
            return Own(server)
        }

        /// A `postgres://` URL for schema `schema` of the server's own database, at `host`.
        package func url(schema: String, host: String = "127.0.0.1") -> String {
            "postgres://postgres@\(host):\(server.port)/postgres?schema=\(schema)&sslmode=disable&max_connections=4"
        }

        /// Kills every server process with SIGKILL: the postmaster's children, then the postmaster.
        /// Its lock files are removed (nothing of the server runs any more; a killed process that
        /// nobody reaps would otherwise look alive to the next start's checks).
        package func crash() throws {
            let lockFile = server.data + "/postmaster.pid"
            let pidFile = try String(contentsOfFile: lockFile, encoding: .utf8)
            guard let pid = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }) else {
                throw ServerError("no postmaster pid in \(lockFile)")
            }
            for child in Self.children(of: pid) { _ = Foundation.kill(child, SIGKILL) }
            guard Foundation.kill(pid, SIGKILL) == 0 else { throw ServerError("could not kill the postmaster: errno \(errno)") }
            try FileManager.default.removeItem(atPath: lockFile)
            let socket = server.directory.path(".s.PGSQL.\(server.port)")
            for file in [socket, socket + ".lock"] { try? FileManager.default.removeItem(atPath: file) }
        }

        /// The processes whose parent is `parent` (from /proc).
        private static func children(of parent: Int32) -> [Int32] {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap(Int32.init).filter { pid in
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { return false }
                // After "pid (name) state ": the parent's pid.
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                return fields.count > 1 && Int32(fields[1]) == parent
            }
        }

        /// Starts the crashed server again (it recovers first).
        package func restart() async throws {
            let server = server
            try await onOwnThread { Result { try server.start() } }.get()
        }

        /// What `psql` prints for `script` on the server's own database, as ``TestPostgresServer/psql(_:variables:database:)``.
        package func psql(_ script: String) async throws -> String {
            try await TestPostgresServer.psql(script, variables: [:], database: "postgres", port: server.port)
        }

        /// The server's log.
        package var log: String { (try? String(contentsOfFile: server.log, encoding: .utf8)) ?? "" }
    }

    struct ServerError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
