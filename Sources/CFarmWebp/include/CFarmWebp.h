// CFarmWebp: the first frame of a WebP as RGBA pixels, over libwebp, for display images and thumbnails.
//
// What Swift cannot call: WebPGetFeatures and WebPAnimDecoderOptionsInit are static inline functions that
// pass libwebp's ABI version to its *Internal entry points. An animated WebP does not decode with
// WebPDecode at all (VP8_STATUS_UNSUPPORTED_FEATURE): its first frame comes from libwebpdemux's animation
// decoder, composed on the animation's canvas. The decode returns 0 or -1 with the reason written into the
// caller's `error` buffer (NUL-terminated, truncated to `error_size`). Every symbol is prefixed with
// `cfarm_webp_`.
#ifndef CFARM_WEBP_H
#define CFARM_WEBP_H

#include <stddef.h>

/// A decoded frame: rows of `width` pixels of 4 bytes (red, green, blue, alpha; not premultiplied), no
/// padding between rows.
typedef struct {
    /// malloc'd; the caller frees it with free().
    unsigned char *pixels;
    int width;
    int height;
} cfarm_webp_image;

/// Decodes the WebP in `bytes` (`count` of them): a still image, lossy or lossless, or the first frame of an
/// animation on its canvas. Refused when it would have more than `max_pixels` pixels, before they are
/// allocated. Returns 0 and fills `out`, or -1 with the reason in `error`.
int cfarm_webp_decode(const unsigned char *bytes, size_t count, long max_pixels, cfarm_webp_image *out,
                      char *error, size_t error_size);

#endif
