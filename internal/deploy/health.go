package deploy

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/testhook"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/deployplan"
	"github.com/zap-go/zap/pkg/events"
)

// attemptLimit bounds one health request (a variable so a test can
// shorten it).
var attemptLimit = 10 * time.Second

// Outcome is how a poll ended: the last HTTP status (0 for no answer), and
// the last error when there was no answer.
type Outcome struct {
	Status   int
	Attempts int
	URL      string
	LastErr  error
}

// Err is nil for a 2xx, else why the check failed, naming its URL.
func (o Outcome) Err() error {
	if why := o.why(); why != "" {
		return o.coded(o.URL + " " + why)
	}
	return nil
}

// stepErr is nil for a 2xx, else why the check failed without its URL:
// the check step's error, whose summary names the URL.
func (o Outcome) stepErr() error {
	if why := o.why(); why != "" {
		return o.coded(why)
	}
	return nil
}

// checkError is a failed check's error: text says what the URL answered
// or why it didn't, and the last connection error stays beneath it,
// unwrapped, so what classifies it sees the error and not its text.
type checkError struct {
	text string
	err  error
}

func (e *checkError) Error() string { return e.text }
func (e *checkError) Unwrap() error { return e.err }

// coded is text as a failed check's error, with the triage code the
// outcome has (code) over the last connection error.
func (o Outcome) coded(text string) error {
	return &execute.CodedError{Code: o.code(), Err: &checkError{text: text, err: o.LastErr}}
}

// code is a failed check's triage code (cli.md: retry, or fix first).
// The last HTTP status decides when there was one (Poll):
//   - 502, 504 and 429 are transient: a proxy in front that couldn't
//     reach the app or had no answer from it in time (the refused
//     connection and the timeout below, one hop further), or the app
//     asking to be asked later;
//   - any other status is permanent: the release itself answered, every
//     attempt, that it isn't healthy, a 503 included (deploy.md: the
//     convention for a schema that doesn't match the code, or a database
//     it can't reach), and a 3xx, which is never followed; deploying the
//     same release again answers the same until something is fixed.
//
// With no answer: a timeout (the attempt's bound, attemptLimit, or the
// run's deadline) and a connection refused or reset (the app not up yet,
// or restarting) are transient, as cli.md holds a timeout to be; a
// certificate this machine doesn't trust is permanent (a real
// certificate, or SSL_CERT_FILE naming its CA, fixes it); a health
// domain that doesn't resolve, answered as such by the resolver, is
// not_found (the name or its record is what to fix; a lookup that timed
// out is transient above); anything else is left to execute.Classify,
// which reads the error beneath.
func (o Outcome) code() events.Code {
	var cv *tls.CertificateVerificationError
	var ne net.Error
	var dns *net.DNSError
	switch {
	case o.Status == http.StatusBadGateway, o.Status == http.StatusGatewayTimeout, o.Status == http.StatusTooManyRequests:
		return events.Transient
	case o.Status != 0:
		return events.Permanent
	case o.LastErr == nil:
		return events.Permanent
	case errors.As(o.LastErr, &cv):
		return events.Permanent
	case errors.Is(o.LastErr, context.DeadlineExceeded), errors.As(o.LastErr, &ne) && ne.Timeout(),
		errors.Is(o.LastErr, syscall.ECONNREFUSED), errors.Is(o.LastErr, syscall.ECONNRESET):
		return events.Transient
	case errors.As(o.LastErr, &dns) && dns.IsNotFound:
		return events.NotFound
	}
	code, _, _ := execute.Classify(o.LastErr)
	return code
}

// why is "" for a 2xx, else why the check failed, without its URL: what
// it answered, or why it didn't.
func (o Outcome) why() string {
	switch {
	case o.Status >= 200 && o.Status < 300:
		return ""
	case o.Status >= 300 && o.Status < 400:
		return fmt.Sprintf("answered %d after %d attempt(s) (a redirect is not followed, so a 3xx is not healthy)", o.Status, o.Attempts)
	case o.Status != 0:
		return fmt.Sprintf("answered %d after %d attempt(s)", o.Status, o.Attempts)
	case o.LastErr != nil:
		return fmt.Sprintf("didn't answer after %d attempt(s): %v", o.Attempts, o.LastErr)
	}
	return "didn't answer"
}

// URLs are a plan's health and readiness URLs, resolved ("" for none).
type URLs struct{ Health, Ready string }

// ResolveChecks resolves the plan's check URLs from env, which must give
// each reference the value the plan recorded (deployplan.Plan.Resolve).
func ResolveChecks(p *deployplan.Plan, env func(string) (string, bool)) (URLs, error) {
	var u URLs
	for _, c := range []struct {
		check *deployplan.Check
		url   *string
		field string
	}{{p.Steps.Health, &u.Health, "steps.health.url"}, {p.Steps.Ready, &u.Ready, "steps.ready.url"}} {
		if c.check == nil {
			continue
		}
		v, err := p.Resolve(c.check.URL, env)
		if err != nil {
			return URLs{}, fmt.Errorf("%s: %w", c.field, err)
		}
		for _, name := range c.check.URL.Refs() {
			if w, _ := env(name); strings.ContainsFunc(w, notHostChar) {
				return URLs{}, fmt.Errorf("%s: the reference %s holds a character no host name has: a health domain is letters, digits, dots and dashes, and :PORT", c.field, name)
			}
		}
		if domain, _, _ := strings.Cut(strings.TrimPrefix(v, "https://"), "/"); len(c.check.URL.Refs()) > 0 && !declaration.IsHealthDomain(domain) {
			return URLs{}, fmt.Errorf("%s: the domain %s resolves to is not a host name, or a host name and a port", c.field, strings.Join(c.check.URL.Refs(), ", "))
		}
		*c.url = v
	}
	return u, nil
}

// notHostChar says whether r can't be part of a health domain, a host
// name and a port: what a value the health URL takes from a reference may
// not hold, so it can't add a path, a query, a fragment or a user to the
// URL (the resolved domain as a whole is then held to
// declaration.IsHealthDomain).
func notHostChar(r rune) bool {
	return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '.' && r != '-' && r != ':'
}

// Poll asks url, c's URL resolved, over HTTPS from this machine until it
// answers 2xx, up to c.Attempts times, c.IntervalMS apart, never following
// a redirect. When the attempts run out the last HTTP status decides: a
// connection failure after it doesn't replace it.
func Poll(ctx context.Context, url string, c *deployplan.Check) Outcome {
	client := &http.Client{
		Timeout:       attemptLimit,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport:     transport(),
	}
	o := Outcome{URL: url}
	for i := 0; i < c.Attempts; i++ {
		if i > 0 {
			select {
			case <-ctx.Done():
				o.LastErr = ctx.Err()
				return o
			case <-time.After(time.Duration(c.IntervalMS) * time.Millisecond):
			}
		}
		o.Attempts++
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			o.LastErr = err
			return o
		}
		resp, err := client.Do(req)
		if err != nil {
			o.LastErr = err
			continue
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		o.Status = resp.StatusCode
		if o.Status >= 200 && o.Status < 300 {
			return o
		}
	}
	return o
}

// transport is the health checks' transport. In a test build only,
// ZAP_TEST_HEALTH_ADDR=HOST:PORT (or https://HOST:PORT) sends every health request there (the
// lab host's app), keeping the URL's name for TLS: the test-only stand-in
// for a DNS record naming the target.
func transport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	if addr := strings.TrimPrefix(os.Getenv("ZAP_TEST_HEALTH_ADDR"), "https://"); addr != "" && testhook.On() {
		var d net.Dialer
		t.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		}
	}
	return t
}

// reachLimit bounds each part of the plan's reach of the health domain:
// the name's lookup, and the connection to its port.
const reachLimit = 5 * time.Second

// reach checks, from this machine, where the health gate polls, that the
// health domain (a host name, maybe :PORT) resolves and, when a release
// is live (so something should answer), that its port takes a
// connection. It returns what a plan warns of, "" when both hold. In a
// test build, ZAP_TEST_HEALTH_ADDR stands in for the name's record, as it
// does for the checks themselves (transport).
func reach(ctx context.Context, domain string, live bool) string {
	host, port, err := net.SplitHostPort(domain)
	if err != nil {
		host, port = domain, "443"
	}
	url := "https://" + domain
	addr := net.JoinHostPort(host, port)
	if test := strings.TrimPrefix(os.Getenv("ZAP_TEST_HEALTH_ADDR"), "https://"); test != "" && testhook.On() {
		addr = test
	} else if net.ParseIP(host) == nil {
		lctx, cancel := context.WithTimeout(ctx, reachLimit)
		_, err := net.DefaultResolver.LookupHost(lctx, host)
		cancel()
		if err != nil {
			return fmt.Sprintf("health: %s doesn't resolve from this machine, where the health gate polls (%v): a wetrun would ship the release, fail its health step and roll back; give the name a DNS record this machine reads, or point deploy.health.domain at one", host, err)
		}
	}
	if !live {
		return ""
	}
	d := net.Dialer{Timeout: reachLimit}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Sprintf("health: %s takes no connection from this machine, where the health gate polls, though a release is live (%v): open port %s to this machine, or the wetrun's health step fails and rolls back", url, err, port)
	}
	c.Close()
	return ""
}

// rollback re-points current at the previous release (a compare-and-swap
// under the deploy lock), restarts and re-checks health. It is always one
// event: rolled back (step_ok), failed, or skipped. When nothing was
// re-pointed, this release's gate is recorded failed; the rollback script
// records the restored one, which passed its own, as passed.
func (r *Runner) rollback(ctx context.Context) {
	p := r.Plan
	if reason := noRollback(p); reason != "" {
		r.step++
		r.Warn(reason)
		r.emit(events.Event{Event: events.StepSkipped, ID: "rollback", Step: r.step, Reason: reason})
		r.gate(ctx, p.Source.Version, GateFailed)
		return
	}
	pointed := false
	err := r.do(ctx, r.there, "rollback", &execute.PreparedStep{Summary: "rollback to " + p.Live.Release, Local: func(ctx context.Context) error {
		who, _ := json.Marshal(p.Operator)
		out, err := op(ctx, r.Target, opRollback, Rollback, scriptLimit, p.Path, p.Source.Version, p.Live.Release, string(who))
		switch {
		case skipped(err):
			reason := "rollback skipped: " + strings.TrimPrefix(lastLines(out, 1), "skip: ") + "; current is left as it is: check it"
			r.Warn(reason)
			return &execute.SkipError{Reason: reason}
		case err != nil:
			return fmt.Errorf("current was not pointed back: it still names the failed release %s (check it): %w", p.Source.Version, err)
		}
		pointed = true
		for _, l := range strings.Split(out, "\n") {
			if w, ok := strings.CutPrefix(l, "warning: "); ok {
				r.Warn(w)
			}
		}
		if p.Steps.Restart != "" {
			if err := r.Target.Op(ctx, r.restartStep().Op); err != nil {
				return fmt.Errorf("the restart of %s failed: %w", p.Live.Release, err)
			}
		}
		if p.Steps.Health != nil {
			if err := r.poll(ctx, r.URLs.Health, p.Steps.Health, false).Err(); err != nil {
				return fmt.Errorf("the restored release %s is not healthy either: manual intervention is needed (current names it again): %w", p.Live.Release, err)
			}
		}
		r.Warn("rolled back to " + p.Live.Release + ": current names it again")
		return nil
	}})
	var skip *execute.SkipError
	switch {
	case errors.As(err, &skip):
		r.gate(ctx, p.Source.Version, GateFailed)
	case err != nil && !pointed:
		r.Warn("rollback failed: " + errors.Unwrap(err).Error())
		r.gate(ctx, p.Source.Version, GateFailed)
	case err != nil:
		r.Warn("rollback failed: " + errors.Unwrap(err).Error())
	}
}

// noRollback says why a failed deploy of p has nothing to roll back to,
// "" when it has: a first deploy, a --force redeploy of the live version,
// or a live release that never passed its gate.
func noRollback(p *deployplan.Plan) string {
	stays := "current stays at the failed release " + p.Source.Version + "; a manual rollback is needed"
	switch {
	case p.Live.State == deployplan.LiveUnproven && p.Live.Release != p.Source.Version:
		return "nothing to roll back to: the release live before this deploy, " + p.Live.Release + ", never passed its gate; " + stays
	case p.Live.State != deployplan.LiveRelease || p.Live.Release == p.Source.Version:
		return "nothing to roll back to: " + stays
	}
	return ""
}
