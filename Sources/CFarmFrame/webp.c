// See CFarmFrame.h for why this file exists: libwebp's inline entry points and its animation decoder.
#include "CFarmFrame.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/demux.h>

/// libwebp's status in words, for the resource's error.
static const char *status_text(VP8StatusCode status) {
    switch (status) {
    case VP8_STATUS_OK: return "no error";
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "damaged data";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_SUSPENDED: return "suspended";
    case VP8_STATUS_USER_ABORT: return "aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the file is cut short";
    }
    return "unknown error";
}

static int fail(char *error, size_t error_size, const char *reason) {
    if (error_size > 0) snprintf(error, error_size, "cannot decode the WebP: %s", reason);
    return -1;
}

/// The first frame of an animation, as its decoder composes it on the canvas (RGBA, not premultiplied).
static int decode_animation(const unsigned char *bytes, size_t count, long max_pixels, cfarm_frame *out,
                            char *error, size_t error_size) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return fail(error, error_size, "libwebp's version does not match");
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;  // a worker converts one image at a time on its own thread
    WebPData data = {bytes, count};
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&data, &options);
    if (decoder == NULL) return fail(error, error_size, "damaged animation");
    WebPAnimInfo info;
    int status = -1;
    uint8_t *frame;
    int timestamp;
    if (!WebPAnimDecoderGetInfo(decoder, &info)) {
        fail(error, error_size, "damaged animation");
    } else if ((long)info.canvas_width * (long)info.canvas_height > max_pixels) {
        if (error_size > 0) {
            snprintf(error, error_size, "cannot decode the WebP: too large (%u×%u pixels)", info.canvas_width,
                     info.canvas_height);
        }
    } else if (!WebPAnimDecoderGetNext(decoder, &frame, &timestamp)) {
        fail(error, error_size, "its first frame is damaged");
    } else if ((out->pixels = malloc((size_t)info.canvas_width * info.canvas_height * 4)) == NULL) {
        fail(error, error_size, "out of memory");
    } else {
        memcpy(out->pixels, frame, (size_t)info.canvas_width * info.canvas_height * 4);
        out->width = (int)info.canvas_width;
        out->height = (int)info.canvas_height;
        status = 0;
    }
    WebPAnimDecoderDelete(decoder);
    return status;
}

int cfarm_webp_decode(const unsigned char *bytes, size_t count, long max_pixels, cfarm_frame *out,
                      char *error, size_t error_size) {
    memset(out, 0, sizeof *out);
    if (error_size > 0) error[0] = '\0';
    WebPBitstreamFeatures features;
    VP8StatusCode status = WebPGetFeatures(bytes, count, &features);
    if (status != VP8_STATUS_OK) return fail(error, error_size, status_text(status));
    // Each side is at most 2^24 as read: their product fits a long.
    if (features.width <= 0 || features.height <= 0) return fail(error, error_size, "it has no size");
    if ((long)features.width * (long)features.height > max_pixels) {
        if (error_size > 0) {
            snprintf(error, error_size, "cannot decode the WebP: too large (%d×%d pixels)", features.width,
                     features.height);
        }
        return -1;
    }
    if (features.has_animation) return decode_animation(bytes, count, max_pixels, out, error, error_size);
    size_t stride = (size_t)features.width * 4, size = stride * (size_t)features.height;
    unsigned char *pixels = malloc(size);
    if (pixels == NULL) return fail(error, error_size, "out of memory");
    if (WebPDecodeRGBAInto(bytes, count, pixels, size, (int)stride) == NULL) {
        free(pixels);
        return fail(error, error_size, "damaged data");
    }
    out->pixels = pixels;
    out->width = features.width;
    out->height = features.height;
    return 0;
}
