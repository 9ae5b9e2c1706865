#include <unzip.h>
