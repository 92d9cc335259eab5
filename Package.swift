// swift-tools-version: 6.2
import PackageDescription

/// Upcoming features every Swift target of the package builds with.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// pkg-config's name for SQLite where it is asked (Linux); none on Apple platforms, whose SDK has SQLite.
#if os(Linux)
    let sqlitePkgConfig: String? = "sqlite3"
#else
    let sqlitePkgConfig: String? = nil
#endif

let package = Package(
    name: "DurableQueue",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "DurableQueue", targets: ["DurableQueue"]),
        .library(name: "DurableDownloads", targets: ["DurableDownloads"]),
        .library(name: "DurableDownloadsAsyncHTTPClient", targets: ["DurableDownloadsAsyncHTTPClient"]),
        .library(name: "DurableDownloadsURLSession", targets: ["DurableDownloadsURLSession"]),
        .library(name: "DurableQueueTesting", targets: ["DurableQueueTesting"]),
        .library(name: "DurableQueuePostgres", targets: ["DurableQueuePostgres"]),
        .library(name: "DurableQueueDashboard", targets: ["DurableQueueDashboard"]),
        .executable(name: "durableq", targets: ["durableq"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // Without its default traits: the dashboard needs neither swift-configuration nor full Foundation's form coding.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // `swift package generate-documentation`: the DocC catalogs (CI builds them, warnings as errors).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The system's SQLite: Debian's libsqlite3-dev found by pkg-config on Linux; on Apple platforms
        // the SDK's, with no pkg-config lookup (one could find another SQLite, Homebrew's, on a Mac).
        .systemLibrary(
            name: "CDurableQueueSQLite",
            pkgConfig: sqlitePkgConfig,
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "DurableQueueMigrations",
            path: "Migrations",
            exclude: ["postgres"],
            resources: [
                .embedInCode("0001_initial.sql"),
                .embedInCode("0002_throttle.sql"),
                .embedInCode("0003_groups_and_cache.sql"),
                .embedInCode("0004_faster_writes.sql"),
                .embedInCode("0005_progressed_attempts.sql"),
                .embedInCode("0006_schedules.sql"),
                .embedInCode("0007_trace_context.sql"),
                .embedInCode("0008_unique_window.sql"),
                .embedInCode("0009_aging.sql"),
                .embedInCode("0010_partitions.sql"),
                .embedInCode("0011_lighter_enqueue.sql"),
                .embedInCode("0012_one_running_index.sql"),
                .embedInCode("0013_events_by_job.sql"),
                .embedInCode("0014_group_children_by_state.sql"),
                .embedInCode("0015_handed_off.sql"),
                .embedInCode("0016_job_steps.sql"),
                .embedInCode("0017_signals.sql"),
                .embedInCode("0018_fair_keys.sql"),
                .embedInCode("0019_key_limits.sql"),
                .embedInCode("0020_lost_attempts.sql"),
                .embedInCode("0021_deleted_jobs.sql"),
                .embedInCode("0022_dependencies.sql"),
                .embedInCode("0023_deleted_jobs_by_age.sql"),
                .embedInCode("0024_commit_order.sql"),
                .embedInCode("0025_timed_states_index.sql"),
                .embedInCode("0026_job_versions.sql"),
                .embedInCode("0027_worker_kinds.sql"),
                .embedInCode("0028_worker_queues.sql"),
                .embedInCode("0029_lean_jobs.sql"),
            ],
            swiftSettings: swiftSettings
        ),
        // The queue without a database: its API, the engine, the sequences, the rules and the store
        // protocol. No SQL: each store is a module of its own.
        .target(
            name: "DurableQueueCore",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            // Why it reads file metadata (a file's size, inside the app's container): App Store review.
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: swiftSettings
        ),
        // The SQLite store: row operations and fast paths in SQLite's dialect, the file, its
        // migrations, and `JobQueue(path:)`.
        .target(
            name: "DurableQueueSQLite",
            dependencies: [
                "CDurableQueueSQLite",
                "DurableQueueCore",
                "DurableQueueMigrations",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // What an app imports: the core and the SQLite store, re-exported (`import DurableQueue`).
        .target(
            name: "DurableQueue",
            dependencies: ["DurableQueueCore", "DurableQueueSQLite"],
            swiftSettings: swiftSettings
        ),
        // The download and request jobs over a transport protocol: no NIO, no HTTP client.
        .target(
            name: "DurableDownloads",
            dependencies: [
                "DurableQueue",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // Why it reads file metadata (stat of its own part files, inside the app's container).
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: swiftSettings
        ),
        // The URLSession transport: the system's HTTP stack on Apple platforms (FoundationNetworking,
        // over libcurl, on Linux). Its own product, so that a server on AsyncHTTPClient links no curl.
        .target(
            name: "DurableDownloadsURLSession",
            dependencies: ["DurableDownloads", "DurableQueue"],
            swiftSettings: swiftSettings
        ),
        // The AsyncHTTPClient transport (NIO, its TLS): its own product, so that an app on another
        // transport links none of it.
        .target(
            name: "DurableDownloadsAsyncHTTPClient",
            dependencies: [
                "DurableDownloads",
                "DurableQueue",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The PostgreSQL store: the same JobQueue on a database many machines share. Its own target
        // and product, so that the core library never builds postgres-nio.
        .target(
            name: "DurableQueuePostgres",
            dependencies: [
                "DurableQueue",
                "DurableQueuePostgresMigrations",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // PostgreSQL's numbered scripts, beside SQLite's under Migrations/: the same never-edited
        // files, embedded in the PostgreSQL product only.
        .target(
            name: "DurableQueuePostgresMigrations",
            path: "Migrations/postgres",
            resources: [
                .embedInCode("0001_initial.sql"), .embedInCode("0002_schedules.sql"), .embedInCode("0003_trace_context.sql"),
                .embedInCode("0004_unique_window.sql"), .embedInCode("0005_aging.sql"), .embedInCode("0006_partitions.sql"),
                .embedInCode("0007_lighter_enqueue.sql"), .embedInCode("0008_group_children_by_state.sql"),
                .embedInCode("0009_handed_off.sql"), .embedInCode("0010_job_steps.sql"),
                .embedInCode("0011_signals.sql"), .embedInCode("0012_fair_keys.sql"),
                .embedInCode("0013_key_limits.sql"),
                .embedInCode("0014_sql_enqueue.sql"),
                .embedInCode("0015_lost_attempts.sql"),
                .embedInCode("0016_deleted_jobs.sql"),
                .embedInCode("0017_dependencies.sql"),
                .embedInCode("0018_deleted_jobs_by_age.sql"),
                .embedInCode("0019_job_versions.sql"),
                .embedInCode("0020_worker_kinds.sql"),
                .embedInCode("0021_sql_enqueue_version.sql"),
                .embedInCode("0022_worker_queues.sql"),
                .embedInCode("0023_lean_hot_path.sql"),
                .embedInCode("0024_side_tables.sql"),
            ],
            swiftSettings: swiftSettings
        ),
        // What the command line and the dashboard both show: JSON shapes and human forms of times.
        .target(
            name: "DurableQueueInspection",
            dependencies: ["DurableQueue"],
            swiftSettings: swiftSettings
        ),
        // The web dashboard: its own target and product, so that the core library never builds Hummingbird.
        .target(
            name: "DurableQueueDashboard",
            dependencies: [
                "DurableQueue",
                "DurableQueueInspection",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DurableQueueTesting",
            dependencies: ["DurableQueue"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "durableq",
            dependencies: [
                "DurableQueuePostgres",
                "DurableQueueInspection",
                "DurableQueueDashboard",
                "DurableQueue",
                "DurableDownloads", "DurableDownloadsAsyncHTTPClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "durableq-bench",
            dependencies: ["DurableQueue", "DurableQueuePostgres", .product(name: "NIOPosix", package: "swift-nio")],
            path: "Benchmarks/durableq-bench",
            swiftSettings: swiftSettings
        ),
        // Helper processes for the tests (targets, not products): crash, freeze and full-disk tests.
        .executableTarget(
            name: "durableq-test-worker",
            dependencies: [
                "CDurableQueueSQLite", "CDurableQueueCrashVFS", "DurableQueue", "DurableQueuePostgres",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "durableq-download-worker",
            dependencies: [
                "DurableQueue", "DurableQueuePostgres", "DurableDownloads", "DurableDownloadsAsyncHTTPClient", "DurableDownloadsURLSession",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "durableq-quickstart",
            dependencies: ["DurableQueue"],
            swiftSettings: swiftSettings
        ),
        // A SQLite VFS that simulates power loss and failing disks, for the tests only (C).
        .target(
            name: "CDurableQueueCrashVFS",
            dependencies: ["CDurableQueueSQLite"],
            path: "Tests/CDurableQueueCrashVFS"
        ),
        // What the test targets share: temporary directories, child processes, waiting.
        .target(
            name: "DurableQueueTestSupport",
            dependencies: [
                "CDurableQueueSQLite", "DurableQueue", "DurableQueuePostgres", .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/DurableQueueTestSupport",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DurableQueueTestServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/DurableQueueTestServer",
            swiftSettings: swiftSettings
        ),
        // The core: the store conformance suite (every backend: SQLite and PostgreSQL), the SQLite
        // store, the PostgreSQL store, the engine, and real processes on one file or one database.
        // Builds no HTTP package.
        .testTarget(
            name: "DurableQueueTests",
            dependencies: [
                "DurableQueue", "DurableQueueCore", "DurableQueueSQLite",
                "DurableQueueMigrations",
                "DurableQueuePostgres",
                "DurableQueuePostgresMigrations",
                "DurableQueueTesting",
                "DurableQueueTestSupport",
                "CDurableQueueCrashVFS",
                "durableq-test-worker",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            // Files that earlier releases wrote, which migration tests upgrade (read from the package).
            exclude: ["SQLiteStore/Fixtures"],
            swiftSettings: swiftSettings
        ),
        // The rules, the JSON coders and the schedule arithmetic: pure functions, no database, no
        // server, no process; seconds to run.
        .testTarget(
            name: "DurableQueueUnitTests",
            dependencies: ["DurableQueue", "DurableQueueCore", "DurableQueueSQLite", "DurableQueueTestSupport"],
            swiftSettings: swiftSettings
        ),
        // Real child processes killed, frozen, starved or run side by side on one store, and the
        // quick start program: slower than the rest, and serialized within each suite.
        .testTarget(
            name: "DurableQueueProcessTests",
            dependencies: [
                "DurableQueue", "DurableQueueCore", "DurableQueueSQLite",
                "DurableQueuePostgres",
                "DurableQueueTestSupport",
                "durableq-test-worker",
                "durableq-quickstart",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DurableDownloadsTests",
            dependencies: [
                "DurableQueue", "DurableQueueCore", "DurableQueueSQLite",
                "DurableDownloads", "DurableDownloadsAsyncHTTPClient", "DurableDownloadsURLSession",
                "DurableQueueTestSupport",
                "DurableQueueTestServer",
                "durableq-download-worker",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // A running dashboard on a store of a temporary directory, and an HTTP client for it: what
        // the dashboard's tests and its browser tests share.
        .target(
            name: "DurableQueueDashboardTestSupport",
            dependencies: [
                "DurableQueue",
                "DurableQueueDashboard",
                "DurableQueueTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/DurableQueueDashboardTestSupport",
            swiftSettings: swiftSettings
        ),
        // The dashboard over real HTTP on 127.0.0.1.
        .testTarget(
            name: "DurableQueueDashboardTests",
            dependencies: [
                "DurableQueue",
                "DurableQueueDashboard",
                "DurableQueueDashboardTestSupport",
                "DurableQueueTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The dashboard in a real headless Chromium (Debian's `chromium`): pages, scripts, screenshots.
        .testTarget(
            name: "DurableQueueBrowserTests",
            dependencies: [
                "DurableQueue",
                "DurableQueueDashboard",
                "DurableQueueDashboardTestSupport",
                "DurableQueueTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "durableqTests",
            dependencies: [
                "DurableQueue", "DurableQueueCore", "DurableQueueSQLite",
                "DurableDownloads", "DurableDownloadsAsyncHTTPClient",
                "DurableQueueTestSupport",
                "DurableQueueTestServer",
                "durableq",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
