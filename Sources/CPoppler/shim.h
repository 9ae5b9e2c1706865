#include <poppler.h>
#include <cairo.h>
