"""resched-slurm between a real resched-server and a real Slurm (tests/testing/python): DAG task
reservations enforced as Slurm reservations that jobs run in, Slurm's maintenance and drained
nodes as holds, and restarts of each of the three processes leaving neither orphaned nor
duplicated reservations.

The processes are conftest.py's fixtures.
"""
import datetime
import math
import time

import resched
from resched import models
from resched.times import seconds
from resched.v1 import types_pb2

from conftest import PREFIX
from slurm_process import wait_until

# How long the bridge may take to reflect a change (it polls every 0.5 s here).
REFLECTED_WITHIN = 15


def slurm_time(instant):
    return datetime.datetime.fromtimestamp(instant, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S")


def ours(slurm):
    now = time.time()
    return {name: r for name, r in slurm.reservations().items()
            if name.startswith(PREFIX + "-") and r["end_time"] > now}


def expected_names(client):
    """The reservations the bridge keeps for what resched has promised now."""
    schedule = client.schedule()
    now = seconds(schedule.now)
    names = set()
    for job in schedule.jobs:
        if job.state in (types_pb2.QUEUED, types_pb2.RUNNING) and \
                math.floor(seconds(job.allocation.end)) > max(math.ceil(seconds(
                    job.allocation.start)), math.ceil(now)):
            names.add(f"{PREFIX}-{job.id}")
    for slot in schedule.dag_tasks:
        if slot.state in (types_pb2.TASK_RESERVED, types_pb2.TASK_RUNNING):
            names.add(f"{PREFIX}-{slot.dag_id}-{slot.task}")
    for hold in schedule.reservations:
        if not hold.reason.startswith("slurm: "):
            names.add(f"{PREFIX}-{hold.id}")
    return names


def bridge_holds(client):
    return [h for h in client.schedule().reservations if h.reason.startswith("slurm: ")]


def in_step(client, slurm):
    try:
        reasons = [h.reason for h in bridge_holds(client)]
        return expected_names(client) == set(ours(slurm)) and len(reasons) == len(set(reasons))
    except (resched.ReschedError, OSError, RuntimeError):
        return False  # a side is restarting


def test_dag_tasks_run_in_their_slurm_reservations_and_an_early_end_shows_in_resched(
        client, slurm):
    dag = {"tasks": {"a": models.rigid(4, 20), "b": models.rigid(2, 20), "c": models.rigid(6, 20)},
           "edges": [("a", "b"), ("a", "c")]}
    reserved = client.reserve_dag(dag, release=time.time() + 15)
    placements = {p.task: p.allocation for p in reserved.placements}
    names = {task: f"{PREFIX}-{reserved.dag_id}-{task}" for task in placements}
    wait_until(lambda: set(names.values()) <= set(ours(slurm)), REFLECTED_WITHIN,
               "the DAG's reservations in Slurm")
    reservations = ours(slurm)
    for task, allocation in placements.items():
        r = reservations[names[task]]
        assert r["start_time"] == math.ceil(seconds(allocation.start)), task
        assert r["end_time"] == math.floor(seconds(allocation.end)), task
        assert r["core_count"] == allocation.processors, task

    # Jobs submitted at once wait for their reservations; task a ends 15 s early.
    sleeps = {"a": 5, "b": 10, "c": 10}
    jobs = {task: slurm.sbatch(f"--reservation={names[task]}",
                               f"-n{placements[task].processors}", "-t1",
                               "--wrap", f"sleep {sleeps[task]}")
            for task in placements}

    def all_done():
        states = {slurm.jobs()[jobs[t]]["job_state"] for t in jobs}
        return states == {"COMPLETED"}
    wait_until(all_done, 80, "the three batch jobs to complete")
    batch = slurm.jobs()
    for task, job_id in jobs.items():
        job = batch[job_id]
        planned_start = math.ceil(seconds(placements[task].start))
        # Slurm starts a job in its reservation when the reservation begins, at its next
        # scheduling pass: within a few seconds.
        assert planned_start <= job["start_time"] <= planned_start + 5, task
        assert job["cpus"] == placements[task].processors, task
    assert batch[jobs["a"]]["end_time"] <= batch[jobs["b"]]["start_time"]
    assert batch[jobs["a"]]["end_time"] <= batch[jobs["c"]]["start_time"]

    def finished():
        states = {p.task: p.state for p in client.dag_reservation(reserved.dag_id).placements}
        return set(states.values()) == {types_pb2.TASK_FINISHED}
    wait_until(finished, REFLECTED_WITHIN, "resched to see every task finish")
    placed = {p.task: p for p in client.dag_reservation(reserved.dag_id).placements}
    assert seconds(placed["a"].ended) == batch[jobs["a"]]["end_time"]
    assert seconds(placed["a"].ended) < seconds(placements["a"].end) - 10, "the early end"
    assert seconds(placed["b"].started) == batch[jobs["b"]]["start_time"]
    wait_until(lambda: not ours(slurm), REFLECTED_WITHIN, "the ended tasks' reservations to go")


def test_maintenance_becomes_a_hold_and_a_job_in_its_way_moves(client, slurm):
    job = client.submit(models.rigid(8, 30), release=time.time() + 40).job
    name = f"{PREFIX}-{job.id}"
    wait_until(lambda: name in ours(slurm), REFLECTED_WITHIN, "the job's reservation")
    start = math.ceil(seconds(job.allocation.start))
    slurm.scontrol("create", "reservation", "ReservationName=maint",
                   f"StartTime={slurm_time(start - 10)}", "Duration=1", "Nodes=node1",
                   f"Users={slurm.user}", "Flags=MAINT,IGNORE_JOBS,OVERLAP")
    maint_end = start - 10 + 60

    def moved():
        holds = [h for h in bridge_holds(client) if h.reason == "slurm: reservation maint"]
        moved_job = client.job(job.id)
        r = ours(slurm).get(name)
        return (len(holds) == 1 and seconds(moved_job.allocation.start) >= maint_end and
                r is not None and r["start_time"] >= maint_end)
    wait_until(moved, REFLECTED_WITHIN, "the hold, the moved job and its moved reservation")
    hold = next(h for h in bridge_holds(client) if h.reason == "slurm: reservation maint")
    assert hold.processors == 8
    assert seconds(hold.start) == start - 10 and seconds(hold.end) == maint_end

    slurm.scontrol("delete", "ReservationName=maint")
    wait_until(lambda: not bridge_holds(client), REFLECTED_WITHIN, "the hold to go")


def test_a_drained_node_shrinks_the_capacity_until_it_returns(client, slurm):
    slurm.scontrol("update", "NodeName=node1", "State=DRAIN", "Reason=resched-test")
    wait_until(lambda: [h.processors for h in bridge_holds(client)] == [8], REFLECTED_WITHIN,
               "the drained node's hold")
    hold = bridge_holds(client)[0]
    assert hold.reason == "slurm: node node1 unavailable"
    job = client.submit(models.rigid(2, 30)).job
    assert seconds(job.allocation.start) >= seconds(hold.end), "nothing fits beside the hold"

    slurm.scontrol("update", "NodeName=node1", "State=RESUME")
    wait_until(lambda: not bridge_holds(client), REFLECTED_WITHIN, "the hold to go")
    wait_until(lambda: seconds(client.job(job.id).allocation.start) < time.time() + 60,
               REFLECTED_WITHIN, "the job to move back")


def test_restarts_of_the_bridge_slurm_and_resched_leave_nothing_orphaned_or_doubled(
        client, slurm, server, bridge):
    now = time.time()
    jobs = [client.submit(models.rigid(2, 60), release=now + 60 + 30 * i).job for i in range(3)]
    client.reserve_dag({"tasks": {"x": models.rigid(2, 30), "y": models.rigid(2, 30)},
                        "edges": [("x", "y")]}, release=now + 60)
    wait_until(lambda: in_step(client, slurm), REFLECTED_WITHIN, "the first round")
    assert len(ours(slurm)) == 5

    bridge.kill()
    client.cancel(jobs[1].id)
    client.submit(models.rigid(2, 60), release=now + 200)
    bridge.start()
    wait_until(lambda: in_step(client, slurm), REFLECTED_WITHIN, "in step after the bridge")
    assert f"{PREFIX}-{jobs[1].id}" not in ours(slurm)

    slurm.kill("slurmctld")
    client.cancel(jobs[2].id)
    client.submit(models.rigid(2, 60), release=now + 230)
    slurm.start_slurmctld()
    wait_until(lambda: in_step(client, slurm), 30, "in step after slurmctld")

    server.kill()
    slurm.scontrol("create", "reservation", "ReservationName=maint",
                   f"StartTime={slurm_time(now + 600)}", "Duration=5", "Nodes=node1",
                   f"Users={slurm.user}", "Flags=MAINT,IGNORE_JOBS,OVERLAP")
    server.restart()
    wait_until(lambda: in_step(client, slurm) and len(bridge_holds(client)) == 1, 30,
               "in step after resched-server")
    assert "resched-slurm: " in bridge.log_text()
