// Must not compile: the timeline sits below the online policies.
#include "core/online/policy.h"
