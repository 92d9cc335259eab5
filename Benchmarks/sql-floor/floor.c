/*
 * sql-floor: the cost of DurableQueue's own SQL with no Swift around it.
 *
 * Runs the statements the SQLite store runs (schema of Migrations/, the same SQL text, prepared
 * once, WAL, synchronous=NORMAL, foreign keys on) from C, so that a benchmark of DurableQueue can
 * be compared with the best its statements allow on the same machine in the same run:
 *
 *   floor FILE enqueue N   N jobs, each its own transaction: BEGIN IMMEDIATE, the next id, the
 *                          job's INSERT, COMMIT (what one awaited enqueue commits)
 *   floor FILE batch N     N jobs, 1,000 per transaction: the next id, then INSERTs of 32 rows
 *                          each (what enqueue(batch:) commits)
 *   floor FILE drain B     every pending job, B per transaction: the previous B jobs' endings (one
 *                          read of their rows, a success UPDATE each, one INSERT of their history
 *                          rows) and the next B claims (due probe, pending walk, one UPDATE of the
 *                          B rows, one INSERT of their history rows), one commit each; B = 1 is the
 *                          engine with one job at a time, larger B its group commits
 *
 * Rows are batched into multi-row statements as the store batches them (B is at most 32, the
 * store's rows per statement). Prints one JSON line: jobs per second (wall clock) and CPU
 * microseconds per job (user + system). Built with -DCALLGRIND_MARKS, it zeroes callgrind's counts
 * where its clock starts and dumps them where it stops (Benchmarks/instructions.py --floor).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#ifdef CALLGRIND_MARKS
#include <valgrind/callgrind.h>
#define MEASURE_START CALLGRIND_ZERO_STATS
#define MEASURE_END CALLGRIND_DUMP_STATS_AT("timed loop")
#else
#define MEASURE_START
#define MEASURE_END
#endif

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
        "INSERT INTO jobs (id, queue, kind, state, priority, order_key, run_at, max_attempts, unique_key, input,"
        " created_at, updated_at, group_id, group_position, step_name, takes_previous_output, partition_key,"
        " created_state, created_tx, extras)"
        " VALUES (?1, 'default', 'noop', 'pending', 0, ?1, ?2, 5, NULL, ?3, ?2, ?2, NULL, NULL, NULL, 0, NULL,"
        " 'pending', 2 * ?1 + 1, 0)");
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

enum { most_per_transaction = 32 };

/* `head`, then `rows` copies of `row` (each with its own parameter numbers from `first`, `width`
 * apart, written by `format`), then `tail`: a multi-row statement as the store writes it. */
static sqlite3_stmt *multi_row(sqlite3 *db, const char *head, int rows, const char *tail,
                               void (*format)(char *out, size_t size, int first), int first, int width) {
    char sql[16384], part[512];
    snprintf(sql, sizeof sql, "%s", head);
    for (int row = 0; row < rows; row++) {
        format(part, sizeof part, first + width * row);
        if (row > 0) strncat(sql, ", ", sizeof sql - strlen(sql) - 1);
        strncat(sql, part, sizeof sql - strlen(sql) - 1);
    }
    strncat(sql, tail, sizeof sql - strlen(sql) - 1);
    return prepare(db, sql);
}

static void one_parameter(char *out, size_t size, int first) { snprintf(out, size, "?%d", first); }

static void history_row(char *out, size_t size, int first) {
    snprintf(out, size, "(?%d, ?%d, ?%d, ?%d, ?%d, ?%d, ?%d, ?%d, ?1)", first, first + 1, first + 2, first + 3,
             first + 4, first + 5, first + 6, first + 7);
}

/* Binds history row `row` of a multi-row history INSERT: job `job`'s row number `seq`, attempt 1,
 * from `from` to `to`, by worker w1. */
static void bind_history_row(sqlite3_stmt *insert, int row, sqlite3_int64 job, sqlite3_int64 seq, sqlite3_int64 now,
                             const char *from, const char *to, const char *reason) {
    int first = 2 + 8 * row;
    sqlite3_bind_int64(insert, first, job);
    sqlite3_bind_int64(insert, first + 1, seq);
    sqlite3_bind_int64(insert, first + 2, now);
    sqlite3_bind_text(insert, first + 3, from, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert, first + 4, to, -1, SQLITE_STATIC);
    sqlite3_bind_int64(insert, first + 5, 1);
    if (reason) sqlite3_bind_text(insert, first + 6, reason, -1, SQLITE_STATIC);
    else sqlite3_bind_null(insert, first + 6);
    sqlite3_bind_text(insert, first + 7, "w1", -1, SQLITE_STATIC);
}

static void job_row(char *out, size_t size, int first) {
    snprintf(out, size, "(?%d, 'default', 'noop', 'pending', 0, ?%d, ?%d, 5, ?%d, ?%d, ?%d, NULL, 'pending', 0, ?1)",
             first, first, first + 1, first + 2, first + 1, first + 1);
}

/* N jobs enqueued 1,000 per transaction: SQLiteJobStore.enqueue(batch:) for jobs without tags or keys. */
static int batch(sqlite3 *db, int n) {
    execute(db, "INSERT OR IGNORE INTO queues (name, created_at, updated_at) VALUES ('default', 0, 0)");
    sqlite3_stmt *begin = prepare(db, "BEGIN IMMEDIATE"), *commit = prepare(db, "COMMIT");
    sqlite3_stmt *next_id = prepare(db,
        "SELECT max(coalesce((SELECT max(id) FROM jobs), 0), (SELECT id FROM job_id_floor)) + 1");
    sqlite3_stmt *insert[most_per_transaction];
    for (int rows = 1; rows <= most_per_transaction; rows++) {
        insert[rows - 1] = multi_row(db,
            "INSERT INTO jobs (id, queue, kind, state, priority, order_key, run_at, max_attempts, input, created_at,"
            " updated_at, partition_key, created_state, extras, created_tx) VALUES ",
            rows, "", job_row, 2, 3);
    }
    char inputs[most_per_transaction][128];
    for (int done = 0; done < n;) {
        run(db, begin, "begin");
        sqlite3_int64 id = 1;
        if (sqlite3_step(next_id) == SQLITE_ROW) id = sqlite3_column_int64(next_id, 0);
        sqlite3_reset(next_id);
        int end = done + 1000 < n ? done + 1000 : n;
        while (done < end) {
            int rows = end - done < most_per_transaction ? end - done : most_per_transaction;
            sqlite3_stmt *statement = insert[rows - 1];
            sqlite3_bind_int64(statement, 1, 2 * id + 1);
            for (int row = 0; row < rows; row++, id++, done++) {
                snprintf(inputs[row], sizeof inputs[row],
                         "{\"task\":\"send_welcome\",\"job\":\"%06d\",\"to\":\"user%06d@example.com\",\"tmpl\":\"welcome_v2\",\"lang\":\"en\"}",
                         done, done);
                sqlite3_bind_int64(statement, 2 + 3 * row, id);
                sqlite3_bind_int64(statement, 3 + 3 * row, 1700000000000LL + done);
                sqlite3_bind_text(statement, 4 + 3 * row, inputs[row], -1, SQLITE_STATIC);
            }
            run(db, statement, "insert");
        }
        run(db, commit, "commit");
    }
    return n;
}

/* Drains every pending job of queue 'default', `batch` per transaction, ending each job as a success. */
static int drain(sqlite3 *db, int batch) {
    sqlite3_stmt *begin = prepare(db, "BEGIN IMMEDIATE"), *commit = prepare(db, "COMMIT");
    sqlite3_stmt *due = prepare(db, "SELECT EXISTS (SELECT 1 FROM jobs WHERE state = 'scheduled' AND run_at <= ?1)");
    sqlite3_stmt *next_pending = prepare(db,
        "SELECT id, kind, input, priority, attempts, max_attempts, extras, run_at, partition_key, event_count,"
        " order_key, version FROM jobs WHERE queue = ? AND state = 'pending' ORDER BY priority DESC, order_key");
    sqlite3_stmt *succeeded = prepare(db,
        "UPDATE jobs SET state = 'succeeded', output = ?2, finished_at = ?3, lease_owner = NULL,"
        " lease_expires_at = NULL, updated_at = ?3, event_count = event_count + 1 WHERE id = ?1");
    /* By the number of rows, at the index one less. */
    sqlite3_stmt *mark_running[most_per_transaction], *ending_rows[most_per_transaction], *history[most_per_transaction];
    for (int rows = 1; rows <= most_per_transaction; rows++) {
        mark_running[rows - 1] = multi_row(db,
            "UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = ?1, lease_expires_at = ?2,"
            " started_at = ?3, updated_at = ?3, event_count = event_count + 1 WHERE id IN (",
            rows, ")", one_parameter, 4, 1);
        ending_rows[rows - 1] = multi_row(db,
            "SELECT id, state, lease_owner, attempts, max_attempts, cancel_requested, queue,"
            " CASE WHEN jobs.extras & 1 THEN (SELECT o.throttle_interval_ms FROM job_options AS o WHERE o.job_id = jobs.id)"
            " ELSE 0 END, group_id,"
            " CASE WHEN jobs.extras & 2 THEN (SELECT a.progressed_attempts FROM job_attempt_state AS a WHERE a.job_id = jobs.id)"
            " ELSE 0 END, event_count, partition_key FROM jobs WHERE id IN (",
            rows, ")", one_parameter, 1, 1);
        history[rows - 1] = multi_row(db,
            "INSERT INTO job_events (job_id, seq, at, from_state, to_state, attempt, reason, worker, tx) VALUES ",
            rows, "", history_row, 2, 8);
    }
    sqlite3_int64 running[most_per_transaction], counts[most_per_transaction];
    int running_count = 0, jobs = 0;
    sqlite3_int64 now = 2000, tx = 0;
    for (;;) {
        run(db, begin, "begin");
        tx += 2;
        if (running_count > 0) {
            sqlite3_stmt *read = ending_rows[running_count - 1];
            for (int k = 0; k < running_count; k++) sqlite3_bind_int64(read, k + 1, running[k]);
            sqlite3_int64 ending_counts[most_per_transaction];
            int found = 0;
            while (sqlite3_step(read) == SQLITE_ROW) {
                sqlite3_int64 id = sqlite3_column_int64(read, 0);
                for (int k = 0; k < running_count; k++)
                    if (running[k] == id) ending_counts[k] = sqlite3_column_int64(read, 10);
                found++;
            }
            sqlite3_reset(read);
            if (found != running_count) fail(db, "a running job is missing");
            sqlite3_stmt *insert = history[running_count - 1];
            sqlite3_bind_int64(insert, 1, tx);
            for (int k = 0; k < running_count; k++) {
                sqlite3_bind_int64(succeeded, 1, running[k]);
                sqlite3_bind_text(succeeded, 2, "null", -1, SQLITE_STATIC);
                sqlite3_bind_int64(succeeded, 3, now);
                run(db, succeeded, "success");
                bind_history_row(insert, k, running[k], ending_counts[k] + 1, now, "running", "succeeded", NULL);
                jobs++;
            }
            run(db, insert, "history rows of the endings");
        }
        sqlite3_bind_int64(due, 1, now);
        run(db, due, "due probe");
        int claimed_count = 0;
        sqlite3_bind_text(next_pending, 1, "default", -1, SQLITE_STATIC);
        while (claimed_count < batch && sqlite3_step(next_pending) == SQLITE_ROW) {
            running[claimed_count] = sqlite3_column_int64(next_pending, 0);
            counts[claimed_count] = sqlite3_column_int64(next_pending, 9);
            (void)sqlite3_column_text(next_pending, 2); /* the input, as the engine reads it */
            claimed_count++;
        }
        sqlite3_reset(next_pending);
        if (claimed_count > 0) {
            sqlite3_stmt *mark = mark_running[claimed_count - 1], *insert = history[claimed_count - 1];
            sqlite3_bind_text(mark, 1, "w1", -1, SQLITE_STATIC);
            sqlite3_bind_int64(mark, 2, now + 30000);
            sqlite3_bind_int64(mark, 3, now);
            sqlite3_bind_int64(insert, 1, tx);
            for (int k = 0; k < claimed_count; k++) {
                sqlite3_bind_int64(mark, 4 + k, running[k]);
                bind_history_row(insert, k, running[k], counts[k] + 1, now, "pending", "running", "claimed");
            }
            run(db, mark, "claim");
            run(db, insert, "history rows of the claims");
        }
        run(db, commit, "commit");
        running_count = claimed_count;
        if (claimed_count == 0) return jobs;
    }
}

int main(int argc, char **argv) {
    if (argc != 4 || (strcmp(argv[2], "enqueue") && strcmp(argv[2], "batch") && strcmp(argv[2], "drain"))) {
        fprintf(stderr, "usage: floor FILE enqueue N | floor FILE batch N | floor FILE drain BATCH\n");
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
    MEASURE_START;
    int jobs = !strcmp(argv[2], "enqueue") ? enqueue(db, count) : !strcmp(argv[2], "batch") ? batch(db, count) : drain(db, count);
    MEASURE_END;
    wall = wall_seconds() - wall;
    cpu = cpu_seconds() - cpu;
    printf("{\"workload\":\"%s\",\"argument\":%d,\"jobs\":%d,\"jobs_per_sec\":%.0f,\"cpu_us_per_job\":%.1f}\n",
           argv[2], count, jobs, jobs / wall, cpu / jobs * 1e6);
    sqlite3_close(db);
    return 0;
}
