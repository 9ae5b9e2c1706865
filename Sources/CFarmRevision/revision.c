#include "revision.h"

#ifndef FARM_REVISION
#define FARM_REVISION "unknown"
#endif

const char *cfarm_revision(void) { return FARM_REVISION; }
