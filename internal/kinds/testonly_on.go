//go:build zaptest

package kinds

import (
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/kinds/motd"
)

// testOnly are the kinds a test build adds to all (built with the zaptest
// tag, as make testbin builds the stage binaries), one line each: kinds
// that exist to show, end to end, what a kind takes.
var testOnly = []kind.Kind{
	motd.Kind,
}
