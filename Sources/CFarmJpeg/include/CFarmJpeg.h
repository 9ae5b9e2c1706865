// CFarmJpeg: JPEG decode and encode over libjpeg-turbo, for thumbnails (and the demo's sample photos).
//
// libjpeg reports a fatal error by calling error_exit, which must not return: the only way out is a
// longjmp, and a longjmp across Swift frames is undefined behaviour. So each whole operation lives in
// one C function here, with a setjmp-based error manager; it returns 0 or -1 with the reason written
// into the caller's `error` buffer (NUL-terminated, truncated to `error_size`). libjpeg's headers stay
// inside jpeg.c. Every symbol is prefixed with `cfarm_jpeg_`.
#ifndef CFARM_JPEG_H
#define CFARM_JPEG_H

#include <stddef.h>

/// A decoded image in cairo's CAIRO_FORMAT_RGB24 layout: one native-endian 32-bit word per pixel,
/// 0x00RRGGBB (the top byte is unused). Rows are `stride` bytes apart, `stride` == 4 * `width`.
typedef struct {
    /// malloc'd; the caller frees it with free().
    unsigned char *pixels;
    int width;
    int height;
    int stride;
    /// The size stored in the file, before DCT scaling.
    int source_width;
    int source_height;
} cfarm_jpeg_image;

/// Decodes the JPEG at `path`. DCT scaling (1/2, 1/4 or 1/8) is used to decode at the smallest size
/// whose longest side is still at least `min_side` (0: full size); much cheaper than decoding in full.
/// Grayscale, YCbCr and RGB JPEGs are supported, and CMYK/YCCK ones are converted (Adobe's inverted
/// CMYK when an Adobe marker says so). A file cut short is an error; other corrupt-data warnings are
/// tolerated, as image viewers do. The decode is refused when it would exceed `max_pixels` output
/// pixels, and libjpeg's own working memory is capped (a huge progressive JPEG fails cleanly).
/// Returns 0 and fills `out`, or -1 with the reason in `error`.
int cfarm_jpeg_decode(const char *path, int min_side, long max_pixels, cfarm_jpeg_image *out,
                      char *error, size_t error_size);

/// Writes `pixels` (rows of `width` * `components` bytes, no padding) as a baseline JPEG at `path`.
/// `components` is 1 (grayscale), 3 (RGB) or 4 (CMYK, stored as given with an Adobe marker, so
/// pass Adobe's inverted values to make what Photoshop makes). `quality` is 1 to 100.
/// Returns 0, or -1 with the reason in `error` (and no file left behind).
int cfarm_jpeg_encode(const char *path, const unsigned char *pixels, int width, int height, int components,
                      int quality, char *error, size_t error_size);

#endif
