// Starting a farm process as a copy of its parent (fork without exec): see Spawn.swift for why.
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

pid_t cfarm_fork_alone(const char *log_path, int handed_down, int new_session) {
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
    if (handed_down >= 0 && handed_down != 3 && dup2(handed_down, 3) < 0) _exit(127);
    // The parent's descriptors (its registry entry and supervisor lock above all) stay its own:
    // a copy holding them would keep those locks taken after the parent died.
    closefrom(handed_down >= 0 ? 4 : 3);
    if (new_session) setsid();
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    return 0;
}

/// Where this process's arguments lie: fields 48 and 49 (arg_start, arg_end) of /proc/self/stat,
/// the room /proc/<pid>/cmdline shows. argv itself cannot tell once a title was written.
static int argument_area(char **start, char **end) {
    char buffer[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t count = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (count <= 0) return -1;
    buffer[count] = 0;
    // Field 2, the command's name, may hold spaces: count from the parenthesis that closes it.
    char *field = strrchr(buffer, ')');
    for (int number = 2; field != NULL && number < 48; number++) field = strchr(field + 1, ' ');
    unsigned long first, last;
    if (field == NULL || sscanf(field, " %lu %lu", &first, &last) != 2 || last <= first) return -1;
    *start = (char *)first;
    *end = (char *)last;
    return 0;
}

int cfarm_set_title(const char *const *title, int count) {
    char *start, *end;
    if (argument_area(&start, &end) != 0) return 0;
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
