// See include/CFarmGzip.h for why this shim exists.
#include "CFarmGzip.h"

#include <stdlib.h>
#include <zlib.h>

struct cfarm_gzip {
    z_stream z;
    int inflating;
    int failed;
};

cfarm_gzip *cfarm_gzip_deflater(int level) {
    cfarm_gzip *stream = calloc(1, sizeof *stream);
    if (stream == NULL) return NULL;
    // windowBits 15 + 16: a gzip header and trailer around the deflate data.
    if (deflateInit2(&stream->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(stream);
        return NULL;
    }
    return stream;
}

cfarm_gzip *cfarm_gzip_inflater(void) {
    cfarm_gzip *stream = calloc(1, sizeof *stream);
    if (stream == NULL) return NULL;
    stream->inflating = 1;
    // windowBits 15 + 16: gzip only (not zlib, not raw), so a member's CRC-32 and ISIZE are checked.
    if (inflateInit2(&stream->z, 15 + 16) != Z_OK) {
        free(stream);
        return NULL;
    }
    return stream;
}

int cfarm_gzip_run(cfarm_gzip *stream, const unsigned char *in, size_t in_count, unsigned char *out,
                   size_t out_size, int finish, size_t *in_used, size_t *out_made) {
    // zlib counts in uInt: larger buffers are taken in pieces by the caller's loop.
    uInt in_avail = in_count > 0x40000000u ? 0x40000000u : (uInt)in_count;
    uInt out_avail = out_size > 0x40000000u ? 0x40000000u : (uInt)out_size;
    stream->z.next_in = (Bytef *)in;
    stream->z.avail_in = in_avail;
    stream->z.next_out = out;
    stream->z.avail_out = out_avail;
    int result;
    if (stream->inflating) {
        result = inflate(&stream->z, Z_NO_FLUSH);
    } else {
        result = deflate(&stream->z, finish && in_avail == in_count ? Z_FINISH : Z_NO_FLUSH);
    }
    *in_used = in_avail - stream->z.avail_in;
    *out_made = out_avail - stream->z.avail_out;
    switch (result) {
    case Z_STREAM_END: return 1;
    case Z_OK: case Z_BUF_ERROR: return 0;  // Z_BUF_ERROR: no progress possible without more input or room
    default: stream->failed = result; return -1;
    }
}

int cfarm_gzip_reset(cfarm_gzip *stream) {
    stream->failed = 0;
    int result = stream->inflating ? inflateReset(&stream->z) : deflateReset(&stream->z);
    return result == Z_OK ? 0 : -1;
}

size_t cfarm_gzip_bound(cfarm_gzip *stream, size_t count) {
    // deflateBound counts the wrapper chosen at deflateInit2 (gzip: 18 bytes) in its bound.
    return (size_t)deflateBound(&stream->z, (uLong)count);
}

const char *cfarm_gzip_message(const cfarm_gzip *stream) {
    if (stream->z.msg != NULL) return stream->z.msg;
    switch (stream->failed) {
    case Z_MEM_ERROR: return "out of memory";
    case Z_NEED_DICT: return "a preset dictionary is needed";
    case Z_STREAM_ERROR: return "inconsistent stream state";
    default: return "not a gzip member";
    }
}

void cfarm_gzip_free(cfarm_gzip *stream) {
    if (stream == NULL) return;
    if (stream->inflating) inflateEnd(&stream->z); else deflateEnd(&stream->z);
    free(stream);
}
