// Every unary method of resched.v1.Resched, one row each: its name, its request and response
// messages, and who may call it (an access rule of server/auth/access.h). The application declares
// one call per row (server/app/application.h), the gRPC adapter one override per row
// (server/rpc/service.h), and the access table takes each row's rule, so that a new unary RPC is a
// row here beside the definition of its call. tests/server/auth/access_test.cc checks the rows
// against the service's descriptor. WatchSchedule, the one stream, has an adapter of its own and
// its access rule in server/auth/access.cc.
//
// RESCHED_UNARY_METHODS(ROW) expands to ROW(Name, Request, Response, access) once per method.
#pragma once

// clang-format off
#define RESCHED_UNARY_METHODS(ROW)                                                        \
  ROW(CreateCluster, CreateClusterRequest, Cluster, kAdminChange)                         \
  ROW(GetCluster, GetClusterRequest, Cluster, kUserRead)                                  \
  ROW(ListClusters, ListClustersRequest, ListClustersResponse, kAnyoneRead)               \
  ROW(DeleteCluster, DeleteClusterRequest, DeleteClusterResponse, kAdminChange)           \
  ROW(SubmitJob, SubmitJobRequest, SubmitJobResponse, kUserChange)                        \
  ROW(GetJob, GetJobRequest, Job, kUserRead)                                              \
  ROW(ListJobs, ListJobsRequest, ListJobsResponse, kUserRead)                             \
  ROW(CancelJob, CancelJobRequest, Job, kUserChange)                                      \
  /* What ran: the executor's (an operator's) report, not the submitter's. */             \
  ROW(ReportJobEvent, ReportJobEventRequest, Job, kOperatorChange)                        \
  ROW(AddReservation, AddReservationRequest, Reservation, kOperatorChange)                \
  ROW(RemoveReservation, RemoveReservationRequest, RemoveReservationResponse,             \
      kOperatorChange)                                                                    \
  ROW(ReserveDAG, ReserveDAGRequest, ReserveDAGResponse, kUserChange)                     \
  /* A committing QueryDeadline reserves like ReserveDAG. */                              \
  ROW(QueryDeadline, QueryDeadlineRequest, QueryDeadlineResponse, kUserChange)            \
  ROW(GetDagReservation, GetDagReservationRequest, DagReservation, kUserRead)             \
  ROW(ListDagReservations, ListDagReservationsRequest, ListDagReservationsResponse,       \
      kUserRead)                                                                          \
  ROW(ReleaseDAG, ReleaseDAGRequest, ReleaseDAGResponse, kUserChange)                     \
  /* What ran, as ReportJobEvent: the executor's (an operator's) report. */                \
  ROW(ReportDagTaskEvent, ReportDagTaskEventRequest, DagReservation, kOperatorChange)      \
  /* A dry run changes nothing, but the method is audited as a whole. */                  \
  ROW(Replan, ReplanRequest, ReplanResponse, kOperatorChange)                             \
  ROW(GetSchedule, GetScheduleRequest, Schedule, kUserRead)                               \
  ROW(AdvanceClock, AdvanceClockRequest, AdvanceClockResponse, kOperatorChange)           \
  ROW(ListAlgorithms, ListAlgorithmsRequest, ListAlgorithmsResponse, kAnyoneRead)
// clang-format on
