package host

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime/debug"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/dtype"
)

// The solver routines run gonum's LAPACK (float64; float32 matrices are
// widened, factored and rounded back) on the stream's goroutine, in
// stream order like a kernel, under the rules a kernel follows: live
// memory of this device or of a peer with access enabled. Each matrix is
// copied from its column-major layout into a row-major float64 copy in
// the call's workspace, which must be what SolverWorkspace reported, and
// back. HideSymbol("libcusolver") makes them fail as on a machine without
// cuSOLVER (GetrfBatched and GetrsBatched, cuBLAS routines on CUDA, answer
// to HideSymbol("libcublas")).

var lapackImpl gonum.Implementation

func solverCallName(op driver.SolverOp) string {
	switch op {
	case driver.GetrfBatched, driver.GetrsBatched:
		return "cublas" + op.String()
	}
	return "cusolverDn" + op.String()
}

// solverLibHidden reports a hidden solver library the way the CUDA
// backend reports a missing one.
func (d *device) solverLibHidden(op driver.SolverOp) error {
	if op == driver.GetrfBatched || op == driver.GetrsBatched {
		return d.blasLibHidden()
	}
	if err := d.symbol("libcusolver"); err != nil {
		return &driver.Error{Call: "dlopen " + driver.SolverLibrary, Code: driver.NotSupported,
			Detail: "hidden on " + d.String() + " by HideSymbol(\"libcusolver\")"}
	}
	return nil
}

// hostWork is the workspace a call needs: one float64 copy of its largest
// matrix, A.
func hostWork(c *driver.SolverCall) uint64 {
	rows, cols := c.M, c.N
	switch c.Op {
	case driver.Getrs, driver.Potrf, driver.Potrs, driver.Syevd, driver.GetrfBatched, driver.GetrsBatched,
		driver.PotrfBatched, driver.PotrsBatched, driver.SyevjBatched:
		rows = c.N
	}
	return uint64(rows) * uint64(cols) * 8
}

// SolverWorkspace reports the workspace Solve needs; see driver.Solver.
func (s *stream) SolverWorkspace(c *driver.SolverCall) (uint64, error) {
	if err := s.dev.solverLibHidden(c.Op); err != nil {
		return 0, err
	}
	return hostWork(c), nil
}

// Solve queues the routine; see driver.Solver.
func (s *stream) Solve(c *driver.SolverCall) error {
	call := solverCallName(c.Op)
	if err := s.dev.solverLibHidden(c.Op); err != nil {
		return err
	}
	if need := hostWork(c); c.WorkBytes < need {
		return driver.Errorf(call, driver.InvalidValue, "%v: a %d-byte workspace, %d needed", c, c.WorkBytes, need)
	}
	cc := *c
	if cc.WorkBytes > 0 {
		if err := span(call, cc.Work, cc.WorkBytes); err != nil {
			return err
		}
	}
	if !c.Op.Batched() {
		if err := span(call, c.A, driver.Span(aRows(c), c.N, c.LDA, c.Type)); err != nil {
			return err
		}
	}
	dev := s.dev
	return s.enqueue(call, func() error { return dev.solve(call, &cc) })
}

// solveMem resolves and pins the memory a routine touches.
type solveMem struct {
	d    *device
	call string
	pins []*allocation
}

func (m *solveMem) bytes(what string, p driver.Ptr, n uint64) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	a, b, why := index.pin(p, n)
	if a == nil {
		return nil, illegal(m.call, fmt.Sprintf("on %s: %s %s", m.d, what, why))
	}
	m.pins = append(m.pins, a)
	if !m.d.peerOK(a.dev) {
		return nil, illegal(m.call, fmt.Sprintf("on %s: %s at %v is memory of %s, without peer access", m.d, what, p, a.dev))
	}
	return b, nil
}

func (m *solveMem) release() {
	for _, a := range m.pins {
		a.unpin()
	}
}

// colMajor is one column-major matrix in device memory.
type colMajor struct {
	b          []byte
	t          dtype.DType
	rows, cols int
	ld         int
}

// matrix pins the rows×cols column-major matrix at p.
func (m *solveMem) matrix(what string, p driver.Ptr, t dtype.DType, rows, cols, ld int) (colMajor, error) {
	b, err := m.bytes(what, p, driver.Span(rows, cols, ld, t))
	return colMajor{b, t, rows, cols, ld}, err
}

// load copies the matrix into dst as row-major float64 (rows×cols).
func (x colMajor) load(dst []float64) {
	switch x.t {
	case dtype.Float32:
		v := floats[float32](x.b)
		for j := range x.cols {
			for i := range x.rows {
				dst[i*x.cols+j] = float64(v[j*x.ld+i])
			}
		}
	case dtype.Float64:
		v := floats[float64](x.b)
		for j := range x.cols {
			for i := range x.rows {
				dst[i*x.cols+j] = v[j*x.ld+i]
			}
		}
	}
}

// store copies row-major src (rows×cols) back into the matrix.
func (x colMajor) store(src []float64) {
	switch x.t {
	case dtype.Float32:
		v := floats[float32](x.b)
		for j := range x.cols {
			for i := range x.rows {
				v[j*x.ld+i] = float32(src[i*x.cols+j])
			}
		}
	case dtype.Float64:
		v := floats[float64](x.b)
		for j := range x.cols {
			for i := range x.rows {
				v[j*x.ld+i] = src[i*x.cols+j]
			}
		}
	}
}

// vector is n real values of type t at b.
type vector struct {
	b []byte
	t dtype.DType
}

func (m *solveMem) vector(what string, p driver.Ptr, t dtype.DType, n int) (vector, error) {
	b, err := m.bytes(what, p, uint64(n)*uint64(t.Size()))
	return vector{b, t}, err
}

func (v vector) get(i int) float64 {
	if v.t == dtype.Float32 {
		return float64(floats[float32](v.b)[i])
	}
	return floats[float64](v.b)[i]
}

func (v vector) set(i int, x float64) {
	if v.t == dtype.Float32 {
		floats[float32](v.b)[i] = float32(x)
	} else {
		floats[float64](v.b)[i] = x
	}
}

// pointers reads a device array of n device pointers.
func (m *solveMem) pointers(what string, p driver.Ptr, n int) ([]driver.Ptr, error) {
	b, err := m.bytes(what+" (pointer array)", p, uint64(n)*8)
	if err != nil {
		return nil, err
	}
	out := make([]driver.Ptr, n)
	for i := range out {
		out[i] = driver.Ptr(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out, nil
}

// solve runs one routine; a gonum panic (it checks its arguments)
// becomes the stream's error rather than the process's.
func (d *device) solve(call string, c *driver.SolverCall) (err error) {
	m := &solveMem{d: d, call: call}
	defer m.release()
	defer func() {
		if r := recover(); r != nil {
			err = driver.Errorf(call, driver.InvalidValue, "gonum refused %v on %s: %v\n%s", c, d, r, debug.Stack())
		}
	}()
	work, err := m.bytes("workspace", c.Work, c.WorkBytes)
	if err != nil {
		return err
	}
	scratch := floats[float64](work)
	if c.Op.Batched() {
		return d.solveBatched(m, c, scratch)
	}
	info, err := m.bytes("Info", c.Info, 4)
	if err != nil {
		return err
	}
	a, err := m.matrix("A", c.A, c.Type, aRows(c), c.N, c.LDA)
	if err != nil {
		return err
	}
	r := scratch[:a.rows*a.cols]
	a.load(r)
	code := 0
	switch c.Op {
	case driver.Getrf:
		ipiv, err := m.bytes("Ipiv", c.Ipiv, uint64(min(c.M, c.N))*8)
		if err != nil {
			return err
		}
		code = getrf(r, c.M, c.N, func(i, p int) { binary.LittleEndian.PutUint64(ipiv[8*i:], uint64(p+1)) })
	case driver.Getrs:
		ipiv, err := m.bytes("Ipiv", c.Ipiv, uint64(c.N)*8)
		if err != nil {
			return err
		}
		b, err := m.matrix("B", c.B, c.Type, c.N, c.NRHS, c.LDB)
		if err != nil {
			return err
		}
		code = getrs(r, b, c.Trans, func(i int) int { return int(int64(binary.LittleEndian.Uint64(ipiv[8*i:]))) - 1 })
	case driver.Potrf:
		code = potrf(r, c.N, c.Upper)
	case driver.Potrs:
		b, err := m.matrix("B", c.B, c.Type, c.N, c.NRHS, c.LDB)
		if err != nil {
			return err
		}
		potrs(r, b, c.Upper)
	case driver.Geqrf:
		tau, err := m.vector("Vals (tau)", c.Vals, c.Type, min(c.M, c.N))
		if err != nil {
			return err
		}
		geqrf(r, c.M, c.N, tau)
	case driver.Orgqr:
		tau, err := m.vector("Vals (tau)", c.Vals, c.Type, c.K)
		if err != nil {
			return err
		}
		orgqr(r, c.M, c.N, c.K, tau)
	case driver.Syevd:
		w, err := m.vector("Vals (W)", c.Vals, c.Type, c.N)
		if err != nil {
			return err
		}
		code = syev(r, c.N, c.Upper, c.Vectors, w)
	case driver.Gesvd, driver.Gesvdj:
		code, err = d.gesvd(m, c, r)
		if err != nil {
			return err
		}
	}
	switch c.Op {
	case driver.Getrf, driver.Potrf, driver.Geqrf, driver.Orgqr:
		a.store(r)
	case driver.Syevd:
		if c.Vectors {
			a.store(r)
		}
	}
	binary.LittleEndian.PutUint32(info, uint32(int32(code)))
	return nil
}

// aRows is the row count of a call's A.
func aRows(c *driver.SolverCall) int {
	switch c.Op {
	case driver.Getrf, driver.Geqrf, driver.Orgqr, driver.Gesvd, driver.Gesvdj, driver.GesvdjBatched:
		return c.M
	}
	return c.N
}

// getrf factors the row-major m×n r in place and reports each pivot
// (0-based) through piv; it returns LAPACK's info: the first exactly
// zero U(i,i), 1-based, or 0.
func getrf(r []float64, m, n int, piv func(i, p int)) int {
	ipiv := make([]int, min(m, n))
	lapackImpl.Dgetrf(m, n, r, max(1, n), ipiv)
	for i, p := range ipiv {
		piv(i, p)
	}
	for i := range min(m, n) {
		if r[i*n+i] == 0 {
			return i + 1
		}
	}
	return 0
}

// getrs solves with getrf's factors in r (n×n) for b's columns.
func getrs(r []float64, b colMajor, trans bool, piv func(i int) int) int {
	n := b.rows
	ipiv := make([]int, n)
	for i := range ipiv {
		p := piv(i)
		if p < 0 || p >= n {
			return -7 // LAPACK's info for a bad ipiv argument
		}
		ipiv[i] = p
	}
	x := make([]float64, n*b.cols)
	b.load(x)
	t := blas.NoTrans
	if trans {
		t = blas.Trans
	}
	lapackImpl.Dgetrs(t, n, b.cols, r, max(1, n), ipiv, x, max(1, b.cols))
	b.store(x)
	return 0
}

func uplo(upper bool) blas.Uplo {
	if upper {
		return blas.Upper
	}
	return blas.Lower
}

// potrf factors r (n×n) in place; on failure it returns the order of the
// first leading minor that is not positive definite, as LAPACK's info.
func potrf(r []float64, n int, upper bool) int {
	orig := append([]float64(nil), r...)
	if lapackImpl.Dpotrf(uplo(upper), n, r, max(1, n)) {
		return 0
	}
	return choleskyFailure(orig, n, upper)
}

// poisonOtherTriangle fills the strict triangle of r (n×n, row-major)
// that potrf does not factor with NaN: cuSOLVER's potrfBatched leaves it
// undefined (it writes there), unlike potrf, which leaves it alone; the
// host backend makes the difference visible so that callers that rely on
// that triangle fail here as they would on a GPU.
func poisonOtherTriangle(r []float64, n int, upper bool) {
	for i := range n {
		for j := range n {
			if (upper && i > j) || (!upper && j > i) {
				r[i*n+j] = math.NaN()
			}
		}
	}
}

// choleskyFailure is the 1-based order of the first leading minor of the
// row-major n×n r (its triangle named by upper) that is not positive
// definite, by an unblocked Cholesky factorization; n+1 when none fails
// (not reached after Dpotrf failed).
func choleskyFailure(r []float64, n int, upper bool) int {
	at := func(i, j int) float64 { // the lower triangle's (i, j), i ≥ j
		if upper {
			return r[j*n+i]
		}
		return r[i*n+j]
	}
	l := make([]float64, n*n)
	for j := range n {
		d := at(j, j)
		for k := range j {
			d -= l[j*n+k] * l[j*n+k]
		}
		if !(d > 0) {
			return j + 1
		}
		d = math.Sqrt(d)
		l[j*n+j] = d
		for i := j + 1; i < n; i++ {
			v := at(i, j)
			for k := range j {
				v -= l[i*n+k] * l[j*n+k]
			}
			l[i*n+j] = v / d
		}
	}
	return n + 1
}

func potrs(r []float64, b colMajor, upper bool) {
	n := b.rows
	x := make([]float64, n*b.cols)
	b.load(x)
	lapackImpl.Dpotrs(uplo(upper), n, b.cols, r, max(1, n), x, max(1, b.cols))
	b.store(x)
}

func geqrf(r []float64, m, n int, tau vector) {
	k := min(m, n)
	t := make([]float64, k)
	work := []float64{0}
	lapackImpl.Dgeqrf(m, n, r, max(1, n), t, work, -1)
	work = make([]float64, int(work[0]))
	lapackImpl.Dgeqrf(m, n, r, max(1, n), t, work, len(work))
	for i, v := range t {
		tau.set(i, v)
	}
}

func orgqr(r []float64, m, n, k int, tau vector) {
	t := make([]float64, k)
	for i := range t {
		t[i] = tau.get(i)
	}
	work := []float64{0}
	lapackImpl.Dorgqr(m, n, k, r, max(1, n), t, work, -1)
	work = make([]float64, int(work[0]))
	lapackImpl.Dorgqr(m, n, k, r, max(1, n), t, work, len(work))
}

// syev computes eigenvalues into w (and vectors into r, as columns); it
// returns 1 when gonum's QR iteration did not converge.
func syev(r []float64, n int, upper, vectors bool, w vector) int {
	job := lapack.EVNone
	if vectors {
		job = lapack.EVCompute
	}
	vals := make([]float64, n)
	work := []float64{0}
	lapackImpl.Dsyev(job, uplo(upper), n, r, max(1, n), vals, work, -1)
	work = make([]float64, int(work[0]))
	ok := lapackImpl.Dsyev(job, uplo(upper), n, r, max(1, n), vals, work, len(work))
	for i, v := range vals {
		w.set(i, v)
	}
	if !ok {
		return 1
	}
	return 0
}

// gesvd runs Gesvd and Gesvdj: one gonum Dgesvd of r (M×N row-major).
func (d *device) gesvd(m *solveMem, c *driver.SolverCall, r []float64) (int, error) {
	rows, cols := c.M, c.N
	k := min(rows, cols)
	s, err := m.vector("Vals (S)", c.Vals, c.Type, k)
	if err != nil {
		return 0, err
	}
	var u, v colMajor
	jobU, jobVT := lapack.SVDNone, lapack.SVDNone
	uCols, vtRows := 0, 0
	vectors := (c.Op == driver.Gesvd && c.Job != 'N') || (c.Op == driver.Gesvdj && c.Vectors)
	if vectors {
		jobU, jobVT = lapack.SVDAll, lapack.SVDAll
		uCols, vtRows = rows, cols
		if (c.Op == driver.Gesvd && c.Job == 'S') || (c.Op == driver.Gesvdj && c.Econ) {
			jobU, jobVT = lapack.SVDStore, lapack.SVDStore
			uCols, vtRows = k, k
		}
		if u, err = m.matrix("U", c.U, c.Type, rows, uCols, c.LDU); err != nil {
			return 0, err
		}
		if c.Op == driver.Gesvd {
			v, err = m.matrix("VT", c.V, c.Type, vtRows, cols, c.LDV)
		} else {
			v, err = m.matrix("V", c.V, c.Type, cols, vtRows, c.LDV)
		}
		if err != nil {
			return 0, err
		}
	}
	code, uv, vt := svd(r, rows, cols, jobU, jobVT, s)
	if vectors {
		u.store(uv)
		if c.Op == driver.Gesvd {
			v.store(vt)
		} else {
			v.store(transpose(vt, vtRows, cols))
		}
	}
	return code, nil
}

// svd is Dgesvd of the row-major rows×cols r: U (rows×uCols) and VT
// (vtRows×cols) row-major, values into s; code 1 when it did not converge.
func svd(r []float64, rows, cols int, jobU, jobVT lapack.SVDJob, s vector) (code int, u, vt []float64) {
	k := min(rows, cols)
	uCols, vtRows := 1, 1
	switch jobU {
	case lapack.SVDAll:
		uCols, vtRows = rows, cols
	case lapack.SVDStore:
		uCols, vtRows = k, k
	}
	u = make([]float64, rows*uCols)
	vt = make([]float64, vtRows*cols)
	vals := make([]float64, k)
	work := []float64{0}
	lapackImpl.Dgesvd(jobU, jobVT, rows, cols, r, max(1, cols), vals, u, max(1, uCols), vt, max(1, cols), work, -1)
	work = make([]float64, int(work[0]))
	ok := lapackImpl.Dgesvd(jobU, jobVT, rows, cols, r, max(1, cols), vals, u, max(1, uCols), vt, max(1, cols), work, len(work))
	for i, v := range vals {
		s.set(i, v)
	}
	if !ok {
		code = 1
	}
	return code, u, vt
}

// transpose is the row-major cols×rows transpose of the row-major
// rows×cols x.
func transpose(x []float64, rows, cols int) []float64 {
	out := make([]float64, len(x))
	for i := range rows {
		for j := range cols {
			out[j*rows+i] = x[i*cols+j]
		}
	}
	return out
}

// solveBatched runs the batched routines one matrix after another.
func (d *device) solveBatched(m *solveMem, c *driver.SolverCall, scratch []float64) error {
	n, batch := c.N, c.Batch
	nInfo := batch
	switch c.Op {
	case driver.PotrsBatched:
		nInfo = 1
	case driver.GetrsBatched:
		nInfo = 0
	}
	info, err := m.bytes("Info", c.Info, uint64(nInfo)*4)
	if err != nil {
		return err
	}
	setInfo := func(i, code int) {
		if nInfo > 0 {
			binary.LittleEndian.PutUint32(info[4*min(i, nInfo-1):], uint32(int32(code)))
		}
	}
	var aPtrs, bPtrs []driver.Ptr
	switch c.Op {
	case driver.GetrfBatched, driver.PotrfBatched, driver.GetrsBatched, driver.PotrsBatched:
		if aPtrs, err = m.pointers("A", c.A, batch); err != nil {
			return err
		}
	}
	if c.Op == driver.GetrsBatched || c.Op == driver.PotrsBatched {
		if bPtrs, err = m.pointers("B", c.B, batch); err != nil {
			return err
		}
	}
	var ipiv []byte
	if c.Op == driver.GetrfBatched || c.Op == driver.GetrsBatched {
		if ipiv, err = m.bytes("Ipiv", c.Ipiv, uint64(batch)*uint64(n)*4); err != nil {
			return err
		}
	}
	es := uint64(c.Type.Size())
	for i := range batch {
		switch c.Op {
		case driver.GetrfBatched, driver.PotrfBatched:
			a, err := m.matrix(fmt.Sprintf("A[%d]", i), aPtrs[i], c.Type, n, n, c.LDA)
			if err != nil {
				return err
			}
			r := scratch[:n*n]
			a.load(r)
			var code int
			if c.Op == driver.GetrfBatched {
				code = getrf(r, n, n, func(j, p int) { binary.LittleEndian.PutUint32(ipiv[4*(i*n+j):], uint32(p+1)) })
			} else {
				code = potrf(r, n, c.Upper)
				poisonOtherTriangle(r, n, c.Upper)
			}
			a.store(r)
			setInfo(i, code)
		case driver.GetrsBatched, driver.PotrsBatched:
			a, err := m.matrix(fmt.Sprintf("A[%d]", i), aPtrs[i], c.Type, n, n, c.LDA)
			if err != nil {
				return err
			}
			b, err := m.matrix(fmt.Sprintf("B[%d]", i), bPtrs[i], c.Type, n, c.NRHS, c.LDB)
			if err != nil {
				return err
			}
			r := scratch[:n*n]
			a.load(r)
			if c.Op == driver.GetrsBatched {
				getrs(r, b, c.Trans, func(j int) int { return int(int32(binary.LittleEndian.Uint32(ipiv[4*(i*n+j):]))) - 1 })
			} else {
				potrs(r, b, c.Upper)
				setInfo(0, 0)
			}
		case driver.SyevjBatched:
			a, err := m.matrix(fmt.Sprintf("A[%d]", i), c.A.Add(uint64(i)*uint64(c.LDA)*uint64(n)*es), c.Type, n, n, c.LDA)
			if err != nil {
				return err
			}
			w, err := m.vector(fmt.Sprintf("W[%d]", i), c.Vals.Add(uint64(i)*uint64(n)*es), c.Type, n)
			if err != nil {
				return err
			}
			r := scratch[:n*n]
			a.load(r)
			code := syev(r, n, c.Upper, c.Vectors, w)
			if code != 0 {
				code = n + 1 // as syevj reports no convergence
			}
			if c.Vectors {
				a.store(r)
			}
			setInfo(i, code)
		case driver.GesvdjBatched:
			rows, k := c.M, min(c.M, n)
			a, err := m.matrix(fmt.Sprintf("A[%d]", i), c.A.Add(uint64(i)*uint64(c.LDA)*uint64(n)*es), c.Type, rows, n, c.LDA)
			if err != nil {
				return err
			}
			s, err := m.vector(fmt.Sprintf("S[%d]", i), c.Vals.Add(uint64(i)*uint64(k)*es), c.Type, k)
			if err != nil {
				return err
			}
			r := scratch[:rows*n]
			a.load(r)
			job := lapack.SVDNone
			if c.Vectors {
				job = lapack.SVDAll
			}
			code, u, vt := svd(r, rows, n, job, job, s)
			if code != 0 {
				code = k + 1
			}
			if c.Vectors {
				um, err := m.matrix(fmt.Sprintf("U[%d]", i), c.U.Add(uint64(i)*uint64(c.LDU)*uint64(rows)*es), c.Type, rows, rows, c.LDU)
				if err != nil {
					return err
				}
				vm, err := m.matrix(fmt.Sprintf("V[%d]", i), c.V.Add(uint64(i)*uint64(c.LDV)*uint64(n)*es), c.Type, n, n, c.LDV)
				if err != nil {
					return err
				}
				um.store(u)
				vm.store(transpose(vt, n, n))
			}
			setInfo(i, code)
		}
	}
	return nil
}
