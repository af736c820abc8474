package execute

import (
	"context"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/scripttest"
)

// writeSplit writes s to t in the pieces how says: whole, byte by byte, or
// cut in the secret's middle.
func writeSplit(t *Tail, s string, how string) {
	switch how {
	case "whole":
		t.Write([]byte(s))
	case "bytes":
		for i := 0; i < len(s); i++ {
			t.Write([]byte{s[i]})
		}
	case "mid-secret":
		i := strings.Index(s, scripttest.CutSecret) + len(scripttest.CutSecret)/2
		t.Write([]byte(s[:i]))
		t.Write([]byte(s[i:]))
	}
}

// TestOutputTailKeepsNoPartOfASecretWhereverTheCutFalls prints a secret and
// then enough after it that the tail's cut falls at every offset of it,
// from just before its first byte to just after its last, written whole,
// byte by byte and split inside the secret: what the tail keeps holds not
// one byte of the secret (lower-case letters, which neither the dots nor
// the placeholder [MASKED:CUT_TOKEN] hold), and when the cut falls before the secret, its
// placeholder whole.
func TestOutputTailKeepsNoPartOfASecretWhereverTheCutFalls(t *testing.T) {
	const limit = 64
	m := mask.New(map[string]string{"CUT_TOKEN": scripttest.CutSecret})
	ctx := WithMask(context.Background(), m)
	for _, how := range []string{"whole", "bytes", "mid-secret"} {
		for off := -1; off <= len(scripttest.CutSecret)+1; off++ {
			after := limit - len(scripttest.CutSecret) + off // the cut falls off bytes into the secret
			out := strings.Repeat(".", 10) + scripttest.CutSecret + strings.Repeat(".", after)
			tail := OutputTail(ctx)
			tail.Limit = limit
			writeSplit(tail, out, how)
			got := tail.String()
			if f := scripttest.SecretPiece(got, scripttest.CutSecret, 1); f != "" {
				t.Errorf("%s, cut at %d: kept %q holds %q of the secret", how, off, got, f)
			}
			if len(got) > limit {
				t.Errorf("%s, cut at %d: kept %d bytes, more than %d", how, off, len(got), limit)
			}
			if off <= 0 && !strings.Contains(got, "[MASKED:CUT_TOKEN]") {
				t.Errorf("%s, cut at %d: kept %q, want the placeholder whole", how, off, got)
			}
		}
	}
}

// TestOutputTailWithoutMaskerKeepsTheBytes checks that a tail whose context
// carries no Masker keeps what was written as it is.
func TestOutputTailWithoutMaskerKeepsTheBytes(t *testing.T) {
	tail := OutputTail(context.Background())
	tail.Write([]byte(scripttest.CutSecret))
	if got := tail.String(); got != scripttest.CutSecret {
		t.Fatalf("kept %q", got)
	}
}

// TestOutputTailHeldBackIsMaskedInString checks that what a masking tail
// holds back (the stream's end could still begin a secret) is in String,
// masked as the stream's end: a secret's start alone as written, a whole
// secret masked.
func TestOutputTailHeldBackIsMaskedInString(t *testing.T) {
	ctx := WithMask(context.Background(), mask.New(map[string]string{"CUT_TOKEN": scripttest.CutSecret}))
	tail := OutputTail(ctx)
	tail.Write([]byte("start " + scripttest.CutSecret[:5]))
	if got := tail.String(); got != "start "+scripttest.CutSecret[:5] {
		t.Fatalf("kept %q", got)
	}
	tail.Write([]byte(scripttest.CutSecret[5:]))
	if got := tail.String(); got != "start [MASKED:CUT_TOKEN]" {
		t.Fatalf("kept %q", got)
	}
}
