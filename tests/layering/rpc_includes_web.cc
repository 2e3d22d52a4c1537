// Must not compile: the gRPC adapter sits below the web view, which calls it.
#include "server/web/http_view.h"
