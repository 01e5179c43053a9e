"""Layered left-to-right layout: inputs left, outputs right.

1. Longest-path layering from the sources (iterative Kahn order: no recursion limits).
2. Nodes with slack move right up to just before their nearest successor, so a bias added at
   the end sits beside its use instead of far left.
3. Barycenter sweeps (down, then up) order each layer to reduce crossings.
4. Clusters (open module calls) are kept together in every layer, with a little room around
   them, so a frame drawn around a cluster's nodes covers no other node.
"""
import gc
from collections import deque


CLUSTER_GAP = 0.4  # rows of extra room where a layer enters or leaves a cluster


def layered_layout(node_ids, edges, sweeps=2, layer_gap=1.0, row_gap=1.0, clusters=None):
    """Return {node_id: (x, y)}.

    ``edges``: (u, v) pairs meaning u is drawn left of v. Cycles are tolerated (their nodes
    go after the acyclic part). Unknown ids in edges are ignored. ``clusters``: node id -> the
    clusters it lies in, outermost first (a node not in it lies in none).
    """
    enabled = gc.isenabled()
    gc.disable()  # many small lists/tuples: full collections would find nothing and cost seconds
    try:
        return _layout(node_ids, edges, sweeps, layer_gap, row_gap, clusters)
    finally:
        if enabled:
            gc.enable()


def _layout(node_ids, edges, sweeps, layer_gap, row_gap, clusters):
    index = {n: i for i, n in enumerate(node_ids)}
    n = len(node_ids)
    succ = [[] for _ in range(n)]
    pred = [[] for _ in range(n)]
    indegree = [0] * n
    for u, v in edges:
        iu, iv = index.get(u), index.get(v)
        if iu is None or iv is None or iu == iv:
            continue
        succ[iu].append(iv)
        pred[iv].append(iu)
        indegree[iv] += 1

    queue = deque(i for i in range(n) if indegree[i] == 0)
    topo = []
    while queue:
        i = queue.popleft()
        topo.append(i)
        for j in succ[i]:
            indegree[j] -= 1
            if indegree[j] == 0:
                queue.append(j)
    if len(topo) < n:  # a cycle: place the rest after, in input order
        placed = set(topo)
        topo.extend(i for i in range(n) if i not in placed)

    layer = [0] * n
    for i in topo:
        for p in pred[i]:
            if layer[p] + 1 > layer[i]:
                layer[i] = layer[p] + 1
    for i in reversed(topo):
        if succ[i]:
            limit = min(layer[j] for j in succ[i]) - 1
            if limit > layer[i]:
                layer[i] = limit

    depth = max(layer, default=-1) + 1
    layers = [[] for _ in range(depth)]
    for i in topo:  # topological order is a decent first ordering
        layers[layer[i]].append(i)

    position = [0.0] * n

    def number(row):  # centred, so layers of different sizes line up around y = 0
        offset = (len(row) - 1) / 2.0
        for k, i in enumerate(row):
            position[i] = k - offset

    for row in layers:
        number(row)

    def sweep(rows, neighbours):
        for row in rows:
            if len(row) < 2:
                continue
            keyed = []
            for k, i in enumerate(row):
                near = neighbours[i]
                bary = sum(position[j] for j in near) / len(near) if near else position[i]
                keyed.append((bary, k, i))
            keyed.sort()
            row[:] = [i for _, _, i in keyed]
            number(row)

    path = [clusters.get(node_ids[i], ()) for i in range(n)] if clusters else None

    def group():  # each cluster's nodes together, clusters ordered by where their nodes sit on average
        where = {}
        for i in range(n):
            for c in path[i]:
                s = where.setdefault(c, [0.0, 0])
                s[0] += position[i]
                s[1] += 1
        mean = {c: total / count for c, (total, count) in where.items()}
        for row in layers:
            row.sort(key=lambda i: tuple(mean[c] for c in path[i]) + (position[i],))
            number(row)

    for _ in range(sweeps):
        sweep(layers[1:], pred)
        sweep(reversed(layers[:-1]), succ)
        if path:
            group()

    coords = {}
    for x, row in enumerate(layers):
        ys, crossed = [], 0
        for k, i in enumerate(row):
            if k and path:
                crossed += _crossings(path[row[k - 1]], path[i])
            ys.append((k + CLUSTER_GAP * crossed) * row_gap)
        mid = ys[-1] / 2 if ys else 0.0
        for i, y in zip(row, ys):
            coords[node_ids[i]] = (x * layer_gap, mid - y)
    return coords


def _crossings(a, b):
    """How many cluster borders lie between neighbours in clusters ``a`` and ``b``."""
    common = 0
    for p, q in zip(a, b):
        if p != q:
            break
        common += 1
    return len(a) + len(b) - 2 * common
