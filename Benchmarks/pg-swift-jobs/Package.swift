// swift-tools-version: 6.1
// swift-jobs-pg-bench: hummingbird-project/swift-jobs-postgres (the Swift server job queue on
// PostgreSQL) in the PostgreSQL peer benchmark, beside DurableQueue (see README.md here).
import PackageDescription

let package = Package(
    name: "swift-jobs-pg-bench",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/swift-jobs-postgres.git", exact: "1.3.0"),
        .package(url: "https://github.com/hummingbird-project/swift-jobs.git", exact: "1.3.1"),
        .package(url: "https://github.com/hummingbird-project/postgres-migrations.git", exact: "1.2.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "swift-jobs-pg-bench",
            dependencies: [
                .product(name: "JobsPostgres", package: "swift-jobs-postgres"),
                .product(name: "Jobs", package: "swift-jobs"),
                .product(name: "PostgresMigrations", package: "postgres-migrations"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
