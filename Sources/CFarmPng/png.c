#include "CFarmPng.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

// One PNG being written: the file, the deflate stream of the IDAT data, and the IDAT chunk being
// filled. The zlib wrapper around the raw deflate stream is ours, for its checksum (below).
typedef struct {
    FILE *file;
    z_stream zs;
    uint32_t adler;
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

#if defined(__x86_64__)
static uint32_t lanes(__m128i v) {
    uint32_t lane[4];
    _mm_storeu_si128((__m128i *)lane, v);
    return lane[0] + lane[1] + lane[2] + lane[3];
}

// Adler-32 sixteen bytes at a time. zlib 1.2's is a byte loop and took an eighth of a worker's time
// once pages were rendered fast. For each block of 32 bytes: a += their sum; b += 32 × a (as it was
// before the block) + Σ (32 − i) × byte i. Runs of at most 173 blocks keep every 32-bit lane from
// overflowing before the sums are reduced (zlib's NMAX is 5552 bytes).
__attribute__((target("ssse3"))) static uint32_t adler32_ssse3(uint32_t adler, const unsigned char *p, size_t n) {
    uint64_t a = adler & 0xFFFF, b = adler >> 16;
    const __m128i zero = _mm_setzero_si128(), ones = _mm_set1_epi16(1);
    const __m128i first_weights = _mm_setr_epi8(32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17);
    const __m128i second_weights = _mm_setr_epi8(16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
    while (n >= 32) {
        size_t blocks = n / 32 < 173 ? n / 32 : 173;
        n -= blocks * 32;
        b += 32 * blocks * a;
        __m128i sums = zero, earlier = zero, weighted = zero;
        for (size_t k = 0; k < blocks; k++, p += 32) {
            __m128i first = _mm_loadu_si128((const __m128i *)p), second = _mm_loadu_si128((const __m128i *)(p + 16));
            earlier = _mm_add_epi32(earlier, sums);
            sums = _mm_add_epi32(sums, _mm_add_epi32(_mm_sad_epu8(first, zero), _mm_sad_epu8(second, zero)));
            weighted = _mm_add_epi32(weighted, _mm_madd_epi16(_mm_maddubs_epi16(first, first_weights), ones));
            weighted = _mm_add_epi32(weighted, _mm_madd_epi16(_mm_maddubs_epi16(second, second_weights), ones));
        }
        b += 32 * (uint64_t)lanes(earlier) + lanes(weighted);
        a += lanes(sums);
        a %= 65521;
        b %= 65521;
    }
    for (; n > 0; n--) {
        a += *p++;
        b += a;
    }
    return (uint32_t)((b % 65521) << 16 | (a % 65521));
}
#endif

uint32_t cfarm_adler32(uint32_t adler, const unsigned char *bytes, size_t count) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("ssse3")) return adler32_ssse3(adler, bytes, count);
#endif
    return (uint32_t)adler32(adler, bytes, (uInt)count);
}

// Deflates `count` bytes of filtered scanlines (or finishes the stream) into IDAT chunks.
static int deflate_into(writer *w, const unsigned char *bytes, size_t count, int flush) {
    if (count > 0) w->adler = cfarm_adler32(w->adler, bytes, count);
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
        errno = 0;
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
        errno = 0;
        return -1;
    }
    w->file = fopen(path, "wbe");
    if (!w->file) {
        int saved = errno;
        snprintf(error, error_size, "cannot create %s: %s", path, strerror(saved));
        free(w), free(line), free(current), free(previous);
        errno = saved;
        return -1;
    }
    // Fastest level, as libpng's Z_BEST_SPEED did: rendered pages and photos stay small enough.
    int ok = deflateInit2(&w->zs, Z_BEST_SPEED, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK;  // raw
    w->adler = 1;

    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    unsigned char header[13];
    put32(header, (uint32_t)width);
    put32(header + 4, (uint32_t)height);
    header[8] = 8;             // bits per sample
    header[9] = gray ? 0 : 2;  // grey, or RGB
    header[10] = header[11] = header[12] = 0;  // deflate, adaptive filtering, no interlace
    if (fwrite(signature, 1, 8, w->file) != 8) w->failed = 1;
    write_chunk(w, "IHDR", header, sizeof header);
    static const unsigned char zlib_header[2] = {0x78, 0x01};  // deflate, 32 KB window, fastest level
    append(w, zlib_header, 2);

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
        unsigned char trailer[4];
        put32(trailer, w->adler);
        append(w, trailer, 4);
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
    // The caller tells a full disk from a bad image by errno (0: the compression failed).
    if (failed) errno = ok ? saved : 0;
    return failed ? -1 : 0;
}
