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

/// What each loader source defines, from `FUNCTIONS(X)`, the X macro that lists the functions it
/// forwards: one slot a function, their names, and the file's `library`, loaded from `soname`.
#define CFARM_LOADER_TABLE(FUNCTIONS, soname) \
    enum { FUNCTIONS(CFARM_LOADER_SLOT) cfarm_slot_count }; \
    static const char *const names[cfarm_slot_count] = { FUNCTIONS(CFARM_LOADER_NAME) }; \
    static void *slots[cfarm_slot_count]; \
    static cfarm_library library = CFARM_LIBRARY(soname, names, slots)
#define CFARM_LOADER_SLOT(name) cfarm_slot_##name,
#define CFARM_LOADER_NAME(name) #name,

/// In a loader source: the loaded function `name`, with the type its library's header gives it.
#define CALL(name) ((__typeof__(&name))cfarm_library_symbol(&library, cfarm_slot_##name))

/// On every forwarding definition. Hidden, so never exported: an executable that exports its symbols
/// (linked with --export-dynamic, as a static Swift runtime is) would otherwise hand these to the loaded
/// libraries in place of their own, and a call from inside them would come back here (and deadlock on
/// the loader's lock).
#define CFARM_HIDDEN __attribute__((visibility("hidden")))

#endif
