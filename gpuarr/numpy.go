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
package gpuarr
