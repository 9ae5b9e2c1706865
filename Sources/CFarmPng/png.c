#include "CFarmPng.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

typedef struct {
    char *error;
    size_t error_size;
} failure;

static void on_error(png_structp png, png_const_charp message) {
    failure *f = png_get_error_ptr(png);
    snprintf(f->error, f->error_size, "%s", message);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

int cfarm_png_write(const char *path, const unsigned char *pixels, int width, int height, int stride, int layout,
                    char *error, size_t error_size) {
    if (width <= 0 || height <= 0 || (layout != CFARM_PNG_RGB24 && layout != CFARM_PNG_GRAY8)) {
        snprintf(error, error_size, "cannot write a %dx%d image in layout %d", width, height, layout);
        return -1;
    }
    FILE *file = fopen(path, "wbe");
    if (!file) {
        snprintf(error, error_size, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    failure f = {error, error_size};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &f, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    // Volatile: read after a longjmp back into this frame.
    unsigned char *volatile row = NULL;
    if (!png || !info) {
        snprintf(error, error_size, "out of memory for the PNG writer");
        goto fail;
    }
    if (setjmp(png_jmpbuf(png))) goto fail;

    png_init_io(png, file);
    png_set_compression_level(png, Z_BEST_SPEED);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
    int gray = layout == CFARM_PNG_GRAY8;
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, gray ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_write_info(png, info);
    if (!gray) {
        row = malloc((size_t)width * 3);
        if (!row) {
            snprintf(error, error_size, "out of memory for a row of %d pixels", width);
            goto fail;
        }
    }
    for (int y = 0; y < height; y++) {
        const unsigned char *source = pixels + (size_t)y * (size_t)stride;
        if (gray) {
            png_write_row(png, source);
            continue;
        }
        const unsigned int *words = (const unsigned int *)source;
        for (int x = 0; x < width; x++) {
            unsigned int word = words[x];
            row[3 * x] = (unsigned char)(word >> 16);
            row[3 * x + 1] = (unsigned char)(word >> 8);
            row[3 * x + 2] = (unsigned char)word;
        }
        png_write_row(png, row);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(row);
    if (fclose(file) != 0) {
        snprintf(error, error_size, "cannot write %s: %s", path, strerror(errno));
        unlink(path);
        return -1;
    }
    return 0;

fail:
    if (png) png_destroy_write_struct(&png, info ? &info : NULL);
    free(row);
    fclose(file);
    unlink(path);
    return -1;
}
