package numpytest_test

import (
	"math"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// The rows of the array-language functions (lang): views, constructors,
// the moments and other new reductions, matrix products. Merged into the
// interpreter table's rows by langElementRows, langNumericRows and
// langFloatRows.

// langElementRows are lang's functions of every element type: views and
// Any, All.
func langElementRows[T gpuarr.Element]() rows {
	return rows{
		"PySlice": view(func(c *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) {
			return a.Index(pySlice(c.n, a.Rank())...)
		}),
		"Squeeze": view(func(c *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) {
			if c.n.has("axis") {
				return a.Squeeze(c.n.ints("axis")...)
			}
			return a.Squeeze()
		}),
		"ExpandDims": view(func(c *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) { return a.ExpandDims(c.n.int("axis")) }),
		"ReshapeStrided": view(func(c *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) {
			return a.Reshape(gpuarr.Shape(c.n.ints("shape")))
		}),
		"Ravel": view(func(_ *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) { return a.Ravel() }),
		"BroadcastTo": view(func(c *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) {
			return a.BroadcastTo(gpuarr.Shape(c.n.ints("shape")))
		}),
		"Flip": view(func(c *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) {
			if c.n.has("axis") {
				return a.Flip(c.n.ints("axis")...)
			}
			return a.Flip()
		}),
		"Diagonal": view(func(c *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) {
			return a.Diagonal(c.n.int("offset"), c.n.int("axis1"), c.n.int("axis2"))
		}),
		"Any": truth(gpuarr.Any),
		"All": truth(gpuarr.All),
	}
}

// langNumericRows are lang's functions of every numeric element type.
func langNumericRows[T gpuarr.Numeric]() rows {
	return rows{
		"Roll": view(func(c *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) {
			var opts []gpuarr.Option
			if c.n.has("axis") {
				opts = append(opts, gpuarr.Axis(c.n.int("axis")))
			}
			return gpuarr.Roll(a, c.n.int("shift"), opts...)
		}),
		"Triu": func(c *call) (value, error) {
			x, err := operand[T](c.args[0])
			if err != nil {
				return nil, err
			}
			return exprVal[T]{gpuarr.Triu(x, c.n.int("k"))}, nil
		},
		"Tril": func(c *call) (value, error) {
			x, err := operand[T](c.args[0])
			if err != nil {
				return nil, err
			}
			return exprVal[T]{gpuarr.Tril(x, c.n.int("k"))}, nil
		},
		"ZerosLike": view(func(_ *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) { return gpuarr.ZerosLike(a) }),
		"OnesLike":  view(func(_ *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) { return gpuarr.OnesLike(a) }),
		"FullLike": view(func(c *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) {
			return gpuarr.FullLike(a, scalarAttr[T](c.n, "v"))
		}),
		"Eye": construct(func(c *call) (*gpuarr.Array[T], error) {
			return gpuarr.Eye[T](c.n.int("n"), c.n.int("m"), c.n.int("k"))
		}),
		"Arange": construct(func(c *call) (*gpuarr.Array[T], error) {
			return gpuarr.Arange(T(c.n.float("start")), T(c.n.float("stop")), T(c.n.float("step")))
		}),
		"Outer": func(c *call) (value, error) {
			a, err := arrayOf[T](c.args[0])
			if err != nil {
				return nil, err
			}
			b, err := arrayOf[T](c.args[1])
			if err != nil {
				return nil, err
			}
			o, err := gpuarr.Outer(a, b)
			return keep(c, o, err)
		},
	}
}

// langFloatRows are lang's functions of the float element types.
func langFloatRows[T gpuarr.Float]() rows {
	withDdof := func(f func(gpuarr.Operand[T], ...gpuarr.Option) (*gpuarr.Array[T], error)) row {
		return func(c *call) (value, error) {
			x, err := operand[T](c.args[0])
			if err != nil {
				return nil, err
			}
			r, err := f(x, append(c.reduceOptions(), gpuarr.Ddof(c.n.int("ddof")))...)
			return keep(c, r, err)
		}
	}
	matmul := func(f func(a, b *gpuarr.Array[T], opts ...gpuarr.Option) (*gpuarr.Array[T], error)) row {
		return func(c *call) (value, error) {
			a, err := arrayOf[T](c.args[0])
			if err != nil {
				return nil, err
			}
			b, err := arrayOf[T](c.args[1])
			if err != nil {
				return nil, err
			}
			m, err := f(a, b)
			return keep(c, m, err)
		}
	}
	return rows{
		"Var":       withDdof(gpuarr.Var[T]),
		"Std":       withDdof(gpuarr.Std[T]),
		"NanSum":    reduction(gpuarr.NanSum[T]),
		"NanMean":   reduction(gpuarr.NanMean[T]),
		"NanMin":    reduction(gpuarr.NanMin[T]),
		"NanMax":    reduction(gpuarr.NanMax[T]),
		"LogSumExp": reduction(gpuarr.LogSumExp[T]),
		"Norm": func(c *call) (value, error) {
			x, err := operand[T](c.args[0])
			if err != nil {
				return nil, err
			}
			opts := c.reduceOptions()
			if c.n.has("ord") {
				var o any
				c.n.attr("ord", &o)
				switch o := o.(type) {
				case string: // "inf"
					opts = append(opts, gpuarr.Ord(math.Inf(1)))
				case float64:
					opts = append(opts, gpuarr.Ord(o))
				}
			}
			r, err := gpuarr.Norm(x, opts...)
			return keep(c, r, err)
		},
		"Linspace": construct(func(c *call) (*gpuarr.Array[T], error) {
			return gpuarr.Linspace(T(c.n.float("start")), T(c.n.float("stop")), c.n.int("num"), gpuarr.Endpoint(c.n.bool("endpoint")))
		}),
		"Dot": matmul(gpuarr.Dot[T]),
		"Einsum": func(c *call) (value, error) {
			ops := make([]*gpuarr.Array[T], len(c.args))
			for i, v := range c.args {
				a, err := arrayOf[T](v)
				if err != nil {
					return nil, err
				}
				ops[i] = a
			}
			r, err := gpuarr.Einsum(c.n.str("subscripts"), ops)
			return keep(c, r, err)
		},
	}
}

// pySlice is the Index of a PySlice node: whole axes up to its axis, then
// Python's start:stop:step there.
func pySlice(n *node, rank int) []gpuarr.Index {
	axis := n.int("axis")
	if axis < 0 {
		axis += rank
	}
	idx := make([]gpuarr.Index, 0, axis+1)
	for range max(axis, 0) {
		idx = append(idx, gpuarr.Colon)
	}
	var r gpuarr.Range
	switch hasStart, hasStop := n.has("start"), n.has("stop"); {
	case hasStart && hasStop:
		r = gpuarr.S(n.int("start"), n.int("stop"))
	case hasStart:
		r = gpuarr.From(n.int("start"))
	case hasStop:
		r = gpuarr.To(n.int("stop"))
	default:
		r = gpuarr.Every(1)
	}
	if n.has("step") {
		r = r.Step(n.int("step"))
	}
	return append(idx, r)
}

// truth runs Any or All on a numeric operand; the uint8 result reads as
// bools.
func truth(f func(gpuarr.Truth, ...gpuarr.Option) (*gpuarr.Array[uint8], error)) row {
	return func(c *call) (value, error) {
		var x gpuarr.Truth
		switch v := c.args[0].(type) {
		case maskVal:
			x = v.m
		default:
			t, ok := v.(interface{ truth() gpuarr.Truth })
			if !ok {
				return nil, errOperand
			}
			x = t.truth()
		}
		r, err := f(x, c.reduceOptions()...)
		if err != nil {
			return nil, err
		}
		c.sc.keep(r)
		return boolArray{r}, nil
	}
}

// boolArray is a uint8 array of 0 and 1 read as bools.
type boolArray struct{ a *gpuarr.Array[uint8] }

func (boolArray) dtype() string { return "bool" }

func (v boolArray) download(sc *scope) ([]hostArray, error) {
	h, err := arrayVal[uint8]{v.a}.download(sc)
	if err == nil {
		h[0].t = "bool"
	}
	return h, err
}

func (v arrayVal[T]) truth() gpuarr.Truth { return v.a }
func (v exprVal[T]) truth() gpuarr.Truth  { return v.e }
