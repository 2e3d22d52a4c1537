// Must not compile: the journal stores bytes for the application above it.
#include "server/app/cluster_state.h"
