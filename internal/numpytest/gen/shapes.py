"""Random shapes and the exact expression trees every family builds on."""

import numpy as np

from numerics import T, REALS, sample
from tree import Node, Scalar, broadcast_source

# Types that gpuarr stores today: trees prefer them, so most cases run now.
TODAY = ['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64']


def rand_shape(rng, max_rank=4, max_elems=40, empty=0.06, min_rank=0):
    r = int(rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4]))
    r = max(min_rank, min(r, max_rank))
    dims = [int(rng.integers(1, 6)) for _ in range(r)]
    while dims and int(np.prod(dims)) > max_elems:
        i = int(np.argmax(dims))
        dims[i] = max(1, dims[i] // 2)
    if dims and rng.random() < empty:
        dims[int(rng.integers(len(dims)))] = 0
    return tuple(dims)


def broadcast_shapes(*shapes):
    return tuple(np.broadcast_shapes(*shapes))


def shape_of(case, node):
    return tuple(np.shape(case.evaluate(node)))


class TreeBuilder:
    """Random trees of gpuarr's exact operations (their results are pinned
    down bit for bit: IEEE + - * / sqrt and fma, min/max, comparisons,
    where, in-range casts, views), over views of fresh inputs."""

    def __init__(self, case, profile='general', views=True, allow_cast=True, half_flat=True):
        self.case = case
        self.rng = case.rng
        self.profile = profile
        self.views = views
        self.allow_cast = allow_cast
        self.half_flat = half_flat

    def leaf(self, t, shape, profile=None):
        rng = self.rng
        if rng.random() < 0.08:
            return self.scalar(t)
        if rng.random() < 0.08:
            r = self.case.reuse(t, shape)
            if r is not None:
                return r
        sh = broadcast_source(rng, shape) if rng.random() < 0.35 else shape
        return self.case.leaf(t, sh, profile or self.profile, views=self.views)

    def scalar(self, t, profile=None):
        v = sample(self.rng, t, 1, profile or self.profile)[0]
        return Scalar(v, t)

    def build(self, t, shape, depth):
        """A tree of type t whose shape broadcasts to shape."""
        rng = self.rng
        tt = T(t)
        if depth <= 0 or rng.random() < 0.2:
            return self.leaf(t, shape)
        sub = depth - 1
        if tt.is_half() and self.half_flat:
            sub = 0  # half types: one rounding per case (see the package doc)
        kinds = ['bin'] * 5 + ['un'] * 2 + ['fma', 'where', 'clamp']
        if self.allow_cast and not tt.is_half():
            kinds += ['cast']
        kind = kinds[rng.integers(len(kinds))]
        if kind == 'bin':
            ops = ['Add', 'Sub', 'Mul', 'Minimum', 'Maximum'] + (['Div'] if tt.is_float() else [])
            op = ops[rng.integers(len(ops))]
            a, b = self.build(t, shape, sub), self.build(t, shape, sub)
            return Node(op, t, t, [a, b])
        if kind == 'un':
            ops = ['Neg', 'Abs'] + (['Sqrt'] if tt.is_float() else [])
            return Node(ops[rng.integers(len(ops))], t, t, [self.build(t, shape, sub)])
        if kind == 'fma':
            return Node('FMA', t, t, [self.build(t, shape, sub) for _ in range(3)])
        if kind == 'where':
            m = self.mask(shape, sub, t if tt.is_half() else None)
            return Node('Where', t, t, [m, self.build(t, shape, sub), self.build(t, shape, sub)])
        if kind == 'clamp':
            lo, hi = sample(rng, t, 2, self.profile)
            if rng.random() < 0.8 and not (np.isnan(lo) if tt.is_float() else False) and lo > hi:
                lo, hi = hi, lo
            from numerics import b64, stored_bytes
            k = {'lo': b64(stored_bytes(np.array([lo], dtype=tt.np), t)),
                 'hi': b64(stored_bytes(np.array([hi], dtype=tt.np), t))}
            return Node('Clamp', t, t, [self.build(t, shape, sub)], k)
        # cast from another type
        u = self.other_type(t)
        x = self.build(u, shape, sub)
        return Node('Cast', t, t, [x])

    def other_type(self, t):
        rng = self.rng
        pool = TODAY if rng.random() < 0.85 else REALS
        u = pool[rng.integers(len(pool))]
        return u

    def mask(self, shape, depth, t=None):
        """A comparison (sometimes combined with And, Or, Not)."""
        rng = self.rng
        u = t or (TODAY[rng.integers(len(TODAY))])
        ops = ['Less', 'LessEqual', 'Greater', 'GreaterEqual', 'Equal', 'NotEqual']
        op = ops[rng.integers(len(ops))]
        sub = 0 if T(u).is_half() else max(0, depth - 1)
        m = Node(op, u, 'bool', [self.build(u, shape, sub), self.build(u, shape, sub)])
        r = rng.random()
        if r < 0.1:
            return Node('Not', 'bool', 'bool', [m])
        if r < 0.2 and depth > 0:
            other = self.mask(shape, depth - 1, t)
            return Node('And' if rng.random() < 0.5 else 'Or', 'bool', 'bool', [m, other])
        return m
