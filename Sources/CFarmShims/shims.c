// _GNU_SOURCE must come before any header: it exposes renameat2, RENAME_NOREPLACE, syncfs, sync_file_range,
// SEEK_HOLE, copy_file_range and POSIX_SPAWN_SETSID, which Swift's Glibc module does not see.
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "CFarmShims.h"

int cfarm_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
    return renameat2(olddirfd, oldpath, newdirfd, newpath, RENAME_NOREPLACE);
}

int cfarm_rename_exchange(const char *oldpath, const char *newpath) {
    return renameat2(AT_FDCWD, oldpath, AT_FDCWD, newpath, RENAME_EXCHANGE);
}

int cfarm_syncfs(int fd) { return syncfs(fd); }

int cfarm_sync_range(int fd, int64_t offset, int64_t count) {
    return sync_file_range(fd, (off64_t)offset, (off64_t)count,
                           SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
}

int cfarm_open_unnamed(const char *dir, unsigned int mode) {
    return open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, (mode_t)mode);
}

int cfarm_link_descriptor(int fd, const char *path) {
    char name[64];
    snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, name, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

int cfarm_clone_file(int dst, int src) { return ioctl(dst, FICLONE, src); }

int64_t cfarm_copy_file_range(int src, int64_t *src_offset, int dst, int64_t *dst_offset, size_t count) {
    loff_t in = (loff_t)*src_offset, out = (loff_t)*dst_offset;
    ssize_t n = copy_file_range(src, &in, dst, &out, count, 0);
    *src_offset = (int64_t)in;
    *dst_offset = (int64_t)out;
    return (int64_t)n;
}

int cfarm_statfs_type(const char *path, int64_t *type) {
    struct statfs st;
    if (statfs(path, &st) != 0) return -1;
    *type = (int64_t)st.f_type;
    return 0;
}

int64_t cfarm_seek_hole(int fd, int64_t offset) {
    return (int64_t)lseek(fd, (off_t)offset, SEEK_HOLE);
}

int cfarm_spawnattr_setsid(posix_spawnattr_t *attr, short flags) {
    return posix_spawnattr_setflags(attr, flags | POSIX_SPAWN_SETSID);
}

int cfarm_spawn_closefrom(posix_spawn_file_actions_t *actions, int lowfd) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowfd);
}

// Read by every thread, written by the handler: a lock-free atomic (async-signal-safe), not a
// `volatile sig_atomic_t`, which is only for the thread the signal interrupts.
static _Atomic int stop_signal;

static void on_stop_signal(int signal) { atomic_store_explicit(&stop_signal, signal, memory_order_relaxed); }

void cfarm_catch_stop_signals(void) {
    struct sigaction action = {0};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    // A closed terminal: `farm demo` must still stop the farm it started, `top` give the terminal back.
    sigaction(SIGHUP, &action, NULL);
    // A process inherits its parent's signal mask: spawned from a thread that blocks these (as
    // Dispatch's threads do), it would never see them.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGHUP);
    pthread_sigmask(SIG_UNBLOCK, &signals, NULL);
}

int cfarm_stop_signal(void) { return atomic_load_explicit(&stop_signal, memory_order_relaxed); }

int cfarm_set_thread_nice(int nice) { return setpriority(PRIO_PROCESS, (id_t)gettid(), nice); }
