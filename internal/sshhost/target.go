package sshhost

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zap-go/zap/pkg/declaration"
)

// TargetError is a remote target that can't be connected to as declared:
// a host or user that resolves to nothing or to something ssh would
// misread. The stage stops before it connects (exit 2).
type TargetError struct {
	Err  error
	Hint string
}

func (e *TargetError) Error() string { return e.Err.Error() }
func (e *TargetError) Unwrap() error { return e.Err }

// ResolveTarget resolves a remote target's host and user with text (the
// stage's resolution of references). With bootstrap the user is the
// declared bootstrap_user, which the target must declare. A host or user
// that resolves to nothing, or to something ssh would take for an option or
// that spans lines, is a *TargetError.
func ResolveTarget(t *declaration.Target, text func(declaration.Text) string, bootstrap bool) (Target, error) {
	out := Target{Port: t.Port, Identity: t.Identity}
	userField, user := "target.user", t.User
	if bootstrap {
		if t.BootstrapUser == nil {
			return out, &TargetError{
				Err:  errors.New("--bootstrap: the target declares no bootstrap_user to connect as"),
				Hint: "declare bootstrap_user in the target, or run without --bootstrap",
			}
		}
		userField, user = "target.bootstrap_user", t.BootstrapUser
	}
	for _, f := range []struct {
		name string
		v    *declaration.Text
		to   *string
	}{{"target.host", t.Host, &out.Host}, {userField, user, &out.User}} {
		if f.v == nil {
			continue
		}
		v := text(*f.v)
		switch {
		case v == "" && f.v.HasRefs():
			return out, &TargetError{
				Err:  fmt.Errorf("%s: %s, so there is no one to connect as or to", f.name, unset(*f.v)),
				Hint: "set the variable in the environment the stage runs in",
			}
		case v == "":
			return out, &TargetError{Err: fmt.Errorf("%s: is empty", f.name)}
		case strings.HasPrefix(v, "-") || strings.ContainsAny(v, " \t\r\n\x00"):
			return out, &TargetError{Err: fmt.Errorf("%s: resolves to a value ssh would misread (it begins with - or holds whitespace)", f.name)}
		}
		*f.to = v
	}
	if out.Host == "" {
		return out, &TargetError{Err: errors.New("target.host: a remote target names its host")}
	}
	return out, nil
}

func unset(t declaration.Text) string {
	refs := t.Refs()
	if len(refs) == 1 {
		return "the reference " + refs[0] + " is unset or empty"
	}
	return "the references " + strings.Join(refs, ", ") + " resolve to nothing"
}
