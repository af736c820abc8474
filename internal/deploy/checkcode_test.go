package deploy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/localops"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/deployplan"
	"github.com/zap-go/zap/pkg/events"
)

// TestACheckFailureIsCodedByWhatHappened: a failed health check, polled
// for real at a listener on 127.0.0.1, is coded by what its URL did, not
// always permanent: no answer within the attempt's bound, and a refused or
// reset connection, are transient; a 502 from a proxy is transient; a 500
// or a 503 from the release is permanent, as is a certificate this machine
// doesn't trust. The step's error text is what it was (a Go client's
// error beneath names the URL again, as it did).
func TestACheckFailureIsCodedByWhatHappened(t *testing.T) {
	status := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }))
		t.Cleanup(srv.Close)
		return srv.URL + "/health"
	}
	for _, c := range []struct {
		name string
		url  func(t *testing.T) string
		code events.Code
		text string
	}{
		{"timeout", silentURL, events.Transient, "didn't answer after 1 attempt(s): "},
		{"refused", refusedURL, events.Transient, "didn't answer after 1 attempt(s): "},
		{"reset", resetURL, events.Transient, "didn't answer after 1 attempt(s): "},
		{"500", func(*testing.T) string { return status(500) }, events.Permanent, "answered 500 after 1 attempt(s)"},
		{"503", func(*testing.T) string { return status(503) }, events.Permanent, "answered 503 after 1 attempt(s)"},
		{"502", func(*testing.T) string { return status(502) }, events.Transient, "answered 502 after 1 attempt(s)"},
		{"untrusted certificate", func(t *testing.T) string {
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
			srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake's refusal is the point
			srv.StartTLS()
			t.Cleanup(srv.Close)
			return srv.URL + "/health"
		}, events.Permanent, "certificate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := c.url(t)
			failed, err := runCheck(t, url)
			if failed == nil {
				t.Fatalf("no step_failed event (the run's error: %v)", err)
			}
			if failed.Code != c.code {
				t.Errorf("code %q, want %q (error %q)", failed.Code, c.code, failed.Error)
			}
			if want := "health: " + url + " failed: "; !strings.HasPrefix(failed.Error, want) || !strings.Contains(failed.Error, c.text) {
				t.Errorf("error %q, want %q and %q", failed.Error, want, c.text)
			}
			if code, _, _ := execute.Classify(err); code != c.code {
				t.Errorf("the run's failure %v is coded %q, want %q", err, code, c.code)
			}
		})
	}
}

// TestAReadinessFailureIsCodedToo: the readiness check is coded as the
// health check is: a refused connection transient, a 503 permanent.
func TestAReadinessFailureIsCodedToo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) }))
	defer srv.Close()
	for url, want := range map[string]events.Code{refusedURL(t): events.Transient, srv.URL + "/ready": events.Permanent} {
		failed, err := runCheckAs(t, "ready", url)
		if failed == nil || failed.ID != "ready" || failed.Code != want || !strings.HasPrefix(failed.Error, "readiness: "+url+" failed: ") {
			t.Errorf("%s: step_failed %+v (the run's error %v), want the ready step's, coded %q", url, failed, err, want)
		}
	}
}

// runCheck runs a plan's health check of url (one attempt, nothing to
// roll back to) with the real poll, and returns its step_failed event.
func runCheck(t *testing.T, url string) (*events.Event, error) {
	t.Helper()
	return runCheckAs(t, "health", url)
}

// runCheckAs runs the check id (health, or ready for the readiness check)
// of url as runCheck does.
func runCheckAs(t *testing.T, id, url string) (*events.Event, error) {
	t.Helper()
	p := &deployplan.Plan{Path: t.TempDir(), Source: deployplan.Source{Version: "aaaaaaaaaaaa"},
		Steps: deployplan.Steps{Health: &deployplan.Check{URL: declaration.Lit(url), Attempts: 1, IntervalMS: 1}}}
	var evs bytes.Buffer
	local := localops.New(os.Environ())
	r := &Runner{Plan: p, Target: local, Local: local, Events: &evs, Mask: &mask.Masker{},
		URLs: URLs{Health: url}, Warn: func(string) {}}
	r.here = &execute.Runner{Host: local, Events: &evs, Mask: r.Mask}
	r.there = &execute.Runner{Host: local, Events: &evs, Mask: r.Mask}
	err := r.check(context.Background(), id, url, p.Steps.Health, id == "ready")
	for _, l := range strings.Split(strings.TrimSpace(evs.String()), "\n") {
		e, rerr := events.Read([]byte(l))
		if rerr != nil {
			t.Fatalf("event %q: %v", l, rerr)
		}
		if e.Event == events.StepFailed {
			return e, err
		}
	}
	return nil, err
}

// silentURL is a URL on a listener that reads what it is sent and never
// answers, with the attempt's bound shortened for the test.
func silentURL(t *testing.T) string {
	u := listenURL(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	old := attemptLimit
	attemptLimit = 200 * time.Millisecond
	t.Cleanup(func() { attemptLimit = old })
	return u
}

// listenURL is a health URL on a listener of 127.0.0.1 the test holds to
// its end, each connection handed to serve, which closes it after.
func listenURL(t *testing.T, serve func(net.Conn)) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return "http://" + l.Addr().String() + "/health"
}

// refusedURL is a URL on a port of 127.0.0.1 held bound and unlistened to
// the test's end, so nothing listens there and a connection is refused.
func refusedURL(t *testing.T) string {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d/health", sa.(*syscall.SockaddrInet4).Port)
}

// resetURL is a URL on a listener that reads the request and resets the
// connection (SO_LINGER 0) instead of answering.
func resetURL(t *testing.T) string {
	return listenURL(t, func(c net.Conn) {
		c.Read(make([]byte, 4096))
		c.(*net.TCPConn).SetLinger(0)
	})
}

// TestAnUnknownHealthDomainIsNotFound: a health domain the resolver says
// doesn't exist is not_found, a lookup that timed out transient. The
// resolver's answers are made here, since a test reaches no DNS server.
func TestAnUnknownHealthDomainIsNotFound(t *testing.T) {
	for _, c := range []struct {
		err  error
		want events.Code
	}{
		{&url.Error{Op: "Get", URL: "https://app.example.net/health", Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "app.example.net", IsNotFound: true}}}, events.NotFound},
		{&url.Error{Op: "Get", URL: "https://app.example.net/health", Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "i/o timeout", Name: "app.example.net", IsTimeout: true}}}, events.Transient},
	} {
		if got := (Outcome{LastErr: c.err}).code(); got != c.want {
			t.Errorf("%v: coded %q, want %q", c.err, got, c.want)
		}
	}
}
