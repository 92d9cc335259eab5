import DurableQueue
import DurableQueuePostgres
import DurableQueueTestSupport
import Foundation
import Testing

/// A mail to send: the input the SQL function and the Swift API both give.
private struct Mail: Codable, Sendable, Equatable {
    var to: String
    var count: Int
}

/// Returns its input's address.
private struct SendMail: Job {
    static let name = "send-mail"
    func run(_ input: Mail, context: JobContext) async throws -> String { input.to }
}

/// The same job at version 2 of its input.
private struct SendMailV2: Job {
    static let name = "send-mail"
    static let version = 2
    func run(_ input: Mail, context: JobContext) async throws -> String { "v2 " + input.to }
}

/// `durablequeue_enqueue(kind, input, options)` called from `psql`: the rows it writes are the
/// Swift API's, it refuses what the Swift API refuses, applies the same unique-key rules, and its
/// NOTIFY wakes an idle worker that runs the job; the documentation's trigger works as printed.
@Suite(.enabled(if: TestEnvironment.serversEnabled, Comment(rawValue: TestEnvironment.skipReason)), .timeLimit(.minutes(1)))
struct SQLEnqueueTests {
    /// A store's schema, opened (so migrated) through the Swift API.
    private struct Schema {
        let directory: TemporaryDirectory
        let queue: JobQueue
        var name: String { TestPostgresServer.schema(for: directory) }

        init(configuration: JobQueue.Configuration = JobQueue.Configuration()) async throws {
            directory = try TemporaryDirectory()
            queue = try await StoreBackend.postgres.queue(in: directory, configuration: configuration)
        }

        /// The id `durablequeue_enqueue` returns for these arguments, called from psql with the
        /// schema named explicitly (psql's search path is not the schema's).
        func enqueue(kind: String = "send-mail", input: String, options: String = "{}") async throws -> Int64 {
            let text = try await TestPostgresServer.psql(
                "SELECT :\"schema\".durablequeue_enqueue(:'kind', :'input', :'options');",
                variables: ["schema": name, "kind": kind, "input": input, "options": options])
            return try #require(Int64(text), "psql printed \(text)")
        }

        /// One line per column of job `id` that the enqueue wrote, comparable across schemas (its
        /// delay to the second: the Swift API reads its clock for a job's run time a moment before
        /// the store's for its creation).
        func row(_ id: Int64) async throws -> String {
            try await TestPostgresServer.psql(
                """
                SELECT concat_ws(' | ', queue, kind, state, priority,
                       CASE WHEN order_key = id THEN 'id' WHEN order_key = -id THEN '-id' ELSE order_key::text END,
                       'runs +' || round((run_at - created_at) / 1000.0) || 's', 'attempts ' || coalesce(max_attempts::text, 'unlimited'),
                       coalesce(o.retry_policy, 'default backoff'), 'timeout ' || o.timeout_ms, 'key ' || unique_key, input::text,
                       'throttle ' || coalesce(o.throttle_interval_ms, 0) || ' ' || coalesce(o.throttle_interval_source, 'queue'),
                       'partition ' || partition_key, created_state, attempts, cancel_requested, 'extras ' || extras,
                       'tags ' || (SELECT string_agg(tag, ',' ORDER BY tag) FROM :"schema".job_tags WHERE job_id = j.id))
                FROM :"schema".jobs AS j LEFT JOIN :"schema".job_options AS o ON o.job_id = j.id WHERE j.id = :id;
                """, variables: ["schema": name, "id": "\(id)"])
        }

        /// Job `id`'s last history row: its new state and its reason.
        func lastReason(of id: Int64) async throws -> String {
            try await query("SELECT to_state || ' ' || reason FROM :\"schema\".job_events WHERE job_id = \(id) ORDER BY id DESC LIMIT 1;")
        }

        /// What psql prints for `sql` in this schema (`:"schema"` names it).
        func query(_ sql: String) async throws -> String {
            try await TestPostgresServer.psql(sql, variables: ["schema": name])
        }
    }

    @Test func theFunctionWritesTheRowsTheSwiftAPIWrites() async throws {
        let swift = try await Schema()
        let sql = try await Schema()
        defer { swift.directory.remove(); sql.directory.remove() }
        for schema in [swift, sql] {
            try await schema.queue.queues.configure(QueueConfiguration("stack", mode: .lifo, throttle: Throttle(.milliseconds(250))))
            try await schema.queue.queues.configure(QueueConfiguration("fair", fairness: .byKey))
        }
        let mail = Mail(to: "a@example.com", count: 2)
        let input = #"{"to": "a@example.com", "count": 2}"#
        let cases: [(EnqueueOptions, String)] = [
            (EnqueueOptions(), "{}"),
            (
                EnqueueOptions(
                    queue: "mail", priority: .high, retry: RetryPolicy(maxAttempts: 5), timeout: .seconds(30),
                    partitionKey: "customer-1", tags: ["b", "a", "a"], throttleInterval: .milliseconds(1500)),
                #"""
                {"queue": "mail", "priority": "high", "max_attempts": 5, "timeout": "30 seconds", "partition_key": "customer-1",
                 "tags": ["b", "a", "a"], "throttle_interval": "1500 milliseconds"}
                """#
            ),
            (EnqueueOptions(priority: Priority(rawValue: -2), retry: RetryPolicy(maxAttempts: nil)), #"{"priority": -2, "max_attempts": null}"#),
            (EnqueueOptions(delay: .seconds(3600)), #"{"delay": "1 hour"}"#),
            (EnqueueOptions(uniqueKey: "daily", uniquePolicy: .allow), #"{"unique_key": "daily", "unique_policy": "allow"}"#),
            (EnqueueOptions(uniqueKey: "weekly"), #"{"unique_key": "weekly"}"#),
            (EnqueueOptions(queue: "stack"), #"{"queue": "stack"}"#),
            (EnqueueOptions(queue: "stack", throttleInterval: .zero), #"{"queue": "stack", "throttle_interval": "0"}"#),
            // A fair queue's tags: keys take turns, whichever side gives the job.
            (EnqueueOptions(queue: "fair", partitionKey: "k"), #"{"queue": "fair", "partition_key": "k"}"#),
            (EnqueueOptions(queue: "fair", partitionKey: "k"), #"{"queue": "fair", "partition_key": "k"}"#),
            (EnqueueOptions(queue: "fair", partitionKey: "j"), #"{"queue": "fair", "partition_key": "j"}"#),
            (EnqueueOptions(queue: "fair"), #"{"queue": "fair"}"#),
        ]
        for (options, json) in cases {
            let viaSwift = try await swift.queue.enqueue(SendMail.self, mail, options: options).id.rawValue
            let viaSQL = try await sql.enqueue(input: input, options: json)
            let (fromSQL, fromSwift) = (try await sql.row(viaSQL), try await swift.row(viaSwift))
            #expect(fromSQL == fromSwift, "options \(json)")
        }
        // The function created the queues nobody configured, with their defaults, as the Swift API did.
        let queues = "SELECT string_agg(concat_ws(' ', name, mode, concurrency_limit, fairness), ', ' ORDER BY name) FROM :\"schema\".queues;"
        #expect(try await sql.query(queues) == swift.query(queues))
        #expect(try await sql.query(queues).contains("mail fifo 0 none"))
    }

    @Test func aJobEnqueuedFromSQLWakesAnIdleWorkerWhichRunsIt() async throws {
        // Idle, the worker waits for a change it hears of, and polls only every 30 s.
        let schema = try await Schema(configuration: JobQueue.Configuration(pollInterval: .seconds(30)))
        defer { schema.directory.remove() }
        schema.queue.register(SendMail())
        let engine = Task { try await schema.queue.run() }
        defer { engine.cancel() }
        try await Task.sleep(for: .milliseconds(300))
        let id = try await schema.enqueue(input: #"{"to": "b@example.com", "count": 1}"#, options: #"{"tags": ["from-sql"]}"#)
        let output = try await schema.queue.handle(SendMail.self, id: JobID(id)).result(timeout: .seconds(10))
        #expect(output == "b@example.com")
        #expect(try await schema.query("SELECT job_id FROM :\"schema\".job_tags WHERE tag = 'from-sql';") == "\(id)")
    }

    @Test func aJobOfAnyVersionEnqueuedFromSQLRunsOnAWorkerOfThatVersion() async throws {
        let schema = try await Schema(configuration: JobQueue.Configuration(pollInterval: .milliseconds(20)))
        defer { schema.directory.remove() }
        let input = #"{"to": "v@example.com", "count": 1}"#
        let plain = try await schema.enqueue(input: input)
        let second = try await TestPostgresServer.psql(
            "SELECT :\"schema\".durablequeue_enqueue('send-mail', :'input', '{}', 2);", variables: ["schema": schema.name, "input": input])
        let named = try await TestPostgresServer.psql(
            "SELECT :\"schema\".durablequeue_enqueue('send-mail', :'input', version => 2);", variables: ["schema": schema.name, "input": input])
        let swift = try await schema.queue.enqueue(SendMailV2.self, Mail(to: "v@example.com", count: 1)).id.rawValue
        #expect(try await schema.query("SELECT string_agg(version::text, ' ' ORDER BY id) FROM :\"schema\".jobs;") == "1 2 2 2")
        #expect(try await schema.row(try #require(Int64(second))) == schema.row(swift))
        // A worker of version 2 runs the jobs of version 2, and leaves version 1's to a worker that runs it.
        schema.queue.register(SendMailV2())
        let engine = Task { try await schema.queue.run() }
        defer { engine.cancel() }
        for id in [second, named] {
            let output = try await schema.queue.handle(SendMailV2.self, id: JobID(try #require(Int64(id)))).result(timeout: .seconds(10))
            #expect(output == "v2 v@example.com")
        }
        #expect(try await schema.queue.handle(SendMail.self, id: JobID(plain)).state() == .pending)
        // No version below 1.
        let error = await #expect(throws: (any Error).self) {
            try await TestPostgresServer.psql(
                "SELECT :\"schema\".durablequeue_enqueue('send-mail', '{}', '{}', 0);", variables: ["schema": schema.name])
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("ERROR:  22023: invalid version: 0 is not a version"))
    }

    @Test func theFunctionRefusesWhatTheSwiftAPIRefuses() async throws {
        let schema = try await Schema()
        defer { schema.directory.remove() }
        let refused: [(kind: String, input: String, options: String, message: String)] = [
            ("", "{}", "{}", "invalid kind: the job type name must not be empty"),
            ("send-mail", "{}", #"{"queue": ""}"#, "invalid queue: the name must not be empty"),
            ("send-mail", "{}", #"{"max_attempts": 0}"#, "invalid max_attempts: 0 is below 1"),
            ("send-mail", "{}", #"{"timeout": "0 seconds"}"#, "invalid timeout: 0 seconds is not positive"),
            ("send-mail", "{}", #"{"delay": "-5 seconds"}"#, "invalid delay: -5 seconds is negative"),
            ("send-mail", "{}", #"{"unique_key": ""}"#, "invalid unique_key: must not be empty"),
            ("send-mail", "{}", #"{"partition_key": ""}"#, "invalid partition_key: must not be empty"),
            ("send-mail", "{}", #"{"unique_key": "k", "unique_policy": "debounce", "unique_window": "1 hour"}"#,
             "invalid unique_window: needs a unique key and the keep policy"),
            ("send-mail", "{}", #"{"unique_window": "1 hour"}"#, "invalid unique_window: needs a unique key and the keep policy"),
            ("send-mail", "{}", #"{"unique_key": "k", "unique_policy": "sometimes"}"#, "invalid unique_policy: 'sometimes' is none of"),
            ("send-mail", "{}", #"{"tags": ["a", ""]}"#, "invalid tags: a tag must not be empty"),
            ("send-mail", "{}", #"{"tags": "a"}"#, "invalid tags: an array of text"),
            ("send-mail", "{}", #"{"throttle_interval": "-1 second"}"#, "invalid throttle_interval: -1 second is negative"),
            ("send-mail", "{}", #"{"priority": "urgent"}"#, "invalid priority: 'urgent' is none of background, low, normal, high"),
            ("send-mail", "{}", #"{"queue": "mail", "qeue": "x", "delai": "1 hour"}"#, "invalid options: unknown delai, qeue"),
            ("send-mail", "{}", "[]", "invalid options: must be a JSON object, not array"),
        ]
        for case let (kind, input, options, message) in refused {
            let error = await #expect(throws: (any Error).self, "options \(options)") {
                try await schema.enqueue(kind: kind, input: input, options: options)
            }
            let text = "\(error.map { "\($0)" } ?? "")"
            #expect(text.contains("ERROR:  22023: \(message)"), "options \(options): \(text)")
        }
        // The Swift API refuses the same arguments.
        let mail = Mail(to: "c@example.com", count: 1)
        for options in [
            EnqueueOptions(queue: ""), EnqueueOptions(retry: RetryPolicy(maxAttempts: 0)), EnqueueOptions(timeout: .zero),
            EnqueueOptions(delay: .seconds(-5)), EnqueueOptions(uniqueKey: ""), EnqueueOptions(partitionKey: ""),
            EnqueueOptions(uniqueKey: "k", uniquePolicy: .debounce, uniqueWindow: .seconds(3600)),
            EnqueueOptions(uniqueWindow: .seconds(3600)), EnqueueOptions(tags: ["a", ""]),
            EnqueueOptions(throttleInterval: .seconds(-1)),
        ] {
            await #expect(throws: DurableQueueError.self) { _ = try await schema.queue.enqueue(SendMail.self, mail, options: options) }
        }
        #expect(try await schema.query("SELECT count(*) FROM :\"schema\".jobs;") == "0")
    }

    @Test func uniqueKeysKeepDebounceAndReplaceAsTheSwiftAPIDoes() async throws {
        let schema = try await Schema()
        defer { schema.directory.remove() }
        let mail = Mail(to: "d@example.com", count: 1)
        // keep: the job holding the key, whichever side enqueued it.
        let first = try await schema.queue.enqueue(SendMail.self, mail, options: EnqueueOptions(uniqueKey: "digest")).id.rawValue
        #expect(try await schema.enqueue(input: #"{"to": "x", "count": 9}"#, options: #"{"unique_key": "digest"}"#) == first)
        // debounce: the holder takes the new input and run time, with the Swift API's history line.
        let debounced = try await schema.enqueue(
            input: #"{"to": "e@example.com", "count": 2}"#, options: #"{"unique_key": "digest", "unique_policy": "debounce", "delay": "90 seconds"}"#)
        #expect(debounced == first)
        #expect(try await schema.query("SELECT state || ' ' || input::text FROM :\"schema\".jobs WHERE id = \(first);")
            == #"scheduled {"to": "e@example.com", "count": 2}"#)
        #expect(try await schema.lastReason(of: first) == "scheduled debounced: input replaced by a newer enqueue; runs in 90s")
        // replace: the waiting holder is cancelled with the Swift API's reason, a new job holds the key.
        let replacing = try await schema.enqueue(input: #"{"to": "f@example.com", "count": 3}"#, options: #"{"unique_key": "digest", "unique_policy": "replace"}"#)
        #expect(replacing != first)
        #expect(try await schema.queue.handle(SendMail.self, id: JobID(first)).state() == .cancelled)
        #expect(try await schema.lastReason(of: first) == "cancelled replaced by a job with the same unique key")
        // The Swift API now finds the job the function inserted as the key's holder.
        #expect(try await schema.queue.enqueue(SendMail.self, mail, options: EnqueueOptions(uniqueKey: "digest")).id.rawValue == replacing)
        // A window keeps a finished job's key for a while.
        let windowed = try await schema.enqueue(input: "{}", options: #"{"unique_key": "hourly", "unique_window": "1 hour"}"#)
        _ = try await schema.queue.jobs.cancel(JobID(windowed))
        #expect(try await schema.enqueue(input: "{}", options: #"{"unique_key": "hourly", "unique_window": "1 hour"}"#) == windowed)
        #expect(try await schema.enqueue(input: "{}", options: #"{"unique_key": "hourly"}"#) != windowed)
    }

    @Test func aCallRacingAnUncommittedHolderOfItsKeyReturnsThatJob() async throws {
        let schema = try await Schema()
        defer { schema.directory.remove() }
        // The queue's row exists (a session creating it would wait for the other at that row).
        try await schema.queue.queues.configure(QueueConfiguration("default"))
        // The first session inserts the key's job and, before it commits, waits at a lock the test
        // holds; the second session looks meanwhile (finding nothing it may see), waits on the key's
        // index entry at its insert, finds it taken once the first commits, and looks again.
        let gate = "gate-\(schema.name)"
        let openGate = try await TestPostgresServer.holdAdvisoryLock(named: gate, session: gate)
        let firstSession = "first-\(schema.name)"
        async let first = TestPostgresServer.psql(
            """
            SET application_name = :'session';
            BEGIN;
            SELECT :"schema".durablequeue_enqueue('send-mail', '{"to": "i", "count": 1}', '{"unique_key": "once"}');
            SELECT pg_advisory_xact_lock(hashtext(:'gate'));
            COMMIT;
            """, variables: ["schema": schema.name, "session": firstSession, "gate": gate])
        try await eventually("the first session inserted its job and waits at the gate") {
            try await TestPostgresServer.psql(
                """
                SELECT count(*) FROM pg_locks JOIN pg_stat_activity USING (pid)
                WHERE application_name = :'session' AND locktype = 'advisory' AND NOT granted;
                """, variables: ["session": firstSession]) == "1"
        }
        let second = Task { try await schema.enqueue(input: #"{"to": "i", "count": 2}"#, options: #"{"unique_key": "once"}"#) }
        try await eventually("the second session waits for the first's transaction") {
            try await TestPostgresServer.psql(
                """
                SELECT count(*) FROM pg_locks AS l JOIN pg_stat_activity AS a ON l.transactionid = a.backend_xid
                WHERE a.application_name = :'session' AND l.locktype = 'transactionid' AND NOT l.granted;
                """, variables: ["session": firstSession]) == "1"
        }
        try await openGate()
        let secondID = try await second.value
        #expect(try await first == "\(secondID)")
        #expect(try await schema.query("SELECT count(*) || ' ' || min(input ->> 'count') FROM :\"schema\".jobs;") == "1 1")
    }

    @Test func theDocumentedTriggerGivesAJobPerInsertedRow() async throws {
        let schema = try await Schema()
        defer { schema.directory.remove() }
        let article = try String(
            contentsOf: packageRoot.appending(path: "Sources/DurableQueuePostgres/DurableQueuePostgres.docc/EnqueueFromSQL.md"),
            encoding: .utf8)
        let example = try #require(article.components(separatedBy: "```sql\n").dropFirst().first(where: { $0.contains("CREATE TRIGGER") }))
            .components(separatedBy: "```").first ?? ""
        // The article's example runs in the queue's schema, as a user's script with its search path there.
        _ = try await schema.query("SET search_path TO :\"schema\";\n" + example)
        _ = try await schema.query(
            "SET search_path TO :\"schema\";\nINSERT INTO signups (email) VALUES ('g@example.com'), ('h@example.com');")
        let jobs = try await schema.query(
            "SELECT string_agg(kind || ' ' || (input ->> 'email') || ' ' || queue, ', ' ORDER BY id) FROM :\"schema\".jobs;")
        #expect(jobs == "welcome-mail g@example.com mail, welcome-mail h@example.com mail")
    }
}
