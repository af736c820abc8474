package localops

// The file kinds keep their operations' scripts in their own folders
// (internal/kinds/<kind>/scripts) and hand them to internal/ops as
// internal/kinds lists them: the tests here that run a script where the
// native operation is denied (dir.sh, link.sh) link the list.
import _ "github.com/zap-go/zap/internal/kinds"
