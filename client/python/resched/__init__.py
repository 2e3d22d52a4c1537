"""Python client of resched, the scheduling service for moldable jobs and DAGs with advance
reservations.

    import resched
    with resched.Client("127.0.0.1:50051") as client:
        answer = client.reserve_dag("workflow.json")      # WfCommons, DAX or a resched Dag
        for task in answer.placements:
            print(task.task, task.allocation.processors, resched.to_datetime(task.allocation.start))
"""
from resched.client import Client
from resched.dags import (DagFileError, as_dag, dag_from_dict, dag_from_networkx, job_as_dag,
                          load_dag)
from resched.errors import (AlreadyExists, FailedPrecondition, FieldViolation, InvalidArgument,
                            NotFound, PermissionDenied, ReschedError, ResourceExhausted,
                            Unauthenticated, Unavailable)
from resched.models import amdahl, ceil, downey, power_of_two, rigid, table
from resched.offers import Offer, Refusal, StaleOffer
from resched.times import duration, seconds, timestamp, to_datetime

__all__ = [
    "AlreadyExists", "Client", "DagFileError", "FailedPrecondition", "FieldViolation",
    "InvalidArgument", "NotFound", "Offer", "PermissionDenied", "Refusal", "ReschedError",
    "ResourceExhausted", "StaleOffer", "Unauthenticated", "Unavailable", "amdahl", "as_dag",
    "ceil", "dag_from_dict", "dag_from_networkx", "downey", "duration", "job_as_dag", "load_dag",
    "power_of_two", "rigid", "seconds", "table", "timestamp", "to_datetime",
]
