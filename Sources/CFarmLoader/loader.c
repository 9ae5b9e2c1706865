#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "loader.h"

enum { untried, loaded, failed };

static void load(cfarm_library *library) {
    // RTLD_LOCAL: its symbols stay out of the process's global scope, which later lookups walk.
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(library->failure, sizeof library->failure, "cannot load %s: %s", library->soname, dlerror());
        return;
    }
    for (int i = 0; i < library->count; i++) {
        library->slots[i] = dlsym(handle, library->names[i]);
        if (!library->slots[i]) {
            snprintf(library->failure, sizeof library->failure, "%s has no %s", library->soname,
                     library->names[i]);
            return;
        }
    }
}

const char *cfarm_library_load(cfarm_library *library) {
    // Every call goes through here (curl's setopt about 20 times a job): once set, one load.
    int state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
    if (state == untried) {
        pthread_mutex_lock(&library->lock);
        state = library->state;
        if (state == untried) {
            load(library);
            state = library->failure[0] ? failed : loaded;
            __atomic_store_n(&library->state, state, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&library->lock);
    }
    return state == loaded ? NULL : library->failure;
}

void *cfarm_library_symbol(cfarm_library *library, int slot) {
    const char *why = cfarm_library_load(library);
    if (why) {
        fprintf(stderr, "farm: %s\n", why);
        abort();
    }
    return library->slots[slot];
}
