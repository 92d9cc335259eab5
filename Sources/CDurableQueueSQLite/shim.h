#include <sqlite3.h>

/// Turns SQLite's memory statistics off for the whole process (`SQLITE_CONFIG_MEMSTATUS` 0), as
/// SQLite's recommended compile-time options do: every allocation then skips a process-wide mutex
/// and the counting. Returns `SQLITE_MISUSE` and changes nothing once SQLite is initialized (by the
/// application or an earlier connection). A function because Swift cannot call the variadic
/// `sqlite3_config`.
static inline int durablequeue_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
