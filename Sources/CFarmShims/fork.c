// Starting a farm process as a copy of the supervisor (fork without exec): see Spawn.swift for why.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "CFarmShims.h"

/// Threads of this process, from /proc/self/task; -1 when it cannot be read.
static int thread_count(void) {
    DIR *tasks = opendir("/proc/self/task");
    if (tasks == NULL) return -1;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(tasks)) != NULL) {
        if (entry->d_name[0] != '.') count++;
    }
    closedir(tasks);
    return count;
}

pid_t cfarm_fork_alone(const char *log_path) {
    // Another thread may hold a lock (malloc's, the Swift runtime's) that the copy would find
    // taken forever: only a process with one thread may be copied.
    if (thread_count() != 1) {
        errno = EDEADLK;
        return -1;
    }
    // What stdio holds unwritten would be written twice, once by each process.
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0) return pid;
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int log = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (in < 0 || log < 0 || dup2(in, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0) _exit(127);
    // The parent's descriptors (its registry entry and supervisor lock above all) stay its own:
    // a copy holding them would keep those locks taken after the parent died.
    closefrom(3);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    return 0;
}

int cfarm_set_title(int argc, char **argv, const char *const *title, int count) {
    if (argc < 1 || argv == NULL || argv[0] == NULL) return 0;
    // The arguments the kernel laid out, one after another: the room /proc/<pid>/cmdline shows.
    char *start = argv[0];
    char *end = argv[0] + strlen(argv[0]) + 1;
    for (int i = 1; i < argc && argv[i] == end; i++) end += strlen(argv[i]) + 1;
    char *cursor = start;
    int written = 0;
    for (; written < count; written++) {
        size_t length = strlen(title[written]) + 1;
        if (length > (size_t)(end - cursor)) break;
        memcpy(cursor, title[written], length);
        cursor += length;
    }
    memset(cursor, 0, (size_t)(end - cursor));
    return written;
}
