package memory

// HostAccount is told of the managed memory a device's default managed
// resources obtain from the driver and give back: managed pages live in
// system memory until the GPU touches them, so that memory is the
// system's as much as the device's. Package gcpressure's host-memory
// account is one; package lifetime installs it before the first array
// allocation.
type HostAccount interface {
	// Charge accounts n bytes about to be allocated, or refuses them with
	// an error that says why.
	Charge(n uint64) error
	// Release gives back n bytes that Charge accepted.
	Release(n uint64)
}

var hostAccountHook hook[HostAccount]

// SetHostAccount installs the host-memory account that each device's
// default managed resources charge, and returns the previous one. A
// device's resources take the account installed when they are built (the
// first DefaultManaged or DefaultManagedOversubscribing for the device)
// and keep it, so that every release matches its charge; nil: none.
func SetHostAccount(a HostAccount) (previous HostAccount) { return hostAccountHook.swap(a) }
