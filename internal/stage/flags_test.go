package stage

import (
	"errors"
	"reflect"
	"testing"

	"github.com/zap-go/zap/internal/exit"
)

// TestParseFlagErrors checks how a stage says a command line it can't
// parse: an unknown flag as it was typed (-v, not --v), others with two
// dashes, the flag meant for a misspelt one, the value a flag
// takes when it is missing; --version and --help come back as themselves.
func TestParseFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args  []string
		msg   string
		hints []string
	}{
		{[]string{"--wetrn"}, "unknown flag --wetrn", []string{"did you mean --wetrun?", "run zap-x --help for its usage"}},
		{[]string{"-dif"}, "unknown flag -dif", []string{"did you mean --dir?", "run zap-x --help for its usage"}},
		{[]string{"-v"}, "unknown flag -v", []string{"run zap-x --help for its usage"}},
		{[]string{"--v=1"}, "unknown flag --v", []string{"run zap-x --help for its usage"}},
		{[]string{"-frob=1", "--", "--frob"}, "unknown flag -frob", []string{"run zap-x --help for its usage"}},
		{[]string{"--frob"}, "unknown flag --frob", []string{"run zap-x --help for its usage"}},
		{[]string{"--lokc", "x"}, "unknown flag --lokc", []string{"did you mean --lock?", "run zap-x --help for its usage"}},
		{[]string{"--lock"}, "--lock needs a value: --lock PATH", []string{"run zap-x --help for its usage"}},
		{[]string{"--dir"}, "--dir needs a value", []string{"run zap-x --help for its usage"}},
		{[]string{"--wetrun=maybe"}, `invalid boolean value "maybe" for --wetrun: parse error`, []string{"run zap-x --help for its usage"}},
	} {
		fs := NewFlagSet("zap-x")
		fs.Bool("wetrun", false, "act")
		fs.String("lock", "", "the zap.lock at `PATH`")
		fs.String("dir", ".", "a directory")
		err := Parse(fs, c.args)
		var e *exit.Error
		if !errors.As(err, &e) || e.Code != 2 {
			t.Errorf("%q: got %v, want a usage error", c.args, err)
			continue
		}
		if e.Error() != c.msg || !reflect.DeepEqual(e.Hints, c.hints) {
			t.Errorf("%q: got %q %q, want %q %q", c.args, e.Error(), e.Hints, c.msg, c.hints)
		}
	}
	fs := NewFlagSet("zap-x")
	if err := Parse(fs, []string{"--version"}); !errors.Is(err, ErrVersion) {
		t.Errorf("--version: got %v, want ErrVersion", err)
	}
}
