// A SQLite VFS for the tests that simulates what lies below the file: a power loss that drops (or
// tears) the writes no sync made durable, and a disk that fails. Never linked into a product.
//
// It wraps the platform's default VFS. Each file it opens keeps, for every write and truncate since
// the file's last sync, what the changed bytes were before (its "undo"). A simulated power loss
// undoes them, newest first (or, torn, keeps a random subset of their 512-byte sectors), in every
// file the process has open, then ends the process at once with `crashvfs_exit_code`: what the
// next open finds is what a machine that lost power between two syncs would have kept.
// A file created and never synced is kept (directory entries are not simulated).
#ifndef DURABLEQUEUE_CRASH_VFS_H
#define DURABLEQUEUE_CRASH_VFS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The name the VFS is registered under.
#define CRASHVFS_NAME "durablequeue-crash"
/// The exit status of a process whose power the VFS cut.
#define CRASHVFS_EXIT_CODE 86

/// The operations a fault or a cut counts.
enum {
    CRASHVFS_WRITE = 1,
    CRASHVFS_SYNC = 2,
    CRASHVFS_TRUNCATE = 4,
};

/// Registers the VFS (once; later calls do nothing) and reads its settings from the environment:
/// `CRASHVFS_CUT_AT=N` cuts the power at the N-th write or sync from now (1 is the next),
/// `CRASHVFS_TORN=1` tears the unsynced writes instead of dropping them, `CRASHVFS_SEED=S` seeds
/// the choice of sectors kept, `CRASHVFS_FAIL_AT=N` (with `CRASHVFS_FAIL_COUNT=M`, default 1) fails
/// M writes, syncs or truncates from the N-th (-1: every one from there) with SQLITE_IOERR_WRITE, or
/// SQLITE_FULL with `CRASHVFS_FAIL_CODE=full`. Returns a SQLite result code.
int crashvfs_register(void);

/// Cuts the power at the `nth` write or sync from now (1: the next one); 0 never.
void crashvfs_cut_at(int64_t nth);

/// Whether a cut tears the unsynced writes (keeps a random subset of their sectors, from `seed`)
/// rather than dropping them all.
void crashvfs_tear(int torn, uint64_t seed);

/// Fails operations of the kinds `operations` (CRASHVFS_WRITE | …) with `code` (SQLITE_IOERR_WRITE,
/// SQLITE_FULL …): from the `nth` such operation from now (1: the next), `count` of them (-1: until
/// `crashvfs_heal`). A failed write or truncate changes nothing.
void crashvfs_fail(int operations, int64_t nth, int64_t count, int code);

/// Stops failing.
void crashvfs_heal(void);

/// How many writes and syncs the VFS has seen since it was registered (to choose a cut).
int64_t crashvfs_operations(void);

/// How many operations failed on purpose since it was registered.
int64_t crashvfs_failures(void);

#ifdef __cplusplus
}
#endif
#endif
