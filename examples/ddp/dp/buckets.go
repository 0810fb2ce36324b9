package dp

// layout assigns the layers' weight gradients to buckets in the order the
// backward pass writes them (the last layer first), each bucket taking
// layers until it holds at least limit bytes, as PyTorch's DDP fills its
// buckets (25 MiB by default).
type layout struct {
	buckets []bucketLayout
	// of[i] is the bucket holding layer i's gradient, at offset[i]
	// elements into it.
	of, offset []int
}

type bucketLayout struct {
	layers []int // in backward order
	elems  int
}

func newLayout(sizes []int, elemBytes, limit int) layout {
	l := layout{of: make([]int, len(sizes)), offset: make([]int, len(sizes))}
	var cur *bucketLayout
	for i := len(sizes) - 1; i >= 0; i-- {
		if cur == nil || cur.elems*elemBytes >= limit {
			l.buckets = append(l.buckets, bucketLayout{})
			cur = &l.buckets[len(l.buckets)-1]
		}
		l.of[i] = len(l.buckets) - 1
		l.offset[i] = cur.elems
		cur.layers = append(cur.layers, i)
		cur.elems += sizes[i]
	}
	return l
}

// last reports whether layer i's gradient completes its bucket: the
// backward pass has then written all of it.
func (l layout) last(i int) bool {
	b := l.buckets[l.of[i]].layers
	return b[len(b)-1] == i
}
