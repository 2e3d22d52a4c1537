"""DAGs for ReserveDAG and QueryDeadline (resched.v1.Dag) from what a workflow author holds: a
plain dict, a networkx graph, or a workflow file (a resched Dag in JSON, WfCommons JSON, Pegasus
DAX XML).

The two workflow formats follow the server's importers (core/workload/wfcommons.h, dax.h) rule for
rule, so a file gives the same Dag here as with `resched dag reserve -f FILE`: each task becomes
an Amdahl task (Aida & Casanova 2008, §3.1) whose t1 is the recorded run time rounded up to the
microsecond (a run time of 0 becomes `min_t1`), with one serial fraction `alpha` for all; edges
carry no transfer and are sorted by (parent, child) task index; files and sizes are ignored.
"""
import datetime
import json
import math
import os
import pathlib
import xml.etree.ElementTree as ElementTree

from google.protobuf import json_format

from resched import models
from resched.times import duration
from resched.v1 import types_pb2

Dag = types_pb2.Dag

_MAX_RECORDED_RUNTIME_S = 1e9


class DagFileError(ValueError):
    """A workflow file that cannot be read: the message names the file, the place and the rule."""


def as_dag(dag, **import_options):
    """A Dag from a Dag, a dict (dag_from_dict), a networkx graph (dag_from_networkx)
    or a file path (load_dag, with `import_options`)."""
    if isinstance(dag, types_pb2.Dag):
        return dag
    if isinstance(dag, dict):
        return dag_from_dict(dag)
    if isinstance(dag, (str, os.PathLike)):
        return load_dag(pathlib.Path(dag), **import_options)
    if hasattr(dag, "nodes") and hasattr(dag, "edges"):
        return dag_from_networkx(dag)
    raise TypeError(f"a DAG is a resched Dag, a dict, a networkx graph or a file path, got {dag!r}")


def job_as_dag(model, name="job"):
    """A job as a one-task DAG, for offers."""
    dag = types_pb2.Dag()
    dag.tasks.add(name=name, model=models.from_value(model))
    return dag


def dag_from_dict(value):
    """A Dag from a dict.

    tasks: a list of {"name": ..., "model": MODEL}, or a mapping {name: MODEL}, MODEL being a
    RuntimeModel or its JSON dict ({"amdahl": {"t1": "60s", "alpha": 0.1}}).
    edges: a list of {"from": a, "to": b, "transfer": "2s"} or of (a, b) / (a, b, seconds) tuples.
    """
    if not isinstance(value, dict) or "tasks" not in value:
        raise TypeError("a DAG dict has 'tasks' (and optionally 'edges')")
    dag = Dag()
    tasks = value["tasks"]
    items = tasks.items() if isinstance(tasks, dict) else ((t["name"], t["model"]) for t in tasks)
    for name, model in items:
        dag.tasks.add(name=str(name), model=models.from_value(model))
    for edge in value.get("edges", ()):
        if isinstance(edge, dict):
            json_format.ParseDict(edge, dag.edges.add())
        else:
            source, target, *transfer = edge
            added = dag.edges.add(**{"from": str(source), "to": str(target)})
            if transfer:
                added.transfer.CopyFrom(duration(transfer[0]))
    return dag


def dag_from_networkx(graph, model="model", transfer="transfer"):
    """A Dag from a networkx DiGraph: each node a task named str(node) with its runtime model in
    the node attribute `model`; an edge's attribute `transfer` (seconds), when present, its
    delay."""
    dag = Dag()
    for node, attributes in graph.nodes(data=True):
        if model not in attributes:
            raise ValueError(f"node {node!r} has no '{model}' attribute (its runtime model)")
        dag.tasks.add(name=str(node), model=models.from_value(attributes[model]))
    for source, target, attributes in graph.edges(data=True):
        added = dag.edges.add(**{"from": str(source), "to": str(target)})
        if transfer in attributes:
            added.transfer.CopyFrom(duration(attributes[transfer]))
    return dag


def load_dag(path, format="auto", alpha=0.1, k_max=0, min_t1=1e-6):
    """The Dag of a file: format "dag" (a resched Dag in JSON), "wfcommons", "dax", or "auto"
    (DAX when the name ends in .xml or .dax or the text starts with '<'; WfCommons when it is a
    JSON object with a "workflow" object; else a resched Dag). alpha, k_max and min_t1 (seconds)
    shape the workflow formats' Amdahl models."""
    path = pathlib.Path(path)
    text = path.read_text(encoding="utf-8")
    if format == "auto":
        format = _detect(path, text)
    if format == "dax":
        return _read_dax(path, text, _Import(alpha, k_max, min_t1))
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise DagFileError(f"{path}: JSON syntax error: {error}") from None
    if format == "wfcommons":
        return _read_wfcommons(path, document, _Import(alpha, k_max, min_t1))
    if format == "dag":
        try:
            return json_format.ParseDict(document, Dag())
        except json_format.ParseError as error:
            raise DagFileError(f"{path}: not a resched Dag: {error}") from None
    raise ValueError(f"format: expected auto, dag, wfcommons or dax, got {format!r}")


def _detect(path, text):
    if path.suffix.lower() in (".xml", ".dax") or text.lstrip().startswith("<"):
        return "dax"
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        return "dag"
    if isinstance(document, dict) and isinstance(document.get("workflow"), dict):
        return "wfcommons"
    return "dag"


class _Import:
    """The workflow formats' shared rules: tasks by identifier, deduplicated sorted edges."""

    def __init__(self, alpha, k_max, min_t1):
        if not 0 <= alpha <= 1:
            raise ValueError(f"alpha must be in [0, 1], got {alpha}")
        self.alpha, self.k_max, self.min_t1 = alpha, k_max, min_t1
        self.names, self.index, self.edges = [], {}, set()
        self.runtimes = {}

    def add_task(self, name, where):
        if not isinstance(name, str) or not name:
            raise DagFileError(f"{where}: a task needs a non-empty string identifier")
        if name in self.index:
            raise DagFileError(f"{where}: '{name}' is used twice")
        self.index[name] = len(self.names)
        self.names.append(name)

    def find(self, name, where):
        if name not in self.index:
            raise DagFileError(f"{where}: unknown task '{name}'")
        return self.index[name]

    def add_edge(self, parent, child, where):
        if parent == child:
            raise DagFileError(f"{where}: task depends on itself")
        self.edges.add((parent, child))

    def set_runtime(self, task, seconds, where):
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise DagFileError(f"{where} must be a number")
        if not 0 <= seconds <= _MAX_RECORDED_RUNTIME_S:
            raise DagFileError(f"{where} must be in [0, 1e9] seconds, got {seconds}")
        self.runtimes[task] = seconds

    def dag(self, path):
        dag = Dag()
        min_micros = max(1, round(self.min_t1 * 1e6))
        for task, name in enumerate(self.names):
            if task not in self.runtimes:
                raise DagFileError(f"{path}: task '{name}' has no recorded run time")
            micros = max(_ceil_micros(self.runtimes[task]), min_micros)
            t1 = datetime.timedelta(microseconds=micros)  # exact, where seconds could round
            dag.tasks.add(name=name, model=models.amdahl(t1, self.alpha, k_max=self.k_max))
        for parent, child in sorted(self.edges):
            dag.edges.add(**{"from": self.names[parent], "to": self.names[child]})
        return dag


def _ceil_micros(seconds):
    """Microseconds, rounded up, with 1e-6 of slack so that an exact value stays exact."""
    micros = seconds * 1e6
    nearest = round(micros)
    return nearest if abs(micros - nearest) < 1e-6 else math.ceil(micros)


def _identifier(task, where):
    if not isinstance(task, dict):
        raise DagFileError(f"{where} must be an object")
    for key in ("id", "name"):
        if key in task:
            return task[key]
    raise DagFileError(f"{where} has neither an id nor a name")


def _runtime(task, where, builder, t):
    for key in ("runtimeInSeconds", "runtime"):
        if key in task:
            return builder.set_runtime(t, task[key], f"{where}.{key}")
    raise DagFileError(f"{where}.runtimeInSeconds is missing")


def _links(task, where, builder, t):
    for key in ("parents", "children"):
        refs = task.get(key, [])
        if not isinstance(refs, list):
            raise DagFileError(f"{where}.{key} must be an array")
        for i, ref in enumerate(refs):
            other = builder.find(ref, f"{where}.{key}[{i}]")
            pair = (other, t) if key == "parents" else (t, other)
            builder.add_edge(*pair, f"{where}.{key}[{i}]")


def _read_wfcommons(path, document, builder):
    """WfFormat 1.5 (workflow.specification + workflow.execution), 1.3-1.4 (workflow.tasks) and
    WorkflowHub 0.x (workflow.jobs)."""
    workflow = document.get("workflow") if isinstance(document, dict) else None
    if not isinstance(workflow, dict):
        raise DagFileError(f"{path}: workflow is missing or not an object")
    try:
        if "specification" in workflow:
            base = "workflow.specification.tasks"
            tasks = workflow["specification"].get("tasks", [])
            for i, task in enumerate(tasks):
                builder.add_task(_identifier(task, f"{base}[{i}]"), f"{base}[{i}]")
            for i, task in enumerate(tasks):
                _links(task, f"{base}[{i}]", builder, i)
            runs = workflow.get("execution", {}).get("tasks", [])
            for i, run in enumerate(runs):
                where = f"workflow.execution.tasks[{i}]"
                t = builder.find(_identifier(run, where), f"{where}.id")
                if t in builder.runtimes:
                    raise DagFileError(f"{where}.id: task '{builder.names[t]}' is timed twice")
                _runtime(run, where, builder, t)
        else:
            key = "tasks" if "tasks" in workflow else "jobs"
            base = f"workflow.{key}"
            tasks = workflow.get(key, [])
            for i, task in enumerate(tasks):
                builder.add_task(_identifier(task, f"{base}[{i}]"), f"{base}[{i}]")
            for i, task in enumerate(tasks):
                _links(task, f"{base}[{i}]", builder, i)
                _runtime(task, f"{base}[{i}]", builder, i)
    except DagFileError as error:
        raise DagFileError(f"{path}: {error}") from None
    return builder.dag(path)


def _local(tag):
    return tag.rsplit("}", 1)[-1]


def _read_dax(path, text, builder):
    """<adag> with <job id= runtime=> (or a pegasus runtime <profile>) and
    <child ref=><parent ref=/></child>; element names without their namespace."""
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        raise DagFileError(f"{path}: XML syntax error: {error}") from None
    if _local(root.tag) != "adag":
        raise DagFileError(f"{path}: the root element must be <adag>, got <{_local(root.tag)}>")
    try:
        for element in root:
            if _local(element.tag) != "job":
                continue
            name = element.get("id")
            builder.add_task(name, f"<job id={name!r}>")
            runtime = element.get("runtime")
            if runtime is None:
                for profile in element:
                    if (_local(profile.tag) == "profile" and profile.get("namespace") == "pegasus"
                            and profile.get("key") == "runtime"):
                        runtime = profile.text or ""
                        break
            if runtime is None:
                raise DagFileError(f"<job id={name!r}> has no runtime")
            try:
                seconds = float(runtime)
            except ValueError:
                raise DagFileError(
                    f"<job id={name!r}> runtime {runtime!r} is not a number") from None
            builder.set_runtime(builder.index[name], seconds, f"<job id={name!r}> runtime")
        for element in root:
            if _local(element.tag) != "child":
                continue
            where = f"<child ref={element.get('ref')!r}>"
            child = builder.find(element.get("ref"), where)
            for parent in element:
                if _local(parent.tag) == "parent":
                    builder.add_edge(builder.find(parent.get("ref"), f"{where} <parent>"), child,
                                     where)
    except DagFileError as error:
        raise DagFileError(f"{path}: {error}") from None
    return builder.dag(path)
