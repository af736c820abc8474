package opcmd

import "github.com/zap-go/zap/pkg/plan"

// Words is an operation's wording of its own, as a plan's = line and a
// report's step line both say it, before the caller escapes it (a plan
// does) and says who runs it.
type Words struct {
	// Text is the wording, unescaped.
	Text string
	// As is whether the caller ends Text with " (as ACCOUNT)", the account
	// the step runs as in the caller's own words. It is false when Text
	// says who runs it (each command's sudo, a database's postgres) or
	// when nobody is named (an installer's script, an assertion).
	As bool
	// Assertion is whether Text is the verify assertion the operation
	// checks. A plan shows a verify's step as its assertion
	// (render.Assertion), not as an = line, so OpSummary words such an
	// operation as any other; a report's step line says the assertion.
	Assertion bool
}

// own holds the operations worded by a function of their own, by name.
// An operation that isn't here and isn't in Forms has no wording of its
// own: each caller says its name, its path and its arguments.
var own = map[plan.OpName]func(op *plan.Op) (Words, bool){}

// Word returns op's wording of its own, and whether it has one: the one
// place an operation is worded by its name, for internal/render's
// OpSummary and internal/execute's Summary alike.
//
//	installer URL SHELL           run the script fetched from URL (piped to SHELL)
//	user-keys NAME keys KEY...    user-keys NAME keys KEY, KEY             + (as ACCOUNT)
//	verify-path PATH TYPE MODE OWNER NOT_EMPTY   path_exists PATH (TYPE, mode MODE, ...)
//	firewall-ufw-enable           sudo ufw --force enable                  (as root)
//	svc-enable systemd chrony     sudo systemctl enable -- chrony          (as root, no path)
//	svc-enable systemd chrony     systemctl enable -- chrony               + (as ACCOUNT), not as root
//
// A service's, the installer's, a user's keys', a verify's and a ufw
// operation's words are their kinds' (kind.Def's Word, registered here by
// internal/kinds). A package operation (Forms) has its words only without
// a path; as root each command carries its sudo (DescribeSudo), else the
// caller names the account (Describe).
func Word(op *plan.Op) (Words, bool) {
	if f, ok := own[op.Name]; ok {
		return f(op)
	}
	if !op.Path.IsZero() {
		return Words{}, false
	}
	if op.Privilege == plan.Root {
		s, ok := DescribeSudo(string(op.Name), op.Args)
		return Words{Text: s}, ok
	}
	s, ok := Describe(string(op.Name), op.Args)
	return Words{Text: s, As: true}, ok
}

// Register adds the wording of an operation a kind keeps in its own
// folder (internal/kinds/<kind>), as internal/kinds lists the kind, before
// anything is worded. A name already worded is a mistake in Zap's code:
// Register panics.
func Register(name plan.OpName, word func(op *plan.Op) (Words, bool)) {
	if _, ok := own[name]; ok {
		panic("opcmd: " + string(name) + " is worded twice")
	}
	own[name] = word
}

// Sudo reports whether an operation of privilege p runs as root through
// sudo: a root one anywhere, an elevated one over SSH (remote). Its words
// then carry the sudo, as every privileged command in a plan does
// (targets.md), rather than naming an account: "sudo user-account deploy
// /bin/bash". A file operation (put, dir, link, extract) that runs as root
// keeps "as root" in its parentheses; an elevated one over SSH says
// "through sudo" and who will own what it makes (FileWho).
func Sudo(p plan.Privilege, remote bool) bool {
	return p == plan.Root || p == plan.Elevated && remote
}

// NewOwner is what an elevated put's or dir's parentheses say over SSH
// when it declares no owner: what it makes takes its directory's owner and
// group (an existing one keeps its own), but below a shared directory (one
// with its sticky bit set or that every account may write, anywhere on the
// path) nothing is kept and it is root's, the writer's (lib/walk.sh's
// zap_mkdir, lib/put.sh). Which case a path is can't be told before
// contact, so the words give the rule.
const NewOwner = "owner of its directory when new, root under a shared directory such as /tmp"

// LinkOwner is what an elevated link's parentheses say over SSH: link.sh
// makes the link as root and gives it no owner.
const LinkOwner = "owned by root"

// ExtractOwner is what an elevated extract's parentheses say over SSH with
// no owner declared: what the archive holds is root's, the extracting
// account's, and the tree's top takes the owner of the directory it
// replaces, but stays root's when new or below a shared directory
// (extract.sh's zap_attrs). ExtractOwned is what they say with an owner
// declared, which only the top takes.
const (
	ExtractOwner = "owned by root, its top the owner of a directory it replaces unless under a shared directory such as /tmp"
	ExtractOwned = "what it holds owned by root"
)

// FileWho is what a file operation's parentheses say of who acts and who
// owns what it makes, account being the one it runs as when not through
// sudo: over SSH an elevated one "through sudo" and who owns what the
// operation named name makes as root, as its script does it (NewOwner,
// LinkOwner, ExtractOwner, ExtractOwned; owned says an owner is declared);
// else "as ACCOUNT".
func FileWho(name plan.OpName, p plan.Privilege, remote, owned bool, account string) []string {
	if p != plan.Elevated || !remote {
		return []string{"as " + account}
	}
	switch {
	case name == plan.OpLink:
		return []string{"through sudo", LinkOwner}
	case name == plan.OpExtract && owned:
		return []string{"through sudo", ExtractOwned}
	case name == plan.OpExtract:
		return []string{"through sudo", ExtractOwner}
	case !owned:
		return []string{"through sudo", NewOwner}
	}
	return []string{"through sudo"}
}
