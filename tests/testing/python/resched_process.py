"""resched-server as a test's own process, for the Python tests (the client's, the bridge's).

CTest passes RESCHED_SERVER_BIN and RESCHED_CLI_BIN.
"""
import os
import pathlib
import socket
import subprocess
import tempfile
import time

SERVER_BIN = os.environ.get("RESCHED_SERVER_BIN", "")
CLI_BIN = os.environ.get("RESCHED_CLI_BIN", "")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """resched-server on a free loopback port with `flags`, ephemeral unless given a `data_dir`;
    stopped by stop(), started again on the same port and data by restart()."""

    def __init__(self, *flags, attempts=4, data_dir=None):
        assert SERVER_BIN, "RESCHED_SERVER_BIN is not set (run the tests through ctest)"
        self.log = tempfile.NamedTemporaryFile(prefix="resched-server-", suffix=".log",
                                               delete=False)
        self.flags = [*(["--data-dir", str(data_dir)] if data_dir else ["--ephemeral"]), *flags]
        for _ in range(attempts):
            # The port is free when picked and may be taken before the server binds it: then the
            # server exits saying so, and another port is tried.
            self.address = f"127.0.0.1:{free_port()}"
            if self._start():
                return
        raise RuntimeError(f"resched-server did not start: {self.log_tail()}")

    def _start(self):
        self.process = subprocess.Popen([SERVER_BIN, "--listen", self.address, *self.flags],
                                        stdout=self.log, stderr=subprocess.STDOUT)
        return self._wait_until_listening()

    def kill(self):
        """SIGKILL, as a crash."""
        self.process.kill()
        self.process.wait()

    def restart(self):
        if not self._start():
            raise RuntimeError(f"resched-server did not start again: {self.log_tail()}")

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

    def stop(self, keep_log=False):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if not keep_log:
            os.unlink(self.log.name)
