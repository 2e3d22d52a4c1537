"""Runs a Snakemake workflow through resched: the whole DAG co-reserved before its first job, then
each job started at its reserved start, on its reserved width.

    python3 -m resched.snakemake_executor [--server ...] [--cluster NAME] [--deadline T] \\
        -- [snakemake arguments: --snakefile, targets, --config, ...]

Snakemake 7 builds the DAG and writes one job script per job; with `--immediate-submit` it hands
every job to its `--cluster` command at once, each with the cluster ids of the jobs it depends on
(`{dependencies}`), and exits. That command is this module's `submit`, which files the job in a
spool directory. Then the jobs become a resched Dag (one task per job, rigid: the rule's
`threads` processors for its run time), reserved with ReserveDAG, or with QueryDeadline when a
deadline is given; and the job scripts run, each when the cluster's clock reaches its reserved
start and its parents have succeeded; each job's start and end are reported (ReportDagTaskEvent),
so a job that ends early frees its processors for others. A failure stops the run: running jobs
finish, nothing new starts, the reservation is released. SIGINT or SIGTERM kills the running jobs
and releases it.

Run times: the resource `runtime_s` (seconds) or Snakemake's `runtime` (minutes), else
--default-runtime; every job is reserved --job-overhead seconds more, for the Snakemake process
its job script starts. Every job's actual start and end go to SPOOL/run.jsonl, its output to
SPOOL/logs/NAME.log.
"""
import argparse
import datetime
import importlib.util
import json
import os
import pathlib
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time

import resched

_PROPERTIES = re.compile(r"^# properties = (.*)$", re.MULTILINE)
_EXTERNAL_ID = re.compile(r"^resched-(\d+)$")


def submit(spool, arguments):
    """The --cluster command: files the job script (the last argument) and the ids of the jobs it
    depends on (the others); prints the job's cluster id."""
    jobscript = pathlib.Path(arguments[-1])
    found = _PROPERTIES.search(jobscript.read_text())
    if found is None:
        sys.exit(f"resched submit: {jobscript} has no '# properties =' line")
    properties = json.loads(found.group(1))
    jobid = int(properties["jobid"])
    jobs = pathlib.Path(spool) / "jobs"
    jobs.mkdir(parents=True, exist_ok=True)
    shutil.copy(jobscript, jobs / f"{jobid}.sh")
    parents = []
    for dependency in arguments[:-1]:
        matched = _EXTERNAL_ID.match(dependency)
        if matched is None:
            sys.exit(f"resched submit: dependency {dependency!r} is not a resched job id")
        parents.append(int(matched.group(1)))
    record = {"jobid": jobid, "rule": properties["rule"], "threads": properties.get("threads", 1),
              "resources": properties.get("resources", {}), "parents": parents}
    (jobs / f"{jobid}.json").write_text(json.dumps(record))
    print(f"resched-{jobid}")


def collect(spool, snakemake_arguments):
    """Runs Snakemake with this module as its cluster; the jobs it filed, by job id."""
    if importlib.util.find_spec("snakemake") is None:
        sys.exit(f"resched-snakemake: {sys.executable} has no snakemake module (Debian package "
                 "snakemake)")
    cluster = (f"{shlex.quote(sys.executable)} -m resched.snakemake_executor submit "
               f"{shlex.quote(str(spool))} {{dependencies}}")
    command = [sys.executable, "-m", "snakemake", "--cluster", cluster, "--immediate-submit",
               "--notemp", "--jobs", "100000", *snakemake_arguments]
    completed = subprocess.run(command)
    if completed.returncode != 0:
        sys.exit(f"resched-snakemake: snakemake exited {completed.returncode} while listing "
                 "the jobs")
    jobs = {}
    for record in sorted((spool / "jobs").glob("*.json")):
        job = json.loads(record.read_text())
        jobs[job["jobid"]] = job
    return jobs


def task_name(job):
    return f"{job['rule']}.{job['jobid']}"


def reserved_seconds(job, default_runtime, overhead):
    resources = job["resources"]
    for key, scale in (("runtime_s", 1), ("runtime", 60)):
        if isinstance(resources.get(key), (int, float)):
            return resources[key] * scale + overhead
    return default_runtime + overhead


def workflow_dag(jobs, capacity, default_runtime, overhead):
    """One rigid task per job (its threads, at most the cluster's processors), an edge per
    dependency."""
    dag = {"tasks": {}, "edges": []}
    for job in jobs.values():
        width = max(1, min(int(job["threads"]), capacity))
        dag["tasks"][task_name(job)] = resched.rigid(
            width, reserved_seconds(job, default_runtime, overhead))
        for parent in job["parents"]:
            dag["edges"].append((task_name(jobs[parent]), task_name(job)))
    return resched.dag_from_dict(dag)


class Run:
    """Starts each job script at its reserved start once its parents succeeded; records what
    happened."""

    def __init__(self, spool, jobs, plan, client):
        self.spool, self.jobs, self.client, self.dag_id = spool, jobs, client, plan.dag_id
        self.placements = {p.task: p.allocation for p in plan.placements}
        self.starts = {job["jobid"]: resched.seconds(self.placements[task_name(job)].start)
                       for job in jobs.values()}  # reserved, in seconds since the epoch
        self.processes = {}
        self.outcomes = {}  # jobid -> exit status
        self.failed = False
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        (spool / "logs").mkdir(exist_ok=True)
        self.log = open(spool / "run.jsonl", "a", buffering=1)

    def record(self, **fields):
        with self.lock:
            self.log.write(json.dumps(fields) + "\n")

    def report(self, name, event):
        """Tells resched what happened to the job's task (an early end frees its processors); a
        report refused is logged, not fatal: the job runs as reserved either way."""
        try:
            self.client.report_dag_task(self.dag_id, name, event)
        except resched.ReschedError as error:
            self.record(event="report refused", task=name, reported=event, error=str(error))

    def run(self):
        waiting = list(self.jobs.values())
        while waiting and not self.stopping.is_set():
            now = time.time()
            with self.lock:
                if self.failed:
                    break
                succeeded = {jobid for jobid, status in self.outcomes.items() if status == 0}
            # Every job whose start has come and whose parents succeeded; one whose parent ran
            # past its reservation waits for it without holding back the others.
            due = [job for job in waiting if self.starts[job["jobid"]] <= now
                   and all(parent in succeeded for parent in job["parents"])]
            for job in due:
                waiting.remove(job)
                self.launch(job)
            if not due and waiting:
                upcoming = [self.starts[job["jobid"]] - now for job in waiting
                            if self.starts[job["jobid"]] > now]
                self.stopping.wait(min(upcoming + [0.5]) if len(upcoming) == len(waiting)
                                   else 0.05)
        if not self.stopping.is_set():
            self.wait_all()
        return not self.failed and not self.stopping.is_set()

    def launch(self, job):
        name = task_name(job)
        log = open(self.spool / "logs" / f"{name}.log", "w")
        started = time.time()
        process = subprocess.Popen(["sh", str(self.spool / "jobs" / f"{job['jobid']}.sh")],
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        with self.lock:
            self.processes[job["jobid"]] = process
        self.record(event="started", task=name, time=started,
                    reserved_start=self.starts[job["jobid"]],
                    processors=self.placements[name].processors)
        threading.Thread(target=self.wait_for, args=(job, process, log), daemon=True).start()

    def wait_for(self, job, process, log):
        # Reported from the job's own thread, so that the jobs due at the same instant are not
        # started one round trip apart; "started" still reaches resched before "finished".
        name = task_name(job)
        self.report(name, "started")
        status = process.wait()
        ended = time.time()
        log.close()
        self.record(event="finished" if status == 0 else "failed", task=name, time=ended,
                    reserved_end=resched.seconds(self.placements[name].end), status=status)
        # Its dependants may start before the report's answer, a durable call that a busy disk
        # can hold for seconds; the run waits for the report before it ends.
        with self.lock:
            self.outcomes[job["jobid"]] = status
        self.report(name, "finished" if status == 0 else "failed")
        with self.lock:
            del self.processes[job["jobid"]]
            if status != 0 and not self.stopping.is_set():  # not one this run killed
                self.failed = True

    def wait_all(self):
        while True:
            with self.lock:
                if not self.processes:
                    return
            time.sleep(0.05)

    def kill(self):
        self.stopping.set()
        with self.lock:
            running = list(self.processes.values())
        for process in running:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass


def parse(argv):
    parser = argparse.ArgumentParser(
        prog="resched-snakemake", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", help="HOST:PORT, or several (default: $RESCHED_SERVER)")
    parser.add_argument("--cluster", default="default", help="the resched cluster (WALL clock)")
    parser.add_argument("--token-file", help="the bearer token (default: $RESCHED_TOKEN)")
    parser.add_argument("--tls-ca"), parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--algorithm", help="a DAG planner (default: the server's)")
    parser.add_argument("--deadline", type=float,
                        help="seconds from now by which the workflow must finish: QueryDeadline "
                             "commits a plan meeting it, or the run stops saying the tightest one")
    parser.add_argument("--default-runtime", type=float, default=60,
                        help="seconds reserved for a job whose rule gives no runtime (60)")
    parser.add_argument("--job-overhead", type=float, default=5,
                        help="seconds added to every job's reservation for the Snakemake "
                             "process its job script starts (5)")
    parser.add_argument("--spool", type=pathlib.Path,
                        help="where the jobs and the run's log go (default: "
                             ".snakemake/resched/TIME)")
    parser.add_argument("snakemake", nargs=argparse.REMAINDER,
                        help="-- then Snakemake's own arguments")
    options = parser.parse_args(argv)
    if options.snakemake[:1] == ["--"]:
        options.snakemake = options.snakemake[1:]
    return options


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["submit"]:
        return submit(argv[1], argv[2:])
    options = parse(argv)
    spool = options.spool or pathlib.Path(".snakemake", "resched", datetime.datetime.now(
        datetime.timezone.utc).strftime("%Y%m%dT%H%M%S%f"))
    spool.mkdir(parents=True, exist_ok=True)
    spool = spool.resolve()
    client = resched.Client(options.server, cluster=options.cluster, ca=options.tls_ca,
                            cert=options.tls_cert, key=options.tls_key,
                            token_file=options.token_file)
    capacity = client.cluster().capacity
    jobs = collect(spool, options.snakemake)
    if not jobs:
        print("resched-snakemake: nothing to be done")
        return 0
    dag = workflow_dag(jobs, capacity, options.default_runtime, options.job_overhead)
    label = f"snakemake {spool.name}"
    if options.deadline is not None:
        plan = client.query_deadline(dag, time.time() + options.deadline, commit=True,
                                     algorithm=options.algorithm, label=label)
        if not plan.feasible:
            tightest = resched.to_datetime(plan.tightest_deadline)
            print(f"resched-snakemake: the workflow cannot finish within {options.deadline} s; "
                  f"the tightest deadline is {tightest.isoformat()}", file=sys.stderr)
            return 1
    else:
        plan = client.reserve_dag(dag, algorithm=options.algorithm, label=label)
    (spool / "plan.json").write_text(json.dumps({
        "dag_id": plan.dag_id, "completion": resched.seconds(plan.completion),
        "placements": {p.task: [p.allocation.processors, resched.seconds(p.allocation.start),
                                resched.seconds(p.allocation.end)] for p in plan.placements}}))
    print(f"resched-snakemake: {len(jobs)} jobs reserved as {plan.dag_id} on "
          f"{options.cluster}, to complete by {resched.to_datetime(plan.completion).isoformat()}")
    run = Run(spool, jobs, plan, client)

    def stop(signum, frame):
        run.kill()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    succeeded = run.run()
    if not succeeded:
        run.kill()
        run.wait_all()
        client.release_dag(plan.dag_id)
        print(f"resched-snakemake: stopped; {plan.dag_id} released", file=sys.stderr)
        return 130 if run.stopping.is_set() and not run.failed else 1
    print(f"resched-snakemake: done; logs in {spool}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
