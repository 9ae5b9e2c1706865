// CFarmPng: a fast PNG writer for display images and thumbnails, straight onto zlib.
//
// cairo's own PNG writer compresses at zlib's default level and offers no knob; a 1600 px page spent
// most of its time there. This one writes cairo's opaque layouts with the fastest zlib level and the
// Up filter, which keeps rendered pages and photos small enough. The chunks, the filter and the zlib
// wrapper (with a vectorised Adler-32) are written here, around zlib's raw deflate, because libpng's
// row handling costs as much as the compression itself. It returns 0 or -1 with the reason in `error`.
#ifndef CFARM_PNG_H
#define CFARM_PNG_H

#include <stddef.h>
#include <stdint.h>

/// The pixel layouts `cfarm_png_write` takes, as cairo stores them.
enum {
    /// CAIRO_FORMAT_RGB24: one native-endian 32-bit word per pixel, 0x00RRGGBB.
    CFARM_PNG_RGB24 = 0,
    /// CAIRO_FORMAT_A8: one byte per pixel, written as 8-bit grey.
    CFARM_PNG_GRAY8 = 1,
};

/// Writes `height` rows of `width` pixels in `layout`, `stride` bytes apart, as a PNG at `path`
/// (created or truncated). Returns 0, or -1 with the reason in `error` (the file is then removed) and
/// errno set to the error of the failed create or write (0 for a bad size, no memory, a failed compression):
/// a full disk is no fault of the image.
int cfarm_png_write(const char *path, const unsigned char *pixels, int width, int height, int stride, int layout,
                    char *error, size_t error_size);

/// The Adler-32 of `count` bytes continuing from `adler` (1 to start), as zlib's `adler32`; exposed
/// for its tests.
uint32_t cfarm_adler32(uint32_t adler, const unsigned char *bytes, size_t count);

#endif
