/* record_writes.c: an LD_PRELOAD library that records every write and sync
 * of one file, so a test can build the file as a power loss could leave it.
 *
 * Used by tests/tests/power_loss.rs, which compiles it with the system's C
 * compiler. For each file whose path ends with $RQC_POWER_FILE (LMDB's
 * `data.mdb`), it appends to $RQC_POWER_LOG, after the call succeeded:
 *   'W' <offset: u64 LE> <length: u64 LE> <bytes>   a write at an offset
 *   'S'                                             a sync (fsync, fdatasync,
 *                                                   or a write through a
 *                                                   descriptor opened O_DSYNC)
 * The test appends its own 'A' records (a commit acknowledged). Writes
 * through pwrite, pwritev and write/writev at the file position are seen:
 * the calls LMDB makes (mdb.c, mdb_page_flush and mdb_env_write_meta).
 * Only what reached the kernel is recorded, in the order it did; the log
 * is written under a lock, so records never interleave.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = -1;

static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static ssize_t (*real_pwritev64)(int, const struct iovec *, int, off_t);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);

static void *next(const char *name) { return dlsym(RTLD_NEXT, name); }

__attribute__((constructor)) static void init(void) {
    real_pwrite = next("pwrite");
    real_pwrite64 = next("pwrite64");
    real_pwritev = next("pwritev");
    real_pwritev64 = next("pwritev64");
    real_write = next("write");
    real_writev = next("writev");
    real_fsync = next("fsync");
    real_fdatasync = next("fdatasync");
}

/* Whether `fd` is the watched file: its path ends with $RQC_POWER_FILE. */
static int watched(int fd) {
    const char *file = getenv("RQC_POWER_FILE");
    if (!file || fd < 0) return 0;
    char link[64], path[PATH_MAX + 1];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, PATH_MAX);
    if (n <= 0) return 0;
    path[n] = 0;
    size_t f = strlen(file);
    return (size_t)n >= f && strcmp(path + n - f, file) == 0;
}

static int synchronous(int fd) {
    int flags = fcntl(fd, F_GETFL);
    return flags != -1 && (flags & (O_DSYNC | O_SYNC)) != 0;
}

static void put(const void *bytes, size_t len) {
    const char *p = bytes;
    while (len > 0) {
        ssize_t n = real_write(log_fd, p, len);
        if (n <= 0) abort(); /* a log with a hole would prove nothing */
        p += n;
        len -= (size_t)n;
    }
}

static void open_log(void) {
    if (log_fd >= 0) return;
    const char *path = getenv("RQC_POWER_LOG");
    if (!path) abort();
    log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) abort();
}

/* Records the write of `iov` at `offset`, then a sync when `fd` syncs
 * every write. */
static void record(int fd, const struct iovec *iov, int count, off_t offset, ssize_t written) {
    if (written <= 0 || !watched(fd)) return;
    pthread_mutex_lock(&lock);
    open_log();
    uint64_t at = (uint64_t)offset;
    size_t left = (size_t)written;
    for (int i = 0; i < count && left > 0; i++) {
        size_t len = iov[i].iov_len < left ? iov[i].iov_len : left;
        uint64_t len64 = len;
        put("W", 1);
        put(&at, 8);
        put(&len64, 8);
        put(iov[i].iov_base, len);
        at += len;
        left -= len;
    }
    if (synchronous(fd)) put("S", 1);
    pthread_mutex_unlock(&lock);
}

static void record_sync(int fd, int result) {
    if (result != 0 || !watched(fd)) return;
    pthread_mutex_lock(&lock);
    open_log();
    put("S", 1);
    pthread_mutex_unlock(&lock);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t offset) {
    ssize_t r = real_pwrite(fd, buf, n, offset);
    struct iovec iov = {(void *)buf, n};
    record(fd, &iov, 1, offset, r);
    return r;
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t offset) {
    ssize_t r = real_pwrite64(fd, buf, n, offset);
    struct iovec iov = {(void *)buf, n};
    record(fd, &iov, 1, offset, r);
    return r;
}

ssize_t pwritev(int fd, const struct iovec *iov, int count, off_t offset) {
    ssize_t r = real_pwritev(fd, iov, count, offset);
    record(fd, iov, count, offset, r);
    return r;
}

ssize_t pwritev64(int fd, const struct iovec *iov, int count, off_t offset) {
    ssize_t r = real_pwritev64(fd, iov, count, offset);
    record(fd, iov, count, offset, r);
    return r;
}

ssize_t write(int fd, const void *buf, size_t n) {
    if (fd == log_fd) return real_write(fd, buf, n);
    off_t at = lseek(fd, 0, SEEK_CUR);
    ssize_t r = real_write(fd, buf, n);
    struct iovec iov = {(void *)buf, n};
    if (at != (off_t)-1) record(fd, &iov, 1, at, r);
    return r;
}

ssize_t writev(int fd, const struct iovec *iov, int count) {
    off_t at = lseek(fd, 0, SEEK_CUR);
    ssize_t r = real_writev(fd, iov, count);
    if (at != (off_t)-1) record(fd, iov, count, at, r);
    return r;
}

int fsync(int fd) {
    int r = real_fsync(fd);
    record_sync(fd, r);
    return r;
}

int fdatasync(int fd) {
    int r = real_fdatasync(fd);
    record_sync(fd, r);
    return r;
}
