/*
 * sql-floor: the cost of DurableQueue's own SQL with no Swift around it.
 *
 * Runs the statements the SQLite store runs (schema of Migrations/, the same SQL text, prepared
 * once, WAL, synchronous=NORMAL, foreign keys on) from C, so that a benchmark of DurableQueue can
 * be compared with the best its statements allow on the same machine in the same run:
 *
 *   floor FILE enqueue N   N jobs, each its own transaction: BEGIN IMMEDIATE, the next id, the
 *                          job's INSERT, COMMIT (what one awaited enqueue commits)
 *   floor FILE drain B     every pending job, B per transaction: the previous B jobs' endings (row
 *                          read, success UPDATE, history row) and the next B claims (queue read,
 *                          pending walk, running UPDATE, history row), one commit each; B = 1 is
 *                          the engine with one job at a time, larger B its group commits
 *
 * Statements run one row at a time (DurableQueue batches rows into multi-row statements). Prints
 * one JSON line: jobs per second (wall clock) and CPU microseconds per job (user + system).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static void fail(sqlite3 *db, const char *what) {
    fprintf(stderr, "floor: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static void execute(sqlite3 *db, const char *sql) {
    if (sqlite3_exec(db, sql, 0, 0, 0) != SQLITE_OK) fail(db, sql);
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
    sqlite3_stmt *statement;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, 0) != SQLITE_OK) fail(db, sql);
    return statement;
}

/* Steps `statement` to its end and resets it. */
static void run(sqlite3 *db, sqlite3_stmt *statement, const char *what) {
    int rc;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {}
    if (rc != SQLITE_DONE) fail(db, what);
    sqlite3_reset(statement);
}

static double wall_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

/* N awaited enqueues: SQLiteJobStore.enqueue's transaction for one job without tags or unique key. */
static int enqueue(sqlite3 *db, int n) {
    execute(db, "INSERT OR IGNORE INTO queues (name, created_at, updated_at) VALUES ('default', 0, 0)");
    sqlite3_stmt *begin = prepare(db, "BEGIN IMMEDIATE"), *commit = prepare(db, "COMMIT");
    sqlite3_stmt *next_id = prepare(db,
        "SELECT max(coalesce((SELECT max(id) FROM jobs), 0), (SELECT id FROM job_id_floor)) + 1");
    sqlite3_stmt *insert = prepare(db,
        "INSERT INTO jobs (id, queue, kind, state, priority, order_key, run_at, max_attempts, retry_policy,"
        " timeout_ms, unique_key, input, created_at, updated_at, throttle_interval_ms, throttle_interval_source,"
        " group_id, group_position, step_name, takes_previous_output, trace_context, partition_key, created_state)"
        " VALUES (?1, 'default', 'noop', 'pending', 0, ?1, ?2, 5, NULL, NULL, NULL, ?3, ?2, ?2, 0, 'queue',"
        " NULL, NULL, NULL, 0, NULL, NULL, 'pending')");
    char input[128];
    for (int i = 0; i < n; i++) {
        run(db, begin, "begin");
        sqlite3_int64 id = 1;
        if (sqlite3_step(next_id) == SQLITE_ROW) id = sqlite3_column_int64(next_id, 0);
        sqlite3_reset(next_id);
        /* The peers' 100-byte payload. */
        snprintf(input, sizeof input,
                 "{\"task\":\"send_welcome\",\"job\":\"%06d\",\"to\":\"user%06d@example.com\",\"tmpl\":\"welcome_v2\",\"lang\":\"en\"}",
                 i, i);
        sqlite3_bind_int64(insert, 1, id);
        sqlite3_bind_int64(insert, 2, 1700000000000LL + i);
        sqlite3_bind_text(insert, 3, input, -1, SQLITE_STATIC);
        run(db, insert, "insert");
        run(db, commit, "commit");
    }
    return n;
}

enum { most_per_transaction = 256 };

/* Appends job `job`'s history row number `seq`: attempt 1, from `from` to `to`, by worker w1. */
static void append_event(sqlite3 *db, sqlite3_stmt *event, sqlite3_int64 job, sqlite3_int64 seq, sqlite3_int64 now,
                         const char *from, const char *to, const char *reason) {
    sqlite3_bind_int64(event, 1, job);
    sqlite3_bind_int64(event, 2, seq);
    sqlite3_bind_int64(event, 3, now);
    sqlite3_bind_text(event, 4, from, -1, SQLITE_STATIC);
    sqlite3_bind_text(event, 5, to, -1, SQLITE_STATIC);
    sqlite3_bind_int64(event, 6, 1);
    if (reason) sqlite3_bind_text(event, 7, reason, -1, SQLITE_STATIC);
    else sqlite3_bind_null(event, 7);
    run(db, event, "history row");
}

/* Drains every pending job of queue 'default', `batch` per transaction, ending each job as a success. */
static int drain(sqlite3 *db, int batch) {
    sqlite3_stmt *begin = prepare(db, "BEGIN IMMEDIATE"), *commit = prepare(db, "COMMIT");
    sqlite3_stmt *queues = prepare(db,
        "SELECT name, concurrency_limit, suspended, throttle_measured_from, rate_limit_count, rate_limit_window_ms,"
        " next_start_at, throttle_interval_ms, partition_limit,"
        " EXISTS (SELECT 1 FROM jobs WHERE state = 'scheduled' AND run_at <= ?1) FROM queues ORDER BY name");
    sqlite3_stmt *next_pending = prepare(db,
        "SELECT id, kind, input, priority, attempts, max_attempts, retry_policy, timeout_ms, checkpoint, run_at,"
        " throttle_interval_ms, progressed_attempts, trace_context, partition_key, event_count"
        " FROM jobs WHERE queue = ? AND state = 'pending' ORDER BY priority DESC, order_key");
    sqlite3_stmt *mark_running = prepare(db,
        "UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = ?1, lease_expires_at = ?2,"
        " started_at = ?3, updated_at = ?3, event_count = event_count + 1 WHERE id = ?4");
    sqlite3_stmt *ending_row = prepare(db,
        "SELECT id, state, lease_owner, attempts, max_attempts, cancel_requested, queue, throttle_interval_ms,"
        " group_id, progressed_attempts, event_count FROM jobs WHERE id = ?1");
    sqlite3_stmt *succeeded = prepare(db,
        "UPDATE jobs SET state = 'succeeded', output = ?2, finished_at = ?3, lease_owner = NULL,"
        " lease_expires_at = NULL, updated_at = ?3, event_count = event_count + 1 WHERE id = ?1");
    sqlite3_stmt *event = prepare(db,
        "INSERT INTO job_events (job_id, seq, at, from_state, to_state, attempt, reason, worker)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'w1')");
    sqlite3_int64 running[most_per_transaction], claimed[most_per_transaction], counts[most_per_transaction];
    int running_count = 0, jobs = 0;
    const sqlite3_int64 now = 2000;
    for (;;) {
        run(db, begin, "begin");
        for (int k = 0; k < running_count; k++) {
            sqlite3_bind_int64(ending_row, 1, running[k]);
            sqlite3_int64 count = 0;
            if (sqlite3_step(ending_row) == SQLITE_ROW) count = sqlite3_column_int64(ending_row, 10);
            sqlite3_reset(ending_row);
            sqlite3_bind_int64(succeeded, 1, running[k]);
            sqlite3_bind_text(succeeded, 2, "null", -1, SQLITE_STATIC);
            sqlite3_bind_int64(succeeded, 3, now);
            run(db, succeeded, "success");
            append_event(db, event, running[k], count + 1, now, "running", "succeeded", NULL);
            jobs++;
        }
        sqlite3_bind_int64(queues, 1, now);
        run(db, queues, "queues");
        int claimed_count = 0;
        sqlite3_bind_text(next_pending, 1, "default", -1, SQLITE_STATIC);
        while (claimed_count < batch && sqlite3_step(next_pending) == SQLITE_ROW) {
            claimed[claimed_count] = sqlite3_column_int64(next_pending, 0);
            counts[claimed_count] = sqlite3_column_int64(next_pending, 14);
            (void)sqlite3_column_text(next_pending, 2); /* the input, as the engine reads it */
            claimed_count++;
        }
        sqlite3_reset(next_pending);
        for (int k = 0; k < claimed_count; k++) {
            sqlite3_bind_text(mark_running, 1, "w1", -1, SQLITE_STATIC);
            sqlite3_bind_int64(mark_running, 2, now + 30000);
            sqlite3_bind_int64(mark_running, 3, now);
            sqlite3_bind_int64(mark_running, 4, claimed[k]);
            run(db, mark_running, "claim");
            append_event(db, event, claimed[k], counts[k] + 1, now, "pending", "running", "claimed");
        }
        run(db, commit, "commit");
        memcpy(running, claimed, sizeof running[0] * claimed_count);
        running_count = claimed_count;
        if (claimed_count == 0) return jobs;
    }
}

int main(int argc, char **argv) {
    if (argc != 4 || (strcmp(argv[2], "enqueue") && strcmp(argv[2], "drain"))) {
        fprintf(stderr, "usage: floor FILE enqueue N | floor FILE drain BATCH\n");
        return 2;
    }
    int count = atoi(argv[3]);
    if (count < 1 || (!strcmp(argv[2], "drain") && count > most_per_transaction)) {
        fprintf(stderr, "floor: %s is out of range\n", argv[3]);
        return 2;
    }
    /* As DurableQueue does before its first open (Connection.libraryConfigured). */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    sqlite3 *db;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, 0) != SQLITE_OK) fail(db, "open");
    execute(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON");
    double wall = wall_seconds(), cpu = cpu_seconds();
    int jobs = strcmp(argv[2], "enqueue") == 0 ? enqueue(db, count) : drain(db, count);
    wall = wall_seconds() - wall;
    cpu = cpu_seconds() - cpu;
    printf("{\"workload\":\"%s\",\"argument\":%d,\"jobs\":%d,\"jobs_per_sec\":%.0f,\"cpu_us_per_job\":%.1f}\n",
           argv[2], count, jobs, jobs / wall, cpu / jobs * 1e6);
    sqlite3_close(db);
    return 0;
}
