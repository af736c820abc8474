package aptrepo

import "github.com/zap-go/zap/internal/ops"

// The apt_repo's scripts, as internal/kinds hands them to ops: detection
// reads the source line with apt-source.
func init() { ops.Register(scripts) }
