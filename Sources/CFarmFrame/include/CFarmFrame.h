// CFarmFrame: the first frame of a GIF (over giflib, gif.c) or a WebP (over libwebp, webp.c) as RGBA pixels,
// for display images and thumbnails. One target and one frame type for both: FarmConvert's FirstFrame calls
// either the same way.
//
// Why in C. giflib reads through a callback (DGifOpen's InputFunc) that finds its source in the GifFileType,
// and a first frame takes a walk over records (the graphics control extension before the image, which names
// the transparent color; the image's own or the global color map; interlaced rows) that is C's to do; it
// stops at the first image: DGifSlurp would decode every frame of an animation to show one. libwebp's
// WebPGetFeatures and WebPAnimDecoderOptionsInit are static inline functions that pass its ABI version to
// its *Internal entry points, which Swift cannot call; an animated WebP does not decode with WebPDecode at
// all (VP8_STATUS_UNSUPPORTED_FEATURE): its first frame comes from libwebpdemux's animation decoder,
// composed on the animation's canvas. The libraries' headers stay inside the .c files.
//
// Each decode returns 0 or -1 with the reason written into the caller's `error` buffer (NUL-terminated,
// truncated to `error_size`). Every symbol is prefixed with `cfarm_`.
#ifndef CFARM_FRAME_H
#define CFARM_FRAME_H

#include <stddef.h>

/// A decoded frame: rows of `width` pixels of 4 bytes (red, green, blue, alpha; not premultiplied), no
/// padding between rows.
typedef struct {
    /// malloc'd; the caller frees it with free().
    unsigned char *pixels;
    int width;
    int height;
} cfarm_frame;

/// Decodes the first frame of the GIF in `bytes` (`count` of them) onto its logical screen (grown to hold
/// the frame when the screen is smaller, as some encoders write a screen of 0 × 0): the frame's pixels
/// in its own or the global colors, the transparent index and the screen outside the frame transparent.
/// Refused when the screen would have more than `max_pixels` pixels, before anything is allocated.
/// A file cut short is an error. Returns 0 and fills `out`, or -1 with the reason in `error`.
int cfarm_gif_decode(const unsigned char *bytes, size_t count, long max_pixels, cfarm_frame *out,
                     char *error, size_t error_size);

/// Decodes the WebP in `bytes` (`count` of them): a still image, lossy or lossless, or the first frame of an
/// animation on its canvas. Refused when it would have more than `max_pixels` pixels, before they are
/// allocated. Returns 0 and fills `out`, or -1 with the reason in `error`.
int cfarm_webp_decode(const unsigned char *bytes, size_t count, long max_pixels, cfarm_frame *out,
                      char *error, size_t error_size);

#endif
