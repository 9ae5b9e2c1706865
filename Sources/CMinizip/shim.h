#include <unzip.h>
#include <zip.h>
