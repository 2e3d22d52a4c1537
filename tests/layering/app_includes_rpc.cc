// Must not compile: the application knows no transport; the gRPC adapter sits above it.
#include "server/rpc/service.h"
