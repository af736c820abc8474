package stage

import (
	"errors"
	"fmt"
	"os"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/state"
)

// FingerprintKey is the operator's fingerprint key (state.FingerprintKey)
// from the state directory $ZAP_HOME or $HOME/.zap, made on first use:
// zap-detect fingerprints what it read with it and zap-exec what it reads
// again. A HOME or ZAP_HOME that can't hold it is an input to fix; a key
// Zap can't trust, or can't read or make, is a problem in the world.
func FingerprintKey() ([]byte, error) {
	st, err := state.Open(os.Getenv)
	if err != nil {
		return nil, exit.BadInput(err, "Zap keeps its fingerprint key in $ZAP_HOME, or else $HOME/.zap: set one to an absolute path")
	}
	key, err := st.FingerprintKey()
	if errors.Is(err, state.ErrUntrusted) {
		return nil, exit.InWorld(fmt.Errorf("the fingerprint key: %w", err),
			"the key must be a regular file of the user Zap runs as, mode 600, in a directory no other account can write; fix it, or remove it to make a new one (plans made with the old one then refuse to run)")
	}
	if err != nil {
		return nil, exit.InWorld(fmt.Errorf("the fingerprint key: %w", err))
	}
	return key, nil
}
