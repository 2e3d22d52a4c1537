"""The Python client against a real resched-server: jobs, holds, errors as exceptions, retries,
watching, several servers."""
import threading

import grpc
import pytest

import resched
from resched.v1 import service_pb2, types_pb2

from schedule_check import check_capacity


def test_a_submitted_job_is_placed_found_listed_reported_and_its_capacity_freed(client):
    answer = client.submit(resched.amdahl(60, 0.1, k_max=8), name="first", weight=2)
    job = answer.job
    assert job.id and job.state in (types_pb2.QUEUED, types_pb2.RUNNING)
    assert 1 <= job.allocation.processors <= 8
    assert client.job(job.id).spec.name == "first"
    assert [j.id for j in client.jobs()] == [job.id]
    client.advance_clock(by=1)
    assert client.job(job.id).state == types_pb2.RUNNING
    finished = client.report(job.id, "finished")
    assert finished.state == types_pb2.FINISHED
    assert resched.seconds(finished.allocation.end) < resched.seconds(job.allocation.end)
    check_capacity([j.allocation for j in client.jobs()], 16)


def test_jobs_are_listed_page_by_page_in_submission_order(client):
    ids = [client.submit(resched.rigid(1, 10)).job.id for _ in range(7)]
    assert [j.id for j in client.jobs(page_size=3)] == ids
    client.cancel(ids[0])
    assert [j.id for j in client.jobs(states=["CANCELLED"])] == ids[:1]


def test_every_runtime_model_helper_is_accepted(client):
    for model in (resched.amdahl(30, 0.2), resched.rigid(4, 30), resched.table({1: 40, 4: 12}),
                  resched.downey(50, 8, 1.0), resched.power_of_two([40, 22, 13]),
                  resched.ceil(8, 5), {"rigid": {"k": 2, "time": "15s"}}):
        allocation = client.submit(model, dry_run=True).job.allocation
        assert allocation.processors >= 1, model


def test_a_bad_field_raises_invalid_argument_naming_the_field(client):
    with pytest.raises(resched.InvalidArgument) as refused:
        client.submit(resched.amdahl(60, 1.5))
    error = refused.value
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "alpha" in error.field and "[0, 1]" in str(error)
    assert not list(client.jobs()), "nothing half-applied"


def test_an_unknown_cluster_raises_not_found(server):
    with resched.Client(server.address, cluster="no-such-cluster") as c:
        with pytest.raises(resched.NotFound, match="no-such-cluster"):
            c.cluster()


def test_a_retried_request_id_is_applied_once_and_carries_the_first_answer(client):
    first = client.submit(resched.rigid(2, 30), request_id="retry-1")
    with pytest.raises(resched.AlreadyExists) as retried:
        client.submit(resched.rigid(2, 30), request_id="retry-1")
    assert retried.value.unpack_detail(service_pb2.SubmitJobResponse).job.id == first.job.id
    assert len(list(client.jobs())) == 1


def test_a_hold_moves_what_it_displaces_and_its_removal_frees_it(client):
    hold = client.add_reservation(16, 0, 100, reason="maintenance")
    job = client.submit(resched.rigid(4, 10)).job
    assert resched.seconds(job.allocation.start) >= 100
    client.remove_reservation(hold.id)
    with pytest.raises(resched.NotFound):
        client.remove_reservation(hold.id)


def test_replan_and_schedule_answer_with_the_queued_jobs(client):
    client.add_reservation(16, 0, 50)
    for k in (4, 8, 2, 16):
        client.submit(resched.rigid(k, 20))
    answer = client.replan("mrt", "MAKESPAN", dry_run=True)
    assert answer.before.jobs == 4 and not answer.applied
    schedule = client.schedule()
    assert len(schedule.jobs) == 4 and schedule.capacity == 16
    check_capacity([j.allocation for j in schedule.jobs] + list(schedule.reservations), 16)
    with pytest.raises(ValueError, match="objective"):
        client.replan("mrt", "FASTEST")


def test_watch_yields_the_snapshot_then_each_change_and_ends_when_the_cluster_goes(server):
    with resched.Client(server.address, cluster="watched") as c:
        c.create_cluster("watched", 8, simulated=True)
        events = []
        snapshot = threading.Event()

        def read():
            try:
                for event in c.watch():
                    events.append(event)
                    if event.kind == service_pb2.ScheduleEvent.SCHEDULE:
                        snapshot.set()
            except resched.NotFound as error:
                events.append(error)

        reader = threading.Thread(target=read)
        reader.start()
        assert snapshot.wait(10)
        job = c.submit(resched.rigid(2, 5)).job
        c.delete_cluster("watched", force=True)
        reader.join(10)
        assert not reader.is_alive()
        kinds = [e.kind for e in events[:-1]]
        assert kinds[0] == service_pb2.ScheduleEvent.SCHEDULE
        assert any(e.kind == service_pb2.ScheduleEvent.JOB_CHANGED and e.job.id == job.id
                   for e in events[1:-1])
        assert [e.sequence for e in events[1:-1]] == sorted(e.sequence for e in events[1:-1])
        assert isinstance(events[-1], resched.NotFound)


def test_several_servers_reach_the_one_that_listens(server):
    from conftest import free_port
    with resched.Client([f"127.0.0.1:{free_port()}", server.address], timeout=10) as c:
        assert any(a.name == "conservative" for a in c.algorithms())


def test_arguments_the_client_can_judge_are_refused_before_any_call(server):
    with pytest.raises(ValueError, match="servers"):
        resched.Client("127.0.0.1")
    with pytest.raises(ValueError, match="cert and key"):
        resched.Client(server.address, cert="/dev/null")
    with pytest.raises(ValueError, match="token_file"):
        resched.Client(server.address, token_file="/no/such/token")
    with resched.Client(server.address) as c:
        with pytest.raises(ValueError, match="event"):
            c.report("j1", "exploded")
        with pytest.raises(TypeError):
            c.submit(42)
