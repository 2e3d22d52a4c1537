// Must not compile: the offline planners sit below the batch policies built on them.
#include "core/batch/batch_policies.h"
