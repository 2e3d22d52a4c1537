// The one boundary between protobuf and core types (library resched_convert): the server and
// the CLI convert here and nowhere else, and the core never sees protobuf. Wire to core, with
// validation naming the field: from_proto.h; core to wire: to_proto.h.
#pragma once

#include "proto/resched/from_proto.h"  // IWYU pragma: export
#include "proto/resched/to_proto.h"    // IWYU pragma: export
