package pass

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/pkg/declaration"
)

// Connection is what the target's connection context resolves to: the
// secret references a host or connecting user goes through (a plan no
// review can bind), and the ones that resolve to nothing (nowhere to
// connect to).
type Connection struct {
	// MaskedHost names the secret references in target.host: no last-run
	// report is kept for such a host.
	MaskedHost []string
	// Masked names the secret references in target.host, target.user and
	// target.bootstrap_user: such a plan has no plan_hash.
	Masked []string
	// empty names the variables of target.host and the connecting user
	// (target.user, or target.bootstrap_user with --bootstrap) that are
	// unset or empty, and emptyHost those of target.host alone.
	empty, emptyHost []string
}

// connectionOf reads the target's connection context of d with res;
// bootstrap says the run connects as the bootstrap_user.
func connectionOf(d *declaration.Declaration, res *resolve.Resolution, bootstrap bool) Connection {
	var c Connection
	if d.Target.Local {
		return c
	}
	c.MaskedHost = secretRefs(d.Target.Host, res)
	c.Masked = appendNew(c.Masked, c.MaskedHost...)
	c.Masked = appendNew(c.Masked, secretRefs(d.Target.User, res)...)
	c.Masked = appendNew(c.Masked, secretRefs(d.Target.BootstrapUser, res)...)
	user := d.Target.User
	if bootstrap {
		user = d.Target.BootstrapUser
	}
	for _, t := range []*declaration.Text{d.Target.Host, user} {
		if t == nil {
			continue
		}
		for _, n := range t.Refs() {
			if v, _ := res.Lookup(n); strings.TrimSpace(v) == "" {
				c.empty = appendNew(c.empty, n)
				if t == d.Target.Host {
					c.emptyHost = appendNew(c.emptyHost, n)
				}
			}
		}
	}
	return c
}

func appendNew(list []string, names ...string) []string {
	for _, n := range names {
		found := false
		for _, m := range list {
			found = found || m == n
		}
		if !found {
			list = append(list, n)
		}
	}
	return list
}

// Unbindable says the plan can't be reviewed, naming the references.
func (c Connection) Unbindable() bool { return len(c.Masked) > 0 }

// Unrecorded says no last-run report is kept: the host is a secret.
func (c Connection) Unrecorded() bool { return len(c.MaskedHost) > 0 }

// CheckConnectable refuses a remote host or connecting user that resolves
// to nothing: Zap won't SSH to nowhere, or as whichever account ssh picks.
func (c Connection) CheckConnectable() error {
	if len(c.empty) == 0 {
		return nil
	}
	return exit.Fail(2, fmt.Sprintf("the target's host or connecting user resolves to nothing: %s unset or empty", strings.Join(c.empty, ", ")),
		"provide them (--env-file or the environment) and re-run")
}

// CheckHost refuses a remote host that resolves to nothing: a last-run
// report is kept under the host resolved, so there is none to read.
func (c Connection) CheckHost() error {
	if len(c.emptyHost) == 0 {
		return nil
	}
	return exit.Fail(2, fmt.Sprintf("the target's host resolves to nothing: %s unset or empty, so there is no host whose last run to read", strings.Join(c.emptyHost, ", ")),
		"provide them (--env-file or the environment) and re-run")
}

// CheckBindable refuses a wetrun on a plan no review can bind.
func (c Connection) CheckBindable() error {
	if !c.Unbindable() {
		return nil
	}
	return exit.Fail(2, fmt.Sprintf("the target's host or connecting user goes through the secret reference %s, so no plan of it names one machine and a wetrun can't bind to a review",
		strings.Join(c.Masked, ", ")),
		"reference the host and user through plain variables (zap.unmask('NAME') if the name reads as a secret's)")
}

// HostKey is the name of the target a report is kept for: local, or the
// host its references resolve to, which is what zap-detect reports as
// context.target (the report is written and looked up under this one key).
func HostKey(d *declaration.Declaration, res *resolve.Resolution) string {
	if d.Target.Local {
		return "local"
	}
	if d.Target.Host == nil {
		return ""
	}
	return res.Text(*d.Target.Host)
}

// secretRefs names the secrets among the variables a Text references.
func secretRefs(t *declaration.Text, res *resolve.Resolution) []string {
	if t == nil {
		return nil
	}
	var out []string
	for _, p := range t.Parts() {
		if p.Env == "" {
			continue
		}
		for _, r := range res.References {
			if r.Name == p.Env && r.Secret && !slices.Contains(out, p.Env) {
				out = append(out, p.Env)
			}
		}
	}
	return out
}
