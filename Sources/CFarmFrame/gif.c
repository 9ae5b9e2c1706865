// See CFarmFrame.h for why this file exists: giflib's callback and its walk over records stay in here.
#include "CFarmFrame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>

/// Where DGifOpen's reads come from: the caller's bytes, read once from the start.
typedef struct {
    const unsigned char *bytes;
    size_t count;
    size_t at;
} source;

/// giflib's InputFunc: up to `wanted` bytes; fewer at the end, which giflib reports as a read error.
static int read_source(GifFileType *gif, GifByteType *into, int wanted) {
    source *from = gif->UserData;
    size_t left = from->count - from->at;
    size_t count = wanted > 0 ? (size_t)wanted : 0;
    if (count > left) count = left;
    memcpy(into, from->bytes + from->at, count);
    from->at += count;
    return (int)count;
}

/// The reason into `error`: `what`, then giflib's words for `code` when it has some.
static int fail(char *error, size_t error_size, const char *what, int code) {
    const char *reason = code ? GifErrorString(code) : NULL;
    if (error_size > 0) snprintf(error, error_size, "%s%s%s", what, reason ? ": " : "", reason ? reason : "");
    return -1;
}

/// The image record just announced: its descriptor, then its rows (in GIF's four passes when interlaced)
/// drawn onto a transparent screen.
static int read_frame(GifFileType *gif, int transparent, long max_pixels, cfarm_frame *out, char *error,
                      size_t error_size) {
    if (DGifGetImageDesc(gif) == GIF_ERROR) return fail(error, error_size, "cannot decode the GIF", gif->Error);
    const GifImageDesc *frame = &gif->Image;
    const ColorMapObject *colors = frame->ColorMap ? frame->ColorMap : gif->SColorMap;
    if (colors == NULL) return fail(error, error_size, "cannot decode the GIF: it has no colors", 0);
    if (frame->Width <= 0 || frame->Height <= 0 || frame->Left < 0 || frame->Top < 0) {
        return fail(error, error_size, "cannot decode the GIF: its first frame has no size", 0);
    }
    // Each side is at most 65535 as read (two bytes): these products fit a long.
    long width = gif->SWidth, height = gif->SHeight;
    if (width < (long)frame->Left + frame->Width) width = (long)frame->Left + frame->Width;
    if (height < (long)frame->Top + frame->Height) height = (long)frame->Top + frame->Height;
    if (width * height > max_pixels) {
        if (error_size > 0) snprintf(error, error_size, "cannot decode the GIF: too large (%ld×%ld pixels)", width, height);
        return -1;
    }
    unsigned char *pixels = calloc((size_t)(width * height), 4);
    GifPixelType *row = malloc((size_t)frame->Width);
    if (pixels == NULL || row == NULL) {
        free(pixels);
        free(row);
        return fail(error, error_size, "cannot decode the GIF: out of memory", 0);
    }
    static const int starts[] = {0, 4, 2, 1}, steps[] = {8, 8, 4, 2};
    int passes = frame->Interlace ? 4 : 1;
    for (int pass = 0; pass < passes; pass++) {
        int start = frame->Interlace ? starts[pass] : 0, step = frame->Interlace ? steps[pass] : 1;
        for (int y = start; y < frame->Height; y += step) {
            if (DGifGetLine(gif, row, frame->Width) == GIF_ERROR) {
                free(pixels);
                free(row);
                return fail(error, error_size, "cannot decode the GIF", gif->Error);
            }
            unsigned char *to = pixels + ((size_t)(frame->Top + y) * (size_t)width + (size_t)frame->Left) * 4;
            for (int x = 0; x < frame->Width; x++, to += 4) {
                // An index past the color map is a damaged file's: left transparent, as the transparent one.
                if (row[x] == transparent || row[x] >= colors->ColorCount) continue;
                const GifColorType *color = &colors->Colors[row[x]];
                to[0] = color->Red;
                to[1] = color->Green;
                to[2] = color->Blue;
                to[3] = 255;
            }
        }
    }
    free(row);
    out->pixels = pixels;
    out->width = (int)width;
    out->height = (int)height;
    return 0;
}

/// The records up to the first image: graphics control extensions say which index is transparent.
static int read_first_frame(GifFileType *gif, long max_pixels, cfarm_frame *out, char *error, size_t error_size) {
    int transparent = NO_TRANSPARENT_COLOR;
    GifRecordType type;
    do {
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) return fail(error, error_size, "cannot decode the GIF", gif->Error);
        if (type == IMAGE_DESC_RECORD_TYPE) return read_frame(gif, transparent, max_pixels, out, error, error_size);
        if (type != EXTENSION_RECORD_TYPE) continue;
        int function;
        GifByteType *block;
        if (DGifGetExtension(gif, &function, &block) == GIF_ERROR) {
            return fail(error, error_size, "cannot decode the GIF", gif->Error);
        }
        GraphicsControlBlock control;
        // block[0] is the sub-block's length; a control block that is not 4 bytes long is ignored.
        if (function == GRAPHICS_EXT_FUNC_CODE && block != NULL
            && DGifExtensionToGCB(block[0], block + 1, &control) == GIF_OK) {
            transparent = control.TransparentColor;
        }
        while (block != NULL) {
            if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) {
                return fail(error, error_size, "cannot decode the GIF", gif->Error);
            }
        }
    } while (type != TERMINATE_RECORD_TYPE);
    return fail(error, error_size, "cannot decode the GIF: it holds no image", 0);
}

int cfarm_gif_decode(const unsigned char *bytes, size_t count, long max_pixels, cfarm_frame *out,
                     char *error, size_t error_size) {
    memset(out, 0, sizeof *out);
    if (error_size > 0) error[0] = '\0';
    source from = {bytes, count, 0};
    int code = 0;
    GifFileType *gif = DGifOpen(&from, read_source, &code);
    if (gif == NULL) return fail(error, error_size, "cannot decode the GIF", code);
    int status = read_first_frame(gif, max_pixels, out, error, error_size);
    DGifCloseFile(gif, &code);
    return status;
}
