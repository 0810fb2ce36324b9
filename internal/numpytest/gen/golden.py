"""Writing golden cases: the JSON each case becomes, and the files."""

import gzip
import json
import os

import numpy as np

from numerics import encode_array
from tree import Reject, Env, evaluate

ZERO_SIGN_OPS = {'Minimum', 'Maximum', 'Clamp', 'Clip', 'Fmin', 'Fmax', 'Min', 'Max', 'NanMin', 'NanMax',
                 'Sort', 'Cummax', 'Cummin', 'Norm'}


class Family:
    """The cases of one golden file."""

    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.cases = []
        self.counts = {}

    def next_id(self, fn, t):
        key = (fn, t)
        self.counts[key] = self.counts.get(key, 0) + 1
        return '%s/%s/%s/%d' % (self.name, fn, t, self.counts[key])

    def add(self, case, node, outs=None, err=None, diff=None, n=None, scale=None, zs=False, note=None,
            id_type=None):
        """Records a case: node is the tree; outs the results as (values,
        type) pairs, in order; err the sentinel an error must match."""
        d = {'id': self.next_id(case.fn, id_type or node.t), 'fn': case.fn, 'in': case.input_json,
             'expr': node.json()}
        if outs is not None:
            d['out'] = [encode_array(v, t) for v, t in outs]
        if err:
            d['err'] = err
        if diff:
            d['diff'] = diff
        if n is not None:
            d['n'] = int(n)
        if scale is not None:
            d['scale'] = encode_array(np.asarray(scale, dtype=np.float64), 'float64')
        if zs:
            d['zs'] = 1
        if note:
            d['note'] = note
        d.update(case.extra)
        self.cases.append(d)

    def add_tree(self, case, node, **kw):
        """Evaluates node and records it. With an op that may pick either
        of ±0 the tree is evaluated both ways: a difference other than the
        sign of a zero rejects the tree; one in a zero's sign marks the
        case zs (zero signs not compared)."""
        env = Env(case.inputs, 0)
        v = evaluate(node, env)
        zs = False
        if any(op in ZERO_SIGN_OPS for op in node.ops()):
            w = evaluate(node, Env(case.inputs, 1))
            if not same_values(v, w, zero_sign=False):
                raise Reject('the result depends on the sign of a zero')
            zs = not same_values(v, w, zero_sign=True)
        self.add(case, node, [(v, node.r)], zs=zs or kw.pop('zs', False), **kw)
        return v

    def write(self, outdir, meta):
        path = os.path.join(outdir, self.name + '.json.gz')
        doc = {'version': 1, 'family': self.name, 'generator': meta, 'cases': self.cases}
        raw = json.dumps(doc, separators=(',', ':'), sort_keys=True).encode()
        with open(path, 'wb') as f:
            with gzip.GzipFile(fileobj=f, mode='wb', mtime=0, filename='') as z:
                z.write(raw)
        return path, len(raw), os.path.getsize(path)


def same_values(a, b, zero_sign=True):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in 'fc':
        both_nan = np.isnan(a) & np.isnan(b)
        eq = (a == b) | both_nan
        if zero_sign and a.dtype.kind == 'f':
            eq &= (np.signbit(a) == np.signbit(b)) | both_nan
        return bool(eq.all())
    return bool((a == b).all())
