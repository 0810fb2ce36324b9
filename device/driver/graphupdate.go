package driver

// GraphNode names one operation recorded into a captured graph (a
// CUgraphNode of the graph an instantiated Graph came from). It is valid
// as long as that Graph.
type GraphNode uintptr

// CaptureNodes is the optional capability of a Stream to name the graph
// node its latest captured operation became (cuStreamGetCaptureInfo_v3:
// the capture's current dependency set, which right after an operation
// on a one-stream capture is that operation's node). Callers use it to
// find the nodes they later update in the instantiated graph.
type CaptureNodes interface {
	// LastCapturedNode fails with InvalidValue when the stream does not
	// capture, or when the capture has no single latest node (nothing
	// captured yet, or the capture joined several streams).
	LastCapturedNode() (GraphNode, error)
}

// GraphUpdate is the optional capability of a Graph to change the
// parameters of nodes in its instantiation without capturing again
// (cuGraphExecKernelNodeSetParams_v2, cuGraphExecMemcpyNodeSetParams,
// cuGraphExecMemsetNodeSetParams).
// An update affects launches issued after it; launches already issued run
// with the parameters they were issued with.
type GraphUpdate interface {
	// SetKernelNode gives kernel node n a new grid, block, shared memory
	// size and arguments; f must be the kernel the node launches.
	SetKernelNode(n GraphNode, f Function, grid, block Dim3, sharedBytes uint32, args *Args) error
	// SetCopyBytes makes the one-dimensional copy node n copy bytes bytes
	// (more than zero) from the same source to the same destination.
	SetCopyBytes(n GraphNode, bytes uint64) error
	// SetMemsetBytes makes the one-dimensional memset node n set bytes
	// bytes (more than zero, a multiple of its element size) at the same
	// destination to the same value.
	SetMemsetBytes(n GraphNode, bytes uint64) error
}
