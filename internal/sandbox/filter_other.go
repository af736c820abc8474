//go:build !amd64

package sandbox

// The filter is built for amd64 only: elsewhere Filter refuses.
const (
	auditArch  = 0
	foreignBit = 0
)

var allowed, narrowed []sysc
