"""Fixtures of the Python client's tests: a real resched-server started per test module.

CTest passes RESCHED_SERVER_BIN, RESCHED_CLI_BIN and PYTHONPATH (the built package); the shared
data (workflow files) is the nearest shared/data above the repository, or $RESCHED_DATA_DIR.
"""
import os
import pathlib
import sys

import pytest

import resched

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "testing" / "python"))
from resched_process import CLI_BIN, Server, free_port  # noqa: E402

__all__ = ["CLI_BIN", "Server", "free_port", "data_dir"]  # what the tests import from here


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
