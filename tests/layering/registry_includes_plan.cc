// Must not compile: the per-cluster plan sits above the registry.
#include "core/plan/cluster_plan.h"
