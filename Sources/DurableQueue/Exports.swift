// What `import DurableQueue` brings: the queue, its engine and its API (DurableQueueCore), and the
// SQLite store with `JobQueue(path:)` (DurableQueueSQLite). One import for an app; the PostgreSQL
// store is a product of its own (DurableQueuePostgres).
@_exported import DurableQueueCore
@_exported import DurableQueueSQLite
