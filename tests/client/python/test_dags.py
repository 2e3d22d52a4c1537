"""DAGs from Python: a dict, a networkx graph and workflow files, reserved and queried."""
import datetime
import json
import subprocess

import networkx
import pytest

import resched
from resched.v1 import types_pb2
from conftest import CLI_BIN, data_dir
from schedule_check import check_dag_plan

DIAMOND = {
    "tasks": {"prepare": resched.rigid(2, 10), "left": resched.amdahl(120, 0.1, k_max=8),
              "right": {"amdahl": {"t1": "90s", "alpha": 0.2}}, "merge": resched.rigid(1, 5)},
    "edges": [("prepare", "left"), ("prepare", "right", 3), ("left", "merge"), ("right", "merge")],
}


def test_a_dict_dag_is_co_reserved_in_dependency_order(client):
    answer = client.reserve_dag(DIAMOND, label="diamond")
    dag = resched.as_dag(DIAMOND)
    check_dag_plan(dag, answer.placements, 16)
    assert answer.dag_id and answer.cpu_hours > 0
    kept = client.dag_reservation(answer.dag_id)
    assert kept.label == "diamond" and len(kept.placements) == 4
    assert [d.id for d in client.dag_reservations()] == [answer.dag_id]
    client.release_dag(answer.dag_id)
    assert client.dag_reservations() == []


def test_a_networkx_graph_gives_the_same_plan_as_its_dict(client):
    graph = networkx.DiGraph()
    for name, model in DIAMOND["tasks"].items():
        graph.add_node(name, model=model)
    for source, target, *transfer in DIAMOND["edges"]:
        graph.add_edge(source, target, **({"transfer": transfer[0]} if transfer else {}))
    from_graph = client.reserve_dag(graph, dry_run=True)
    from_dict = client.reserve_dag(DIAMOND, dry_run=True)
    assert list(from_graph.placements) == list(from_dict.placements)
    assert not from_graph.dag_id, "a dry run reserves nothing"


def test_the_tightest_deadline_is_met_and_an_earlier_one_is_not(client):
    tightest = client.query_deadline(DIAMOND)
    assert tightest.feasible and tightest.HasField("tightest_deadline")
    deadline = resched.seconds(tightest.tightest_deadline)
    met = client.query_deadline(DIAMOND, deadline, commit=True)
    assert met.feasible and met.dag_id
    check_dag_plan(resched.as_dag(DIAMOND), met.placements, 16)
    assert resched.seconds(met.completion) <= deadline + 1e-6
    missed = client.query_deadline(DIAMOND, 1)
    assert not missed.feasible and not missed.dag_id


def test_a_dag_with_a_cycle_is_refused_naming_it(client):
    cyclic = {"tasks": {"a": resched.rigid(1, 1), "b": resched.rigid(1, 1)},
              "edges": [("a", "b"), ("b", "a")]}
    with pytest.raises(resched.InvalidArgument, match="cycle"):
        client.reserve_dag(cyclic)
    assert client.dag_reservations() == []


WORKFLOWS = sorted((data_dir() / "workflows").glob("*.json"))[:4] + \
    sorted((data_dir() / "dax").glob("*.xml"))


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_a_workflow_file_gives_the_plan_the_cli_gives(server, client, path):
    dag = resched.load_dag(path)
    ours = client.reserve_dag(dag, dry_run=True, timeout=120)
    check_dag_plan(dag, ours.placements, 16)
    cli = subprocess.run([CLI_BIN, "--server", server.address, "--json", "--timeout", "120s",
                          "dag", "reserve", "-f", str(path), "--dry-run",
                          "--cluster", client.cluster_name],
                         check=True, capture_output=True, text=True)
    theirs = json.loads(cli.stdout)["placements"]
    assert [(p.task, p.allocation.processors, resched.to_datetime(p.allocation.start).isoformat())
            for p in ours.placements] == \
        [(p["task"], p["allocation"]["processors"], _iso(p["allocation"]["start"]))
         for p in theirs]


def _iso(rfc3339):
    return datetime.datetime.fromisoformat(rfc3339.replace("Z", "+00:00")).isoformat()


def test_a_broken_workflow_file_names_the_place(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"workflow": {"tasks": [
        {"id": "a", "runtimeInSeconds": 3, "parents": ["ghost"]}]}}))
    unknown = r"workflow.tasks\[0\].parents\[0\]: unknown task 'ghost'"
    with pytest.raises(resched.DagFileError, match=unknown):
        resched.load_dag(broken)
    dax = tmp_path / "broken.dax"
    dax.write_text('<adag><job id="a" runtime="-1"/></adag>')
    with pytest.raises(resched.DagFileError, match=r"must be in \[0, 1e9\] seconds"):
        resched.load_dag(dax)


def test_task_reports_free_capacity_early_and_a_failure_releases_what_depends_on_it(client):
    answer = client.reserve_dag(DIAMOND)
    start = {p.task: p.allocation for p in answer.placements}
    client.advance_clock(to=resched.seconds(start["prepare"].start) + 2)
    client.report_dag_task(answer.dag_id, "prepare", "started")
    done = client.report_dag_task(answer.dag_id, "prepare", "finished")
    states = {p.task: types_pb2.DagTaskState.Name(p.state) for p in done.placements}
    assert states == {"prepare": "TASK_FINISHED", "left": "TASK_RESERVED",
                      "right": "TASK_RESERVED", "merge": "TASK_RESERVED"}
    assert resched.seconds(done.placements[0].ended) < resched.seconds(start["prepare"].end)
    client.advance_clock(to=resched.seconds(start["left"].start) + 1)
    failed = client.report_dag_task(answer.dag_id, "left", "failed")
    states = {p.task: types_pb2.DagTaskState.Name(p.state) for p in failed.placements}
    assert states["left"] == "TASK_FAILED" and states["merge"] == "TASK_RELEASED"
    assert states["right"] == "TASK_RESERVED", "right does not depend on left"
    with pytest.raises(resched.FailedPrecondition, match="FAILED"):
        client.report_dag_task(answer.dag_id, "left", "finished")
    with pytest.raises(resched.NotFound, match="no task 'ghost'"):
        client.report_dag_task(answer.dag_id, "ghost", "started")
