package ops_test

// The kinds that keep their operations' scripts in their own folders
// (internal/kinds/<kind>/scripts) hand them to ops as internal/kinds lists
// them: the tests here that run those scripts link the list.
import _ "github.com/zap-go/zap/internal/kinds"
