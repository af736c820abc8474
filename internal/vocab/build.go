package vocab

import "github.com/zap-go/zap/pkg/plan"

// OpBuild builds a build resource on the target as the login user
// (internal/kinds/build/scripts/build.sh): it takes the source archive on stdin,
// checks its SHA-512, unpacks it in a private temporary directory, runs the
// build's run there and removes the directory. Its path is the output; the
// plan's arguments are BuildArgs, and zap-exec appends the archive's
// SHA-512 and length and the run's script (resolved when it acts) before
// it runs. The name and the arguments are here, not in the build kind's
// folder, because the executor (internal/zapexec) and internal/ops, which
// streams the operation, share them with it.
const OpBuild plan.OpName = "build"

// The plan's arguments of OpBuild, in order: the source's blake3 pin (which
// entry of the operator's content cache is sent), the extract form (none,
// tar.gz, tar.xz), strip_components, cwd as declared ("." for the source
// directory itself) and the name an unextracted source takes there.
const (
	BuildArgPin = iota
	BuildArgExtract
	BuildArgStrip
	BuildArgCwd
	BuildArgName
	BuildArgs
)

// BuildSourceLimit is the largest source archive a build takes, fetch's
// own size bound (1 GiB): the archive crosses to the target raw on the
// script's stdin, streamed from its content cache entry and copied to a
// file as it arrives, never held whole, so the bound is the cache's and
// the target's room, not the operator's or the target's memory.
const BuildSourceLimit = 1 << 30
