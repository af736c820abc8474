package scripttest

import (
	"encoding/hex"
	"os"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/zeebo/blake3"
)

// cmdBlake3 is `blake3 FILE VAR`: sets VAR to the blake3 of FILE's bytes,
// 64 lowercase hex, the form of a pin in a config or zap.lock.
func cmdBlake3(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: blake3 FILE VAR")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	sum := blake3.Sum256(b)
	ts.Setenv(args[1], hex.EncodeToString(sum[:]))
}
