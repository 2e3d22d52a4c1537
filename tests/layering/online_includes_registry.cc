// Must not compile: the online policies sit below the registry that names them.
#include "core/registry/registry.h"
