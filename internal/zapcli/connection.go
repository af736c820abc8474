package zapcli

import (
	"fmt"
	"strings"

	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/pkg/declaration"
)

// connection is what the target's connection context resolves to: the
// secret references a host or connecting user goes through (a plan no
// review can bind), and the ones that resolve to nothing (nowhere to
// connect to).
type connection struct {
	// maskedHost names the secret references in target.host: no last-run
	// report is kept for such a host.
	maskedHost []string
	// masked names the secret references in target.host, target.user and
	// target.bootstrap_user: such a plan has no plan_hash.
	masked []string
	// empty names the variables of target.host and the connecting user
	// (target.user, or target.bootstrap_user with --bootstrap) that are
	// unset or empty, and emptyHost those of target.host alone.
	empty, emptyHost []string
}

// connectionOf reads the target's connection context of d with res;
// bootstrap says the run connects as the bootstrap_user.
func connectionOf(d *declaration.Declaration, res *resolve.Resolution, bootstrap bool) connection {
	var c connection
	if d.Target.Local {
		return c
	}
	c.maskedHost = secretRefs(d.Target.Host, res)
	c.masked = appendNew(c.masked, c.maskedHost...)
	c.masked = appendNew(c.masked, secretRefs(d.Target.User, res)...)
	c.masked = appendNew(c.masked, secretRefs(d.Target.BootstrapUser, res)...)
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

// unbindable says the plan can't be reviewed, naming the references.
func (c connection) unbindable() bool { return len(c.masked) > 0 }

// unrecorded says no last-run report is kept: the host is a secret.
func (c connection) unrecorded() bool { return len(c.maskedHost) > 0 }

// checkConnectable refuses a remote host or connecting user that resolves
// to nothing: Zap won't SSH to nowhere, or as whichever account ssh picks.
func (c connection) checkConnectable() error {
	if len(c.empty) == 0 {
		return nil
	}
	return fail(2, fmt.Sprintf("the target's host or connecting user resolves to nothing: %s unset or empty", strings.Join(c.empty, ", ")),
		"provide them (--env-file or the environment) and re-run")
}

// checkHost refuses a remote host that resolves to nothing: a last-run
// report is kept under the host resolved, so there is none to read.
func (c connection) checkHost() error {
	if len(c.emptyHost) == 0 {
		return nil
	}
	return fail(2, fmt.Sprintf("the target's host resolves to nothing: %s unset or empty, so there is no host whose last run to read", strings.Join(c.emptyHost, ", ")),
		"provide them (--env-file or the environment) and re-run")
}

// checkBindable refuses a wetrun on a plan no review can bind.
func (c connection) checkBindable() error {
	if !c.unbindable() {
		return nil
	}
	return fail(2, fmt.Sprintf("the target's host or connecting user goes through the secret reference %s, so no plan of it names one machine and a wetrun can't bind to a review",
		strings.Join(c.masked, ", ")),
		"reference the host and user through plain variables (zap.unmask('NAME') if the name reads as a secret's)")
}

// hostKey is the name of the target a report is kept for: local, or the
// host its references resolve to, which is what zap-detect reports as
// context.target (the report is written and looked up under this one key).
func hostKey(d *declaration.Declaration, res *resolve.Resolution) string {
	if d.Target.Local {
		return "local"
	}
	if d.Target.Host == nil {
		return ""
	}
	return res.Text(*d.Target.Host)
}
