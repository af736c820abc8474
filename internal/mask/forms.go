package mask

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/zap-go/zap/internal/escape"
)

// rank orders the secrets sharing a form: the one whose own value it is
// first.
type rank int

const (
	rankValue   rank = iota // the value or its trimmed self
	rankEncoded             // an encoding of the value
	rankPart                // a line or a credential, or an encoding of one
)

const (
	minLine       = 24 // characters in a line of a multi-line value
	minCredential = 8  // characters in a password or token
)

// forms returns every form of value with its rank.
func forms(value string) map[string]rank { return formsMin(value, 0) }

// formsMin is forms leaving out each base form (the value, trimmed, with its
// \n decoded, a line, a credential) shorter than least characters, and the
// encodings of it.
func formsMin(value string, least int) map[string]rank {
	out := map[string]rank{}
	trimmed := strings.TrimSpace(value)
	if trimmed == "" {
		return out
	}
	add := func(base string, r rank) {
		if base == "" || utf8.RuneCountInString(base) < least {
			return
		}
		put(out, base, r)
		if r == rankValue {
			r = rankEncoded
		}
		for _, e := range encodings(base) {
			put(out, e, r)
		}
	}
	add(value, rankValue)
	add(trimmed, rankValue)
	for _, p := range parts(value) {
		add(p, rankPart)
	}
	return out
}

func put(m map[string]rank, text string, r rank) {
	if text == "" {
		return
	}
	if old, ok := m[text]; !ok || r < old {
		m[text] = r
	}
}

// encodings returns the forms s takes in the places Zap writes it.
func encodings(s string) []string {
	var out []string
	for _, j := range jsonInner(s) {
		out = append(out, j, string(escape.JSON([]byte(j))))
	}
	return append(out,
		url.QueryEscape(s),
		url.PathEscape(s),
		strings.ReplaceAll(s, `'`, `'\''`),
		escape.Line(s),
	)
}

// jsonInner returns s as encoding/json writes it, without the quotes: with
// its default HTML escaping and without (as pkg/canon writes).
func jsonInner(s string) []string {
	html, _ := json.Marshal(s) // a string always encodes
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	plain := strings.TrimSuffix(b.String(), "\n")
	return []string{string(html[1 : len(html)-1]), plain[1 : len(plain)-1]}
}

// parts returns the pieces of value masked on their own: the long lines of
// a multi-line value and the credentials inside it.
func parts(value string) []string {
	var out []string
	out = append(out, lines(value)...)
	if strings.Contains(value, `\n`) {
		decoded := strings.ReplaceAll(strings.ReplaceAll(value, `\r\n`, "\n"), `\n`, "\n")
		out = append(out, decoded, strings.TrimSpace(decoded))
		out = append(out, lines(decoded)...)
	}
	out = append(out, credentials(value)...)
	return out
}

// lines returns the lines of a multi-line value that are long enough to
// mask alone, trimmed, leaving out PEM armor lines.
func lines(value string) []string {
	if !strings.Contains(value, "\n") {
		return nil
	}
	var out []string
	for l := range strings.SplitSeq(value, "\n") {
		l = strings.TrimSpace(l)
		if utf8.RuneCountInString(l) < minLine || isArmor(l) {
			continue
		}
		out = append(out, l)
	}
	return out
}

func isArmor(l string) bool {
	return (strings.HasPrefix(l, "-----BEGIN") || strings.HasPrefix(l, "-----END")) && strings.HasSuffix(l, "-----")
}

// credentials returns the passwords and tokens in value long enough to mask
// alone and not repeated elsewhere in it.
func credentials(value string) []string {
	var out []string
	keep := func(c, context string) {
		if utf8.RuneCountInString(c) < minCredential {
			return
		}
		if i := strings.Index(context, c); i >= 0 && strings.LastIndex(context, c) != i {
			return
		}
		out = append(out, c)
	}
	for _, u := range urlCredentials(value) {
		keep(u, value)
		if dec, err := url.PathUnescape(u); err == nil && dec != u && !repeated(value, u) {
			keep(dec, dec)
		}
	}
	for _, t := range authTokens(value) {
		keep(t, value)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
			b, err := enc.DecodeString(t)
			if err != nil || !utf8.Valid(b) {
				continue
			}
			if _, pass, ok := strings.Cut(string(b), ":"); ok {
				keep(pass, string(b))
			}
			break
		}
	}
	return out
}

func repeated(s, sub string) bool {
	i := strings.Index(s, sub)
	return i >= 0 && strings.LastIndex(s, sub) != i
}

// urlCredentials returns the password of every URL in s that has one, and
// the user of every http or https URL that has one.
func urlCredentials(s string) []string {
	var out []string
	for off := 0; ; {
		k := strings.Index(s[off:], "://")
		if k < 0 {
			return out
		}
		at := off + k
		off = at + 3
		scheme := schemeBefore(s[:at])
		if scheme == "" {
			continue
		}
		rest := s[off:]
		end := strings.IndexByte(rest, '@')
		if end < 0 {
			continue
		}
		userinfo := rest[:end]
		if strings.ContainsAny(userinfo, " \t\r\n\"'<>") {
			continue
		}
		user, pass, hasPass := strings.Cut(userinfo, ":")
		if strings.ContainsAny(user, "/?#") {
			continue // the @ is past the authority
		}
		if hasPass {
			if j := strings.IndexAny(pass, "/?#"); j >= 0 && allDigits(pass[:j]) {
				continue // host:port, then a path or query holding an @
			}
			out = append(out, pass)
		}
		if isHTTP(scheme) && user != "" {
			out = append(out, user)
		}
	}
}

func schemeBefore(s string) string {
	i := len(s)
	for i > 0 {
		c := s[i-1]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.' {
			i--
			continue
		}
		break
	}
	scheme := s[i:]
	if scheme == "" || !(scheme[0] >= 'a' && scheme[0] <= 'z' || scheme[0] >= 'A' && scheme[0] <= 'Z') {
		return ""
	}
	return strings.ToLower(scheme)
}

func isHTTP(scheme string) bool {
	return scheme == "http" || scheme == "https" || strings.HasSuffix(scheme, "+http") || strings.HasSuffix(scheme, "+https")
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// authTokens returns the credentials of the Bearer and Basic authorization
// values in s (the scheme word in any case, then blanks, then a token68).
func authTokens(s string) []string {
	var out []string
	lower := strings.ToLower(s)
	for _, scheme := range []string{"bearer", "basic"} {
		for off := 0; ; {
			k := strings.Index(lower[off:], scheme)
			if k < 0 {
				break
			}
			at := off + k
			off = at + len(scheme)
			if at > 0 && isTokenByte(s[at-1]) {
				continue // part of a longer word
			}
			rest := s[off:]
			blanks := len(rest) - len(strings.TrimLeft(rest, " \t"))
			if blanks == 0 {
				continue
			}
			rest = rest[blanks:]
			n := 0
			for n < len(rest) && isTokenByte(rest[n]) {
				n++
			}
			if n > 0 {
				out = append(out, rest[:n])
			}
		}
	}
	return out
}

// isTokenByte reports a byte of an HTTP token68.
func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '='
}
