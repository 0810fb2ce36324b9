package driver

// PeerLinks is an optional capability of a backend's Device whose peer
// links are simulated (the host backend), so that tests of multi-device
// code can choose which devices may be peers. On a GPU the links are the
// hardware's, and backends there do not implement it.
//
// SetPeerLink changes whether this device and peer (a device of the same
// backend) can be peers, in both directions, whatever the backend's
// configuration says. Refusing a pair also revokes peer access already
// enabled between them, so a test can put the links back the way it found
// them.
type PeerLinks interface {
	SetPeerLink(peer Device, ok bool) error
}
