#include "CFarmPng.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

// One PNG being written: the file, the zlib stream of the IDAT data, and the IDAT chunk being filled.
typedef struct {
    FILE *file;
    z_stream zs;
    unsigned char chunk[1 << 16];
    size_t used;
    int failed;
} writer;

static void put32(unsigned char *at, uint32_t value) {
    at[0] = (unsigned char)(value >> 24);
    at[1] = (unsigned char)(value >> 16);
    at[2] = (unsigned char)(value >> 8);
    at[3] = (unsigned char)value;
}

static void write_chunk(writer *w, const char *type, const unsigned char *data, size_t length) {
    unsigned char head[8];
    put32(head, (uint32_t)length);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(crc32(0, NULL, 0), (const Bytef *)type, 4);
    if (length > 0) crc = crc32(crc, data, (uInt)length);
    unsigned char tail[4];
    put32(tail, (uint32_t)crc);
    if (fwrite(head, 1, 8, w->file) != 8 || (length > 0 && fwrite(data, 1, length, w->file) != length)
        || fwrite(tail, 1, 4, w->file) != 4) {
        w->failed = 1;
    }
}

static void append(writer *w, const unsigned char *bytes, size_t count) {
    while (count > 0) {
        size_t room = sizeof w->chunk - w->used, n = count < room ? count : room;
        memcpy(w->chunk + w->used, bytes, n);
        w->used += n;
        bytes += n;
        count -= n;
        if (w->used == sizeof w->chunk) {
            write_chunk(w, "IDAT", w->chunk, w->used);
            w->used = 0;
        }
    }
}

// Deflates `count` bytes of filtered scanlines (or finishes the stream) into IDAT chunks.
static int deflate_into(writer *w, const unsigned char *bytes, size_t count, int flush) {
    w->zs.next_in = (Bytef *)bytes;
    w->zs.avail_in = (uInt)count;
    unsigned char out[1 << 15];
    int status;
    do {
        w->zs.next_out = out;
        w->zs.avail_out = sizeof out;
        status = deflate(&w->zs, flush);
        if (status == Z_STREAM_ERROR) return -1;
        append(w, out, sizeof out - w->zs.avail_out);
    } while (w->zs.avail_out == 0 || (flush == Z_FINISH && status != Z_STREAM_END));
    return 0;
}

int cfarm_png_write(const char *path, const unsigned char *pixels, int width, int height, int stride, int layout,
                    char *error, size_t error_size) {
    if (width <= 0 || height <= 0 || (layout != CFARM_PNG_RGB24 && layout != CFARM_PNG_GRAY8)) {
        snprintf(error, error_size, "cannot write a %dx%d image in layout %d", width, height, layout);
        return -1;
    }
    int gray = layout == CFARM_PNG_GRAY8;
    size_t row_bytes = (size_t)width * (gray ? 1 : 3);
    writer *w = calloc(1, sizeof *w);
    // A filter-type byte, then the row; the previous row for the Up filter (zeros above the first).
    unsigned char *line = malloc(row_bytes + 1), *current = calloc(row_bytes, 1), *previous = calloc(row_bytes, 1);
    if (!w || !line || !current || !previous) {
        snprintf(error, error_size, "out of memory for a row of %d pixels", width);
        free(w), free(line), free(current), free(previous);
        return -1;
    }
    w->file = fopen(path, "wbe");
    if (!w->file) {
        snprintf(error, error_size, "cannot create %s: %s", path, strerror(errno));
        free(w), free(line), free(current), free(previous);
        return -1;
    }
    // Fastest level, as libpng's Z_BEST_SPEED did: rendered pages and photos stay small enough.
    int ok = deflateInit(&w->zs, Z_BEST_SPEED) == Z_OK;

    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    unsigned char header[13];
    put32(header, (uint32_t)width);
    put32(header + 4, (uint32_t)height);
    header[8] = 8;             // bits per sample
    header[9] = gray ? 0 : 2;  // grey, or RGB
    header[10] = header[11] = header[12] = 0;  // deflate, adaptive filtering, no interlace
    if (fwrite(signature, 1, 8, w->file) != 8) w->failed = 1;
    write_chunk(w, "IHDR", header, sizeof header);

    line[0] = 2;  // Up: each byte minus the one above it
    for (int y = 0; ok && y < height; y++) {
        const unsigned char *source = pixels + (size_t)y * (size_t)stride;
        if (gray) {
            memcpy(current, source, row_bytes);
        } else {
            const uint32_t *words = (const uint32_t *)source;
            for (int x = 0; x < width; x++) {
                uint32_t word = words[x];
                current[3 * x] = (unsigned char)(word >> 16);
                current[3 * x + 1] = (unsigned char)(word >> 8);
                current[3 * x + 2] = (unsigned char)word;
            }
        }
        for (size_t i = 0; i < row_bytes; i++) line[i + 1] = (unsigned char)(current[i] - previous[i]);
        unsigned char *swap = previous;
        previous = current;
        current = swap;
        if (deflate_into(w, line, row_bytes + 1, Z_NO_FLUSH) != 0) ok = 0;
    }
    if (ok && deflate_into(w, NULL, 0, Z_FINISH) != 0) ok = 0;
    deflateEnd(&w->zs);
    if (ok) {
        if (w->used > 0) write_chunk(w, "IDAT", w->chunk, w->used);
        write_chunk(w, "IEND", NULL, 0);
    }
    int failed = !ok || w->failed;
    int saved = errno;
    if (fclose(w->file) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    if (failed) {
        snprintf(error, error_size, ok ? "cannot write %s: %s" : "cannot compress %s%s", path,
                 ok ? strerror(saved) : "");
        unlink(path);
    }
    free(w), free(line), free(current), free(previous);
    return failed ? -1 : 0;
}
