"""Fixtures of the bridge's tests: a real Slurm, a real resched-server keeping its data on disk,
and resched-slurm between them, each started per test and stopped after; the bridge's log and
Slurm's are printed when a test fails.

CTest passes RESCHED_SERVER_BIN, RESCHED_SLURM_BIN and PYTHONPATH (the built Python client).
"""
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

import resched

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "testing" / "python"))
from resched_process import Server  # noqa: E402
from slurm_process import Slurm, wait_until  # noqa: E402

BRIDGE_BIN = os.environ.get("RESCHED_SLURM_BIN", "")
CLUSTER = "batch"
PREFIX = "resched-batch"


class Bridge:
    def __init__(self, slurm, server):
        assert BRIDGE_BIN, "RESCHED_SLURM_BIN is not set (run the tests through ctest)"
        self.argv = [BRIDGE_BIN, "--slurmrestd", f"unix:{slurm.rest_socket}", "--server",
                     server.address, "--partition", slurm.partition, "--users", slurm.user,
                     "--interval", "500ms"]
        self.env = slurm.env
        self.log = tempfile.NamedTemporaryFile(prefix="resched-slurm-", suffix=".log",
                                               delete=False)
        self.start()

    def start(self):
        self.process = subprocess.Popen(self.argv, stdout=self.log, stderr=subprocess.STDOUT,
                                        env=self.env)

    def kill(self):
        self.process.kill()
        self.process.wait()

    def log_text(self):
        return pathlib.Path(self.log.name).read_text(errors="replace")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        os.unlink(self.log.name)


@pytest.fixture
def slurm():
    running = Slurm(cpus=8)
    yield running
    running.stop()


@pytest.fixture
def server(tmp_path):
    running = Server(data_dir=tmp_path / "resched-data")
    yield running
    running.stop()


@pytest.fixture
def bridge(slurm, server):
    running = Bridge(slurm, server)
    yield running
    running.stop()


@pytest.fixture
def client(server, slurm, bridge, request):
    with resched.Client(server.address, cluster=CLUSTER) as c:
        # The bridge creates the cluster, with the partition's CPUs.
        wait_until(lambda: any(x.spec.name == CLUSTER for x in c.clusters()), 20,
                   "the bridge to create the cluster")
        assert c.cluster().capacity == 8
        yield c
        report = getattr(request.node, "rep_call", None)
        if report is not None and report.failed:
            print(bridge.log_text()[-4000:])
            print(slurm.logs())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, "rep_" + report.when, report)
