package gpuarr

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuarr/gpuarr/internal/arg"
)

// Einsum evaluates the Einstein summation subscripts over one or two
// operands, like NumPy's einsum: "ij,jk->ik" is a matrix product,
// "bij,bjk->bik" a batched one, "i,i->" a dot product, "ij->ji" a
// transpose, "ii->i" a diagonal, "ij->" a sum; without "->" the output is
// the labels used once, in alphabetical order; "..." stands for axes that
// broadcast (as Matmul's batch axes do). Labels are ASCII letters.
//
// With two operands, the labels of both that the output keeps are batch
// axes, those of both it drops are contracted, the others stay with
// their operand (or are summed first when the output drops them): the
// operands are permuted and reshaped (views where their strides allow,
// else copies) into stacks that one batched Matmul multiplies, so the
// contraction runs as a (batched) GEMM. The result is a new contiguous
// array. Three or more operands are refused (contract them pairwise), as
// are labels that are not letters, output labels no operand has or that
// repeat, and a label whose axes differ in extent; these errors match
// ErrArgument, or ErrShape for extents.
func Einsum[T Float](subscripts string, operands []*Array[T], opts ...Option) (*Array[T], error) {
	const call = "Einsum"
	for i, x := range operands {
		if err := x.check(fmt.Sprintf("%s: operand %d", call, i)); err != nil {
			return nil, err
		}
	}
	if len(operands) == 0 || len(operands) > 2 {
		return nil, fmt.Errorf("gpuarr.%s(%q): %d operands: Einsum takes one or two (contract more pairwise): %w",
			call, subscripts, len(operands), ErrArgument)
	}
	s, err := streamTaking(call, opts, operands[0].c.Device(), optTF32)
	if err != nil {
		return nil, err
	}
	es, err := parseEinsum(subscripts, operands)
	if err != nil {
		return nil, fmt.Errorf("gpuarr.%s(%q): %w", call, subscripts, err)
	}
	// Each operand without repeated labels (diagonals taken) and summed
	// over the labels only it has and the output drops.
	var ops []*Array[T]
	var labels [][]rune
	defer func() {
		for _, x := range ops {
			_ = x.Release()
		}
	}()
	for i, x := range operands {
		var other []rune
		if len(operands) == 2 {
			other = es.in[1-i]
		}
		v, l, err := einsumPrepare(call, x, es.in[i], other, es.out, On(s))
		if err != nil {
			return nil, err
		}
		ops, labels = append(ops, v), append(labels, l)
	}
	var res *Array[T]
	var have []rune
	if len(ops) == 1 {
		res, have = ops[0], labels[0]
		ops = nil
		defer res.Release()
	} else {
		res, have, err = einsumPair(call, ops[0], labels[0], ops[1], labels[1], es.out, On(s), opts)
		if err != nil {
			return nil, err
		}
		defer res.Release()
	}
	// Permute to the output's order, then a contiguous copy.
	perm := make([]int, len(es.out))
	for i, l := range es.out {
		perm[i] = slices.Index(have, l)
	}
	v, err := res.Permute(perm...)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	if len(perm) == 0 {
		return Clone(v, On(s))
	}
	return Eval[T](v, On(s))
}

// einsumSpec is parsed subscripts: each operand's labels and the
// output's, with "..." expanded to labels of their own (runes above
// ASCII, aligned from the right) and the extent of each label.
type einsumSpec struct {
	in     [][]rune
	out    []rune
	extent map[rune]int
}

// ellipsisLabel is the label of the i-th axis from the right of "...".
func ellipsisLabel(i int) rune { return rune(0x1000 + i) }

func parseEinsum[T Float](subs string, ops []*Array[T]) (*einsumSpec, error) {
	subs = strings.ReplaceAll(subs, " ", "")
	lhs, rhs, explicit := strings.Cut(subs, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != len(ops) {
		return nil, fmt.Errorf("%d terms for %d operands: %w", len(terms), len(ops), ErrArgument)
	}
	es := &einsumSpec{extent: map[rune]int{}}
	maxEll := 0
	for i, term := range terms {
		sh := ops[i].c.Shape()
		labels, ell, err := einsumTerm(term)
		if err != nil {
			return nil, fmt.Errorf("operand %d: %w", i, err)
		}
		n := len(labels)
		if ell >= 0 {
			n--
		}
		if n > len(sh) || ell < 0 && n != len(sh) {
			return nil, arg.Shapef("Einsum", "operand %d is %s: the term %q names %d axes", i, ops[i].c.Describe(), term, n)
		}
		var full []rune
		for j, l := range labels {
			if j == ell {
				k := len(sh) - n
				maxEll = max(maxEll, k)
				for a := k - 1; a >= 0; a-- {
					full = append(full, ellipsisLabel(a))
				}
				continue
			}
			full = append(full, l)
		}
		for a, l := range full {
			e := sh[a]
			prev, seen := es.extent[l]
			switch {
			case !seen || prev == e:
				es.extent[l] = e
			case prev == 1 || e == 1: // broadcast (batch axes only, checked later)
				es.extent[l] = max(prev, e)
			default:
				return nil, arg.Shapef("Einsum", "label %s has extent %d in one place and %d in another", labelName(l), prev, e)
			}
		}
		es.in = append(es.in, full)
	}
	if explicit {
		labels, ell, err := einsumTerm(rhs)
		if err != nil {
			return nil, fmt.Errorf("output: %w", err)
		}
		for j, l := range labels {
			if j == ell {
				for a := maxEll - 1; a >= 0; a-- {
					es.out = append(es.out, ellipsisLabel(a))
				}
				continue
			}
			if slices.Contains(es.out, l) {
				return nil, fmt.Errorf("the output repeats label %c: %w", l, ErrArgument)
			}
			if _, ok := es.extent[l]; !ok {
				return nil, fmt.Errorf("the output's label %c is no operand's: %w", l, ErrArgument)
			}
			es.out = append(es.out, l)
		}
		if ell < 0 && maxEll > 0 {
			return nil, fmt.Errorf("the operands have \"...\" but the output does not: %w", ErrArgument)
		}
		return es, nil
	}
	// Implicit output: "..." first, then the labels used once, sorted.
	for a := maxEll - 1; a >= 0; a-- {
		es.out = append(es.out, ellipsisLabel(a))
	}
	count := map[rune]int{}
	for _, in := range es.in {
		for _, l := range in {
			count[l]++
		}
	}
	var once []rune
	for l, c := range count {
		if c == 1 && l < 0x1000 {
			once = append(once, l)
		}
	}
	slices.Sort(once)
	es.out = append(es.out, once...)
	return es, nil
}

// einsumTerm reads one term's labels; ell is the position of "..." among
// them (its label there is '.'), or -1.
func einsumTerm(term string) (labels []rune, ell int, err error) {
	ell = -1
	for i := 0; i < len(term); i++ {
		c := rune(term[i])
		switch {
		case c == '.':
			if !strings.HasPrefix(term[i:], "...") || ell >= 0 {
				return nil, 0, fmt.Errorf("%q: \".\" only as one \"...\": %w", term, ErrArgument)
			}
			ell = len(labels)
			labels = append(labels, '.')
			i += 2
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			labels = append(labels, c)
		default:
			return nil, 0, fmt.Errorf("%q: %q is not a label (ASCII letters and \"...\"): %w", term, c, ErrArgument)
		}
	}
	return labels, ell, nil
}

func labelName(l rune) string {
	if l >= 0x1000 {
		return `"..."`
	}
	return string(l)
}

// einsumPrepare takes the diagonal of repeated labels of x and sums the
// labels that neither the output nor the other operand (its labels
// other) has; it returns the view or array (owned by the caller) and its
// labels.
func einsumPrepare[T Float](call string, x *Array[T], labels, other, out []rune, on Option) (*Array[T], []rune, error) {
	v, err := x.Index()
	if err != nil {
		return nil, nil, err
	}
	labels = slices.Clone(labels)
	for {
		i, j := repeated(labels)
		if i < 0 {
			break
		}
		d, err := v.Diagonal(0, i, j)
		_ = v.Release()
		if err != nil {
			return nil, nil, err
		}
		v = d
		l := labels[i]
		labels = slices.Delete(labels, j, j+1)
		labels = slices.Delete(labels, i, i+1)
		labels = append(labels, l)
	}
	var sumAxes []Option
	var kept []rune
	for a, l := range labels {
		if !slices.Contains(out, l) && !slices.Contains(other, l) {
			sumAxes = append(sumAxes, Axis(a))
			continue
		}
		kept = append(kept, l)
	}
	if len(sumAxes) == 0 {
		return v, labels, nil
	}
	s, err := Sum[T](v, append(sumAxes, on)...)
	_ = v.Release()
	if err != nil {
		return nil, nil, fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	return s, kept, nil
}

// repeated is the first pair of positions with one label, or -1, -1.
func repeated(labels []rune) (int, int) {
	for i, l := range labels {
		for j := i + 1; j < len(labels); j++ {
			if labels[j] == l {
				return i, j
			}
		}
	}
	return -1, -1
}

// einsumPair contracts a (labels la) with b (labels lb) for the output
// labels out as one batched Matmul: a as [batch…, free a, contracted]
// and b as [batch…, contracted, free b], each group of axes merged into
// one; the result's labels are batch, free a, free b.
func einsumPair[T Float](call string, a *Array[T], la []rune, b *Array[T], lb []rune, out []rune, s Option, opts []Option) (*Array[T], []rune, error) {
	var batch, freeA, freeB, contr []rune
	for _, l := range la {
		switch inB, inOut := slices.Contains(lb, l), slices.Contains(out, l); {
		case inB && inOut:
			batch = append(batch, l)
		case inB:
			contr = append(contr, l)
		default:
			freeA = append(freeA, l)
		}
	}
	for _, l := range lb {
		if !slices.Contains(la, l) {
			freeB = append(freeB, l)
		}
	}
	ext := func(x *Array[T], labels []rune, l rune) int { return x.c.Shape()[slices.Index(labels, l)] }
	for _, l := range contr {
		if ea, eb := ext(a, la, l), ext(b, lb, l); ea != eb {
			return nil, nil, arg.Shapef(call, "label %s is summed over with extents %d and %d: only the output's labels broadcast here", labelName(l), ea, eb)
		}
	}
	group := func(x *Array[T], labels []rune, ls []rune) int {
		n := 1
		for _, l := range ls {
			n *= ext(x, labels, l)
		}
		return n
	}
	// The batch axes stay apart (they broadcast); the others merge.
	arrange := func(x *Array[T], labels []rune, order [][]rune) (*Array[T], error) {
		var perm []int
		for _, g := range order {
			for _, l := range g {
				perm = append(perm, slices.Index(labels, l))
			}
		}
		p, err := x.Permute(perm...)
		if err != nil {
			return nil, err
		}
		defer p.Release()
		var sh Shape
		for _, l := range batch {
			sh = append(sh, ext(x, labels, l))
		}
		for _, g := range order[1:] {
			sh = append(sh, group(x, labels, g))
		}
		return p.Reshape(sh)
	}
	a3, err := arrange(a, la, [][]rune{batch, freeA, contr})
	if err != nil {
		return nil, nil, fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	defer a3.Release()
	b3, err := arrange(b, lb, [][]rune{batch, contr, freeB})
	if err != nil {
		return nil, nil, fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	defer b3.Release()
	mopts := append(append([]Option{}, opts...), s)
	c3, err := Matmul(a3, b3, mopts...)
	if err != nil {
		return nil, nil, err
	}
	defer c3.Release()
	var sh Shape
	sh = append(sh, c3.c.Shape()[:len(batch)]...)
	for _, l := range freeA {
		sh = append(sh, ext(a, la, l))
	}
	for _, l := range freeB {
		sh = append(sh, ext(b, lb, l))
	}
	r, err := c3.Reshape(sh)
	if err != nil {
		return nil, nil, err
	}
	return r, append(append(append([]rune{}, batch...), freeA...), freeB...), nil
}
