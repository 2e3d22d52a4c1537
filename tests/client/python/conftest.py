"""Fixtures of the Python client's tests: a real resched-server started per test module.

CTest passes RESCHED_SERVER_BIN, RESCHED_CLI_BIN and PYTHONPATH (the built package); the shared
data (workflow files) is the nearest shared/data above the repository, or $RESCHED_DATA_DIR.
"""
import os
import pathlib
import socket
import subprocess
import tempfile
import time

import pytest

import resched

SERVER_BIN = os.environ.get("RESCHED_SERVER_BIN", "")
CLI_BIN = os.environ.get("RESCHED_CLI_BIN", "")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """resched-server on a free loopback port, ephemeral, with `flags`; stopped by stop()."""

    def __init__(self, *flags, attempts=4):
        assert SERVER_BIN, "RESCHED_SERVER_BIN is not set (run the tests through ctest)"
        self.log = tempfile.NamedTemporaryFile(prefix="resched-server-", suffix=".log",
                                               delete=False)
        for _ in range(attempts):
            # The port is free when picked and may be taken before the server binds it: then the
            # server exits saying so, and another port is tried.
            self.address = f"127.0.0.1:{free_port()}"
            self.process = subprocess.Popen([SERVER_BIN, "--listen", self.address, "--ephemeral",
                                             *flags], stdout=self.log, stderr=subprocess.STDOUT)
            if self._wait_until_listening():
                return
        raise RuntimeError(f"resched-server did not start: {self.log_tail()}")

    def _wait_until_listening(self):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                if "already in use" in self.log_tail():
                    return False
                raise RuntimeError(f"resched-server exited {self.process.returncode}: "
                                   f"{self.log_tail()}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", int(self.address.rsplit(":", 1)[1]))) == 0:
                    return True
            time.sleep(0.1)
        raise RuntimeError(f"resched-server did not listen within 20 s: {self.log_tail()}")

    def log_tail(self):
        return pathlib.Path(self.log.name).read_text(errors="replace")[-2000:]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        os.unlink(self.log.name)


@pytest.fixture(scope="module")
def server():
    running = Server()
    yield running
    running.stop()


@pytest.fixture
def client(server, request):
    """A client of the module's server on a SIMULATED cluster of 16 processors of its own."""
    name = request.node.name.replace("[", "-").replace("]", "")[:60]
    with resched.Client(server.address, cluster=name) as c:
        c.create_cluster(name, 16, simulated=True)
        yield c


def data_dir():
    if os.environ.get("RESCHED_DATA_DIR"):
        return pathlib.Path(os.environ["RESCHED_DATA_DIR"])
    for parent in pathlib.Path(__file__).resolve().parents:
        if (parent / "shared" / "data" / "workflows").is_dir():
            return parent / "shared" / "data"
    raise RuntimeError("no shared/data above the repository: set RESCHED_DATA_DIR")
