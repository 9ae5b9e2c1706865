// CFarmLoader: a shared library opened with dlopen on its first use, for the libraries only some
// farm processes call (see CFarmRenderLoader and CFarmCurlLoader). Linked, each would cost every
// process its dynamic linking at start-up.
#ifndef CFARM_LOADER_H
#define CFARM_LOADER_H

#include <pthread.h>

/// One library and the functions farm calls in it. Defined statically with CFARM_LIBRARY; loaded at
/// most once, from any thread.
typedef struct {
    const char *soname;
    /// The functions' names, and where their addresses go once loaded: `count` of each.
    const char *const *names;
    void **slots;
    int count;
    pthread_mutex_t lock;
    /// Untried, loaded or failed (read without the lock once set).
    int state;
    char failure[512];
} cfarm_library;

#define CFARM_LIBRARY(soname, names, slots) \
    { (soname), (names), (slots), (int)(sizeof(names) / sizeof((names)[0])), PTHREAD_MUTEX_INITIALIZER, 0, {0} }

/// Loads `library` the first time: NULL when it and every function are there, else why not.
const char *cfarm_library_load(cfarm_library *library);

/// The address of the function in `slot`. Where the library cannot be loaded a call cannot return
/// a value of its type: callers check cfarm_library_load first and report it; this aborts, saying why.
void *cfarm_library_symbol(cfarm_library *library, int slot);

#endif
