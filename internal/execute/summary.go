package execute

import (
	"strings"

	"github.com/zap-go/zap/internal/ops/opcmd"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Summary describes step s as written (a reference reads {env:NAME}), in
// the words a report uses for its step line (internal/render's OpSummary),
// without the leading mark. user is the account Zap runs as; remote says
// the target is over SSH.
//
//	put ~/.config/app.toml (mode 644, as alice)
//	put /etc/nginx/nginx.conf (as alice, checked by nginx -t)
//	dir /srv/app (mode 750, owner app, group app, as alice)
//	dir ~/app (mode 755, through sudo, owner of its directory when new, root under a shared directory such as /tmp)   (over SSH)
//	link /srv/app/current -> /srv/app/releases/v1 (as alice)
//	sudo systemctl enable -- chrony
//	sudo apt-get install -y -q ... -- nginx-light curl
//	sudo user-account deploy /bin/bash
//	run the script fetched from https://sh.rustup.rs (piped to sh -s -- -y)
//	path_exists /srv/token (file, mode 600)
//	make install
//
// An operation with a wording of its own reads as opcmd.Word says it (a
// package, service or ufw operation as the commands its script runs, each
// under an explicit sudo, as it runs as root), with the account it runs
// as when the words don't say it; another operation as its name, its
// path and its arguments. Either, when it runs as root through sudo
// (opcmd.Sudo), carries the sudo in front rather than an account. A file
// operation's parentheses hold its declared mode, owner and group, the
// account it runs as (over SSH an elevated one "through sudo", and who
// owns what it makes: opcmd.FileWho), and its check. A command reads as its
// first line, with " …" when more lines follow.
func Summary(s plan.Step, user string, remote bool) string {
	switch {
	case s.Command != nil:
		return firstLine(s.Command.Run.String())
	case s.Note != "":
		return firstLine(s.Note)
	case s.Op == nil:
		return string(s.Type)
	}
	op := s.Op
	sudo := opcmd.Sudo(op.Privilege, remote)
	if w, ok := opcmd.Word(op); ok {
		switch {
		case w.As && sudo:
			return "sudo " + w.Text
		case w.As:
			return w.Text + " (as " + account(op.Privilege, user) + ")"
		}
		return w.Text
	}
	switch op.Name {
	case plan.OpPut, plan.OpDir, plan.OpLink, plan.OpExtract:
	default:
		words := []string{string(op.Name)}
		if !op.Path.IsZero() {
			words = append(words, op.Path.String())
		}
		words = append(words, op.Written()...)
		if sudo {
			return "sudo " + strings.Join(words, " ")
		}
		return strings.Join(words, " ") + " (as " + account(op.Privilege, user) + ")"
	}
	var paren []string
	if op.Mode != "" {
		paren = append(paren, "mode "+op.Mode)
	}
	if op.Owner != "" {
		paren = append(paren, "owner "+op.Owner)
	}
	if op.Group != "" {
		paren = append(paren, "group "+op.Group)
	}
	paren = append(paren, opcmd.FileWho(op.Name, op.Privilege, remote, op.Owner != "", account(op.Privilege, user))...)
	if op.Validate != nil {
		paren = append(paren, "checked by "+op.Validate.String())
	}
	if from := op.FetchedFrom(); from != "" {
		paren = append(paren, from)
	}
	if op.Name == plan.OpLink {
		target := declaration.Text{}
		if op.Target != nil {
			target = *op.Target
		}
		return "link " + op.Path.String() + " -> " + target.String() + " (" + strings.Join(paren, ", ") + ")"
	}
	return string(op.Name) + " " + op.Path.String() + " (" + strings.Join(paren, ", ") + ")"
}

// account is who a step of privilege p runs as when it doesn't run through
// sudo: root for a root step (a file operation's), else the account Zap
// runs as (an elevated step is tried as you first, locally).
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
