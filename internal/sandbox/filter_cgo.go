//go:build cgo

package sandbox

import "golang.org/x/sys/unix"

// A cgo build starts its threads through the C library's pthread_create,
// which maps a thread's stack PROT_NONE and opens it with mprotect, and a
// new thread registers itself with the kernel (set_robust_list, rseq). A
// static build (CGO_ENABLED=0, as make build ships zap-eval) makes none of
// these calls: the filter lets them through only in a cgo build, such as
// a test binary under -race.
var (
	cgoAllowed = []sysc{
		{"set_robust_list", unix.SYS_SET_ROBUST_LIST},
		{"rseq", unix.SYS_RSEQ},
	}
	cgoNarrowed = []sysc{
		{"mprotect", unix.SYS_MPROTECT},
	}
)
