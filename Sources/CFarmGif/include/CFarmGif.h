// CFarmGif: the first frame of a GIF as RGBA pixels, over giflib, for display images and thumbnails.
//
// giflib reads through a callback (DGifOpen's InputFunc) that finds its source in the GifFileType, and a
// first frame takes a walk over records (the graphics control extension before the image, which names the
// transparent color; the image's own or the global color map; interlaced rows) that is C's to do. So the
// whole decode is one C function over bytes in memory; it returns 0 or -1 with the reason written into the
// caller's `error` buffer (NUL-terminated, truncated to `error_size`). It stops at the first image:
// DGifSlurp would decode every frame of an animation to show one. giflib's headers stay inside gif.c.
// Every symbol is prefixed with `cfarm_gif_`.
#ifndef CFARM_GIF_H
#define CFARM_GIF_H

#include <stddef.h>

/// A decoded frame: rows of `width` pixels of 4 bytes (red, green, blue, alpha; not premultiplied), no
/// padding between rows.
typedef struct {
    /// malloc'd; the caller frees it with free().
    unsigned char *pixels;
    int width;
    int height;
} cfarm_gif_image;

/// Decodes the first frame of the GIF in `bytes` (`count` of them) onto its logical screen (grown to hold
/// the frame when the screen is smaller, as some encoders write a screen of 0 × 0): the frame's pixels
/// in its own or the global colors, the transparent index and the screen outside the frame transparent.
/// Refused when the screen would have more than `max_pixels` pixels, before anything is allocated.
/// A file cut short is an error. Returns 0 and fills `out`, or -1 with the reason in `error`.
int cfarm_gif_decode(const unsigned char *bytes, size_t count, long max_pixels, cfarm_gif_image *out,
                     char *error, size_t error_size);

#endif
