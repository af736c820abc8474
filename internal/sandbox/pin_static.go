//go:build !cgo

package sandbox

// pinTaskDir has nothing to do in a static build: go-landlock reaches
// every thread through syscall.AllThreadsSyscall (pin_cgo.go).
func pinTaskDir() error { return nil }
