"""A broker's view across clusters: offers from clusters of different sizes and loads, the
soonest taken, and an offer that went stale refused with nothing reserved."""
import pytest

import resched
from schedule_check import check_dag_plan

DAG = {"tasks": {"split": resched.rigid(2, 30), "left": resched.amdahl(600, 0.1),
                 "right": resched.amdahl(300, 0.2), "join": resched.rigid(4, 20)},
       "edges": [("split", "left"), ("split", "right"), ("left", "join"), ("right", "join")]}


@pytest.fixture
def clusters(server, request):
    """small (4), large (32, held for its first 2,000 s) and medium (16): the large one is the
    biggest and the latest."""
    prefix = request.node.name[:40]
    names = {size: f"{prefix}-{size}" for size in ("small", "large", "medium")}
    with resched.Client(server.address) as c:
        c.create_cluster(names["small"], 4, simulated=True)
        c.create_cluster(names["large"], 32, simulated=True)
        c.create_cluster(names["medium"], 16, simulated=True)
        c.add_reservation(32, 0, 2000, cluster=names["large"])
        yield c, names


def test_every_cluster_offers_and_the_soonest_comes_first(clusters):
    client, names = clusters
    made, refused = client.offers(DAG, clusters=list(names.values()))
    assert refused == []
    assert [o.cluster for o in made][0] == names["medium"]
    assert [o.turnaround for o in made] == sorted(o.turnaround for o in made)
    for offer in made:
        capacity = client.cluster(offer.cluster).capacity
        check_dag_plan(resched.as_dag(DAG), offer.placements, capacity)
        direct = client.reserve_dag(DAG, cluster=offer.cluster, dry_run=True)
        assert resched.seconds(direct.completion) == offer.completion
    assert all(client.dag_reservations(cluster=n) == [] for n in names.values()), \
        "asking commits nothing"


def test_the_taken_offer_is_reserved_as_offered(clusters):
    client, names = clusters
    best = client.offers(DAG, clusters=list(names.values()))[0][0]
    taken = client.take(best, label="broker")
    assert taken.dag_id and resched.seconds(taken.completion) <= best.completion
    kept = client.dag_reservation(taken.dag_id, cluster=best.cluster)
    assert kept.label == "broker"
    check_dag_plan(resched.as_dag(DAG), kept.placements, client.cluster(best.cluster).capacity)


def test_a_stale_offer_is_refused_and_reserves_nothing(clusters):
    client, names = clusters
    best = client.offers(DAG, clusters=[names["medium"]])[0][0]
    client.add_reservation(16, 0, 5000, cluster=names["medium"], reason="someone was quicker")
    with pytest.raises(resched.StaleOffer) as stale:
        client.take(best)
    assert stale.value.tightest is None or stale.value.tightest > best.completion
    assert client.dag_reservations(cluster=names["medium"]) == []


def test_a_job_is_offered_as_a_one_task_dag_and_a_cluster_too_small_refuses(clusters):
    client, names = clusters
    wide = resched.job_as_dag(resched.rigid(8, 60), name="wide")
    made, refused = client.offers(wide, clusters=list(names.values()))
    assert [r.cluster for r in refused] == [names["small"]]
    assert isinstance(refused[0].error, resched.InvalidArgument)
    assert [o.cluster for o in made] == [names["medium"], names["large"]]


def test_without_a_list_every_cluster_of_the_server_answers(clusters):
    client, _ = clusters
    made, refused = client.offers(DAG)
    assert len(made) + len(refused) == len(client.clusters())
