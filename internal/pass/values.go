package pass

import (
	"fmt"
	"strings"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/fetch"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/kinds"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/template"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// BadValue is a referenced value a command can't carry: a command takes a
// value as text, so a single quote would end the quoting around it, and a
// NUL or a reference delimiter (U+FDD0, U+FDD1) is never substituted. An
// env value is quoted after it resolves and carries anything but the last
// three.
type BadValue struct {
	ID    string // the resource
	Field string // run, check, validate, env.NAME
	Name  string // the variable
	What  string // what the value holds
}

func (b BadValue) String() string {
	return fmt.Sprintf("resource %s: %s: the value of %s holds %s, which Zap refuses in a command",
		escape.Line(b.ID), escape.Line(b.Field), escape.Line(b.Name), b.What)
}

// BadValues lists, for every planned command (a script's run and check, a
// file's validate, and a script's env values), each referenced value the
// command can't carry.
func BadValues(p *plan.Plan, res *resolve.Resolution) []BadValue {
	var out []BadValue
	for _, c := range p.Changes {
		r := &c.Resource
		check := func(field string, t *declaration.Text, inCommand bool) {
			if t == nil {
				return
			}
			for _, n := range t.Refs() {
				v, _ := res.Lookup(n)
				if what := unsafeIn(v, inCommand); what != "" {
					out = append(out, BadValue{ID: r.ID, Field: field, Name: n, What: what})
				}
			}
		}
		if k, ok := kinds.Of(r).(kind.Shells); ok {
			for _, sh := range k.Shells(r) {
				check(sh.Field, sh.Text, sh.InCommand)
			}
		}
	}
	return out
}

// unsafeIn names what v holds that a command (or, not inCommand, an env
// value) can't carry, or "".
func unsafeIn(v string, inCommand bool) string {
	switch {
	case inCommand && strings.Contains(v, "'"):
		return "a single quote"
	case strings.Contains(v, "\x00"):
		return "a NUL"
	case strings.ContainsAny(v, "\uFDD0\uFDD1"):
		return "a reference delimiter (U+FDD0 or U+FDD1)"
	}
	return ""
}

// BadTemplates lists, for every file of the declaration whose content is a
// template, the variable whose referenced value the template can't take (a
// line break, a NUL, a reference delimiter, or not of the variable's kind):
// detection holds such a file, and a wetrun is refused before anything
// changes. Each names the resource, the variable and the reference, never
// the value.
func BadTemplates(d *declaration.Declaration, res *resolve.Resolution) []string {
	var out []string
	for i := range d.Resources {
		r := &d.Resources[i]
		c := r.Template()
		if c == nil {
			continue
		}
		if _, err := template.Values(c.Vars, c.Kinds, res.Lookup); err != nil {
			out = append(out, fmt.Sprintf("resource %s: %s", escape.Line(r.ID), escape.Line(err.Error())))
		}
	}
	return out
}

// BadURLs lists, for every URL a resource fetches that holds a reference,
// the rule its resolved value breaks (fetch.CheckURL): the config's check
// reads only what is written, so a reference could bring in plain http off
// loopback or a user:password@. A wetrun refuses these before anything
// changes, so one is refused even where the pinned bytes are cached and no
// fetch would run. Each names the resource, the field and the URL as
// declared, never the value; a URL with an unset reference is left to the
// check of unset references.
func BadURLs(d *declaration.Declaration, res *resolve.Resolution) []string {
	var out []string
	for i := range d.Resources {
		r := &d.Resources[i]
		f, ok := r.Fetched()
		if !ok {
			continue
		}
		check := func(field string, t declaration.Text) {
			for _, n := range t.Refs() {
				if v, _ := res.Lookup(n); v == "" {
					return
				}
			}
			if !t.HasRefs() {
				return
			}
			if err := fetch.CheckURL(res.Text(t)); err != nil {
				out = append(out, fmt.Sprintf("resource %s: %s: %s resolves to a URL Zap doesn't fetch: %v",
					escape.Line(r.ID), field, escape.Line(t.String()), err))
			}
		}
		check(urlField[f.Kind], f.URL)
		if f.Verify != nil && f.Verify.SignatureURL != nil {
			check("source.verify.signature_url", *f.Verify.SignatureURL)
		}
	}
	return out
}

// urlField is the field of each kind of fetched source that holds its URL.
var urlField = map[string]string{
	declaration.LockRemoteFile: "content.url",
	declaration.LockBuild:      "source.url",
	declaration.LockAptKey:     "key_url",
}
