module github.com/zap-go/zap

go 1.26.0

require (
	github.com/aymanbagabas/go-udiff v0.4.2
	github.com/dop251/goja v0.0.0-20260917113740-793a2a65c13b
	github.com/evanw/esbuild v0.28.2
	github.com/go-sourcemap/sourcemap v2.1.3+incompatible
	github.com/landlock-lsm/go-landlock v0.11.2
	github.com/peterbourgon/ff/v3 v3.4.0
	github.com/rogpeppe/go-internal v1.16.0
	github.com/zeebo/blake3 v0.2.4
	golang.org/x/crypto v0.59.0
	golang.org/x/sys v0.50.0
)

require (
	github.com/dlclark/regexp2/v2 v2.5.2 // indirect
	github.com/google/pprof v0.0.0-20230207041349-798e818bf904 // indirect
	github.com/klauspost/cpuid/v2 v2.0.12 // indirect
	golang.org/x/text v0.44.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect
)
