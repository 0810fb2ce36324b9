// # Differences from NumPy
//
// Semantics follow NumPy's unless Go's rules decide otherwise. Every
// intended difference is a row of this table:
//
//	what                        NumPy                     gpuarr, and why
//	Sum, Prod of int8 … int32,  an int64 (uint64) result  an error matching ErrArgument that names SumAs
//	  uint8 … uint32                                      and ProdAs: a Go function cannot return a type
//	                                                      wider than T, and wrapping in T would be a
//	                                                      silent wrong answer; SumAs[int64](x) is
//	                                                      NumPy's sum(x), SumAs[T] wraps on request
//	Mean of integers            a float64 result          T: the exact mean (a 128-bit sum) truncated
//	                                                      toward zero, as Go's integer division;
//	                                                      MeanAs[float64](x) is NumPy's mean(x)
//	Mean, Var, Std, NanMean,    NaN (or -Inf) and a       an error matching ErrShape (Go has no warnings)
//	  LogSumExp of no elements    warning
//	Var, Std of integers        a float64 result          Var and Std take floats; VarAs[float64] and
//	                                                      StdAs[float64] are NumPy's var and std of ints
//	nansum, nanmean, nanmin,    take any type             take floats only: integers have no NaN (use Sum,
//	  nanmax of integers                                  Mean, Min, Max)
//	any, all                    a bool result             uint8 1 or 0: arrays of bool are not storable yet
//	linalg.norm of float32      squares summed in float32 summed in float64: no overflow to +Inf where the
//	                              (+Inf past ~1.8e19)     norm fits float32
//	linalg.norm ord=2, -2,      singular values           refused naming linalg.SVDVals (gpuarr does no
//	  'nuc' of matrices                                   decompositions)
//	triu, tril of a vector      broadcast to a square     an error matching ErrShape: BroadcastTo first
//	diagonal                    a read-only view          a writable view
//	einsum                      any number of operands;   one or two operands (contract pairwise); a summed
//	                              broadcast summed labels label broadcasts no extent-1 axis; "ij->ji"
//	                                                      returns a copy, not a view
//	arange with float32 params  length and step from the  from the float32 arguments (Go has no untyped
//	                              float64 arguments       float parameter): pass exactly representable ones
//	str(array)                  floats as "1." and        each element as fmt's %v formats it ("1"),
//	                              aligned at the point    right-aligned
//	Div of integers             true division (/) or      truncation toward zero, as Go's /; x/0 is 0,
//	                              floor division (//)     MinInt/-1 is MinInt
//	mixed element types         promoted to a common one  Go converts nothing implicitly, and neither
//	                                                      does gpuarr (the one intended difference from
//	                                                      NumPy's promotion): Add(x32, y64) does not
//	                                                      compile ("type *Array[float64] of y does not
//	                                                      match inferred type Operand[float32]"), and an
//	                                                      expression typed at run time fails with
//	                                                      ErrArgument naming both types and the Cast to
//	                                                      write; convert with Cast[float64](x32)
//	Sum, Mean of bool           an int (float) result     a compile error (bool is no Number): SumAs[int64]
//	                                                      and MeanAs[float64] are NumPy's sum and mean;
//	                                                      Max and Min are any and all
//	Cast of complex to real     drops the imaginary part  an error matching ErrArgument naming Real (Go
//	                              with a ComplexWarning   has no such conversion; take real(z) first)
//	Min, Max, ArgMin, ArgMax,   lexicographic order       a compile error (complex numbers are not
//	  Less, … of complex                                  Ordered)
//	abs of complex              np.abs                    ComplexAbs[R] (Go cannot derive the real type
//	                                                      from the complex one: R names it, as for Real
//	                                                      and Imag)
//	Sum, Mean of float16        accumulated in float32    accumulated in float64 and rounded once (at
//	                                                      least as accurate; may differ in the last place)
//	bfloat16                    not a NumPy type          PyTorch's bfloat16: float32's exponent, 8
//	                                                      significant bits, each result rounded to
//	                                                      nearest even
//	clip with array bounds      np.clip(x, lo, hi) with   Clamp(x, lo, hi) takes scalar bounds; with array
//	                              lo, hi broadcasting     bounds write Minimum(Maximum(x, lo), hi), NumPy's
//	                                                      clip (the name Clip is Take's index mode, NumPy's
//	                                                      mode='clip')
//	Cast of floats to integers  undefined out of range    saturates at the type's range, NaN → 0, the
//	                                                      same on every backend
//	linalg.Lstsq, Pinv,         rcond/tol=None picks the  linalg.DefaultTol (any negative value) picks
//	  MatrixRank tolerance        default; lstsq's -1 is  it: Go has no None, and one sentinel is
//	                              machine epsilon         clearer than two
//	linalg.MatrixRank of an     a ValueError              0: an empty matrix has rank 0
//	  empty matrix
//	fft.fftn, ifftn, rfftn, …   the transform runs once   an error matching ErrArgument: a repeated axis
//	  with an axis repeated       per repetition          is almost always a mistake (FFTN twice for it)
//	fft.rfft, irfft (and the    the result type follows   the other type is named at the call
//	  2-D, N-D forms)             the input               (fft.RFFT[complex64](x)): Go cannot derive it
//	Cumsum, Cumprod of int8 …   an int64 (uint64) result  an error matching ErrArgument that names CumsumAs
//	  int32, uint8 … uint32                               (CumprodAs), as Sum: T cannot widen
//	Cumsum, Cumprod of float32  a float32 running sum     accumulated in float64, each result rounded once
//	                                                      to float32: more accurate, so the last bits of
//	                                                      long sums may differ from NumPy's
//	Sort of floats (values)     -0.0 and NaN payloads     -0.0 comes out as 0.0 and every NaN as the
//	                              kept                    canonical NaN: the radix sort sorts keys, not
//	                                                      values (Argsort's positions are exact)
//	Sort, Argsort Descending    no such option            numbers descending, NaNs still last, ties in
//	                                                      their order (not the reverse of ascending)
//	an index out of range       IndexError at the call    ErrIndex from the next host wait on the device
//	  (Take, Put, IndexAdd, …)                            (ToSlice, Item, Synchronize): the indices are
//	                                                      on the device, checked by the kernel; bad ones
//	                                                      are skipped, never read or written through
//	Put with repeated indices   the last value lands      unspecified which lands unless Deterministic()
//	Put with fewer values than  the values repeat         the values broadcast to the indices' shape
//	  indices                     cyclically              (NumPy's rules), else ErrShape
//	IndexAdd of floats at       add.at adds in index      atomic adds in any order unless
//	  repeated indices            order                   Deterministic(), which sorts the indices
//	MaskedSelect                x[m]: m has x's shape     x and m broadcast together (torch's
//	                                                      masked_select); one wait to count the result
//	Histogram edges of float32  float32                   float64 holding NumPy's float32 edges exactly
//	  data                                                (the bins are NumPy's, computed in float32)
//	BincountWeights             sums in index order       atomic float64 sums in any order
//	Sort, Argsort, Unique of    any length                at most 2³²-1 elements at once (ErrShape)
//	  2³² elements or more
package gpuarr
