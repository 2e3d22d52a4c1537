"""What every schedule a test gets back must satisfy, checked from the answer alone: each task
of a DAG after its predecessors (plus the edge's transfer), at a width its model allows, and no
instant with more processors busy than the cluster has."""
from resched import seconds


def check_dag_plan(dag, placements, capacity, also_busy=()):
    by_task = {p.task: p.allocation for p in placements}
    assert sorted(by_task) == sorted(t.name for t in dag.tasks), "one placement per task"
    for task in dag.tasks:
        allocation = by_task[task.name]
        assert allocation.processors >= 1
        assert seconds(allocation.end) > seconds(allocation.start), task.name
        model = task.model
        if model.WhichOneof("kind") == "rigid":
            assert allocation.processors == model.rigid.k, task.name
        elif model.WhichOneof("kind") == "amdahl" and model.amdahl.k_max:
            assert allocation.processors <= model.amdahl.k_max, task.name
    for edge in dag.edges:
        before, after = by_task[getattr(edge, "from")], by_task[edge.to]
        assert seconds(after.start) >= seconds(before.end) + seconds(edge.transfer) - 1e-6, \
            f"{edge.to} starts before {getattr(edge, 'from')} ends"
    check_capacity(list(by_task.values()) + list(also_busy), capacity)


def check_capacity(allocations, capacity):
    steps = []
    for a in allocations:
        steps.append((seconds(a.start), a.processors))
        steps.append((seconds(a.end), -a.processors))
    busy = 0
    for _, delta in sorted(steps, key=lambda s: (s[0], s[1])):  # ends before starts at a tie
        busy += delta
        assert busy <= capacity, f"{busy} processors busy on a cluster of {capacity}"
