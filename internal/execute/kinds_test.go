package execute

// The kinds that keep their operations' wording in their own folders
// (a ufw operation's, a user's keys', ...) hand it to internal/ops/opcmd
// as internal/kinds lists them: the tests here that word those operations
// link the list, as zap-exec does.
import _ "github.com/zap-go/zap/internal/kinds"
