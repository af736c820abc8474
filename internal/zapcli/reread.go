package zapcli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/pass"
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/stages"
)

// reread is a wetrun's reading again. After a --bootstrap run it connects
// as the target's declared user, the account every later command connects
// as, and says so: the run may have just locked the bootstrap user out (an
// sshd drop-in denying it), and what has to hold from now on is that the
// declared user gets in. A connection refused to that user fails the run
// (exit 1) saying the later commands will be refused too. A target that
// declares no user (ssh chooses) is read again as the run connected, with
// --bootstrap, as is every other wetrun.
func (w *wetrun) reread(ctx context.Context) (*pass.Detection, error) {
	user := w.declaredUser()
	if !w.s.a.bootstrap || user == "" {
		return w.s.Detect(ctx, w.ev)
	}
	fmt.Fprintf(w.text(), "\nre-reading as %s, the user later commands connect as\n", user)
	det, err := w.s.DetectAsUser(ctx, w.ev)
	var se *stages.Error
	if errors.As(err, &se) && se.Status == 1 && strings.HasPrefix(se.Msg, "cannot connect to ") {
		host := pass.HostKey(w.ev.Decl, w.s.Res)
		// The connection's own error is the NOT OBSERVED line's (or the
		// observe_failed event's); this says what it means from now on.
		hints := append(exit.Hints(err),
			fmt.Sprintf("what the run changed stays: give %s a login (a key this machine offers, an sshd that lets it in) through an account that still gets in, then run zap plan", user))
		render.Error(w.s.a.stderr, fmt.Sprintf("%s isn't reachable as %s after bring-up, so every later command, which connects as %s, will fail too",
			host, user, user), hints...)
	}
	return det, err
}

// declaredUser is the target's declared user as its references resolve,
// "" when it declares none or is local.
func (w *wetrun) declaredUser() string {
	t := w.ev.Decl.Target
	if t.Local || t.User == nil {
		return ""
	}
	return w.s.Res.Text(*t.User)
}
