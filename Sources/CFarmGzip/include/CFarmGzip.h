// CFarmGzip: gzip members (RFC 1952) through zlib, for WARC files (FarmWARC).
//
// zlib's deflateInit2 and inflateInit2 are macros (they pass the library's version and the size of its
// stream), which Swift does not import; the stream itself is a struct of pointers better kept on this
// side. So each stream lives here behind an opaque handle, and Swift drives it a buffer at a time.
// Every symbol is prefixed with `cfarm_gzip`.
#ifndef CFARM_GZIP_H
#define CFARM_GZIP_H

#include <stddef.h>

/// One zlib stream: a deflater that writes one gzip member, or an inflater that reads one (both may be reset
/// for the next member). Owned by one thread at a time.
typedef struct cfarm_gzip cfarm_gzip;

/// A deflater making one gzip member at `level` (0-9, or -1 for zlib's default), with zlib's minimal header
/// (no name, no time). NULL when out of memory.
cfarm_gzip *cfarm_gzip_deflater(int level);

/// An inflater of one gzip member (a gzip header is required: windowBits 15 + 16); it stops at the member's
/// end, after checking its CRC-32 and length. NULL when out of memory.
cfarm_gzip *cfarm_gzip_inflater(void);

/// Runs the stream over up to `in_count` bytes of `in` into up to `out_size` bytes of `out`; `finish` (deflate
/// only) ends the member once all input is taken. Sets `*in_used` and `*out_made`.
/// Returns 1 at the member's end (deflate: trailer written; inflate: trailer checked), 0 when more input or
/// more room is needed, -1 when the data is not a gzip member or fails its check (`cfarm_gzip_message` says why).
int cfarm_gzip_run(cfarm_gzip *stream, const unsigned char *in, size_t in_count, unsigned char *out,
                   size_t out_size, int finish, size_t *in_used, size_t *out_made);

/// Makes the stream ready for the next member (deflateReset or inflateReset). Returns 0 or -1.
int cfarm_gzip_reset(cfarm_gzip *stream);

/// zlib's bound on the size of a gzip member holding `count` bytes (deflateBound, header and trailer included).
size_t cfarm_gzip_bound(cfarm_gzip *stream, size_t count);

/// zlib's message for the last error of the stream, or a generic one; never NULL.
const char *cfarm_gzip_message(const cfarm_gzip *stream);

/// Frees the stream (NULL is allowed).
void cfarm_gzip_free(cfarm_gzip *stream);

#endif
