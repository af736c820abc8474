package execute

import (
	"strings"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Summary describes step s as written (a reference reads {env:NAME}), in
// the words a report uses for its step line, without the leading mark. user
// is the account Zap runs as.
//
//	put ~/.config/app.toml (mode 644, as alice)
//	put /etc/nginx/nginx.conf (mode kept, as alice, checked by nginx -t)
//	dir /srv/app (mode 750, owner app, group app, as alice)
//	link /srv/app/current to /srv/app/releases/v1 (as alice)
//	make install
//
// A command reads as its first line, with " …" when more lines follow.
func Summary(s plan.Step, user string) string {
	switch {
	case s.Command != nil:
		return firstLine(s.Command.Run.String())
	case s.Note != "":
		return firstLine(s.Note)
	case s.Op == nil:
		return string(s.Type)
	}
	op := s.Op
	var attrs []string
	as := "as " + account(op.Privilege, user)
	switch op.Name {
	case plan.OpPut:
		if op.Mode != "" {
			attrs = append(attrs, "mode "+op.Mode)
		} else {
			attrs = append(attrs, "mode kept")
		}
		attrs = append(attrs, as)
		if op.Validate != nil {
			attrs = append(attrs, "checked by "+firstLine(op.Validate.String()))
		}
		return "put " + op.Path.String() + " (" + strings.Join(attrs, ", ") + ")"
	case plan.OpDir:
		if op.Mode != "" {
			attrs = append(attrs, "mode "+op.Mode)
		}
		if op.Owner != "" {
			attrs = append(attrs, "owner "+op.Owner)
		}
		if op.Group != "" {
			attrs = append(attrs, "group "+op.Group)
		}
		attrs = append(attrs, as)
		return "dir " + op.Path.String() + " (" + strings.Join(attrs, ", ") + ")"
	case plan.OpLink:
		target := declaration.Text{}
		if op.Target != nil {
			target = *op.Target
		}
		return "link " + op.Path.String() + " to " + target.String() + " (" + as + ")"
	}
	return string(op.Name) + " " + op.Path.String() + " (" + as + ")"
}

// account is who a step of privilege p runs as on a local target: root for
// a root step, else the account Zap runs as (an elevated step is tried as
// you first).
func account(p plan.Privilege, user string) string {
	if p == plan.Root {
		return "root"
	}
	return user
}

func firstLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
