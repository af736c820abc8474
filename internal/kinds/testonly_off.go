//go:build !zaptest

package kinds

import "github.com/zap-go/zap/internal/kind"

// testOnly: a build without the zaptest tag adds no kind (testonly_on.go).
var testOnly []kind.Kind
