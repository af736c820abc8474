//go:build zaptest

package evaluate

// A test build's evaluator links the kinds' list, so the kinds a test build
// adds (internal/kinds, testonly_on.go) register their bodies with
// pkg/declaration and may be declared.
import _ "github.com/zap-go/zap/internal/kinds"
