"""Runtime models: how long a task or job runs on k processors (resched.v1.RuntimeModel).

Lengths are seconds or datetime.timedelta. The server checks every limit and names the field it
refuses; these helpers only build the message.
"""
from google.protobuf import json_format

from resched.times import duration
from resched.v1 import runtime_model_pb2 as _pb

RuntimeModel = _pb.RuntimeModel


def amdahl(t1, alpha, k_min=1, k_max=0):
    """t(k) = t1 (alpha + (1 - alpha) / k) on k_min..k_max processors (0: up to the cluster)."""
    return RuntimeModel(amdahl=_pb.AmdahlModel(t1=duration(t1), alpha=alpha, k_min=k_min,
                                               k_max=k_max))


def rigid(k, time):
    """Exactly k processors for `time`."""
    return RuntimeModel(rigid=_pb.RigidModel(k=k, time=duration(time)))


def table(times):
    """Measured run times: {processors: time}, processors strictly increasing once sorted."""
    entries = [_pb.TableModel.Entry(k=k, time=duration(t)) for k, t in sorted(times.items())]
    return RuntimeModel(table=_pb.TableModel(entries=entries))


def downey(t1, a, sigma, k_min=1, k_max=0):
    """Downey's speedup model: average parallelism `a`, its coefficient of variance `sigma`."""
    return RuntimeModel(downey=_pb.DowneyModel(t1=duration(t1), a=a, sigma=sigma, k_min=k_min,
                                               k_max=k_max))


def power_of_two(times):
    """Run times on 1, 2, 4, ... processors, in that order."""
    return RuntimeModel(power_of_two=_pb.PowerOfTwoModel(times=[duration(t) for t in times]))


def ceil(req_procs, req_time):
    """t(n) = ceil(req_procs / n) req_time (Chrétien et al.'s moldable jobs)."""
    return RuntimeModel(ceil=_pb.CeilModel(req_procs=req_procs, req_time=duration(req_time)))


def from_value(value):
    """A RuntimeModel from a RuntimeModel (kept) or the dict of its JSON form, e.g.
    {"amdahl": {"t1": "60s", "alpha": 0.1}} or {"rigid": {"k": 4, "time": "30s"}}."""
    if isinstance(value, RuntimeModel):
        return value
    if isinstance(value, dict):
        return json_format.ParseDict(value, RuntimeModel())
    raise TypeError(f"a runtime model is a RuntimeModel or its JSON dict, got {value!r}")
