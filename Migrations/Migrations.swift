/// One numbered schema change: the SQL of a file in `Migrations/`.
package struct SchemaMigration: Sendable, Hashable {
    /// The migration's number; a database that applied it has `PRAGMA user_version` ≥ this.
    package let version: Int
    /// The file's name without `.sql`, such as `0001_initial`.
    package let name: String
    /// The statements to run, as written in the file.
    package let sql: String

    /// Creates a migration from its SQL text.
    package init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    init(version: Int, name: String, bytes: [UInt8]) {
        self.init(version: version, name: name, sql: String(decoding: bytes, as: UTF8.self))
    }
}

/// The schema migrations of DurableQueue, oldest first.
///
/// The `.sql` files in `Migrations/` are the one source of truth for the schema; SwiftPM embeds them
/// in code. Every file must be listed here and in `Package.swift`.
package enum SchemaMigrations {
    /// Every migration in the order it must be applied; versions are 1, 2, 3 … without gaps.
    package static let all: [SchemaMigration] = [
        SchemaMigration(version: 1, name: "0001_initial", bytes: PackageResources._001_initial_sql),
        SchemaMigration(version: 2, name: "0002_throttle", bytes: PackageResources._002_throttle_sql),
        SchemaMigration(
            version: 3, name: "0003_groups_and_cache", bytes: PackageResources._003_groups_and_cache_sql),
        SchemaMigration(version: 4, name: "0004_faster_writes", bytes: PackageResources._004_faster_writes_sql),
        SchemaMigration(
            version: 5, name: "0005_progressed_attempts", bytes: PackageResources._005_progressed_attempts_sql),
        SchemaMigration(version: 6, name: "0006_schedules", bytes: PackageResources._006_schedules_sql),
        SchemaMigration(version: 7, name: "0007_trace_context", bytes: PackageResources._007_trace_context_sql),
        SchemaMigration(version: 8, name: "0008_unique_window", bytes: PackageResources._008_unique_window_sql),
        SchemaMigration(version: 9, name: "0009_aging", bytes: PackageResources._009_aging_sql),
        SchemaMigration(version: 10, name: "0010_partitions", bytes: PackageResources._010_partitions_sql),
        SchemaMigration(version: 11, name: "0011_lighter_enqueue", bytes: PackageResources._011_lighter_enqueue_sql),
        SchemaMigration(version: 12, name: "0012_one_running_index", bytes: PackageResources._012_one_running_index_sql),
        SchemaMigration(version: 13, name: "0013_events_by_job", bytes: PackageResources._013_events_by_job_sql),
        SchemaMigration(
            version: 14, name: "0014_group_children_by_state", bytes: PackageResources._014_group_children_by_state_sql),
        SchemaMigration(version: 15, name: "0015_handed_off", bytes: PackageResources._015_handed_off_sql),
        SchemaMigration(version: 16, name: "0016_job_steps", bytes: PackageResources._016_job_steps_sql),
        SchemaMigration(version: 17, name: "0017_signals", bytes: PackageResources._017_signals_sql),
        SchemaMigration(version: 18, name: "0018_fair_keys", bytes: PackageResources._018_fair_keys_sql),
        SchemaMigration(version: 19, name: "0019_key_limits", bytes: PackageResources._019_key_limits_sql),
        SchemaMigration(version: 20, name: "0020_lost_attempts", bytes: PackageResources._020_lost_attempts_sql),
        SchemaMigration(version: 21, name: "0021_deleted_jobs", bytes: PackageResources._021_deleted_jobs_sql),
        SchemaMigration(version: 22, name: "0022_dependencies", bytes: PackageResources._022_dependencies_sql),
        SchemaMigration(version: 23, name: "0023_deleted_jobs_by_age", bytes: PackageResources._023_deleted_jobs_by_age_sql),
        SchemaMigration(version: 24, name: "0024_commit_order", bytes: PackageResources._024_commit_order_sql),
        SchemaMigration(version: 25, name: "0025_timed_states_index", bytes: PackageResources._025_timed_states_index_sql),
        SchemaMigration(version: 26, name: "0026_job_versions", bytes: PackageResources._026_job_versions_sql),
        SchemaMigration(version: 27, name: "0027_worker_kinds", bytes: PackageResources._027_worker_kinds_sql),
        SchemaMigration(version: 28, name: "0028_worker_queues", bytes: PackageResources._028_worker_queues_sql),
        SchemaMigration(version: 29, name: "0029_lean_jobs", bytes: PackageResources._029_lean_jobs_sql),
    ]

    /// The newest schema version this build knows.
    package static var latestVersion: Int { all.last?.version ?? 0 }
}
