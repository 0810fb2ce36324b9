"""Expression trees: the nodes the golden files hold, the view chains that
feed them, and their evaluation with NumPy.

A Node is one call of the Go side's interpreter table: op (the table's key,
a Go-side name such as "Add" or "Step"), t (the element type whose table row
runs it: the operand's type, or the result's for a conversion such as Cast
or SumAs), r (the result's type) and attributes. Evaluation follows gpuarr's
documented semantics where NumPy's are the same, which for the exact
operations (+ - * / sqrt fma, min/max, comparisons, where, casts, views) is
everywhere except the rows of gpuarr's NumPy-differences table; the
generator keeps those out of trees (Reject) and makes them root-only cases
that the Go runner checks against the table.
"""

import base64
import math
from fractions import Fraction

import numpy as np

from numerics import T, round_float, round_fraction, to_type, encode_array, b64, stored_bytes


class Reject(Exception):
    """The tree computes something the goldens cannot pin down (an
    out-of-range float→int conversion inside a tree, a value that depends
    on the order of a sum, ...): the family draws another one."""


class Node:
    __slots__ = ('op', 't', 'r', 'args', 'k', 'allow_diff')

    def __init__(self, op, t, r, args=(), k=None, allow_diff=False):
        self.op, self.t, self.r = op, t, r
        self.args = list(args)
        self.k = dict(k or {})
        self.allow_diff = allow_diff

    def json(self):
        d = {'op': self.op, 't': self.t, 'r': self.r}
        if self.args:
            d['a'] = [a.json() for a in self.args]
        if self.k:
            d['k'] = self.k
        return d

    def ops(self):
        yield self.op
        for a in self.args:
            yield from a.ops()

    def depth(self):
        return 1 + max((a.depth() for a in self.args), default=0)


def Input(i, t):
    return Node('in', t, t, k={'i': i})


def Scalar(v, t):
    """A scalar operand of type t holding v (already a value of t)."""
    arr = np.array([v], dtype=T(t).np)
    return Node('Scalar', t, t, k={'v': b64(stored_bytes(arr, t))})


# ------------------------------------------------------------- evaluation

class Env:
    """What evaluation needs: the input arrays (as NumPy computes with them)
    and the choice between ±0 where Minimum/Maximum may return either."""

    def __init__(self, inputs, zpick=0):
        self.inputs = inputs
        self.zpick = zpick


def evaluate(node, env):
    f = EVAL.get(node.op)
    if f is None:
        raise KeyError('no evaluator for ' + node.op)
    args = [evaluate(a, env) for a in node.args]
    with np.errstate(all='ignore'):
        return f(node, args, env)


def finish(x, t):
    """x computed in t's compute dtype, stored as t (bfloat16 rounds)."""
    t = T(t)
    if t.name == 'bfloat16':
        return round_float(np.asarray(x, dtype=np.float64), t)
    return np.asarray(x).astype(t.np, copy=False)


def _arith(fn):
    def ev(node, a, env):
        t = T(node.t)
        if t.name == 'bfloat16':
            return finish(fn(a[0].astype(np.float32), a[1].astype(np.float32)), 'bfloat16')
        return finish(fn(a[0], a[1]), node.t)
    return ev


def _div(node, a, env):
    t = T(node.t)
    if t.is_int():
        if not node.allow_diff:
            raise Reject('integer Div is a NumPy difference: root-only')
        return np.floor_divide(a[0], a[1])  # NumPy's //; the runner applies Go's truncation
    return _arith(np.true_divide)(node, a, env)


def _minmax(fn):
    def ev(node, a, env):
        x, y = np.broadcast_arrays(a[0], a[1])
        r = fn(x, y)
        if T(node.t).is_float():
            tie = (x == 0) & (y == 0)
            r = np.where(tie, x if env.zpick == 0 else y, r)
        return finish(r, node.t)
    return ev


def _unary(fn):
    def ev(node, a, env):
        t = T(node.t)
        if t.name == 'bfloat16':
            return finish(fn(a[0].astype(np.float32)), t.name)
        return finish(fn(a[0]), node.t)
    return ev


def fma_exact(x, y, z, t):
    """x·y + z with one rounding in the float type t (elementwise)."""
    x, y, z = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(y, np.float64), np.asarray(z, np.float64))
    out = np.empty(x.shape, dtype=np.float64)
    for idx in np.ndindex(x.shape):
        a, b, c = float(x[idx]), float(y[idx]), float(z[idx])
        if math.isnan(a) or math.isnan(b) or math.isnan(c):
            r = math.nan
        elif math.isinf(a) or math.isinf(b):
            if a == 0 or b == 0:
                r = math.nan
            else:
                p = math.copysign(math.inf, a) * math.copysign(1.0, b)
                r = math.nan if (math.isinf(c) and c != p) else p
        elif math.isinf(c):
            r = c
        else:
            q = Fraction(a) * Fraction(b) + Fraction(c)
            if q == 0:
                pneg = (math.copysign(1.0, a) * math.copysign(1.0, b)) < 0
                r = -0.0 if (pneg and math.copysign(1.0, c) < 0) else 0.0
            else:
                r = round_fraction(q, t)
        out[idx] = r
    return out


def _fma(node, a, env):
    t = T(node.t)
    if t.is_int():
        return finish(np.add(np.multiply(a[0], a[1]), a[2]), node.t)
    return to_type(fma_exact(a[0], a[1], a[2], t), t)


def _compare(fn):
    def ev(node, a, env):
        return fn(a[0], a[1])
    return ev


def _where(node, a, env):
    return finish(np.where(a[0], a[1], a[2]), node.t)


def cast_values(x, src, dst, allow_diff=False):
    """Cast from src to dst with gpuarr's conversion (NumPy's, in range)."""
    s, d = T(src), T(dst)
    x = np.asarray(x)
    if d.kind == 'b':
        return x != 0
    if s.kind == 'b':
        return to_type(x.astype(np.int8), d)
    if s.is_complex() and not d.is_complex():
        raise Reject('complex to real is not a Cast')
    if d.is_int() and (s.is_float()):
        v = x.astype(np.float64)
        tr = np.trunc(v)
        i = d.info()
        bad = ~np.isfinite(v) | (tr < i.min) | (tr > i.max)
        if bad.any() and not allow_diff:
            raise Reject('out-of-range float→int Cast in a tree')
        with np.errstate(all='ignore'):
            return x.astype(d.np)  # NumPy's answer; out of range the runner applies gpuarr's saturation
    if d.is_float() and s.is_int():
        # one rounding from the exact integer
        flat = [round_fraction(Fraction(int(v)), d) for v in x.reshape(-1)]
        return to_type(np.array(flat, dtype=np.float64).reshape(x.shape), d)
    if d.is_float() and s.is_float():
        return to_type(x.astype(np.float64), d)
    return to_type(x, d)


def _cast(node, a, env):
    return cast_values(a[0], node.args[0].r, node.r, node.allow_diff)


def _clamp(node, a, env):
    lo = np.frombuffer(base64.b64decode(node.k['lo']), dtype=T(node.t).store)
    hi = np.frombuffer(base64.b64decode(node.k['hi']), dtype=T(node.t).store)
    lo, hi = _decode_scalar(lo, node.t), _decode_scalar(hi, node.t)
    mx = _minmax(np.maximum)(node, [a[0], lo], env)
    return _minmax(np.minimum)(node, [mx, hi], env)


def _decode_scalar(raw, t):
    t = T(t)
    if t.name == 'bfloat16':
        from numerics import bf16_from_bits
        return bf16_from_bits(raw).reshape(())
    return raw.astype(t.np).reshape(())


def _scalar(node, a, env):
    raw = np.frombuffer(base64.b64decode(node.k['v']), dtype=T(node.t).store)
    return _decode_scalar(raw, node.t)


def _input(node, a, env):
    return env.inputs[node.k['i']]


def step_slice(start, stop, step):
    """The Python slice of gpuarr's Step(axis, start, stop, step)."""
    if step < 0 and stop == -1:
        return slice(start, None, step)
    return slice(start, stop, step)


def _step(node, a, env):
    k = node.k
    idx = [slice(None)] * a[0].ndim
    idx[k['axis']] = step_slice(k['start'], k['stop'], k['step'])
    return a[0][tuple(idx)]


def _pyslice(node, a, env):
    k = node.k
    idx = [slice(None)] * a[0].ndim
    idx[k['axis']] = slice(k.get('start'), k.get('stop'), k.get('step'))
    return a[0][tuple(idx)]


EVAL = {
    'in': _input,
    'Scalar': _scalar,
    'Add': _arith(np.add),
    'Sub': _arith(np.subtract),
    'Mul': _arith(np.multiply),
    'Div': _div,
    'Minimum': _minmax(np.minimum),
    'Maximum': _minmax(np.maximum),
    'Neg': _unary(np.negative),
    'Abs': _unary(np.abs),
    'Sqrt': _unary(np.sqrt),
    'FMA': _fma,
    'Less': _compare(np.less),
    'LessEqual': _compare(np.less_equal),
    'Greater': _compare(np.greater),
    'GreaterEqual': _compare(np.greater_equal),
    'Equal': _compare(np.equal),
    'NotEqual': _compare(np.not_equal),
    'And': lambda n, a, e: np.logical_and(a[0], a[1]),
    'Or': lambda n, a, e: np.logical_or(a[0], a[1]),
    'Not': lambda n, a, e: np.logical_not(a[0]),
    'Where': _where,
    'Cast': _cast,
    'Clamp': _clamp,
    'Transpose': lambda n, a, e: np.transpose(a[0]),
    'Permute': lambda n, a, e: np.transpose(a[0], n.k['axes']),
    'Step': _step,
    'Slice': lambda n, a, e: a[0][n.k['i']:n.k['j']],
    'Reshape': lambda n, a, e: a[0].reshape(n.k['shape']),
    'PySlice': _pyslice,
    'Clone': lambda n, a, e: np.array(a[0], copy=True),
    # exact functions being added (pending on the Go side until they land)
    'Floor': _unary(np.floor),
    'Ceil': _unary(np.ceil),
    'Trunc': _unary(np.trunc),
    'Round': _unary(np.rint),
    'Copysign': _arith(np.copysign),
    'Fmin': _arith(np.fmin),
    'Fmax': _arith(np.fmax),
}


# ------------------------------------------------------------- view chains

def python_slice(rng, count):
    """(extent, start, stop, step) of a Python slice that takes count
    elements of an axis of that extent, with negative indices and None
    mixed in; None when no such slice was drawn."""
    s = int(rng.choice([-3, -2, -1, 1, 2]))
    a = abs(s)
    ext = max(1, (count - 1) * a + 1) + int(rng.integers(0, 3)) if count else int(rng.integers(0, 4))
    if count == 0:
        start = int(rng.integers(-ext - 1, ext + 2)) if ext else 0
        stop = start
    else:
        span = (count - 1) * a
        if s > 0:
            f = int(rng.integers(0, ext - span))
            stop_pos = f + span + 1 + int(rng.integers(0, a))
        else:
            f = int(rng.integers(span, ext))
            stop_pos = f - span - 1 - int(rng.integers(0, a))
        start = f - ext if rng.random() < 0.5 else f
        if stop_pos < 0 or stop_pos >= ext:
            stop = None if rng.random() < 0.5 else (-ext - 1 - int(rng.integers(0, 3)) if stop_pos < 0 else ext + int(rng.integers(0, 3)))
        elif rng.random() < 0.5:
            stop = stop_pos - ext
        else:
            stop = stop_pos
    if len(range(ext)[slice(start, stop, s)]) != count:
        return None
    return ext, start, stop, s


def broadcast_source(rng, shape):
    """A shape that broadcasts to shape: some leading axes dropped, some
    extents made 1."""
    sh = list(shape)
    if sh and rng.random() < 0.3:
        sh = sh[rng.integers(1, len(sh) + 1):] if rng.random() < 0.5 else sh[1:]
    sh = [1 if (d > 0 and rng.random() < 0.25) else d for d in sh]
    return tuple(sh)


class ViewChain:
    """Forward view operations from a base array to a view of a wanted
    shape, built backwards from that shape."""

    def __init__(self, rng, shape, max_ops=3, allow_pyslice=False, reshape=True):
        self.ops = []  # (op, attrs), applied in order to the base
        cur = list(shape)
        n = rng.integers(0, max_ops + 1)
        for _ in range(n):
            kinds = ['Transpose', 'Step', 'Step', 'Slice']
            if len(cur) >= 2:
                kinds += ['Permute']
            if allow_pyslice:
                kinds += ['PySlice']
            kind = kinds[rng.integers(len(kinds))]
            if not cur:
                break
            if kind == 'Transpose':
                cur = cur[::-1]
                self.ops.insert(0, ('Transpose', {}))
            elif kind == 'Permute':
                p = list(rng.permutation(len(cur)))
                pre = [0] * len(cur)
                for i, ax in enumerate(p):
                    pre[ax] = cur[i]
                cur = pre
                self.ops.insert(0, ('Permute', {'axes': [int(x) for x in p]}))
            elif kind == 'Slice':
                before, after = int(rng.integers(0, 3)), int(rng.integers(0, 3))
                c = cur[0]
                cur = [c + before + after] + cur[1:]
                self.ops.insert(0, ('Slice', {'i': before, 'j': before + c}))
            elif kind == 'Step':
                ax = int(rng.integers(len(cur)))
                c = cur[ax]
                s = int(rng.choice([-3, -2, -1, -1, 2, 3, 1]))
                if s > 0:
                    start = int(rng.integers(0, 3))
                    stop = start if c == 0 else start + (c - 1) * s + 1 + int(rng.integers(0, s))
                    ext = stop + int(rng.integers(0, 3))
                else:
                    a = -s
                    if c == 0:
                        stop = start = int(rng.integers(0, 3))
                    else:
                        stop = -1 if rng.random() < 0.5 else int(rng.integers(0, 3))
                        start = stop + (c - 1) * a + 1 + int(rng.integers(0, a))
                    ext = start + 1 + int(rng.integers(0, 3))
                cur[ax] = ext
                self.ops.insert(0, ('Step', {'axis': ax, 'start': start, 'stop': stop, 'step': s}))
            else:  # PySlice: Python's slice semantics (negative indices, None)
                ax = int(rng.integers(len(cur)))
                sl = python_slice(rng, cur[ax])
                if sl is None:
                    continue
                ext, start, stop, s = sl
                cur[ax] = ext
                self.ops.insert(0, ('PySlice', {'axis': ax, 'start': start, 'stop': stop, 'step': s}))
        self.base_shape = tuple(cur)
        # a Reshape first: the base stored flat, or with two axes merged
        self.reshape_from = None
        if reshape and rng.random() < 0.25:
            n = int(np.prod(self.base_shape)) if self.base_shape else 1
            if rng.random() < 0.5 or len(self.base_shape) < 2:
                self.reshape_from = (n,)
            else:
                i = int(rng.integers(len(self.base_shape) - 1))
                bs = list(self.base_shape)
                self.reshape_from = tuple(bs[:i] + [bs[i] * bs[i + 1]] + bs[i + 2:])
        # the Reshape's argument: the base shape, one extent sometimes -1
        self.reshape_to = [int(x) for x in self.base_shape]
        if self.reshape_to and 0 not in self.reshape_to and rng.random() < 0.3:
            self.reshape_to[int(rng.integers(len(self.reshape_to)))] = -1

    def stored_shape(self):
        return self.reshape_from if self.reshape_from is not None else self.base_shape

    def node(self, leaf, t):
        n = leaf
        if self.reshape_from is not None:
            n = Node('Reshape', t, t, [n], {'shape': self.reshape_to})
        for op, k in self.ops:
            n = Node(op, t, t, [n], k)
        return n


class Case:
    """One golden case under construction: its inputs (values as NumPy
    computes with them, and their stored form) and its tree."""

    def __init__(self, rng, fn):
        self.rng = rng
        self.fn = fn
        self.inputs = []     # NumPy values
        self.input_json = []
        self.extra = {}

    def add_input(self, values, t, gen=None):
        t = T(t)
        values = np.asarray(values)
        self.inputs.append(values)
        if gen is not None:
            self.input_json.append({'t': t.name, 's': list(values.shape), 'g': gen})
        else:
            self.input_json.append(encode_array(values, t))
        return len(self.inputs) - 1

    def leaf(self, t, shape, profile='general', views=True, max_ops=3, allow_pyslice=False, sampler=None):
        """A view of shape `shape` of a new input of type t, whose values
        come from the profile or from sampler(rng, t, n)."""
        rng = self.rng
        chain = ViewChain(rng, shape, max_ops if views else 0, allow_pyslice, reshape=views)
        st = chain.stored_shape()
        n = int(np.prod(st)) if st else 1
        from numerics import sample
        v = sampler(rng, t, n) if sampler else sample(rng, t, n, profile)
        i = self.add_input(np.asarray(v).reshape(st), t)
        return chain.node(Input(i, t), t)

    def set_input(self, i, values):
        """Replaces input i's values (same type and shape)."""
        from numerics import encode_array
        t = self.input_json[i]['t']
        self.inputs[i] = np.asarray(values).reshape(self.inputs[i].shape)
        self.input_json[i] = encode_array(self.inputs[i], t)

    def reuse(self, t, shape):
        """An input already made with type t whose view-free shape is shape,
        or None."""
        for i, (v, j) in enumerate(zip(self.inputs, self.input_json)):
            if j['t'] == t and tuple(v.shape) == tuple(shape):
                return Input(i, t)
        return None

    def evaluate(self, node, zpick=0):
        return evaluate(node, Env(self.inputs, zpick))
