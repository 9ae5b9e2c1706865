// See CFarmJpeg.h for why this file exists: every libjpeg call that may longjmp stays in here.
#include "CFarmJpeg.h"

#include <errno.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h>
#include <jerror.h>

/// libjpeg's working memory cap: a progressive JPEG keeps every coefficient of the image in memory,
/// so a huge one fails with "Backing store not supported" instead of exhausting the machine.
#define CFARM_JPEG_MEMORY_LIMIT (512L * 1024 * 1024)

/// cairo's RGB24 word 0x00RRGGBB, laid out in memory: B, G, R, X on a little-endian machine.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define CFARM_JPEG_NATIVE_XRGB JCS_EXT_XRGB
#else
#define CFARM_JPEG_NATIVE_XRGB JCS_EXT_BGRX
#endif

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf escape;
    char message[JMSG_LENGTH_MAX];
} error_manager;

/// error_exit must not return: keep the message and jump back to the setjmp of the running call.
static void on_error(j_common_ptr cinfo) {
    error_manager *manager = (error_manager *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, manager->message);
    longjmp(manager->escape, 1);
}

/// A file cut short would decode as an image with a grey bottom: treat it as the error it is.
/// Other warnings (corrupt entropy data, extra bytes) are tolerated; nothing is printed.
static void on_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) on_error(cinfo);
    cinfo->err->num_warnings++;
}

/// Opens the file a whole decode or encode works on, or writes why it cannot into `error`.
static FILE *open_file(const char *path, const char *mode, const char *failure, char *error, size_t error_size) {
    FILE *file = fopen(path, mode);
    if (file == NULL) snprintf(error, error_size, "%s: %s", failure, strerror(errno));
    return file;
}

/// Zeroes a decompress or compress struct (`size` bytes) and gives it `manager` as its error manager.
static void install(j_common_ptr cinfo, size_t size, error_manager *manager) {
    memset(cinfo, 0, size);
    cinfo->err = jpeg_std_error(&manager->pub);
    manager->pub.error_exit = on_error;
    manager->pub.emit_message = on_message;
    manager->message[0] = '\0';
}

/// After a longjmp back to the call's setjmp: the reason into `error`, libjpeg's state and the file let go.
static void give_up(j_common_ptr cinfo, const error_manager *manager, FILE *file, char *error, size_t error_size) {
    if (error_size > 0) {
        snprintf(error, error_size, "%s", manager->message[0] ? manager->message : "unknown libjpeg error");
    }
    jpeg_destroy(cinfo);
    fclose(file);
}

/// One row of CMYK (4 bytes a pixel) to RGB24 words. Adobe's files store inverted inks.
static void cmyk_to_xrgb(const unsigned char *cmyk, uint32_t *xrgb, unsigned width, int inverted) {
    for (unsigned x = 0; x < width; x++, cmyk += 4) {
        unsigned c = cmyk[0], m = cmyk[1], y = cmyk[2], k = cmyk[3];
        if (!inverted) {
            c = 255 - c;
            m = 255 - m;
            y = 255 - y;
            k = 255 - k;
        }
        // Now each value is how much light the ink lets through; the colour is their product.
        uint32_t r = (c * k + 127) / 255, g = (m * k + 127) / 255, b = (y * k + 127) / 255;
        xrgb[x] = (r << 16) | (g << 8) | b;
    }
}

int cfarm_jpeg_decode(const char *path, int min_side, long max_pixels, cfarm_jpeg_image *out,
                      char *error, size_t error_size) {
    struct jpeg_decompress_struct cinfo;
    error_manager manager;
    // Changed after setjmp and read after a longjmp: volatile, so they are not kept in registers.
    unsigned char *volatile pixels = NULL;
    unsigned char *volatile cmyk_row = NULL;

    memset(out, 0, sizeof *out);
    FILE *file = open_file(path, "rb", "cannot open the image", error, error_size);
    if (file == NULL) return -1;
    install((j_common_ptr)&cinfo, sizeof cinfo, &manager);
    if (setjmp(manager.escape)) {
        give_up((j_common_ptr)&cinfo, &manager, file, error, error_size);
        free(pixels);
        free(cmyk_row);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.mem->max_memory_to_use = CFARM_JPEG_MEMORY_LIMIT;
    jpeg_stdio_src(&cinfo, file);
    jpeg_read_header(&cinfo, TRUE);

    // The largest 1/2^n (n <= 3) that keeps the longest side at least min_side: libjpeg-turbo then does
    // the scaling in its inverse DCT, skipping most of the work of a full decode.
    unsigned longest = cinfo.image_width > cinfo.image_height ? cinfo.image_width : cinfo.image_height;
    unsigned denom = 1;
    while (min_side > 0 && denom < 8 && (longest + 2 * denom - 1) / (2 * denom) >= (unsigned)min_side) denom *= 2;
    cinfo.scale_num = 1;
    cinfo.scale_denom = denom;
    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cmyk ? JCS_CMYK : CFARM_JPEG_NATIVE_XRGB;
    jpeg_calc_output_dimensions(&cinfo);
    if ((long)cinfo.output_width * (long)cinfo.output_height > max_pixels) {
        snprintf(manager.message, sizeof manager.message, "image too large: %u×%u pixels", cinfo.image_width,
                 cinfo.image_height);
        longjmp(manager.escape, 1);
    }

    jpeg_start_decompress(&cinfo);
    size_t stride = (size_t)cinfo.output_width * 4;
    pixels = malloc(stride * cinfo.output_height);
    if (cmyk) cmyk_row = malloc((size_t)cinfo.output_width * 4);
    if (pixels == NULL || (cmyk && cmyk_row == NULL)) {
        snprintf(manager.message, sizeof manager.message, "out of memory for %u×%u pixels", cinfo.output_width,
                 cinfo.output_height);
        longjmp(manager.escape, 1);
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        unsigned char *target = pixels + stride * cinfo.output_scanline;
        JSAMPROW row = cmyk ? cmyk_row : target;
        if (jpeg_read_scanlines(&cinfo, &row, 1) != 1) {
            snprintf(manager.message, sizeof manager.message, "JPEG data ended early");
            longjmp(manager.escape, 1);
        }
        if (cmyk) cmyk_to_xrgb(cmyk_row, (uint32_t *)target, cinfo.output_width, cinfo.saw_Adobe_marker);
    }
    jpeg_finish_decompress(&cinfo);

    out->pixels = pixels;
    out->width = (int)cinfo.output_width;
    out->height = (int)cinfo.output_height;
    out->stride = (int)stride;
    out->source_width = (int)cinfo.image_width;
    out->source_height = (int)cinfo.image_height;
    jpeg_destroy_decompress(&cinfo);
    free(cmyk_row);
    fclose(file);
    return 0;
}

int cfarm_jpeg_encode(const char *path, const unsigned char *pixels, int width, int height, int components,
                      int quality, char *error, size_t error_size) {
    struct jpeg_compress_struct cinfo;
    error_manager manager;

    if (pixels == NULL || width <= 0 || height <= 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION
        || (components != 1 && components != 3 && components != 4) || quality < 1 || quality > 100) {
        snprintf(error, error_size, "cannot encode a %d×%d JPEG of %d components at quality %d", width, height,
                 components, quality);
        return -1;
    }
    FILE *file = open_file(path, "wb", "cannot create the JPEG", error, error_size);
    if (file == NULL) return -1;
    install((j_common_ptr)&cinfo, sizeof cinfo, &manager);
    if (setjmp(manager.escape)) {
        give_up((j_common_ptr)&cinfo, &manager, file, error, error_size);
        unlink(path);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_stdio_dest(&cinfo, file);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : components == 3 ? JCS_RGB : JCS_CMYK;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = (size_t)width * (size_t)components;
    while (cinfo.next_scanline < cinfo.image_height) {
        // libjpeg's row type is not const, but it only reads the rows it is given.
        JSAMPROW row = (JSAMPROW)(pixels + stride * cinfo.next_scanline);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    if (fclose(file) != 0) {
        snprintf(error, error_size, "cannot write the JPEG: %s", strerror(errno));
        unlink(path);
        return -1;
    }
    return 0;
}
