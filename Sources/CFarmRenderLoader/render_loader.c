// Each function below has the signature its library's header declares (the compiler checks it
// against <poppler.h> and <cairo.h>) and forwards to the real one, found by dlsym in the library
// loaded on the first call. Only the functions farm calls are here: a new call needs a line.

// Without it poppler's header declares its functions with default visibility, and the definitions
// below could not be hidden (see CFARM_HIDDEN).
#define POPPLER_GLIB_STATIC_DEFINE
#include "loader.h"
#include "render_loader.h"

// poppler-glib pulls in cairo, glib and gobject: one dlopen brings every symbol below.
#define CFARM_RENDER_LIBRARY "libpoppler-glib.so.8"

#define CFARM_RENDER_FUNCTIONS(X) \
    X(poppler_document_new_from_file) X(poppler_document_get_n_pages) X(poppler_document_get_page) \
    X(poppler_page_get_size) X(poppler_page_render) \
    X(g_filename_to_uri) X(g_free) X(g_error_free) X(g_object_unref) \
    X(cairo_create) X(cairo_destroy) X(cairo_status) X(cairo_status_to_string) \
    X(cairo_paint) X(cairo_fill) X(cairo_arc) X(cairo_move_to) X(cairo_scale) X(cairo_show_text) \
    X(cairo_select_font_face) X(cairo_set_font_size) X(cairo_set_operator) \
    X(cairo_set_source) X(cairo_get_source) X(cairo_set_source_rgb) X(cairo_set_source_rgba) \
    X(cairo_set_source_surface) \
    X(cairo_pattern_create_linear) X(cairo_pattern_add_color_stop_rgb) X(cairo_pattern_set_extend) \
    X(cairo_pattern_set_filter) X(cairo_pattern_destroy) \
    X(cairo_image_surface_create) X(cairo_image_surface_create_from_png) X(cairo_image_surface_get_data) \
    X(cairo_image_surface_get_format) X(cairo_image_surface_get_width) X(cairo_image_surface_get_height) \
    X(cairo_image_surface_get_stride) \
    X(cairo_surface_destroy) X(cairo_surface_flush) X(cairo_surface_mark_dirty) X(cairo_surface_status) \
    X(cairo_surface_write_to_png)

CFARM_LOADER_TABLE(CFARM_RENDER_FUNCTIONS, CFARM_RENDER_LIBRARY);

const char *cfarm_render_load(void) { return cfarm_library_load(&library); }

CFARM_HIDDEN PopplerDocument *poppler_document_new_from_file(const char *uri, const char *password, GError **error) {
    return CALL(poppler_document_new_from_file)(uri, password, error);
}
CFARM_HIDDEN int poppler_document_get_n_pages(PopplerDocument *document) {
    return CALL(poppler_document_get_n_pages)(document);
}
CFARM_HIDDEN PopplerPage *poppler_document_get_page(PopplerDocument *document, int index) {
    return CALL(poppler_document_get_page)(document, index);
}
CFARM_HIDDEN void poppler_page_get_size(PopplerPage *page, double *width, double *height) {
    CALL(poppler_page_get_size)(page, width, height);
}
CFARM_HIDDEN void poppler_page_render(PopplerPage *page, cairo_t *cairo) { CALL(poppler_page_render)(page, cairo); }

CFARM_HIDDEN gchar *g_filename_to_uri(const gchar *filename, const gchar *hostname, GError **error) {
    return CALL(g_filename_to_uri)(filename, hostname, error);
}
CFARM_HIDDEN void g_free(gpointer mem) { CALL(g_free)(mem); }
CFARM_HIDDEN void g_error_free(GError *error) { CALL(g_error_free)(error); }
CFARM_HIDDEN void g_object_unref(gpointer object) { CALL(g_object_unref)(object); }

CFARM_HIDDEN cairo_t *cairo_create(cairo_surface_t *target) { return CALL(cairo_create)(target); }
CFARM_HIDDEN void cairo_destroy(cairo_t *cr) { CALL(cairo_destroy)(cr); }
CFARM_HIDDEN cairo_status_t cairo_status(cairo_t *cr) { return CALL(cairo_status)(cr); }
CFARM_HIDDEN const char *cairo_status_to_string(cairo_status_t status) { return CALL(cairo_status_to_string)(status); }
CFARM_HIDDEN void cairo_paint(cairo_t *cr) { CALL(cairo_paint)(cr); }
CFARM_HIDDEN void cairo_fill(cairo_t *cr) { CALL(cairo_fill)(cr); }
CFARM_HIDDEN void cairo_arc(cairo_t *cr, double xc, double yc, double radius, double angle1, double angle2) {
    CALL(cairo_arc)(cr, xc, yc, radius, angle1, angle2);
}
CFARM_HIDDEN void cairo_move_to(cairo_t *cr, double x, double y) { CALL(cairo_move_to)(cr, x, y); }
CFARM_HIDDEN void cairo_scale(cairo_t *cr, double sx, double sy) { CALL(cairo_scale)(cr, sx, sy); }
CFARM_HIDDEN void cairo_show_text(cairo_t *cr, const char *utf8) { CALL(cairo_show_text)(cr, utf8); }
CFARM_HIDDEN void cairo_select_font_face(cairo_t *cr, const char *family, cairo_font_slant_t slant,
                            cairo_font_weight_t weight) {
    CALL(cairo_select_font_face)(cr, family, slant, weight);
}
CFARM_HIDDEN void cairo_set_font_size(cairo_t *cr, double size) { CALL(cairo_set_font_size)(cr, size); }
CFARM_HIDDEN void cairo_set_operator(cairo_t *cr, cairo_operator_t op) { CALL(cairo_set_operator)(cr, op); }
CFARM_HIDDEN void cairo_set_source(cairo_t *cr, cairo_pattern_t *source) { CALL(cairo_set_source)(cr, source); }
CFARM_HIDDEN cairo_pattern_t *cairo_get_source(cairo_t *cr) { return CALL(cairo_get_source)(cr); }
CFARM_HIDDEN void cairo_set_source_rgb(cairo_t *cr, double red, double green, double blue) {
    CALL(cairo_set_source_rgb)(cr, red, green, blue);
}
CFARM_HIDDEN void cairo_set_source_rgba(cairo_t *cr, double red, double green, double blue, double alpha) {
    CALL(cairo_set_source_rgba)(cr, red, green, blue, alpha);
}
CFARM_HIDDEN void cairo_set_source_surface(cairo_t *cr, cairo_surface_t *surface, double x, double y) {
    CALL(cairo_set_source_surface)(cr, surface, x, y);
}

CFARM_HIDDEN cairo_pattern_t *cairo_pattern_create_linear(double x0, double y0, double x1, double y1) {
    return CALL(cairo_pattern_create_linear)(x0, y0, x1, y1);
}
CFARM_HIDDEN void cairo_pattern_add_color_stop_rgb(cairo_pattern_t *pattern, double offset, double red, double green,
                                      double blue) {
    CALL(cairo_pattern_add_color_stop_rgb)(pattern, offset, red, green, blue);
}
CFARM_HIDDEN void cairo_pattern_set_extend(cairo_pattern_t *pattern, cairo_extend_t extend) {
    CALL(cairo_pattern_set_extend)(pattern, extend);
}
CFARM_HIDDEN void cairo_pattern_set_filter(cairo_pattern_t *pattern, cairo_filter_t filter) {
    CALL(cairo_pattern_set_filter)(pattern, filter);
}
CFARM_HIDDEN void cairo_pattern_destroy(cairo_pattern_t *pattern) { CALL(cairo_pattern_destroy)(pattern); }

CFARM_HIDDEN cairo_surface_t *cairo_image_surface_create(cairo_format_t format, int width, int height) {
    return CALL(cairo_image_surface_create)(format, width, height);
}
CFARM_HIDDEN cairo_surface_t *cairo_image_surface_create_from_png(const char *filename) {
    return CALL(cairo_image_surface_create_from_png)(filename);
}
CFARM_HIDDEN unsigned char *cairo_image_surface_get_data(cairo_surface_t *surface) {
    return CALL(cairo_image_surface_get_data)(surface);
}
CFARM_HIDDEN cairo_format_t cairo_image_surface_get_format(cairo_surface_t *surface) {
    return CALL(cairo_image_surface_get_format)(surface);
}
CFARM_HIDDEN int cairo_image_surface_get_width(cairo_surface_t *surface) {
    return CALL(cairo_image_surface_get_width)(surface);
}
CFARM_HIDDEN int cairo_image_surface_get_height(cairo_surface_t *surface) {
    return CALL(cairo_image_surface_get_height)(surface);
}
CFARM_HIDDEN int cairo_image_surface_get_stride(cairo_surface_t *surface) {
    return CALL(cairo_image_surface_get_stride)(surface);
}
CFARM_HIDDEN void cairo_surface_destroy(cairo_surface_t *surface) { CALL(cairo_surface_destroy)(surface); }
CFARM_HIDDEN void cairo_surface_flush(cairo_surface_t *surface) { CALL(cairo_surface_flush)(surface); }
CFARM_HIDDEN void cairo_surface_mark_dirty(cairo_surface_t *surface) { CALL(cairo_surface_mark_dirty)(surface); }
CFARM_HIDDEN cairo_status_t cairo_surface_status(cairo_surface_t *surface) {
    return CALL(cairo_surface_status)(surface);
}
CFARM_HIDDEN cairo_status_t cairo_surface_write_to_png(cairo_surface_t *surface, const char *filename) {
    return CALL(cairo_surface_write_to_png)(surface, filename);
}
