// The crash-simulating VFS of the tests: see include/CrashVFS.h.
#include "CrashVFS.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/// What one write or truncate changed, to undo it: the bytes at `offset` before it and the file's
/// size before it.
typedef struct Undo {
    struct Undo *older;
    sqlite3_int64 offset;
    sqlite3_int64 length;
    sqlite3_int64 sizeBefore;
    unsigned char *before;
} Undo;

/// A file opened through the VFS; the platform's file follows it in memory. A file closed with
/// unsynced changes stays in the list (its `real` closed) so that a cut still undoes them.
typedef struct CrashFile {
    sqlite3_file base;
    sqlite3_file *real;
    int isOpen;
    char *path;
    Undo *undo;
    struct CrashFile *next;
} CrashFile;

static sqlite3_vfs crashVFS;
static sqlite3_vfs *platformVFS;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static CrashFile *files;     // open files, and closed ones with changes to undo
static int64_t operations;   // writes and syncs seen
static int64_t cutAt;        // the operation number that cuts the power; 0: none
static int torn;
static uint64_t randomState = 0x9E3779B97F4A7C15ull;
static int failOperations, failCode;
static int64_t failSeen, failFrom, failCount, failures;

static uint64_t nextRandom(void) {
    uint64_t x = randomState;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return randomState = x;
}

static void freeUndo(CrashFile *file) {
    while (file->undo) {
        Undo *older = file->undo->older;
        free(file->undo);
        file->undo = older;
    }
}

/// The fault for an operation of kind `operation` now, or SQLITE_OK. Called with the lock held.
static int injectedFault(int operation) {
    if (!(failOperations & operation)) return SQLITE_OK;
    failSeen += 1;
    if (failSeen < failFrom || (failCount >= 0 && failSeen >= failFrom + failCount)) return SQLITE_OK;
    failures += 1;
    return failCode;
}

/// Undoes `undo` in `real` (whole, or torn: each sector kept or undone at random). Returns the size
/// the file has after it.
static sqlite3_int64 undoChange(sqlite3_file *real, Undo *undo, sqlite3_int64 size) {
    const sqlite3_int64 sector = 512;
    sqlite3_int64 keptEnd = undo->sizeBefore;
    for (sqlite3_int64 start = 0; start < undo->length; start += sector) {
        sqlite3_int64 length = undo->length - start < sector ? undo->length - start : sector;
        sqlite3_int64 at = undo->offset + start;
        if (torn && (nextRandom() & 1)) {
            if (at + length > keptEnd) keptEnd = at + length;
            continue;
        }
        if (at < undo->sizeBefore) {
            sqlite3_int64 old = undo->sizeBefore - at < length ? undo->sizeBefore - at : length;
            real->pMethods->xWrite(real, undo->before + start, (int)old, at);
        } else if (torn) {
            // a sector the change added that did not reach the disk: zeros if a later one did
            static const unsigned char zeros[512];
            real->pMethods->xWrite(real, zeros, (int)length, at);
        }
    }
    if (keptEnd < size || !torn) {
        real->pMethods->xTruncate(real, keptEnd);
        return keptEnd;
    }
    return size;
}

/// The power goes: every change since each file's last sync is undone (or torn), and the process
/// ends at once. Called with the lock held; never returns.
static void powerLoss(void) {
    for (CrashFile *file = files; file; file = file->next) {
        if (!file->undo) continue;
        sqlite3_file *real = file->real;
        sqlite3_file *reopened = NULL;
        if (!file->isOpen) {
            reopened = calloc(1, (size_t)platformVFS->szOsFile);
            int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_MAIN_DB;
            if (!reopened || platformVFS->xOpen(platformVFS, file->path, reopened, flags, &flags) != SQLITE_OK) {
                free(reopened);
                continue;  // deleted since: its deletion stands
            }
            real = reopened;
        }
        sqlite3_int64 size = 0;
        real->pMethods->xFileSize(real, &size);
        for (Undo *undo = file->undo; undo; undo = undo->older) size = undoChange(real, undo, size);
        if (reopened) {
            reopened->pMethods->xClose(reopened);
            free(reopened);
        }
    }
    _exit(CRASHVFS_EXIT_CODE);
}

/// Counts a write or sync; cuts the power if it is the chosen one. Called with the lock held.
static void countOperation(void) {
    operations += 1;
    if (cutAt > 0 && operations >= cutAt) powerLoss();
}

static int crashClose(sqlite3_file *f) {
    CrashFile *file = (CrashFile *)f;
    pthread_mutex_lock(&lock);
    int rc = file->real->pMethods ? file->real->pMethods->xClose(file->real) : SQLITE_OK;
    // SQLite frees `f` after this: a closed file with changes to undo moves to a copy of its own.
    CrashFile **link = &files;
    while (*link && *link != file) link = &(*link)->next;
    if (*link) *link = file->next;
    if (file->undo && file->path) {
        CrashFile *closed = calloc(1, sizeof(CrashFile));
        if (closed) {
            closed->path = file->path;
            closed->undo = file->undo;
            closed->next = files;
            files = closed;
            file->path = NULL;
            file->undo = NULL;
        }
    }
    freeUndo(file);
    free(file->path);
    pthread_mutex_unlock(&lock);
    return rc;
}

static int crashRead(sqlite3_file *f, void *buffer, int amount, sqlite3_int64 offset) {
    CrashFile *file = (CrashFile *)f;
    return file->real->pMethods->xRead(file->real, buffer, amount, offset);
}

/// Keeps what bytes [offset, offset + length) of `file` hold now (those past its end: none), and its
/// size, as its newest undo. Called with the lock held, before a write or a truncate changes them.
static int rememberBefore(CrashFile *file, sqlite3_int64 offset, sqlite3_int64 length) {
    sqlite3_int64 size = 0;
    file->real->pMethods->xFileSize(file->real, &size);
    Undo *undo = calloc(1, sizeof(Undo) + (size_t)length);
    if (!undo) return SQLITE_IOERR_NOMEM;
    undo->before = (unsigned char *)(undo + 1);
    undo->offset = offset;
    undo->length = length;
    undo->sizeBefore = size;
    if (offset < size) {
        sqlite3_int64 present = size - offset < length ? size - offset : length;
        file->real->pMethods->xRead(file->real, undo->before, (int)present, offset);
    }
    undo->older = file->undo;
    file->undo = undo;
    return SQLITE_OK;
}

static int crashWrite(sqlite3_file *f, const void *buffer, int amount, sqlite3_int64 offset) {
    CrashFile *file = (CrashFile *)f;
    pthread_mutex_lock(&lock);
    int rc = injectedFault(CRASHVFS_WRITE);
    if (rc == SQLITE_OK) {
        countOperation();
        if (file->path) rc = rememberBefore(file, offset, amount);
        if (rc == SQLITE_OK) rc = file->real->pMethods->xWrite(file->real, buffer, amount, offset);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

static int crashTruncate(sqlite3_file *f, sqlite3_int64 size) {
    CrashFile *file = (CrashFile *)f;
    pthread_mutex_lock(&lock);
    int rc = injectedFault(CRASHVFS_TRUNCATE);
    if (rc == SQLITE_OK) {
        sqlite3_int64 current = 0;
        file->real->pMethods->xFileSize(file->real, &current);
        if (file->path && current > size) rc = rememberBefore(file, size, current - size);
        if (rc == SQLITE_OK) rc = file->real->pMethods->xTruncate(file->real, size);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

static int crashSync(sqlite3_file *f, int flags) {
    CrashFile *file = (CrashFile *)f;
    pthread_mutex_lock(&lock);
    int rc = injectedFault(CRASHVFS_SYNC);
    if (rc == SQLITE_OK) {
        countOperation();
        rc = file->real->pMethods->xSync(file->real, flags);
        if (rc == SQLITE_OK) freeUndo(file);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

static int crashFileSize(sqlite3_file *f, sqlite3_int64 *size) {
    CrashFile *file = (CrashFile *)f;
    return file->real->pMethods->xFileSize(file->real, size);
}

static int crashLock(sqlite3_file *f, int level) { return ((CrashFile *)f)->real->pMethods->xLock(((CrashFile *)f)->real, level); }
static int crashUnlock(sqlite3_file *f, int level) { return ((CrashFile *)f)->real->pMethods->xUnlock(((CrashFile *)f)->real, level); }
static int crashCheckReservedLock(sqlite3_file *f, int *out) {
    return ((CrashFile *)f)->real->pMethods->xCheckReservedLock(((CrashFile *)f)->real, out);
}
static int crashFileControl(sqlite3_file *f, int op, void *arg) {
    return ((CrashFile *)f)->real->pMethods->xFileControl(((CrashFile *)f)->real, op, arg);
}
static int crashSectorSize(sqlite3_file *f) { return ((CrashFile *)f)->real->pMethods->xSectorSize(((CrashFile *)f)->real); }
static int crashDeviceCharacteristics(sqlite3_file *f) {
    return ((CrashFile *)f)->real->pMethods->xDeviceCharacteristics(((CrashFile *)f)->real);
}
static int crashShmMap(sqlite3_file *f, int page, int size, int extend, void volatile **out) {
    return ((CrashFile *)f)->real->pMethods->xShmMap(((CrashFile *)f)->real, page, size, extend, out);
}
static int crashShmLock(sqlite3_file *f, int offset, int n, int flags) {
    return ((CrashFile *)f)->real->pMethods->xShmLock(((CrashFile *)f)->real, offset, n, flags);
}
static void crashShmBarrier(sqlite3_file *f) { ((CrashFile *)f)->real->pMethods->xShmBarrier(((CrashFile *)f)->real); }
static int crashShmUnmap(sqlite3_file *f, int deleteFlag) {
    return ((CrashFile *)f)->real->pMethods->xShmUnmap(((CrashFile *)f)->real, deleteFlag);
}

/// Version 2: no memory-mapped reads (xFetch), so that every byte SQLite reads came through xRead.
static const sqlite3_io_methods crashMethods = {
    2, crashClose, crashRead, crashWrite, crashTruncate, crashSync, crashFileSize, crashLock, crashUnlock,
    crashCheckReservedLock, crashFileControl, crashSectorSize, crashDeviceCharacteristics, crashShmMap, crashShmLock,
    crashShmBarrier, crashShmUnmap, NULL, NULL,
};

static int crashOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *f, int flags, int *outFlags) {
    (void)vfs;
    CrashFile *file = (CrashFile *)f;
    memset(file, 0, sizeof(CrashFile));
    file->real = (sqlite3_file *)(file + 1);
    int rc = platformVFS->xOpen(platformVFS, name, file->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        file->base.pMethods = NULL;
        return rc;
    }
    file->base.pMethods = &crashMethods;
    file->isOpen = 1;
    if (name && !(flags & SQLITE_OPEN_DELETEONCLOSE)) file->path = strdup(name);
    pthread_mutex_lock(&lock);
    // A file opened again with changes left from an earlier open keeps them to undo.
    for (CrashFile **link = &files; *link; link = &(*link)->next) {
        CrashFile *closed = *link;
        if (!closed->isOpen && file->path && closed->path && strcmp(closed->path, file->path) == 0) {
            file->undo = closed->undo;
            *link = closed->next;
            free(closed->path);
            free(closed);
            break;
        }
    }
    file->next = files;
    files = file;
    pthread_mutex_unlock(&lock);
    return SQLITE_OK;
}

static int crashDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    pthread_mutex_lock(&lock);
    for (CrashFile **link = &files; *link; link = &(*link)->next) {
        CrashFile *closed = *link;
        if (!closed->isOpen && closed->path && strcmp(closed->path, name) == 0) {
            *link = closed->next;
            freeUndo(closed);
            free(closed->path);
            free(closed);
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return platformVFS->xDelete(platformVFS, name, syncDirectory);
}

static int crashAccess(sqlite3_vfs *v, const char *name, int flags, int *out) { (void)v; return platformVFS->xAccess(platformVFS, name, flags, out); }
static int crashFullPathname(sqlite3_vfs *v, const char *name, int n, char *out) {
    (void)v;
    return platformVFS->xFullPathname(platformVFS, name, n, out);
}
static void *crashDlOpen(sqlite3_vfs *v, const char *name) { (void)v; return platformVFS->xDlOpen(platformVFS, name); }
static void crashDlError(sqlite3_vfs *v, int n, char *out) { (void)v; platformVFS->xDlError(platformVFS, n, out); }
static void (*crashDlSym(sqlite3_vfs *v, void *handle, const char *symbol))(void) {
    (void)v;
    return platformVFS->xDlSym(platformVFS, handle, symbol);
}
static void crashDlClose(sqlite3_vfs *v, void *handle) { (void)v; platformVFS->xDlClose(platformVFS, handle); }
static int crashRandomness(sqlite3_vfs *v, int n, char *out) { (void)v; return platformVFS->xRandomness(platformVFS, n, out); }
static int crashSleep(sqlite3_vfs *v, int microseconds) { (void)v; return platformVFS->xSleep(platformVFS, microseconds); }
static int crashCurrentTime(sqlite3_vfs *v, double *out) { (void)v; return platformVFS->xCurrentTime(platformVFS, out); }
static int crashGetLastError(sqlite3_vfs *v, int n, char *out) { (void)v; return platformVFS->xGetLastError(platformVFS, n, out); }
static int crashCurrentTimeInt64(sqlite3_vfs *v, sqlite3_int64 *out) {
    (void)v;
    return platformVFS->xCurrentTimeInt64(platformVFS, out);
}

int crashvfs_register(void) {
    pthread_mutex_lock(&lock);
    if (platformVFS) {
        pthread_mutex_unlock(&lock);
        return SQLITE_OK;
    }
    sqlite3_vfs *platform = sqlite3_vfs_find(NULL);
    if (!platform) {
        pthread_mutex_unlock(&lock);
        return SQLITE_ERROR;
    }
    platformVFS = platform;
    crashVFS = (sqlite3_vfs){
        .iVersion = 2, .szOsFile = (int)sizeof(CrashFile) + platform->szOsFile, .mxPathname = platform->mxPathname,
        .zName = CRASHVFS_NAME, .xOpen = crashOpen, .xDelete = crashDelete, .xAccess = crashAccess,
        .xFullPathname = crashFullPathname, .xDlOpen = crashDlOpen, .xDlError = crashDlError, .xDlSym = crashDlSym,
        .xDlClose = crashDlClose, .xRandomness = crashRandomness, .xSleep = crashSleep, .xCurrentTime = crashCurrentTime,
        .xGetLastError = crashGetLastError, .xCurrentTimeInt64 = crashCurrentTimeInt64,
    };
    const char *cut = getenv("CRASHVFS_CUT_AT");
    if (cut) cutAt = strtoll(cut, NULL, 10);
    const char *tear = getenv("CRASHVFS_TORN");
    torn = tear && strcmp(tear, "1") == 0;
    const char *seed = getenv("CRASHVFS_SEED");
    if (seed && strtoull(seed, NULL, 10)) randomState = strtoull(seed, NULL, 10);
    const char *failAt = getenv("CRASHVFS_FAIL_AT");
    if (failAt) {
        const char *count = getenv("CRASHVFS_FAIL_COUNT");
        failOperations = CRASHVFS_WRITE | CRASHVFS_SYNC | CRASHVFS_TRUNCATE;
        failSeen = 0;
        failFrom = strtoll(failAt, NULL, 10);
        failCount = count ? strtoll(count, NULL, 10) : 1;
        const char *code = getenv("CRASHVFS_FAIL_CODE");
        failCode = code && strcmp(code, "full") == 0 ? SQLITE_FULL : SQLITE_IOERR_WRITE;
    }
    pthread_mutex_unlock(&lock);
    return sqlite3_vfs_register(&crashVFS, 0);
}

void crashvfs_cut_at(int64_t nth) {
    pthread_mutex_lock(&lock);
    cutAt = nth > 0 ? operations + nth : 0;
    pthread_mutex_unlock(&lock);
}

void crashvfs_tear(int tornWrites, uint64_t seed) {
    pthread_mutex_lock(&lock);
    torn = tornWrites;
    if (seed) randomState = seed;
    pthread_mutex_unlock(&lock);
}

void crashvfs_fail(int kinds, int64_t nth, int64_t count, int code) {
    pthread_mutex_lock(&lock);
    failOperations = kinds;
    failSeen = 0;
    failFrom = nth < 1 ? 1 : nth;
    failCount = count;
    failCode = code;
    pthread_mutex_unlock(&lock);
}

void crashvfs_heal(void) {
    pthread_mutex_lock(&lock);
    failOperations = 0;
    pthread_mutex_unlock(&lock);
}

int64_t crashvfs_operations(void) {
    pthread_mutex_lock(&lock);
    int64_t seen = operations;
    pthread_mutex_unlock(&lock);
    return seen;
}

int64_t crashvfs_failures(void) {
    pthread_mutex_lock(&lock);
    int64_t seen = failures;
    pthread_mutex_unlock(&lock);
    return seen;
}
