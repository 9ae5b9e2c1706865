#include "CFarmJpeg.h"
