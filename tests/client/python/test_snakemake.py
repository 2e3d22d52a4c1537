"""A real Snakemake workflow run through resched (resched.snakemake_executor): 22 jobs of small
scripts that sleep and write files, co-reserved as one DAG on a WALL cluster, each started at its
reserved start on its reserved width; a run stopped by SIGINT and a failing job leave nothing
reserved, a re-run does what is left, and two workflows at once share the cluster.

Tolerances: a job starts within START_SLACK seconds after its reserved start (the executor
polls, and the machine is shared) and ends within its reservation, which is its rule's run time
plus OVERHEAD seconds for the Snakemake process its job script starts.
"""
import json
import signal
import subprocess
import sys
import time

import pytest

import resched
from resched.v1 import types_pb2
from schedule_check import check_capacity

START_SLACK = 1.0
# Snakemake's own start in a job script took up to 6.7 s with eight jobs starting at once on two
# busy cores, and a 1-second job took 17.5 s in all beside ctest's failover and Slurm tests.
OVERHEAD = 20.0
RUNTIMES = {"generate": 2, "process": 3, "pair": 2, "report": 2, "all": 2}
THREADS = {"generate": 1, "process": 2, "pair": 4, "report": 1, "all": 1}

SNAKEFILE = """
SAMPLES = [f"s{i}" for i in range(8)]
FAIL = config.get("fail", "none")

rule all:
    input: "report.txt"

rule generate:
    output: "raw/{s}.txt"
    threads: 1
    resources: runtime_s=2
    shell: "sleep 1; echo {wildcards.s} > {output}"

rule process:
    input: "raw/{s}.txt"
    output: "processed/{s}.txt"
    threads: 2
    resources: runtime_s=3
    shell: "sleep 2; test {wildcards.s} != " + FAIL + "; tr a-z A-Z < {input} > {output}"

rule pair:
    input: lambda w: [f"processed/s{2 * int(w.p)}.txt", f"processed/s{2 * int(w.p) + 1}.txt"]
    output: "pairs/{p}.txt"
    threads: 4
    resources: runtime_s=2
    shell: "sleep 1; cat {input} > {output}"

rule report:
    input: expand("pairs/{p}.txt", p=range(4))
    output: "report.txt"
    shell: "cat {input} > {output}"
"""


@pytest.fixture
def workflow(tmp_path):
    (tmp_path / "Snakefile").write_text(SNAKEFILE)
    return tmp_path


@pytest.fixture
def cluster(server, request):
    name = request.node.name[:50]
    with resched.Client(server.address, cluster=name) as c:
        c.create_cluster(name, 8)
        yield c


def executor(server, cluster, workflow, *snakemake_args, spool="spool"):
    command = [sys.executable, "-m", "resched.snakemake_executor", "--server", server.address,
               "--cluster", cluster.cluster_name, "--default-runtime", "2", "--job-overhead",
               str(OVERHEAD), "--spool", spool, "--", "-j", "100", *snakemake_args]
    return subprocess.Popen(command, cwd=workflow, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def events(spool):
    lines = (spool / "run.jsonl").read_text().splitlines() if (spool / "run.jsonl").exists() else []
    return [json.loads(line) for line in lines]


def check_run(cluster, spool):
    """Every job inside its reservation, at its rule's threads, after its parents; the run done
    by the reserved completion; resched's record of the reservation the same as the plan."""
    plan = json.loads((spool / "plan.json").read_text())
    jobs = {f"{j['rule']}.{j['jobid']}": j
            for j in (json.loads(p.read_text()) for p in (spool / "jobs").glob("*.json"))}
    by_id = {j["jobid"]: name for name, j in jobs.items()}
    started = {e["task"]: e for e in events(spool) if e["event"] == "started"}
    finished = {e["task"]: e for e in events(spool) if e["event"] == "finished"}
    assert sorted(started) == sorted(finished) == sorted(jobs) == sorted(plan["placements"])
    for name, job in jobs.items():
        processors, start, end = plan["placements"][name]
        rule = job["rule"]
        assert processors == THREADS[rule], f"{name} reserved on {processors} processors"
        assert started[name]["processors"] == THREADS[rule]
        assert start - 0.01 <= started[name]["time"] <= start + START_SLACK, name
        assert finished[name]["time"] <= end, f"{name} ran past its reservation"
        assert end - start == pytest.approx(RUNTIMES[rule] + OVERHEAD, abs=1e-3)
        for parent in job["parents"]:
            assert started[name]["time"] >= finished[by_id[parent]]["time"], \
                f"{name} started before its parent {by_id[parent]} finished"
        log = (spool / "logs" / f"{name}.log").read_text()
        # The target rule has no output: its job checks its inputs and has nothing to do.
        done = "Nothing to be done" if rule == "all" else "1 of 1 steps (100%) done"
        assert done in log, log
    assert max(e["time"] for e in finished.values()) <= plan["completion"]
    kept = cluster.dag_reservation(plan["dag_id"])
    assert {p.task: [p.allocation.processors, resched.seconds(p.allocation.start),
                     resched.seconds(p.allocation.end)] for p in kept.placements} == \
        plan["placements"]
    # Every job's end reached resched, which freed the rest of its reservation then.
    for placement in kept.placements:
        assert placement.state == types_pb2.TASK_FINISHED, placement.task
        assert resched.seconds(placement.ended) <= resched.seconds(placement.allocation.end)
    return plan


def test_a_workflow_runs_each_job_inside_its_reservation(server, cluster, workflow):
    run = executor(server, cluster, workflow)
    output, _ = run.communicate(timeout=400)
    assert run.returncode == 0, output
    plan = check_run(cluster, workflow / "spool")
    assert len(plan["placements"]) == 22
    assert (workflow / "report.txt").read_text().split() == [f"S{i}" for i in range(8)]
    check_capacity([p.allocation for d in cluster.dag_reservations() for p in d.placements], 8)


def test_sigint_half_way_kills_the_jobs_and_releases_the_reservation(server, cluster, workflow):
    run = executor(server, cluster, workflow)
    spool = workflow / "spool"
    deadline = time.monotonic() + 120
    while not any(e["task"].startswith("process") for e in events(spool)):
        assert run.poll() is None and time.monotonic() < deadline, run.stdout.read()
        time.sleep(0.1)
    run.send_signal(signal.SIGINT)
    output, _ = run.communicate(timeout=60)
    assert run.returncode == 130, output
    dag_id = json.loads((spool / "plan.json").read_text())["dag_id"]
    assert dag_id not in [d.id for d in cluster.dag_reservations()]
    assert not (workflow / "report.txt").exists()


def test_a_failed_job_releases_the_rest_and_a_rerun_does_what_is_left(server, cluster, workflow):
    run = executor(server, cluster, workflow, "--config", "fail=s3")
    output, _ = run.communicate(timeout=400)
    assert run.returncode == 1, output
    failed = [e for e in events(workflow / "spool") if e["event"] == "failed"]
    assert [e["task"].split(".")[0] for e in failed] == ["process"]
    assert cluster.dag_reservations() == [], "nothing stays reserved for jobs that will not run"
    rerun = executor(server, cluster, workflow, spool="spool-rerun")
    output, _ = rerun.communicate(timeout=400)
    assert rerun.returncode == 0, output
    plan = check_run(cluster, workflow / "spool-rerun")
    assert len(plan["placements"]) < 22, "the jobs that succeeded are not run again"
    assert (workflow / "report.txt").exists()


def test_two_workflows_at_once_share_the_cluster(server, cluster, tmp_path):
    runs = []
    for name in ("one", "two"):
        directory = tmp_path / name
        directory.mkdir()
        (directory / "Snakefile").write_text(SNAKEFILE)
        runs.append((directory, executor(server, cluster, directory)))
    for directory, run in runs:
        output, _ = run.communicate(timeout=600)
        assert run.returncode == 0, output
    allocations = []
    for directory, _ in runs:
        plan = check_run(cluster, directory / "spool")
        allocations += [types_pb2.Allocation(processors=p, start=resched.timestamp(s),
                                             end=resched.timestamp(e))
                        for p, s, e in plan["placements"].values()]
    check_capacity(allocations, 8)

