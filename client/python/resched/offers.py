"""Where and when can this run soonest: a broker's question across clusters.

offers() asks every cluster at once (one dry run each, in parallel, so the answer takes one round
trip) for the plan of a DAG, or of a job as a one-task DAG (a broker books capacity ahead, which
a DAG reservation is), and returns the offers soonest first (by turnaround). take() commits one
with QueryDeadline under the offer's own completion as the deadline and the offer's planner: the
server plans again and commits in one step only when the plan still completes by then, so an
offer that went stale (the cluster got busier since) raises StaleOffer with nothing reserved, and
a cluster that freed up meanwhile gives a plan at least as early.
"""
import concurrent.futures
import dataclasses

from resched import errors
from resched.dags import as_dag
from resched.times import seconds
from resched.v1 import types_pb2

# The planner offers use when none is named: the server's default for ReserveDAG.
DEFAULT_PLANNER = "bl_cpar_bd_cpar"


@dataclasses.dataclass(frozen=True)
class Offer:
    cluster: str
    turnaround: float  # seconds from the cluster's now to the completion: how offers are sorted
    completion: float  # seconds since the epoch
    completion_at: object  # the same instant, exactly (a Timestamp), which take() asks for
    placements: tuple  # TaskPlacement, one per task
    cpu_hours: float
    algorithm: str
    dag: types_pb2.Dag


@dataclasses.dataclass(frozen=True)
class Refusal:
    cluster: str
    error: errors.ReschedError  # why this cluster made no offer (too small, not allowed, ...)


class StaleOffer(Exception):
    """The cluster can no longer complete the work by the offer's completion; nothing was
    reserved. `tightest` is the completion it can offer now (seconds since the epoch), or None."""

    def __init__(self, offer, tightest):
        self.offer, self.tightest = offer, tightest
        now = f"; it can now complete by {tightest:.3f}" if tightest is not None else ""
        super().__init__(f"the offer of cluster {offer.cluster} to complete by "
                         f"{offer.completion:.3f} went stale{now}")


def offers(client, dag, clusters=None, algorithm=None, params=None):
    """(offers soonest first, refusals) for `dag` (anything Client.reserve_dag takes) on
    `clusters` (default: every cluster the server lists)."""
    dag = as_dag(dag)
    names = clusters if clusters is not None else [c.spec.name for c in client.clusters()]
    planner = algorithm or DEFAULT_PLANNER

    def ask(name):
        try:
            plan = client.reserve_dag(dag, cluster=name, algorithm=planner, params=params,
                                      dry_run=True)
        except errors.ReschedError as error:
            return Refusal(name, error)
        return Offer(name, seconds(plan.turnaround), seconds(plan.completion), plan.completion,
                     tuple(plan.placements), plan.cpu_hours, planner, dag)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(len(names), 32))) as pool:
        answers = list(pool.map(ask, names))
    # By turnaround, which clusters on different clocks (SIMULATED ones start at the epoch)
    # measure alike; on WALL clusters it orders as the completion does.
    made = sorted((a for a in answers if isinstance(a, Offer)), key=lambda o: o.turnaround)
    return made, [a for a in answers if isinstance(a, Refusal)]


def take(client, offer, params=None, label="", request_id=""):
    """Reserves `offer`'s work on its cluster if it still completes by the offer's completion;
    the QueryDeadlineResponse (dag_id, placements). StaleOffer otherwise, nothing reserved."""
    answer = client.query_deadline(offer.dag, offer.completion_at, cluster=offer.cluster,
                                   algorithm=offer.algorithm, params=params, commit=True,
                                   label=label, request_id=request_id)
    if not answer.feasible:
        tightest = seconds(answer.tightest_deadline) if answer.HasField(
            "tightest_deadline") else None
        raise StaleOffer(offer, tightest)
    return answer
