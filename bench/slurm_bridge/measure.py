"""How fast resched-slurm keeps a resched cluster and a Slurm partition in step, on one machine:
a real Slurm, resched-server and the bridge started here (the test harness's processes).

  RESCHED_SERVER_BIN=build/server/resched-server \
  RESCHED_SLURM_BIN=build/bridge/slurm/resched-slurm \
  PYTHONPATH=build/python python3 bench/slurm_bridge/measure.py [--samples 30] [--burst 200]

Prints, as Markdown: the delay from a change on one side to its reflection on the other (p50 and
max over --samples changes, seen by polling both sides every 20 ms), and the rate at which the
bridge brings a burst of --burst new resched jobs into Slurm, against the same reservations made
with scontrol alone: one process per reservation (a shell loop), and one process for all.
"""
import argparse
import pathlib
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "testing" /
                       "python"))
from resched_process import Server  # noqa: E402
from slurm_process import Slurm  # noqa: E402

import resched  # noqa: E402
from resched import models  # noqa: E402
from resched.v1 import types_pb2  # noqa: E402

POLL = 0.02
PREFIX = "resched-batch"
# Each change waits a random part of a round first: back to back, changes would fall in step with
# the rounds that the previous change's own events start.
random.seed(1)


def out_of_phase(interval):
    time.sleep(random.uniform(0, interval + 0.2))


def wait_for(predicate, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return time.monotonic()
        time.sleep(POLL)
    raise TimeoutError("the other side never showed the change")


def slurm_time(instant):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(instant))


def summary(name, delays):
    ms = sorted(d * 1000 for d in delays)
    return f"| {name} | {len(ms)} | {statistics.median(ms):.0f} | {ms[-1]:.0f} |"


def resched_to_slurm(client, slurm, samples, interval):
    delays = []
    base = time.time() + 3600
    for i in range(samples):
        out_of_phase(interval)
        started = time.monotonic()
        job = client.submit(models.rigid(1, 60), release=base + 120 * i).job
        name = f"{PREFIX}-{job.id}"
        delays.append(wait_for(lambda: name in slurm.reservations()) - started)
    return delays


def slurm_to_resched(client, slurm, samples, interval):
    delays = []
    base = time.time() + 7200
    for i in range(samples):
        out_of_phase(interval)
        started = time.monotonic()
        slurm.scontrol("create", "reservation", f"ReservationName=m{i}",
                       f"StartTime={slurm_time(base + 120 * i)}", "Duration=1", "CoreCnt=1",
                       f"Users={slurm.user}")
        reason = f"slurm: reservation m{i}"
        delays.append(wait_for(lambda: any(h.reason == reason
                                           for h in client.schedule().reservations)) - started)
    return delays


def job_end_to_resched(client, slurm, samples, interval):
    """From Slurm showing a batch job ended to resched showing its job finished."""
    delays = []
    for _ in range(samples):
        job = client.submit(models.rigid(1, 60), release=time.time() + 3).job
        name = f"{PREFIX}-{job.id}"
        wait_for(lambda: name in slurm.reservations())
        out_of_phase(interval)
        batch = slurm.sbatch(f"--reservation={name}", "-n1", "-t1", "--wrap", "sleep 1")
        ended = wait_for(lambda: slurm.jobs()[batch]["job_state"] == "COMPLETED", 60)
        seen = wait_for(lambda: client.job(job.id).state == types_pb2.FINISHED)
        delays.append(seen - ended)
    return delays


def burst(client, slurm, count):
    base = time.time() + 4 * 3600
    started = time.monotonic()
    names = set()
    for i in range(count):
        job = client.submit(models.rigid(1, 60), release=base + 60 * (i // 8)).job
        names.add(f"{PREFIX}-{job.id}")
    submitted = time.monotonic()
    done = wait_for(lambda: names <= set(slurm.reservations()), 600)
    return submitted - started, done - started


def scontrol_alone(slurm, count, one_process):
    base = time.time() + 12 * 3600
    lines = [f"create reservation ReservationName=b{i} StartTime={slurm_time(base + 60 * (i // 8))}"
             f" Duration=1 CoreCnt=1 Users={slurm.user} PartitionName={slurm.partition}"
             for i in range(count)]
    started = time.monotonic()
    if one_process:
        subprocess.run(["scontrol"], input="\n".join(lines) + "\n", env=slurm.env, text=True,
                       capture_output=True, check=False)
    else:
        for line in lines:
            subprocess.run(["scontrol", *line.split()], env=slurm.env, capture_output=True,
                           check=False)
    took = time.monotonic() - started
    made = sum(1 for name in slurm.reservations() if name.startswith("b"))
    subprocess.run(["scontrol"], input="".join(f"delete ReservationName=b{i}\n"
                                               for i in range(count)),
                   env=slurm.env, text=True, capture_output=True, check=False)
    return took, made


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--burst", type=int, default=200)
    parser.add_argument("--interval", default="1s", help="the bridge's --interval, in seconds")
    args = parser.parse_args()
    interval = float(args.interval.rstrip("s"))
    slurm = Slurm(cpus=8)
    server = bridge = None
    try:
        server = Server(data_dir=pathlib.Path(tempfile.mkdtemp()) / "data")
        bridge_log = tempfile.NamedTemporaryFile(prefix="resched-slurm-", suffix=".log")
        bridge = subprocess.Popen(
            [__import__("os").environ["RESCHED_SLURM_BIN"], "--slurmrestd",
             f"unix:{slurm.rest_socket}", "--server", server.address, "--partition",
             slurm.partition, "--users", slurm.user, "--interval", args.interval],
            env=slurm.env, stdout=bridge_log, stderr=subprocess.STDOUT)
        with resched.Client(server.address, cluster="batch") as client:
            wait_for(lambda: any(c.spec.name == "batch" for c in client.clusters()), 30)
            print(f"resched-slurm --interval {args.interval}; one machine; polled every "
                  f"{POLL * 1000:.0f} ms\n")
            print("| change | samples | p50 (ms) | max (ms) |\n|---|---|---|---|")
            print(summary("SubmitJob -> its Slurm reservation exists",
                          resched_to_slurm(client, slurm, args.samples, interval)))
            print(summary("scontrol create reservation -> its hold in resched",
                          slurm_to_resched(client, slurm, args.samples, interval)))
            print(summary("batch job seen ended in Slurm -> its job FINISHED in resched",
                          job_end_to_resched(client, slurm, max(3, args.samples // 3),
                                             interval)))
            submitted, done = burst(client, slurm, args.burst)
        alone, made_alone = scontrol_alone(slurm, args.burst, one_process=False)
        batched, made_batched = scontrol_alone(slurm, args.burst, one_process=True)
        print(f"\n| {args.burst} reservations | seconds | per second |\n|---|---|---|")
        print(f"| through resched-slurm (SubmitJob to all in Slurm; submitting took "
              f"{submitted:.2f} s) | {done:.2f} | {args.burst / done:.0f} |")
        print(f"| scontrol alone, one process each ({made_alone} made) | {alone:.2f} | "
              f"{made_alone / alone:.0f} |")
        print(f"| scontrol alone, one process for all ({made_batched} made) | {batched:.2f} | "
              f"{made_batched / batched:.0f} |")
    finally:
        if bridge is not None:
            bridge.terminate()
            bridge.wait()
        if server is not None:
            server.stop()
        slurm.stop()


if __name__ == "__main__":
    main()
