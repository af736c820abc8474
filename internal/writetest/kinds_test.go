package writetest

// The file kinds keep their operations' scripts in their own folders
// (internal/kinds/<kind>/scripts) and hand them to internal/ops as
// internal/kinds lists them: the tests here that make a directory or a
// link over SSH, or through sudo where the native operation is denied,
// link the list, as zap-exec does.
import _ "github.com/zap-go/zap/internal/kinds"
