package numpytest_test

import (
	"github.com/gpuarr/gpuarr/gpuarr"
)

// The rows of sorting, scans and indexing (sortscan), merged into the
// interpreter table's rows by sortscanRows.

func sortscanRows[T gpuarr.Numeric]() rows {
	sorted := func(f func(*gpuarr.Array[T], ...gpuarr.Option) (*gpuarr.Array[T], error)) row {
		return view(func(c *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) { return f(a, sortOptions(c)...) })
	}
	scan := func(f func(gpuarr.Operand[T], ...gpuarr.Option) (*gpuarr.Array[T], error)) row {
		return func(c *call) (value, error) {
			x, err := operand[T](c.args[0])
			if err != nil {
				return nil, err
			}
			var opts []gpuarr.Option
			if c.n.has("axis") {
				opts = append(opts, gpuarr.Axis(c.n.int("axis")))
			}
			if c.n.bool("exclusive") {
				opts = append(opts, gpuarr.Exclusive())
			}
			r, err := f(x, opts...)
			return keep(c, r, err)
		}
	}
	return rows{
		"Sort": sorted(gpuarr.Sort[T]),
		"Argsort": func(c *call) (value, error) {
			a, err := arrayOf[T](c.args[0])
			if err != nil {
				return nil, err
			}
			r, err := gpuarr.Argsort(a, sortOptions(c)...)
			return keep(c, r, err)
		},
		"TopK": func(c *call) (value, error) {
			a, err := arrayOf[T](c.args[0])
			if err != nil {
				return nil, err
			}
			var opts []gpuarr.Option
			if !c.n.bool("largest") {
				opts = append(opts, gpuarr.Smallest())
			}
			v, i, err := gpuarr.TopK(a, c.n.int("k"), opts...)
			if err != nil {
				return nil, err
			}
			c.sc.keep(v)
			c.sc.keep(i)
			return tupleVal{arrayVal[T]{v}, arrayVal[int64]{i}}, nil
		},
		"Unique": func(c *call) (value, error) {
			a, err := arrayOf[T](c.args[0])
			if err != nil {
				return nil, err
			}
			u, err := gpuarr.UniqueAll(a)
			if err != nil {
				return nil, err
			}
			for _, x := range []interface{ Release() error }{u.Values, u.Indices, u.InverseIndices, u.Counts} {
				c.sc.keep(x)
			}
			inv, err := u.InverseIndices.Reshape(gpuarr.Shape{-1}) // NumPy 1's flat inverse
			if err != nil {
				return nil, err
			}
			c.sc.keep(inv)
			return tupleVal{arrayVal[T]{u.Values}, arrayVal[int64]{u.Counts}, arrayVal[int64]{inv}}, nil
		},
		"SearchSorted": func(c *call) (value, error) {
			a, err := arrayOf[T](c.args[0])
			if err != nil {
				return nil, err
			}
			v, err := arrayOf[T](c.args[1])
			if err != nil {
				return nil, err
			}
			var opts []gpuarr.Option
			if c.n.str("side") == "right" {
				opts = append(opts, gpuarr.Right())
			}
			r, err := gpuarr.SearchSorted(a, v, opts...)
			return keep(c, r, err)
		},
		"Cumsum":  scan(gpuarr.Cumsum[T]),
		"Cumprod": scan(gpuarr.Cumprod[T]),
		"Cummax":  scan(gpuarr.Cummax[T]),
		"Cummin":  scan(gpuarr.Cummin[T]),
		"Take": func(c *call) (value, error) {
			a, err := arrayOf[T](c.args[0])
			if err != nil {
				return nil, err
			}
			idx, err := arrayOf[int64](c.args[1])
			if err != nil {
				return nil, err
			}
			var opts []gpuarr.Option
			if c.n.has("axis") {
				opts = append(opts, gpuarr.Axis(c.n.int("axis")))
			}
			r, err := gpuarr.Take(a, idx, opts...)
			return keep(c, r, err)
		},
		"TakeAlongAxis": func(c *call) (value, error) {
			a, err := arrayOf[T](c.args[0])
			if err != nil {
				return nil, err
			}
			idx, err := arrayOf[int64](c.args[1])
			if err != nil {
				return nil, err
			}
			r, err := gpuarr.TakeAlongAxis(a, idx, gpuarr.Axis(c.n.int("axis")))
			return keep(c, r, err)
		},
		"Put": func(c *call) (value, error) {
			return scatter(c, func(x *gpuarr.Array[T], idx *gpuarr.Array[int64], v gpuarr.Operand[T]) error {
				return gpuarr.Put(x, idx, v, gpuarr.Deterministic())
			})
		},
		"IndexAdd": func(c *call) (value, error) {
			return scatter(c, func(x *gpuarr.Array[T], idx *gpuarr.Array[int64], v gpuarr.Operand[T]) error {
				return gpuarr.IndexAdd(x, idx, v, gpuarr.Axis(c.n.int("axis")))
			})
		},
		"MaskedSelect": func(c *call) (value, error) {
			x, err := operand[T](c.args[0])
			if err != nil {
				return nil, err
			}
			m, err := maskOf(c.args[1])
			if err != nil {
				return nil, err
			}
			r, err := gpuarr.MaskedSelect(x, m)
			return keep(c, r, err)
		},
		"Nonzero": func(c *call) (value, error) {
			x, err := operand[T](c.args[0])
			if err != nil {
				return nil, err
			}
			idx, err := gpuarr.Nonzero(x)
			if err != nil {
				return nil, err
			}
			var out tupleVal
			for _, a := range idx {
				c.sc.keep(a)
				out = append(out, arrayVal[int64]{a})
			}
			return out, nil
		},
		"Concatenate": joined(gpuarr.Concatenate[T]),
		"Stack":       joined(gpuarr.Stack[T]),
		"Split": func(c *call) (value, error) {
			x, err := arrayOf[T](c.args[0])
			if err != nil {
				return nil, err
			}
			var parts []*gpuarr.Array[T]
			if c.n.has("sections") {
				parts, err = gpuarr.Split(x, c.n.int("sections"), gpuarr.Axis(c.n.int("axis")))
			} else {
				parts, err = gpuarr.SplitAt(x, c.n.ints("indices"), gpuarr.Axis(c.n.int("axis")))
			}
			if err != nil {
				return nil, err
			}
			out := make(tupleVal, len(parts))
			for i, p := range parts {
				c.sc.keep(p)
				out[i] = arrayVal[T]{p}
			}
			return out, nil
		},
		"Pad": view(func(c *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) {
			var widths [][2]int
			c.n.attr("widths", &widths)
			return gpuarr.PadWith(a, widths, scalarAttr[T](c.n, "v"))
		}),
		"Histogram": func(c *call) (value, error) {
			x, err := arrayOf[T](c.args[0])
			if err != nil {
				return nil, err
			}
			counts, edges, err := gpuarr.Histogram(x, c.n.int("bins"), gpuarr.HistRange(c.n.float("lo"), c.n.float("hi")))
			if err != nil {
				return nil, err
			}
			c.sc.keep(counts)
			c.sc.keep(edges)
			return tupleVal{arrayVal[int64]{counts}, arrayVal[float64]{edges}}, nil
		},
	}
}

// joined runs a function joining its operands, arrays, along the node's
// axis (Concatenate, Stack).
func joined[T gpuarr.Numeric](f func([]*gpuarr.Array[T], ...gpuarr.Option) (*gpuarr.Array[T], error)) row {
	return func(c *call) (value, error) {
		xs := make([]*gpuarr.Array[T], len(c.args))
		for i, v := range c.args {
			a, err := arrayOf[T](v)
			if err != nil {
				return nil, err
			}
			xs[i] = a
		}
		r, err := f(xs, gpuarr.Axis(c.n.int("axis")))
		return keep(c, r, err)
	}
}

func sortOptions(c *call) []gpuarr.Option {
	var opts []gpuarr.Option
	if c.n.has("axis") {
		opts = append(opts, gpuarr.Axis(c.n.int("axis")))
	}
	if c.n.bool("descending") {
		opts = append(opts, gpuarr.Descending())
	}
	return opts
}

// scatter runs an in-place scatter on a copy of x (operands x, indices,
// values) and gives the copy.
func scatter[T gpuarr.Numeric](c *call, f func(x *gpuarr.Array[T], idx *gpuarr.Array[int64], v gpuarr.Operand[T]) error) (value, error) {
	a, err := arrayOf[T](c.args[0])
	if err != nil {
		return nil, err
	}
	idx, err := arrayOf[int64](c.args[1])
	if err != nil {
		return nil, err
	}
	v, err := operand[T](c.args[2])
	if err != nil {
		return nil, err
	}
	x, err := gpuarr.Clone(a)
	if err != nil {
		return nil, err
	}
	c.sc.keep(x)
	if err := f(x, idx, v); err != nil {
		return nil, err
	}
	return arrayVal[T]{x}, nil
}
