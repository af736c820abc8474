//go:build !cgo

package sandbox

// cgoAllowed and cgoNarrowed are empty in a static build (filter_cgo.go).
var cgoAllowed, cgoNarrowed []sysc
