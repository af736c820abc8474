// Package secret is the one rule that decides whether a reference is a
// secret (env.md, "Secrets"). Everything that treats secrets differently
// asks Classify: the references block of a plan, masking, the secret gate.
//
// The rule, in order:
//
//  1. Where it is used: a reference in a remote file's or a build source's
//     auth is a secret, whatever it is called (Options.Auth).
//  2. What the config said: zap.unmask makes it plain, zap.mask a secret
//     (Options.Unmask, Options.Mask). Unmasking an auth credential is an
//     error the declaration's validation reports; here auth wins.
//  3. Its name (Name below), unless its value is a switch: true, false, yes,
//     no, on, off or a single digit, in any case, whitespace around it
//     ignored, so ENABLE_AUTH=true masks nothing.
//  4. The form of its value (Value below).
//
// # Secret names
//
// Case-insensitive. The last word is the part after the final _, passing
// over, from the end, a number written apart or glued on (SMTP_PASS_2,
// DB_PASS2; AUTH0 is a company's name, not AUTH), a version (DB_PASS_V2)
// and a qualifier naming an environment or a rotation (PROD, PRODUCTION,
// STAGING, STAGE, DEV, DEVELOPMENT, TEST, TESTING, QA, UAT, OLD, PREV,
// PREVIOUS, NEW, NEXT, CURRENT, PRIMARY, SECONDARY). A name is a secret's
// when that last word is one of the secret words, or ends in PASS, PASSWD
// or PASSWORD (SMTPPASS, ROOTPASSWORD; not BYPASS or COMPASS), or is the
// plural of one (DB_CREDS, HASH_SALTS, API_KEYS), or when the name ends in WEBHOOK_URL or
// WEBHOOK_URI (a webhook's secret is in its URL's path, which the value
// forms don't see). The plural of AUTH, PRIVATE, SESSION, COOKIE, WEBHOOK,
// and of a word ending in PASS, counts or switches something (MAX_SESSIONS,
// MAX_PASSES) and is not a secret.
//
// The secret words are env.md's examples and the usual spellings:
//
//	PASS PASSWORD PASSWD PASSPHRASE PWD SECRET TOKEN KEY APIKEY SECRETKEY
//	PRIVATEKEY ACCESSKEY AUTHTOKEN ACCESSTOKEN PAT DSN CREDENTIAL CRED CREDS
//	AUTH PRIVATE SESSION COOKIE WEBHOOK SALT
//
// Three choices env.md leaves open: PWD counts only after another word
// (PWD alone, and OLDPWD, are the shell's working directory, DB_PWD is a
// password); KEY after PUBLIC or PUB is not a secret (SSH_PUBLIC_KEY); and
// HASH and SIGNATURE are not secret words (GIT_HASH, COMMIT_SIGNATURE name
// public values) — a password hash is named for what it is or zap.mask'ed.
//
// # Secret values
//
// A value is a secret, whatever its name, when it holds a URL with a
// password; an http, https or git+http(s) URL with a user; a PEM private
// key; or an HTTP authorization value on a line of its own (Basic with an
// encoded user:password, or Bearer with a token of 16 characters or more),
// bare or as an Authorization: or Proxy-Authorization: header. A password
// holding an unencoded ? or # counts when no @ comes before that character
// (postgres://app:p#ss@db/app, as libpq reads it: up to the first @ after
// it), unless what precedes it is all digits, which reads as a port.
package secret

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
)

// Options is what a reference's use and the config say about it.
type Options struct {
	// Auth is a reference used as an auth credential.
	Auth bool
	// Mask and Unmask are zap.mask and zap.unmask listing the name.
	Mask   bool
	Unmask bool
}

// Reasons Classify gives. Name and value reasons say more after a colon.
const (
	ReasonAuth   = "used as an auth credential"
	ReasonUnmask = "zap.unmask lists it"
	ReasonMask   = "zap.mask lists it"
	ReasonSwitch = "its value is a switch"
	ReasonPlain  = "neither its name nor its value is a secret's"
)

// Classify reports whether the reference name, holding value, is a secret,
// and why.
func Classify(name, value string, opts Options) (secret bool, reason string) {
	switch {
	case opts.Auth:
		return true, ReasonAuth
	case opts.Unmask:
		return false, ReasonUnmask
	case opts.Mask:
		return true, ReasonMask
	}
	if word, ok := Name(name); ok {
		if IsSwitch(value) {
			return false, ReasonSwitch
		}
		return true, "its name ends in " + word
	}
	if form, ok := Value(value); ok {
		return true, "its value holds " + form
	}
	return false, ReasonPlain
}

// IsSwitch reports whether v is a switch: true, false, yes, no, on, off or
// one digit, in any case, with whitespace around it.
func IsSwitch(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	switch v {
	case "true", "false", "yes", "no", "on", "off":
		return true
	}
	return len(v) == 1 && v[0] >= '0' && v[0] <= '9'
}

var words = map[string]bool{
	"PASS": true, "PASSWORD": true, "PASSWD": true, "PASSPHRASE": true, "PWD": true,
	"SECRET": true, "TOKEN": true, "KEY": true, "APIKEY": true, "SECRETKEY": true,
	"PRIVATEKEY": true, "ACCESSKEY": true, "AUTHTOKEN": true, "ACCESSTOKEN": true,
	"PAT": true, "DSN": true, "CREDENTIAL": true, "CRED": true, "CREDS": true,
	"AUTH": true, "PRIVATE": true, "SESSION": true, "COOKIE": true, "WEBHOOK": true,
	"SALT": true,
}

// noPlural are the secret words whose plural counts or switches something.
var noPlural = map[string]bool{"AUTH": true, "PRIVATE": true, "SESSION": true, "COOKIE": true, "WEBHOOK": true}

var qualifiers = map[string]bool{
	"PROD": true, "PRODUCTION": true, "STAGING": true, "STAGE": true, "DEV": true,
	"DEVELOPMENT": true, "TEST": true, "TESTING": true, "QA": true, "UAT": true,
	"OLD": true, "PREV": true, "PREVIOUS": true, "NEW": true, "NEXT": true,
	"CURRENT": true, "PRIMARY": true, "SECONDARY": true,
}

// brands are words that end in digits as part of their name.
var brands = map[string]bool{"AUTH0": true}

var version = regexp.MustCompile(`^V[0-9]+$`)

// Name reports whether name is a secret's by its name, and the secret word
// (or WEBHOOK_URL) that makes it one.
func Name(name string) (string, bool) {
	ws := strings.Split(strings.ToUpper(name), "_")
	// Pass over the trailing number, version and qualifier words.
	for len(ws) > 0 {
		w := ws[len(ws)-1]
		switch {
		case w == "" || allDigits(w) || version.MatchString(w) || qualifiers[w]:
			ws = ws[:len(ws)-1]
			continue
		}
		break
	}
	if len(ws) == 0 {
		return "", false
	}
	last := ws[len(ws)-1]
	if !brands[last] {
		last = strings.TrimRight(last, "0123456789")
	}
	var before string
	if len(ws) > 1 {
		before = ws[len(ws)-2]
	}
	if (last == "URL" || last == "URI") && before == "WEBHOOK" {
		return "WEBHOOK_" + last, true
	}
	word, ok := secretWord(last)
	if !ok {
		return "", false
	}
	switch {
	case word == "PWD" && len(ws) == 1:
		return "", false
	case word == "KEY" && (before == "PUBLIC" || before == "PUB"):
		return "", false
	}
	return word, true
}

// secretWord reads w as a secret word or the plural of one.
func secretWord(w string) (string, bool) {
	if word, ok := singular(w); ok {
		return word, true
	}
	for _, cut := range []string{"S", "ES"} {
		base, ok := strings.CutSuffix(w, cut)
		if !ok || noPlural[base] || strings.HasSuffix(base, "PASS") {
			continue
		}
		if word, ok := singular(base); ok {
			return word, true
		}
	}
	return "", false
}

// singular reads w as a secret word, glued to what it is the password of
// (SMTPPASS, ROOTPASSWORD) included.
func singular(w string) (string, bool) {
	if words[w] {
		return w, true
	}
	for _, suffix := range []string{"PASSWORD", "PASSWD", "PASS"} {
		if strings.HasSuffix(w, suffix) && !notPass[w] {
			return w, true
		}
	}
	return "", false
}

// notPass are words ending in PASS that aren't passwords.
var notPass = map[string]bool{
	"BYPASS": true, "COMPASS": true, "ENCOMPASS": true, "SURPASS": true,
	"TRESPASS": true, "OVERPASS": true, "UNDERPASS": true,
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

var (
	schemeAt   = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://`)
	pemKey     = regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----`)
	authHeader = regexp.MustCompile(`(?i)^(?:(?:proxy-)?authorization:[ \t]*)?(basic|bearer)[ \t]+(\S+)$`)
)

// Value reports whether a value is a secret's by its form, and which form.
func Value(v string) (string, bool) {
	for _, loc := range schemeAt.FindAllStringIndex(v, -1) {
		scheme := strings.ToLower(v[loc[0] : loc[1]-3])
		user, pass, ok := userinfo(v[loc[1]:])
		if !ok {
			continue
		}
		if pass {
			return "a URL with a password", true
		}
		if user && (scheme == "http" || scheme == "https" || scheme == "git+http" || scheme == "git+https") {
			return "an HTTP URL with a user", true
		}
	}
	if pemKey.MatchString(v) {
		return "a PEM private key", true
	}
	for _, line := range strings.Split(v, "\n") {
		m := authHeader.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		switch strings.ToLower(m[1]) {
		case "basic":
			if basicCredential(m[2]) {
				return "an HTTP Basic credential", true
			}
		case "bearer":
			if len(m[2]) >= 16 {
				return "an HTTP Bearer token", true
			}
		}
	}
	return "", false
}

// userinfo reads the user information of the URL whose text after "://"
// is rest: whether it names a user and whether it holds a password.
func userinfo(rest string) (user, pass, ok bool) {
	// The authority can't hold a slash or whitespace, written as it is.
	if i := strings.IndexAny(rest, "/ \t\r\n"); i >= 0 {
		rest = rest[:i]
	}
	var info string
	stop := strings.IndexAny(rest, "?#")
	at := strings.IndexByte(rest, '@')
	switch {
	case at < 0:
		return false, false, false
	case stop < 0 || at < stop:
		info = rest[:at]
	default:
		// An unencoded ? or # with no @ before it: libpq reads the user
		// information up to the first @ after it, unless what precedes
		// the character after the colon is all digits, which is a port.
		info = rest[:at]
		if c := strings.IndexByte(rest[:stop], ':'); c >= 0 && allDigits(rest[c+1:stop]) {
			return false, false, false
		}
	}
	name, password, hasColon := strings.Cut(info, ":")
	return name != "", hasColon && password != "", true
}

// basicCredential reports whether tok is base64 of user:password.
func basicCredential(tok string) bool {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(tok); err == nil {
			return strings.Contains(string(b), ":")
		}
	}
	return false
}

// AuthRefs names the variables a declaration's JSON uses as an auth
// credential: every reference ({"$env": NAME}) under the auth of an object
// whose type is "remote" (a remote file's content, a build source). It reads
// the JSON rather than Go types so that every kind that takes an auth is
// covered as it lands; a document that doesn't decode names none.
func AuthRefs(declJSON []byte) map[string]bool {
	var doc any
	if err := json.Unmarshal(declJSON, &doc); err != nil {
		return nil
	}
	out := map[string]bool{}
	var walk func(v any, auth bool)
	walk = func(v any, auth bool) {
		switch v := v.(type) {
		case map[string]any:
			if n, ok := v["$env"].(string); ok && auth {
				out[n] = true
			}
			remote := v["type"] == "remote"
			for k, c := range v {
				walk(c, auth || (remote && k == "auth"))
			}
		case []any:
			for _, c := range v {
				walk(c, auth)
			}
		}
	}
	walk(doc, false)
	return out
}
