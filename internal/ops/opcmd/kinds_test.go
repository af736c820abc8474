package opcmd_test

// The kinds that keep their operations in their own folders
// (internal/kinds/<kind>) hand opcmd their wordings as internal/kinds lists
// them: the cases here that word those operations link the list.
import _ "github.com/zap-go/zap/internal/kinds"
