package declaration

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/zap-go/zap/internal/strict"
)

// Deploy is how `zap deploy` ships a release of the application to the
// target.
type Deploy struct {
	// The app's directory on the target, absolute: releases/, shared/ and
	// current live there.
	Path string `json:"path" zap:"instead=deploy"`
	// The local build command run before packing.
	Build string `json:"build,omitempty" zap:"instead=deploy"`
	// Paths of the checkout packed into the release archive. None begins
	// with - or @.
	Artifacts []string `json:"artifacts" zap:"instead=deploy"`
	// Plain relative names linked from <path>/shared/ into each release.
	Shared []string `json:"shared,omitempty" zap:"instead=deploy"`
	// Commands run in the new release before the swap.
	Prepare []string `json:"prepare,omitempty" zap:"instead=deploy"`
	// The service restarted after the swap.
	Service string `json:"service,omitempty" zap:"instead=service"`
	// How many releases are kept, 2 at least.
	Releases *int `json:"releases,omitempty" zap:"instead=count"`
	// The HTTPS check polled after the restart; a failing one rolls the
	// release back. Without it the swap alone decides.
	Health *Health `json:"health,omitempty"`
}

// Health is the health gate of a deploy: https://<domain><path> polled from
// your machine after the restart, then /ready, trusting your system's
// certificate store (SSL_CERT_FILE or SSL_CERT_DIR add a CA), following no
// redirect.
type Health struct {
	// A host name, or a host name and a port (app.example.net:8443).
	// Takes a reference; not blank.
	Domain Text `json:"domain"`
	// The path polled (default /). /ready makes one check the gate.
	Path string `json:"path,omitempty" zap:"instead=deploy"`
	// How many polls before the deploy fails and rolls back.
	Attempts *int `json:"attempts,omitempty" zap:"instead=count"`
	// Milliseconds between polls.
	IntervalMS *int `json:"interval_ms,omitempty" zap:"instead=count"`
}

func (d *Deploy) DecodeField(path string, raw json.RawMessage) error {
	return strict.DecodeTagged(path, raw, d)
}

func (h *Health) DecodeField(path string, raw json.RawMessage) error {
	return strict.DecodeTagged(path, raw, h)
}

// UnmarshalJSON decodes strictly; DecodeField does the work.
func (d *Deploy) UnmarshalJSON(data []byte) error { return d.DecodeField("", data) }

// UnmarshalJSON decodes strictly; DecodeField does the work.
func (h *Health) UnmarshalJSON(data []byte) error { return h.DecodeField("", data) }

// MarshalJSON writes the deploy block with its artifacts never null.
func (d Deploy) MarshalJSON() ([]byte, error) {
	type plain Deploy
	p := plain(d)
	if p.Artifacts == nil {
		p.Artifacts = []string{}
	}
	return json.Marshal(p)
}

var sharedPattern = newPattern(`^[A-Za-z0-9_.][A-Za-z0-9_.-]*$`)

// LeavesTree says whether the artifact path a names something outside the
// directory it is relative to, as written: an absolute path, or one whose
// .. segments climb above it.
func LeavesTree(a string) bool {
	c := path.Clean(a)
	return strings.HasPrefix(a, "/") || c == ".." || strings.HasPrefix(c, "../")
}

// IsHostName says whether s is a host name: letters, digits, dots and
// dashes, beginning and ending with a letter or a digit.
func IsHostName(s string) bool { return domainPattern.MatchString(s) }

// IsHealthDomain says whether s is what deploy.health.domain takes, written
// in the config or resolved through its references: a host name
// (IsHostName), alone or with a port, app.example.net:8443, whose number
// is 1 to 65535 with no sign and no leading zero. So no value can add a
// path, a query, a fragment or a user; the check is still https.
func IsHealthDomain(s string) bool {
	host, port, ok := strings.Cut(s, ":")
	if !ok {
		return IsHostName(s)
	}
	if !IsHostName(host) || port == "" || len(port) > 5 || port[0] == '0' {
		return false
	}
	n := 0
	for _, r := range port {
		if r < '0' || r > '9' {
			return false
		}
		n = n*10 + int(r-'0')
	}
	return n <= 65535
}

// validate checks the deploy block.
func (d *Deploy) validate() error {
	e := func(field, format string, args ...any) error {
		return &Error{Field: "deploy." + field, Msg: fmt.Sprintf(format, args...)}
	}
	if err := checkAbs(d.Path); err != nil {
		return e("path", "%v", err)
	}
	if d.Build != "" && strings.TrimSpace(d.Build) == "" {
		return e("build", "is blank")
	}
	if len(d.Artifacts) == 0 {
		return e("artifacts", "lists nothing to ship")
	}
	for i, a := range d.Artifacts {
		at := fmt.Sprintf("artifacts[%d]", i)
		if strings.TrimSpace(a) == "" {
			return e(at, "is blank")
		}
		if err := oneLine(a); err != nil {
			return e(at, "%v", err)
		}
		if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "@") {
			return e(at, "%q begins with %s, which tar would read as an option", a, a[:1])
		}
		if LeavesTree(a) {
			return e(at, "%q leaves the checkout: an artifact is a path inside the app's git checkout, relative to its top", a)
		}
	}
	for i, s := range d.Shared {
		if !sharedPattern.MatchString(s) || s == "." || s == ".." {
			return e(fmt.Sprintf("shared[%d]", i), "%q is not a plain relative name (no /, no .., not beginning with -)", s)
		}
	}
	for i, p := range d.Prepare {
		if strings.TrimSpace(p) == "" {
			return e(fmt.Sprintf("prepare[%d]", i), "is blank")
		}
	}
	if d.Service != "" && !serviceNamePattern.MatchString(d.Service) {
		return e("service", "%q is not one word: a letter or digit, then letters, digits and _ . @ : -", d.Service)
	}
	if d.Releases != nil && *d.Releases < 2 {
		return e("releases", "keeps %d; keep 2 or more (the one deployed and the one it replaced)", *d.Releases)
	}
	if h := d.Health; h != nil {
		if s, ok := h.Domain.Plain(); ok && strings.TrimSpace(s) == "" {
			return e("health.domain", "is blank")
		}
		if err := oneLine(h.Domain.String()); err != nil {
			return e("health.domain", "%v", err)
		}
		if s, ok := h.Domain.Plain(); ok && !IsHealthDomain(s) {
			return e("health.domain", "%q is not a host name, or a host name and a port (app.example.net:8443)", s)
		}
		if h.Path != "" && !strings.HasPrefix(h.Path, "/") {
			return e("health.path", "%q must begin with /", h.Path)
		}
		if err := oneLine(h.Path); err != nil {
			return e("health.path", "%v", err)
		}
		if h.Attempts != nil && *h.Attempts < 1 {
			return e("health.attempts", "a count is 1 or more")
		}
		if h.IntervalMS != nil && *h.IntervalMS < 1 {
			return e("health.interval_ms", "an interval is 1 or more")
		}
	}
	return nil
}
