#!/usr/bin/env python3
"""What open web-view pages cost the server: resched-loadgen submits at a steady rate to a
1,024-processor cluster of 8,000 jobs while 0, 1 or 10 pages show it (headless Chromium, and past
--browser-pages readers of the event stream), and the server's CPU time and SubmitJob's latency
are compared with the run without pages, measured in the same run (docs/web.md).

The server runs on CPU 0; Chromium, chromedriver and loadgen on the others, so that the pages'
own drawing does not queue the server's threads (on a 2-core machine: one core each). It runs
with a tokens file and each page with a token of its own, since one client (a token, or an
address without one) holds at most 4 event streams: ten pages from one address could not all
be live.

RESCHED_SERVER_BIN=build/server/resched-server RESCHED_LOADGEN_BIN=build/loadgen/resched-loadgen \\
  python3 bench/web_cost/measure.py --jobs 8000 --seconds 30 --rounds 3 --pages 0,1,4,10 \\
  --browser-pages 1

With --baseline-server BIN, every round also runs on that server binary (another build), and
each build's pages are compared with its own run without pages, in the same run.

With --rate 0 nothing is submitted: what open pages cost a server with nothing to do.

With --count-syscalls, strace counts the server's sendto, futex, poll, ppoll and write calls (the
writes to sockets, the wake-ups and waits) during each round's load instead (strace slows the
server: its CPU and latency are not compared then). The counts scatter far less than the CPU time
on a shared machine: the writes and wake-ups a page costs.
"""
import argparse
import hashlib
import json
import os
import pathlib
import statistics
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests/testing/python"))
import resched_process  # noqa: E402

LOADGEN_BIN = os.environ.get("RESCHED_LOADGEN_BIN", "")
CLUSTER = "loadgen-0"  # the cluster resched-loadgen creates and submits to


def thread_runtimes(pid):
    """CPU time so far of each of the process's threads, in nanoseconds (schedstat: the scheduler's
    own count, where the process's utime and stime are sampled at each clock tick, 10 ms, and
    scatter by a fifth over a round of a server busy 2 % of the time)."""
    runtimes = {}
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        try:
            runtimes[task.name] = (int((task / "schedstat").read_text().split()[0]),
                                   (task / "comm").read_text().strip())
        except OSError:
            pass  # a thread that ended meanwhile
    return runtimes


def cpu_seconds(before, after):
    """The CPU time the threads took between two thread_runtimes, that time by thread name
    (the web view's are resched-http; gRPC runs the calls, and with them the cluster's side of
    the pages, on its nexting_thread ones), and how many threads ended meanwhile (what they took
    since `before` is not counted)."""
    by_name = {}
    for tid, (ns, name) in after.items():
        by_name[name] = by_name.get(name, 0) + (ns - before.get(tid, (0, name))[0]) / 1e9
    return sum(by_name.values()), by_name, len(before.keys() - after.keys())


def http_waits(pid):
    """How often the process's web-view threads (named resched-http) have waited (voluntary
    context switches): with their CPU time (cpu_seconds, by thread name), what the pages'
    streams cost on their own threads, apart from the cluster's side of the pages' cost, which
    runs on the calls' threads."""
    waits = 0
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        try:
            if (task / "comm").read_text().strip() != "resched-http":
                continue
            status = (task / "status").read_text()
            waits += int(status.split("voluntary_ctxt_switches:")[1].split()[0])
        except OSError:
            pass  # a thread that ended meanwhile
    return waits


def others_cpus():
    cpus = sorted(os.sched_getaffinity(0))
    return cpus[1:] if len(cpus) > 1 else cpus


def write_tokens(directory, pages):
    """A tokens file of admin tokens: one for loadgen, one per page. Returns the file, loadgen's
    token file and the pages' tokens."""
    loadgen_token = secrets.token_hex(16)
    page_tokens = [secrets.token_hex(16) for _ in range(pages)]
    entries = [{"sha256": hashlib.sha256(token.encode()).hexdigest(), "tenant": tenant,
                "role": "admin"}
               for token, tenant in [(loadgen_token, "loadgen"),
                                     *((t, f"page-{i}") for i, t in enumerate(page_tokens))]]
    tokens_file = pathlib.Path(directory) / "tokens.json"
    tokens_file.write_text(json.dumps({"tokens": entries}))
    token_file = pathlib.Path(directory) / "loadgen.token"
    token_file.write_text(loadgen_token)
    return tokens_file, token_file, page_tokens


def loadgen(target, token_file, *flags):
    command = ["taskset", "-c", ",".join(map(str, others_cpus())), LOADGEN_BIN,
               "--target", target, "--token-file", str(token_file), "--clusters", "1",
               "--processors", "1024", "--json", *flags]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


class WebDriver:
    """chromedriver's W3C WebDriver protocol over HTTP: one headless Chromium, several tabs."""

    def __init__(self):
        self.port = resched_process.free_port()
        self.process = subprocess.Popen(
            ["taskset", "-c", ",".join(map(str, others_cpus())), "chromedriver",
             f"--port={self.port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                self.call("GET", "/status")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        options = {"args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                            "--disable-dev-shm-usage", "--window-size=1400,1000"]}
        answer = self.call("POST", "/session", {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "goog:chromeOptions": options}}})
        self.session = answer["sessionId"]

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data,
                                         method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=600) as response:
            return json.loads(response.read())["value"]

    def session_call(self, method, path, body=None):
        return self.call(method, f"/session/{self.session}{path}", body)

    def open_pages(self, url, tokens):
        """A tab on `url` per token, each once its schedule is drawn and its stream is live."""
        handles = [self.session_call("GET", "/window")]
        while len(handles) < len(tokens):
            handles.append(self.session_call("POST", "/window/new", {"type": "tab"})["handle"])
        for handle, token in zip(handles, tokens):
            self.session_call("POST", "/window", {"handle": handle})
            # The page reads its token from the tab's sessionStorage (its token field): set it
            # on a small answer of the same origin first, then load the page once.
            self.session_call("POST", "/url", {"url": url.split("#")[0] + "api/v1/algorithms"})
            self.session_call("POST", "/execute/sync", {
                "script": "sessionStorage.setItem('reschedToken', arguments[0]); return true;",
                "args": [token]})
            self.session_call("POST", "/url", {"url": url})
        for handle in handles:
            self.session_call("POST", "/window", {"handle": handle})
            deadline = time.monotonic() + 120
            while not self.session_call("POST", "/execute/sync", {
                    "script": "return window.reschedLive && reschedLive.state === 'live' && "
                              "reschedLive.meta !== null && reschedLive.jobs.size > 0;",
                    "args": []}):
                if time.monotonic() > deadline:
                    raise RuntimeError("a page did not load its schedule within 120 s")
                time.sleep(0.5)
        return handles

    def page_counts(self, handles):
        """What the pages counted (reschedLive.counts), summed."""
        total = {}
        for handle in handles:
            self.session_call("POST", "/window", {"handle": handle})
            counts = self.session_call("POST", "/execute/sync", {
                "script": "return reschedLive.counts;", "args": []})
            for key, value in counts.items():
                total[key] = total.get(key, 0) + value
        return total

    def close_pages(self, handles):
        """Every tab but the first closed, the first on a blank page (no stream left open)."""
        for handle in handles[1:]:
            self.session_call("POST", "/window", {"handle": handle})
            self.session_call("DELETE", "/window")
        self.session_call("POST", "/window", {"handle": handles[0]})
        self.session_call("POST", "/url", {"url": "about:blank"})

    def stop(self):
        try:
            self.call("DELETE", f"/session/{self.session}")
        finally:
            self.process.terminate()
            self.process.wait()


class StreamReaders:
    """Pages past --browser-pages: each reads the cluster's event stream as a page does
    (curl, with a token of its own) and draws nothing. A page that shows the cluster fetches
    nothing while it applies events (the Chromium pages' counts say so), so the server serves
    a reader as it serves a page once both are loaded; one core cannot draw ten pages of 8,000
    jobs 20 times a second, and a page that falls behind is cut off by the server."""

    def __init__(self, http_port, tokens):
        url = f"http://127.0.0.1:{http_port}/api/v1/clusters/{CLUSTER}/events"
        self.directory = tempfile.TemporaryDirectory(prefix="web-cost-streams-")
        self.outputs = [pathlib.Path(self.directory.name) / f"stream-{i}"
                        for i in range(len(tokens))]
        self.processes = [subprocess.Popen(
            ["taskset", "-c", ",".join(map(str, others_cpus())), "curl", "-sfN",
             "-H", f"Authorization: Bearer {token}", "-o", str(output), url])
            for token, output in zip(tokens, self.outputs)]
        # Measured from when each has its first event (the whole schedule, which the server
        # converts for each stream), as a Chromium page is measured once loaded.
        try:
            deadline = time.monotonic() + 120
            while not all(output.exists() and b"\n\n" in output.read_bytes()
                          for output in self.outputs):
                for process in self.processes:
                    if process.poll() is not None:
                        raise RuntimeError(
                            f"an event stream ended: curl exited {process.returncode}")
                if time.monotonic() > deadline:
                    raise RuntimeError("the event streams' first events did not come within 120 s")
                time.sleep(0.2)
        except BaseException:
            for process in self.processes:  # none left reading after a failed start
                process.kill()
                process.wait()
            self.directory.cleanup()
            raise

    def stop(self):
        for process in self.processes:
            if process.poll() is not None:
                raise RuntimeError(f"an event stream ended: curl exited {process.returncode}")
            process.terminate()
            process.wait()
        self.directory.cleanup()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=8000, help="jobs on the cluster first")
    parser.add_argument("--rate", type=float, default=20,
                        help="submissions per second; 0: none (what pages cost an idle server)")
    parser.add_argument("--seconds", type=int, default=20, help="of load per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="each page count, interleaved")
    parser.add_argument("--pages", default="0,1,10")
    parser.add_argument("--browser-pages", type=int, default=4,
                        help="pages in Chromium, at most; the others read the event stream alone")
    parser.add_argument("--baseline-server", default="",
                        help="another resched-server binary, measured in the same rounds")
    parser.add_argument("--count-syscalls", action="store_true",
                        help="count the server's writes and waits (strace) instead")
    args = parser.parse_args()
    assert LOADGEN_BIN, "RESCHED_LOADGEN_BIN is not set"
    page_counts = [int(p) for p in args.pages.split(",")]
    secrets_dir = tempfile.TemporaryDirectory(prefix="web-cost-")
    tokens_file, token_file, page_tokens = write_tokens(secrets_dir.name, max(page_counts))
    builds = {"": resched_process.SERVER_BIN}
    if args.baseline_server:
        builds = {"baseline ": args.baseline_server, "this build ": resched_process.SERVER_BIN}
    # No Chromium when no page is drawn: idle, it still takes the other core now and then.
    browser = WebDriver() if min(args.browser_pages, max(page_counts)) > 0 else None
    try:
        results = {(build, n): [] for build in builds for n in page_counts}
        syscalls = {(build, n): [] for build in builds for n in page_counts}
        # Every round on a server of its own, filled with the same jobs: a round adds
        # rate x seconds jobs, which makes each later submission dearer, and a server keeps a
        # cluster's processor rows from its first page on (server/app/processor_rows.h).
        order = [(r, b, p) for r in range(args.rounds) for b in builds for p in page_counts]
        for round_index, build, pages in order:
            resched_process.SERVER_BIN = builds[build]
            fill_started = time.monotonic()
            server, http_port = filled_server(tokens_file, token_file, args.jobs)
            try:
                fill_seconds = time.monotonic() - fill_started
                url = f"http://127.0.0.1:{http_port}/#{CLUSTER}"
                in_browser = min(pages, args.browser_pages)
                handles = browser.open_pages(url, page_tokens[:in_browser]) if in_browser else []
                readers = StreamReaders(http_port, page_tokens[in_browser:pages])
                counter = SyscallCounter(server.process.pid) if args.count_syscalls else None
                before = thread_runtimes(server.process.pid)
                waits_before = http_waits(server.process.pid)
                if args.rate > 0:
                    report = loadgen(server.address, token_file, "--rate", str(args.rate),
                                     "--duration", f"{args.seconds}s", "--clients", "4")
                else:  # what open pages cost a server with nothing to do
                    time.sleep(args.seconds)
                    report = {"calls": [{"call": "submit", "p50_ms": 0, "p99_ms": 0}]}
                cpu, by_name, threads_ended = cpu_seconds(before,
                                                          thread_runtimes(server.process.pid))
                http_cpu = by_name.get("resched-http", 0)
                waits = http_waits(server.process.pid) - waits_before
                readers.stop()
                if counter:
                    calls = counter.stop()
                    syscalls[(build, pages)].append(calls)
                    print(f"round {round_index + 1}, {build}{pages} page(s): {calls}", flush=True)
                submit = next(op for op in report["calls"] if op["call"] == "submit")
                results[(build, pages)].append({"cpu": cpu, "http": http_cpu,
                                                "waits": waits,
                                                "p50": submit["p50_ms"],
                                                "p99": submit["p99_ms"]})
                print(f"round {round_index + 1}, {build}{pages} page(s) ({pages - in_browser} "
                      f"reading the stream alone; filled in {fill_seconds:.0f} s): server CPU "
                      f"{cpu:.3f} s ({http_cpu * 1000:.0f} ms of it on the web threads, "
                      f"which waited {waits} times; {threads_ended} threads ended), "
                      f"SubmitJob p50 {submit['p50_ms']:.2f} ms, p99 "
                      f"{submit['p99_ms']:.2f} ms{' (under strace)' if counter else ''}",
                      flush=True)
                print("  by thread name: " + ", ".join(
                    f"{name} {seconds * 1000:.0f} ms" for name, seconds in
                    sorted(by_name.items(), key=lambda item: -item[1]) if seconds >= 0.0005),
                    flush=True)
                if handles:
                    print(f"  the pages counted {browser.page_counts(handles)}", flush=True)
                    browser.close_pages(handles)
            finally:
                server.stop()
        print(f"\nmedians over {args.rounds} rounds of {args.seconds} s at {args.rate}/s "
              f"({args.jobs} jobs first, 1,024 processors):")
        if args.count_syscalls:
            for (build, pages), counts in syscalls.items():
                median = {name: statistics.median(c.get(name, 0) for c in counts)
                          for name in COUNTED_CALLS}
                print(f"  {build}{pages} page(s): "
                      + ", ".join(f"{median[name]:.0f} {name}" for name in COUNTED_CALLS))
            return
        for build in builds:
            base = {key: statistics.median(r[key] for r in results[(build, page_counts[0])])
                    for key in ("cpu", "http", "waits", "p50", "p99")}
            for pages in page_counts:
                median = {key: statistics.median(r[key] for r in results[(build, pages)])
                          for key in ("cpu", "http", "waits", "p50", "p99")}
                print(f"  {build}{pages} page(s): server CPU {median['cpu']:.3f} s "
                      f"(x{median['cpu'] / base['cpu']:.3f}; web threads "
                      f"{median['http'] * 1000:.0f} ms over {median['waits']:.0f} waits, "
                      f"{median['http'] / base['cpu'] * 100:.1f} % of the CPU without pages)"
                      + (f", SubmitJob p50 {median['p50']:.2f} ms, p99 {median['p99']:.2f} ms "
                         f"(x{median['p99'] / base['p99']:.3f})" if args.rate > 0 else ""))
    finally:
        if browser:
            browser.stop()
        secrets_dir.cleanup()


# The system calls --count-syscalls counts: a page's writes (sendto), its thread's waits and
# wake-ups (futex under a condition variable, ppoll and the eventfd's write), the sockets' polls.
COUNTED_CALLS = ("sendto", "futex", "poll", "ppoll", "write")


class SyscallCounter:
    """strace -c on every thread of a process, from now to stop()."""

    def __init__(self, pid):
        if shutil.which("strace") is None:
            raise RuntimeError("--count-syscalls needs strace (scripts/install-deps.sh --browser)")
        self.output = tempfile.NamedTemporaryFile(prefix="web-cost-strace-", suffix=".txt")
        self.process = subprocess.Popen(
            ["strace", "-f", "-c", "-e", "trace=" + ",".join(COUNTED_CALLS), "-o", self.output.name,
             "-p", str(pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)  # attached to every thread before the load starts

    def stop(self):
        """The calls counted, by system call name."""
        self.process.send_signal(2)  # strace writes its table when interrupted
        self.process.wait()
        counts = {}
        for line in pathlib.Path(self.output.name).read_text().splitlines():
            fields = line.split()
            # "% time  seconds  usecs/call  calls  [errors]  syscall"
            if len(fields) >= 5 and fields[-1] in COUNTED_CALLS:
                counts[fields[-1]] = int(fields[3])
        self.output.close()
        return counts


def filled_server(tokens_file, token_file, jobs):
    """A server on CPU 0 with the web view, its cluster filled with `jobs` jobs (loadgen's
    default seed: the same jobs every time). Returns it and the web view's port."""
    http_port = resched_process.free_port()
    server = resched_process.Server("--http-listen", f"127.0.0.1:{http_port}", "--tokens-file",
                                    str(tokens_file))
    try:
        subprocess.run(["taskset", "-pc", "0", str(server.process.pid)], check=True,
                       capture_output=True)
        loadgen(server.address, token_file, "--count", str(jobs), "--clients", "4")
    except BaseException:
        server.stop()
        raise
    return server, http_port


if __name__ == "__main__":
    main()
