package deploy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/localops"
	"github.com/zap-go/zap/internal/scripttest"
	"github.com/zap-go/zap/pkg/deployplan"
)

// TestBuildOutputHoldsNoPartOfASecretWhereverTheCutFalls runs a build that
// prints a secret the plan names and then enough that the kept output's
// cut falls at every offset of it, from just before its first byte to just
// after its last, with the Masker zap-deploy run makes (RunMasker): the
// failed build's output, as this machine's host (internal/localops) keeps
// it running the build step, holds not one byte of the secret, and where the
// cut falls before it, its placeholder whole.
func TestBuildOutputHoldsNoPartOfASecretWhereverTheCutFalls(t *testing.T) {
	p := &deployplan.Plan{Masked: []string{"CUT_TOKEN"}}
	env := func(name string) (string, bool) { return scripttest.CutSecret, name == "CUT_TOKEN" }
	ctx := execute.WithMask(context.Background(), RunMasker(p, env))
	secret := scripttest.CutSecret
	for off := -1; off <= len(secret)+1; off++ {
		after := execute.OutputLimit - len(secret) + off
		cmd := fmt.Sprintf(`printf 'before %s'; head -c %d /dev/zero | tr '\0' .; exit 3`, secret, after)
		err := localops.New(os.Environ()).Run(ctx, buildStep(t.TempDir(), cmd).Command)
		var xe *execute.ExitError
		if !errors.As(err, &xe) {
			t.Fatalf("cut at %d: %v, want the build's exit", off, err)
		}
		if piece := scripttest.SecretPiece(xe.Output, secret, 1); piece != "" {
			t.Errorf("cut at %d: the output holds %q of the secret", off, piece)
		}
		if len(xe.Output) > execute.OutputLimit || !strings.HasSuffix(xe.Output, "...") {
			t.Errorf("cut at %d: an output of %d bytes", off, len(xe.Output))
		}
		if off <= 0 && !strings.Contains(xe.Output, "[MASKED:CUT_TOKEN]") {
			t.Errorf("cut at %d: the output doesn't hold the placeholder whole", off)
		}
	}
}
