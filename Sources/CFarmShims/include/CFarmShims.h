// CFarmShims: the few C entry points Swift cannot call directly.
//
// - renameat2(RENAME_NOREPLACE), syncfs, sync_file_range, statfs, SEEK_HOLE, copy_file_range, gettid and
//   POSIX_SPAWN_SETSID are hidden from Swift's Glibc module, which is built without _GNU_SOURCE; shims.c
//   defines it and re-exports them. FICLONE is a macro of arguments (_IOW), which Swift does not import.
// Every symbol is prefixed with `cfarm_`.
#ifndef CFARM_SHIMS_H
#define CFARM_SHIMS_H

#include <stdint.h>
#include <sys/types.h>
#include <spawn.h>
#include <sys/xattr.h>

// MARK: files

/// rename(2) that fails with EEXIST instead of replacing `newpath`. Returns 0 or -1 with errno set.
int cfarm_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);

/// renameat2(RENAME_EXCHANGE): swaps the two names in one step (both must exist; directories too).
/// Returns 0 or -1 with errno set.
int cfarm_rename_exchange(const char *oldpath, const char *newpath);

/// open(2) of an unnamed regular file in the folder `dir` (O_TMPFILE, a macro Swift does not see),
/// for writing. Returns the descriptor, or -1 with errno set (EOPNOTSUPP where the file system has none).
int cfarm_open_unnamed(const char *dir, unsigned int mode);

/// linkat(2) of the descriptor `fd` (an unnamed file) to `path`, by its /proc/self/fd name. Returns 0
/// or -1 with errno set (EEXIST when `path` is taken).
int cfarm_link_descriptor(int fd, const char *path);

/// ioctl(2) FICLONE: makes `dst` share the extents of the whole of `src` (a reflink: copy on write, so a
/// write to either leaves the other as it was). Returns 0 or -1 with errno set (EOPNOTSUPP, EXDEV or
/// EINVAL where the file systems cannot).
int cfarm_clone_file(int dst, int src);

/// copy_file_range(2) of up to `count` bytes from `src` at `*src_offset` to `dst` at `*dst_offset`, both
/// offsets moved past what was copied. Returns how many bytes, 0 at the end of `src`, or -1 with errno set.
int64_t cfarm_copy_file_range(int src, int64_t *src_offset, int dst, int64_t *dst_offset, size_t count);

/// syncfs(2): flush every dirty page of the filesystem holding `fd` in one call.
int cfarm_syncfs(int fd);
/// sync_file_range(2) with WAIT_BEFORE, WRITE and WAIT_AFTER: the bytes `offset..<offset+count` of `fd`
/// written back to the disk, and waited for.
int cfarm_sync_range(int fd, int64_t offset, int64_t count);

/// statfs(2)'s f_type (the file system's magic number) for `path` into `type`. Returns 0 or -1 with
/// errno set. <sys/vfs.h> is not part of Swift's Glibc module.
int cfarm_statfs_type(const char *path, int64_t *type);

/// lseek(2) with SEEK_HOLE: where the first hole of `fd` at or after `offset` starts (the file's end when
/// it has none after it), or -1 with errno set (ENXIO when `offset` is at or past the end).
int64_t cfarm_seek_hole(int fd, int64_t offset);

// MARK: processes

/// Sets POSIX_SPAWN_SETSID (plus `flags`) on `attr`, so the child starts its own session.
int cfarm_spawnattr_setsid(posix_spawnattr_t *attr, short flags);

/// Closes every descriptor from `lowfd` up in the child: nothing leaks into a long-lived process.
int cfarm_spawn_closefrom(posix_spawn_file_actions_t *actions, int lowfd);

/// fork(2), for a process with exactly one thread (else -1, errno EDEADLK). In the child: stdin
/// from /dev/null, stdout and stderr appended to `log_path`, `handed_down` (unless -1) at
/// descriptor 3, every other descriptor closed, no signal blocked (the parent's handlers stay),
/// and with `new_session` a session of its own.
pid_t cfarm_fork_alone(const char *log_path, int handed_down, int new_session);

/// Rewrites this process's arguments in place (what `ps` and /proc/<pid>/cmdline show) with the
/// first of the `count` strings of `title` that fit in the room the original ones took; the rest
/// of that room is zeroed. Returns how many fitted.
int cfarm_set_title(const char *const *title, int count);

/// Makes SIGTERM, SIGINT and SIGHUP set a flag instead of killing the process (a graceful stop: hand the
/// job back, then exit), and unblocks them. Async-signal-safe: the handler only stores a sig_atomic_t.
void cfarm_catch_stop_signals(void);

/// The stop signal received so far, or 0.
int cfarm_stop_signal(void);

/// Sets the nice value of the calling thread only (Linux keeps one per thread: setpriority(2) with
/// its gettid(2)), leaving the process's other threads as they are. Returns 0 or -1 with errno set.
int cfarm_set_thread_nice(int nice);

#endif
