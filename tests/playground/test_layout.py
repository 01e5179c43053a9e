import random
import sys

from playground.model.layout import layered_layout


def check_left_to_right(coords, edges):
    for u, v in edges:
        assert coords[u][0] < coords[v][0], (u, v)


def test_chain_goes_left_to_right():
    ids = ["x", "acc", "add", "mul", "mean", "out"]
    edges = list(zip(ids, ids[1:]))
    coords = layered_layout(ids, edges)
    assert [coords[i][0] for i in ids] == [0, 1, 2, 3, 4, 5]
    assert all(coords[i][1] == 0 for i in ids)


def test_default_example_shape():
    # forward direction of the default example's graph (leaf left, output right)
    edges = [("x", "acc"), ("acc", "add"), ("add", "y"), ("add", "mul1"), ("mul1", "mul2"),
             ("mul2", "z"), ("mul2", "mean"), ("mean", "out")]
    ids = ["x", "acc", "add", "y", "mul1", "mul2", "z", "mean", "out"]
    coords = layered_layout(ids, edges)
    check_left_to_right(coords, edges)
    assert coords["x"][0] == min(c[0] for c in coords.values())
    assert coords["out"][0] == max(c[0] for c in coords.values())
    # nodes sharing a layer get distinct rows
    seen = {}
    for node, (x, y) in coords.items():
        assert (x, y) not in seen, (node, seen.get((x, y)))
        seen[(x, y)] = node


def test_a_late_input_sits_next_to_its_use():
    # b is only used by the last node: it is drawn just before it, not at the far left
    edges = [("x", "f1"), ("f1", "f2"), ("f2", "f3"), ("f3", "add"), ("b", "acc_b"), ("acc_b", "add")]
    ids = ["x", "f1", "f2", "f3", "add", "b", "acc_b"]
    coords = layered_layout(ids, edges)
    check_left_to_right(coords, edges)
    assert coords["acc_b"][0] == coords["add"][0] - 1
    assert coords["b"][0] == coords["add"][0] - 2


def test_barycenter_uncrosses_two_pairs():
    # a->d and b->c drawn in input order would cross; the sweep puts them in parallel
    ids = ["a", "b", "c", "d"]
    edges = [("a", "d"), ("b", "c")]
    coords = layered_layout(ids, edges)
    assert (coords["a"][1] > coords["b"][1]) == (coords["d"][1] > coords["c"][1])


def test_cycles_and_unknown_ids_are_tolerated():
    coords = layered_layout(["a", "b", "c"], [("a", "b"), ("b", "a"), ("b", "c"), ("zz", "a")])
    assert set(coords) == {"a", "b", "c"}


def test_empty():
    assert layered_layout([], []) == {}


def random_dag(n, seed=1):
    rng = random.Random(seed)
    ids = [f"n{i}" for i in range(n)]
    edges = []
    for i in range(1, n):
        for _ in range(rng.randint(1, 2)):
            edges.append((ids[rng.randrange(max(0, i - 30), i)], ids[i]))
    return ids, edges


def test_300_random_nodes_flow_left_to_right():
    ids, edges = random_dag(300)
    coords = layered_layout(ids, edges)
    assert set(coords) == set(ids)
    check_left_to_right(coords, edges)


def test_100k_chain_without_recursion_limits():
    ids = [f"n{i}" for i in range(100_000)]
    edges = list(zip(ids, ids[1:]))
    limit = sys.getrecursionlimit()
    coords = layered_layout(ids, edges)
    assert sys.getrecursionlimit() == limit
    assert coords["n99999"] == (99_999, 0)


def test_a_cluster_keeps_together_in_every_layer_with_room_around_it():
    # without clusters b sits between a and c (and e between d and f)
    ids = ["a", "b", "c", "d", "e", "f"]
    edges = [("a", "d"), ("b", "e"), ("c", "f")]
    plain = layered_layout(ids, edges)
    assert sorted(ids, key=lambda i: (plain[i][0], -plain[i][1])) == ["a", "b", "c", "d", "e", "f"]
    inner = {"a": ("C",), "c": ("C",), "d": ("C",), "f": ("C",)}
    coords = layered_layout(ids, edges, clusters=inner)
    assert rounded(coords) == {"b": (0, 1.2), "a": (0, -0.2), "c": (0, -1.2), "e": (1, 1.2), "d": (1, -0.2),
                               "f": (1, -1.2)}
    # nested: the inner cluster D keeps together inside C, with room at each border it crosses
    coords = layered_layout(["p", "q", "r", "s"], [], clusters={"q": ("C", "D"), "s": ("C", "D"), "r": ("C",)})
    assert rounded(coords) == {"p": (0, 1.9), "r": (0, 0.5), "q": (0, -0.9), "s": (0, -1.9)}


def rounded(coords):
    return {i: (round(x, 9), round(y, 9)) for i, (x, y) in coords.items()}
