// Must not compile: DAG planners and online policies are siblings.
#include "core/online/policy.h"
