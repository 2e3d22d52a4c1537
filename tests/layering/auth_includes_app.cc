// Must not compile: the access rules and tokens sit below the application.
#include "server/app/application.h"
