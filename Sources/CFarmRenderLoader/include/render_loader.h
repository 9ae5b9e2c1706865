// CFarmRenderLoader: poppler-glib and cairo (with glib and gobject), loaded on first use.
//
// Linked normally, those libraries and their ~45 dependencies cost every farm process its time
// of dynamic linking at start-up, though only converting workers, thumbnails and the demo call
// them. So nothing links them: Swift sees their real headers through this one, and
// render_loader.c defines each function farm calls, under its own name, forwarding to the library
// it dlopen()s on the first call. A call to a function it lacks fails to link, not to run. It pays:
// preloaded, poppler-glib adds 5.7 ms to the 5 ms of CPU a short command takes (RESULTS.md).
#ifndef CFARM_RENDER_LOADER_H
#define CFARM_RENDER_LOADER_H

#include <poppler.h>
#include <cairo.h>

/// Loads the libraries once (thread-safe). Returns NULL when they are loaded, else why they are not.
const char *cfarm_render_load(void);

#endif
