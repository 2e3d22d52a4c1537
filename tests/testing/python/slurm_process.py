"""A real Slurm 22.05 on loopback, as a test's own processes: munged, slurmctld, one slurmd whose
node declares `cpus` CPUs, and slurmrestd on a Unix socket, all in a temporary directory, with
private ports. Needs Debian's slurmctld, slurmd, slurmrestd, slurm-client and munge
(scripts/install-deps.sh --slurm).

Its scheduler passes run every second (Slurm's defaults: 60 s and 30 s), so that a job waiting for
its reservation starts when the reservation begins even on a loaded machine. Slurm's daemons run
as the test's user (root in CI); slurmrestd refuses to run as root, so it then
runs as `nobody`, and the socket's rest_auth/local lets the bridge in as the user it runs as.
"""
import http.client
import json
import os
import pathlib
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from resched_process import free_port


def wait_until(predicate, timeout, what):
    """Polls `predicate` every 0.2 s; TimeoutError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise TimeoutError(f"waited {timeout} s for {what}")


class _UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout=10):
        super().__init__("slurmrestd", timeout=timeout)
        self._path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self._path)


class Slurm:
    API = "/slurm/v0.0.38"

    def __init__(self, cpus=8, partition="batch"):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="resched-slurm-"))
        self.dir.chmod(0o755)  # slurmrestd's user reads the configuration and munge's socket
        self.partition = partition
        self.cpus = cpus
        self.user = pwd.getpwuid(os.getuid()).pw_name
        self.processes = {}
        self.env = dict(os.environ, SLURM_CONF=str(self.dir / "slurm.conf"), TZ="UTC")
        try:
            self._start_munge()
            self._write_conf()
            self.start_slurmctld()
            self.start_slurmd()
            self._start_rest()
            wait_until(lambda: self.node_state() in ("idle", "mixed", "allocated"), 60,
                            "the node to come up")
        except Exception:
            self.stop()
            raise

    # Processes.

    def _spawn(self, name, argv, **kwargs):
        log = open(self.dir / f"{name}.out", "ab")
        self.processes[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                                env=self.env, **kwargs)

    def _start_munge(self):
        subprocess.run(["mungekey", "-c", "-k", str(self.dir / "munge.key")], check=True,
                       capture_output=True)
        (self.dir / "munge.key").chmod(0o600)
        self.munge_socket = self.dir / "munge.sock"
        self._spawn("munged", ["munged", "--foreground", f"--socket={self.munge_socket}",
                               f"--key-file={self.dir / 'munge.key'}",
                               f"--pid-file={self.dir / 'munged.pid'}",
                               f"--log-file={self.dir / 'munged.log'}",
                               f"--seed-file={self.dir / 'munge.seed'}"])
        wait_until(self.munge_socket.exists, 20, "munged's socket")

    def _write_conf(self):
        for sub in ("state", "spool"):
            (self.dir / sub).mkdir()
        d = self.dir
        (d / "slurm.conf").write_text(f"""ClusterName=resched-test
SlurmctldHost=localhost(127.0.0.1)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.munge_socket}
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser={self.user}
SlurmdUser={self.user}
StateSaveLocation={d / 'state'}
SlurmdSpoolDir={d / 'spool'}
SlurmctldPidFile={d / 'slurmctld.pid'}
SlurmdPidFile={d / 'slurmd.pid'}
SlurmctldLogFile={d / 'slurmctld.log'}
SlurmdLogFile={d / 'slurmd.log'}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
ReturnToService=2
MpiDefault=none
MinJobAge=600
NodeName=node1 NodeHostname=localhost NodeAddr=127.0.0.1 CPUs={self.cpus} State=UNKNOWN
PartitionName={self.partition} Nodes=node1 Default=YES MaxTime=INFINITE State=UP
""")
        (d / "slurm.conf").chmod(0o644)

    def start_slurmctld(self):
        self._spawn("slurmctld", ["slurmctld", "-D", "-f", str(self.dir / "slurm.conf")])

    def start_slurmd(self):
        self._spawn("slurmd", ["slurmd", "-D", "-f", str(self.dir / "slurm.conf"), "-N", "node1"])

    def _start_rest(self):
        rest_dir = self.dir / "rest"
        rest_dir.mkdir()
        argv = ["slurmrestd", "-f", str(self.dir / "slurm.conf"), "-s", "openapi/v0.0.38",
                "-a", "rest_auth/local", f"unix:{rest_dir / 'rest.sock'}"]
        if os.getuid() == 0:
            shutil.chown(rest_dir, user="nobody")
            argv = ["runuser", "-u", "nobody", "--", *argv]
        self.rest_socket = rest_dir / "rest.sock"
        self._spawn("slurmrestd", argv)
        wait_until(self.rest_socket.exists, 20, "slurmrestd's socket")

    def kill(self, name):
        """SIGKILL, as a crash."""
        process = self.processes.pop(name)
        process.send_signal(signal.SIGKILL)
        process.wait()

    def stop(self):
        for name in ("slurmrestd", "slurmd", "slurmctld", "munged"):
            process = self.processes.pop(name, None)
            if process is None:
                continue
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def logs(self):
        text = []
        for name in ("slurmctld.log", "slurmd.log", "slurmctld.out", "slurmrestd.out"):
            path = self.dir / name
            if path.exists():
                text.append(f"--- {name}\n{path.read_text(errors='replace')[-3000:]}")
        return "\n".join(text)

    # Commands and queries.

    def command(self, *argv, check=True):
        result = subprocess.run(list(argv), env=self.env, capture_output=True, text=True)
        if check and result.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed: {result.stdout}{result.stderr}")
        return result

    def scontrol(self, *args, check=True):
        return self.command("scontrol", *args, check=check)

    def sbatch(self, *args):
        return self.command("sbatch", "--parsable", "-o", "/dev/null", *args).stdout.strip()

    def get(self, path):
        # slurmrestd now and then resets a connection on a loaded machine (seen on two cores
        # with the other suites running): a GET is asked again, twice at most.
        for attempt in range(3):
            connection = _UnixHTTPConnection(str(self.rest_socket))
            try:
                connection.request("GET", self.API + path)
                answer = connection.getresponse()
                body = answer.read()
                break
            except ConnectionResetError:
                if attempt == 2:
                    raise
                time.sleep(0.2)
            finally:
                connection.close()
        if answer.status != 200:
            raise RuntimeError(f"GET {path}: HTTP {answer.status}: {body[:300]!r}")
        return json.loads(body)

    def reservations(self):
        return {r["name"]: r for r in self.get("/reservations")["reservations"]}

    def jobs(self):
        return {str(j["job_id"]): j for j in self.get("/jobs")["jobs"]}

    def node_state(self):
        try:
            nodes = self.get("/nodes")["nodes"]
        except (OSError, RuntimeError, ValueError):
            return None
        return nodes[0]["state"] if nodes else None
