/// The PostgreSQL schema's numbered scripts, oldest first: `Migrations/postgres/*.sql`, embedded in
/// code by SwiftPM. Like SQLite's in `Migrations/`, a script is never edited once released; every
/// file must be listed here and in `Package.swift` (a test compares the list with the folder).
package enum PostgresSchemaMigrations {
    /// Every script in the order it must be applied (versions 1, 2, 3 … without gaps), with the
    /// name `schema_migrations` records.
    package static let all: [(version: Int, name: String, sql: String)] = [
        (1, "initial", String(decoding: PackageResources._001_initial_sql, as: UTF8.self)),
        (2, "schedules", String(decoding: PackageResources._002_schedules_sql, as: UTF8.self)),
        (3, "trace_context", String(decoding: PackageResources._003_trace_context_sql, as: UTF8.self)),
        (4, "unique_window", String(decoding: PackageResources._004_unique_window_sql, as: UTF8.self)),
        (5, "aging", String(decoding: PackageResources._005_aging_sql, as: UTF8.self)),
        (6, "partitions", String(decoding: PackageResources._006_partitions_sql, as: UTF8.self)),
        (7, "lighter_enqueue", String(decoding: PackageResources._007_lighter_enqueue_sql, as: UTF8.self)),
        (8, "group_children_by_state", String(decoding: PackageResources._008_group_children_by_state_sql, as: UTF8.self)),
        (9, "handed_off", String(decoding: PackageResources._009_handed_off_sql, as: UTF8.self)),
        (10, "job_steps", String(decoding: PackageResources._010_job_steps_sql, as: UTF8.self)),
        (11, "signals", String(decoding: PackageResources._011_signals_sql, as: UTF8.self)),
        (12, "fair_keys", String(decoding: PackageResources._012_fair_keys_sql, as: UTF8.self)),
        (13, "key_limits", String(decoding: PackageResources._013_key_limits_sql, as: UTF8.self)),
        (14, "sql_enqueue", String(decoding: PackageResources._014_sql_enqueue_sql, as: UTF8.self)),
        (15, "lost_attempts", String(decoding: PackageResources._015_lost_attempts_sql, as: UTF8.self)),
        (16, "deleted_jobs", String(decoding: PackageResources._016_deleted_jobs_sql, as: UTF8.self)),
        (17, "dependencies", String(decoding: PackageResources._017_dependencies_sql, as: UTF8.self)),
        (18, "deleted_jobs_by_age", String(decoding: PackageResources._018_deleted_jobs_by_age_sql, as: UTF8.self)),
        (19, "job_versions", String(decoding: PackageResources._019_job_versions_sql, as: UTF8.self)),
        (20, "worker_kinds", String(decoding: PackageResources._020_worker_kinds_sql, as: UTF8.self)),
        (21, "sql_enqueue_version", String(decoding: PackageResources._021_sql_enqueue_version_sql, as: UTF8.self)),
        (22, "worker_queues", String(decoding: PackageResources._022_worker_queues_sql, as: UTF8.self)),
        (23, "lean_hot_path", String(decoding: PackageResources._023_lean_hot_path_sql, as: UTF8.self)),
        (24, "side_tables", String(decoding: PackageResources._024_side_tables_sql, as: UTF8.self)),
    ]
}
