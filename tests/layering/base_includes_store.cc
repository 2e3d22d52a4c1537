// Must not compile: the shared locks, logs and threads sit below every server library.
#include "server/store/journal.h"
