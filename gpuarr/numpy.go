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
//	Mean of no elements         NaN and a warning         an error matching ErrShape (Go has no warnings)
//	Div of integers             true division (/) or      truncation toward zero, as Go's /; x/0 is 0,
//	                              floor division (//)     MinInt/-1 is MinInt
//	mixed element types         promoted to a common one  a compile error: Go converts nothing
//	                                                      implicitly (convert with Cast)
//	Cast of floats to integers  undefined out of range    saturates at the type's range, NaN → 0, the
//	                                                      same on every backend
//	linalg.Lstsq, Pinv,         rcond/tol=None picks the  linalg.DefaultTol (any negative value) picks
//	  MatrixRank tolerance        default; lstsq's -1 is  it: Go has no None, and one sentinel is
//	                              machine epsilon         clearer than two
//	linalg.MatrixRank of an     a ValueError              0: an empty matrix has rank 0
//	  empty matrix
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
//	Histogram edges of float32  float32                   float64 (the bins are NumPy's, computed in
//	  data                                                float32)
//	BincountWeights             sums in index order       atomic float64 sums in any order
//	Sort, Argsort, Unique of    any length                at most 2³²-1 elements at once (ErrShape)
//	  2³² elements or more
package gpuarr
