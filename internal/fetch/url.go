package fetch

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// The refusals of a URL: fixed sentences, so none repeats the URL, which
// may hold a secret.
var (
	errNoParse   = fmt.Errorf("%w: the URL doesn't parse", ErrRefused)
	errNoHost    = fmt.Errorf("%w: the URL has no host", ErrRefused)
	errUser      = fmt.Errorf("%w: the URL carries user:password@ (a credential goes in auth)", ErrRefused)
	errPort      = fmt.Errorf("%w: the URL's port isn't a number from 1 to 65535", ErrRefused)
	errPlainHTTP = fmt.Errorf("%w: http:// is fetched only from a loopback host (localhost, 127.0.0.0/8, [::1]); use https://", ErrRefused)
	errScheme    = fmt.Errorf("%w: only https:// is fetched (http:// only from a loopback host)", ErrRefused)
)

// CheckURL says whether Zap fetches the (resolved) URL raw: https:// with a
// host, or http:// to a loopback host, and no user:password@. A refusal
// wraps ErrRefused and never repeats raw, which may hold a secret.
func CheckURL(raw string) error {
	_, err := parseURL(raw)
	return err
}

// parseURL parses raw and holds it to CheckURL's rules.
func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse's error repeats raw.
		return nil, errNoParse
	}
	if err := checkParsed(u); err != nil {
		return nil, err
	}
	return u, nil
}

// checkParsed holds a parsed URL to the rules of a URL Zap fetches.
func checkParsed(u *url.URL) error {
	if u.Scheme != "https" && u.Scheme != "http" {
		return errScheme
	}
	if err := checkShape(u); err != nil {
		return err
	}
	if u.Scheme == "http" && !LoopbackHost(u.Hostname()) {
		return errPlainHTTP
	}
	return nil
}

// checkShape holds a URL, the declared one or a redirect's, to what every
// URL Zap fetches has, whatever its scheme: a host, a port (when it names
// one) from 1 to 65535, and no user:password@.
func checkShape(u *url.URL) error {
	switch {
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return errNoHost
	case u.User != nil:
		return errUser
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return errPort
		}
	}
	return nil
}

// LoopbackHost reports whether host, a URL's host without its port or
// brackets, names the loopback interface: the name localhost (in any case,
// without a trailing dot, as resources.md lists it), or an address in
// 127.0.0.0/8 or ::1 written as an IP address. Other spellings (127.1, a
// decimal address, a zone) are not loopback here. A plain-http connection is
// still made only to an address that is loopback (loopbackOnly), so a
// localhost that resolves elsewhere is refused at the dial.
func LoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// origin is u's scheme, host and port, the port made explicit and the host
// lower-cased, so two spellings of one origin compare equal.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
	} else if n, err := strconv.Atoi(port); err == nil {
		port = strconv.Itoa(n)
	}
	return u.Scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
