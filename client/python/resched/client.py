"""resched.Client: the service's calls as Python methods, on one cluster by default."""
import grpc

from resched import errors, models
from resched import offers as offers_module
from resched.connection import open_channel
from resched.dags import as_dag
from resched.times import duration, timestamp
from resched.v1 import service_pb2 as pb
from resched.v1 import service_pb2_grpc
from resched.v1 import types_pb2

_EVENT_KINDS = {
    "started": pb.STARTED,
    "finished": pb.FINISHED_EVENT,
    "failed": pb.FAILED_EVENT,
}
_OBJECTIVES = {name: types_pb2.ReplanObjective.Value(name)
               for name in ("MAKESPAN", "WEIGHTED_COMPLETION", "MAX_STRETCH", "BICRITERIA")}


def _algorithm(name, params):
    if name is None and not params:
        return None
    spec = types_pb2.AlgorithmSpec(name=name or "")
    for key, value in (params or {}).items():
        spec.params[key] = float(value)
    return spec


def _plan_with(request, algorithm, params, release):
    """Sets a DAG request's planner and release when given (unset: the server's defaults)."""
    if (spec := _algorithm(algorithm, params)) is not None:
        request.algorithm.CopyFrom(spec)
    if release is not None:
        request.release.CopyFrom(timestamp(release))


class Client:
    """Calls resched-server.

    servers: "HOST:PORT", several ("HOST:PORT,HOST:PORT" or a list: replicas, of which the serving
    one answers; calls wait for it up to `timeout`); default $RESCHED_SERVER, else
    127.0.0.1:50051. ca / cert / key: PEM files for TLS (defaults $RESCHED_TLS_CA,
    $RESCHED_TLS_CERT, $RESCHED_TLS_KEY). token, else token_file, else $RESCHED_TOKEN: the bearer
    token. cluster: the cluster the calls name when they are not given one. timeout: seconds per
    call. Every refused call raises a resched.ReschedError subclass (see resched.errors).
    """

    def __init__(self, servers=None, *, cluster="default", ca=None, cert=None, key=None,
                 token=None, token_file=None, timeout=30.0):
        self._channel, self._wait_for_ready = open_channel(servers, ca, cert, key, token,
                                                           token_file)
        self._stub = service_pb2_grpc.ReschedStub(self._channel)
        self.cluster_name = cluster
        self.timeout = timeout

    def close(self):
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _call(self, method, request, timeout=None):
        try:
            return getattr(self._stub, method)(request, timeout=timeout or self.timeout,
                                               wait_for_ready=self._wait_for_ready)
        except grpc.RpcError as error:
            raise errors.from_rpc_error(error) from None

    def _cluster(self, cluster):
        return cluster or self.cluster_name

    # Clusters and the registry.

    def algorithms(self):
        """Every algorithm of the registry (AlgorithmInfo: name, kind, paper, params)."""
        return list(self._call("ListAlgorithms", pb.ListAlgorithmsRequest()).algorithms)

    def clusters(self):
        return list(self._call("ListClusters", pb.ListClustersRequest()).clusters)

    def cluster(self, name=None):
        return self._call("GetCluster", pb.GetClusterRequest(name=self._cluster(name)))

    def create_cluster(self, name, processors, *, policy=None, params=None, simulated=False,
                       replan_every=None, replan_algorithm=None, request_id=""):
        spec = types_pb2.ClusterSpec(name=name, processors=processors,
                                     clock=types_pb2.SIMULATED if simulated else types_pb2.WALL)
        if (algorithm := _algorithm(policy, params)) is not None:
            spec.policy.CopyFrom(algorithm)
        if replan_every is not None:
            spec.replan_every.CopyFrom(duration(replan_every))
        if replan_algorithm is not None:
            spec.replan_algorithm.CopyFrom(_algorithm(replan_algorithm, None))
        return self._call("CreateCluster", pb.CreateClusterRequest(spec=spec,
                                                                   request_id=request_id))

    def delete_cluster(self, name, force=False):
        self._call("DeleteCluster", pb.DeleteClusterRequest(name=name, force=force))

    def advance_clock(self, *, to=None, by=None, cluster=None, request_id=""):
        """Moves a SIMULATED cluster's clock to an instant or by a length."""
        request = pb.AdvanceClockRequest(cluster=self._cluster(cluster), request_id=request_id)
        if (to is None) == (by is None):
            raise ValueError("advance_clock: give exactly one of to= and by=")
        if to is not None:
            request.to.CopyFrom(timestamp(to))
        else:
            request.by.CopyFrom(duration(by))
        return self._call("AdvanceClock", request)

    # Online jobs.

    def submit(self, model, *, name="", owner="", weight=0.0, release=None, deadline=None,
               dry_run=False, cluster=None, request_id=""):
        """Places a job by the cluster's policy; the answer has .job (with its allocation) and
        .moved_jobs. `model`: a RuntimeModel (resched.models) or its JSON dict."""
        spec = types_pb2.JobSpec(name=name, owner=owner, weight=weight,
                                 model=models.from_value(model))
        if release is not None:
            spec.release.CopyFrom(timestamp(release))
        if deadline is not None:
            spec.deadline.CopyFrom(timestamp(deadline))
        return self._call("SubmitJob", pb.SubmitJobRequest(
            cluster=self._cluster(cluster), job=spec, dry_run=dry_run, request_id=request_id))

    def job(self, job_id, cluster=None):
        return self._call("GetJob", pb.GetJobRequest(cluster=self._cluster(cluster), id=job_id))

    def jobs(self, states=(), cluster=None, page_size=1000):
        """Every job of the cluster (or those in `states`, names such as "QUEUED"), page by page."""
        request = pb.ListJobsRequest(cluster=self._cluster(cluster), page_size=page_size,
                                     states=[types_pb2.JobState.Value(s) for s in states])
        while True:
            answer = self._call("ListJobs", request)
            yield from answer.jobs
            if not answer.next_page_token:
                return
            request.page_token = answer.next_page_token

    def cancel(self, job_id, cluster=None, request_id=""):
        return self._call("CancelJob", pb.CancelJobRequest(
            cluster=self._cluster(cluster), id=job_id, request_id=request_id))

    def report(self, job_id, event, time=None, cluster=None, request_id=""):
        """What really happened to a job: event "started", "finished" or "failed"; time unset:
        the cluster's now. An early finish frees capacity; a failure releases the job's."""
        if event not in _EVENT_KINDS:
            raise ValueError(f"event: expected started, finished or failed, got {event!r}")
        request = pb.ReportJobEventRequest(cluster=self._cluster(cluster), id=job_id,
                                           kind=_EVENT_KINDS[event], request_id=request_id)
        if time is not None:
            request.time.CopyFrom(timestamp(time))
        return self._call("ReportJobEvent", request)

    # External holds.

    def add_reservation(self, processors, start, end, *, reason="", displace_queued=False,
                        cluster=None, request_id=""):
        return self._call("AddReservation", pb.AddReservationRequest(
            cluster=self._cluster(cluster), processors=processors, start=timestamp(start),
            end=timestamp(end), reason=reason, displace_queued=displace_queued,
            request_id=request_id))

    def remove_reservation(self, reservation_id, cluster=None, request_id=""):
        self._call("RemoveReservation", pb.RemoveReservationRequest(
            cluster=self._cluster(cluster), id=reservation_id, request_id=request_id))

    # DAGs.

    def reserve_dag(self, dag, *, algorithm=None, params=None, release=None, dry_run=False,
                    label="", cluster=None, request_id="", timeout=None, **import_options):
        """Co-reserves a whole DAG (all or nothing). `dag`: a Dag, a dict, a networkx graph or a
        workflow file (see as_dag). The answer: placements (one per task, in the DAG's order),
        completion, cpu_hours and dag_id (empty on a dry run)."""
        request = pb.ReserveDAGRequest(cluster=self._cluster(cluster),
                                       dag=as_dag(dag, **import_options), dry_run=dry_run,
                                       label=label, request_id=request_id)
        _plan_with(request, algorithm, params, release)
        return self._call("ReserveDAG", request, timeout)

    def query_deadline(self, dag, deadline=None, *, algorithm=None, params=None, release=None,
                       commit=False, label="", cluster=None, request_id="", timeout=None,
                       **import_options):
        """Can the DAG finish by `deadline`, with which plan (feasible, placements); without a
        deadline, its tightest deadline (tightest_deadline) and that plan. commit=True reserves
        a feasible plan (dag_id)."""
        request = pb.QueryDeadlineRequest(cluster=self._cluster(cluster),
                                          dag=as_dag(dag, **import_options), commit=commit,
                                          label=label, request_id=request_id)
        _plan_with(request, algorithm, params, release)
        if deadline is not None:
            request.deadline.CopyFrom(timestamp(deadline))
        return self._call("QueryDeadline", request, timeout)

    def dag_reservation(self, dag_id, cluster=None):
        return self._call("GetDagReservation", pb.GetDagReservationRequest(
            cluster=self._cluster(cluster), id=dag_id))

    def dag_reservations(self, cluster=None):
        return list(self._call("ListDagReservations", pb.ListDagReservationsRequest(
            cluster=self._cluster(cluster))).dags)

    def report_dag_task(self, dag_id, task, event, time=None, cluster=None, request_id=""):
        """What happened to a task of a committed DAG reservation: event "started", "finished"
        or "failed"; time unset: the cluster's now. An early end frees the task's processors; a
        failure also releases the tasks that depend on it. The reservation as it now stands."""
        if event not in _EVENT_KINDS:
            raise ValueError(f"event: expected started, finished or failed, got {event!r}")
        request = pb.ReportDagTaskEventRequest(cluster=self._cluster(cluster), id=dag_id,
                                               task=task, kind=_EVENT_KINDS[event],
                                               request_id=request_id)
        if time is not None:
            request.time.CopyFrom(timestamp(time))
        return self._call("ReportDagTaskEvent", request)

    def release_dag(self, dag_id, cluster=None, request_id=""):
        self._call("ReleaseDAG", pb.ReleaseDAGRequest(cluster=self._cluster(cluster), id=dag_id,
                                                      request_id=request_id))

    # A broker's view across clusters (resched.offers).

    def offers(self, dag, clusters=None, algorithm=None, params=None):
        """Each cluster's plan for `dag` (a job: resched.job_as_dag), asked of all at
        once without committing: (offers soonest first, refusals)."""
        return offers_module.offers(self, dag, clusters, algorithm, params)

    def take(self, offer, params=None, label="", request_id=""):
        """Commits an offer if its cluster still completes it by its completion, else raises
        resched.StaleOffer with nothing reserved."""
        return offers_module.take(self, offer, params, label, request_id)

    # Plans and views.

    def replan(self, algorithm=None, objective=None, *, params=None, dry_run=False, force=False,
               cluster=None, request_id="", timeout=None):
        """Re-optimizes the queued jobs with an offline planner; objective: "MAKESPAN",
        "WEIGHTED_COMPLETION", "MAX_STRETCH", "BICRITERIA" or None (the planner's own)."""
        request = pb.ReplanRequest(cluster=self._cluster(cluster), dry_run=dry_run, force=force,
                                   request_id=request_id)
        if (spec := _algorithm(algorithm, params)) is not None:
            request.algorithm.CopyFrom(spec)
        if objective is not None:
            if objective not in _OBJECTIVES:
                raise ValueError(f"objective: expected one of {', '.join(_OBJECTIVES)}, "
                                 f"got {objective!r}")
            request.objective = _OBJECTIVES[objective]
        return self._call("Replan", request, timeout)

    def schedule(self, start=None, end=None, *, include_finished=False, cluster=None):
        """The allocations, holds, DAG tasks and free-capacity profile over [start, end)."""
        request = pb.GetScheduleRequest(cluster=self._cluster(cluster),
                                        include_finished=include_finished)
        if start is not None:
            getattr(request, "from").CopyFrom(timestamp(start))
        if end is not None:
            request.to.CopyFrom(timestamp(end))
        return self._call("GetSchedule", request)

    def watch(self, cluster=None, after_sequence=0, resume=True):
        """The cluster's schedule events as an iterator: a SCHEDULE snapshot first, then every
        change in sequence order. With `resume`, a stream that breaks (a server going, a replica
        taking over) is watched again after the last event seen, and one that fell too far behind
        starts afresh from a new snapshot; the cluster's deletion ends it with NotFound. Closing
        the iterator cancels the stream."""
        last = after_sequence
        while True:
            stream = self._stub.WatchSchedule(
                pb.WatchScheduleRequest(cluster=self._cluster(cluster), after_sequence=last),
                wait_for_ready=True)
            try:
                for event in stream:
                    last = event.sequence
                    yield event
                return
            except grpc.RpcError as error:
                failure = errors.from_rpc_error(error)
                if not resume or not isinstance(failure, (errors.Unavailable,
                                                          errors.ResourceExhausted)):
                    raise failure from None
                if isinstance(failure, errors.ResourceExhausted):
                    last = 0
            finally:
                stream.cancel()
