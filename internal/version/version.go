// Package version is the version every Zap binary reports: zap version,
// zap --version and each stage's --version print the same string.
package version

import "runtime/debug"

// Version is set at build time with
// -ldflags "-X github.com/zap-go/zap/internal/version.Version=v1.2.3"
// (the Makefile sets it from git describe).
var Version = ""

// String is Version, or the module version the build recorded, or
// "(devel)" when there is neither.
func String() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
