// GET /api/v1/clusters/NAME/jobs.csv: the jobs the page draws (those that held processors: a job
// cancelled before it started is left out), in submission order, as CSV (RFC 4180: a header
// line, then every field in double quotes, written by libcsv): id, name, owner, state,
// processors, start, end (RFC 3339, UTC), wait_seconds (start less release, or less submission
// when it has no release), submitted. Query parameters, the page's filters:
// - states: as ListJobs takes them (QUEUED,RUNNING; any case), several or comma-separated;
// - owner: only this tenant's jobs;
// - find: only the jobs whose id, name, owner or state contains it, in any (ASCII) case;
// - ended_after: an RFC 3339 time; a job that ended at or before it is left out.
#pragma once

#include <map>
#include <string>

#include "resched/v1/service.grpc.pb.h"
#include "server/web/json_gateway.h"

namespace resched::server::web {

inline constexpr char kCsvContentType[] = "text/csv; charset=utf-8";

HttpReply JobsCsv(resched::v1::Resched::Stub& stub, const std::string& cluster,
                  const std::multimap<std::string, std::string>& params, const WebCaller& caller);

}  // namespace resched::server::web
