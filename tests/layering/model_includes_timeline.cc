// Must not compile: the model is the lowest layer.
#include "core/timeline/timeline.h"
