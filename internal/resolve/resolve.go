// Package resolve turns a declaration's references into values from the
// operator environment: the references block a plan records, the names left
// unresolved, the lookup the stages that act use, and from them the Masker
// of the secrets' values and the resource hash a last-run report records
// (hash.go).
package resolve

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/secret"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// Env looks up an operator environment variable.
type Env func(name string) (string, bool)

// Resolution is what a declaration's references resolved to.
type Resolution struct {
	// References lists every referenced variable, sorted by name; a secret
	// carries no value.
	References []observation.Reference
	// Unresolved names the variables that are unset or empty: a wetrun
	// needs every one.
	Unresolved []string
	// UnresolvedCompared is those of Unresolved a comparison resolves
	// (Declaration.ComparedRefs): one makes a dry run unverifiable, where
	// an unset fetch credential doesn't.
	UnresolvedCompared []string
	// NotUTF8 names the variables whose values aren't valid UTF-8.
	NotUTF8 []string
	values  map[string]string
}

// Resolve reads every variable d references from env.
func Resolve(d *declaration.Declaration, env Env) *Resolution {
	res := &Resolution{values: map[string]string{}}
	names := d.Refs()
	if len(names) == 0 {
		return res
	}
	// Which are auth credentials is asked of the whole declaration, once,
	// and only when there is a reference to ask about.
	auth := authRefs(d)
	var compared []string
	for _, name := range names {
		v, ok := env(name)
		if !ok || v == "" {
			res.Unresolved = append(res.Unresolved, name)
			if compared == nil {
				compared = d.ComparedRefs()
			}
			if slices.Contains(compared, name) {
				res.UnresolvedCompared = append(res.UnresolvedCompared, name)
			}
		}
		if !utf8.ValidString(v) {
			res.NotUTF8 = append(res.NotUTF8, name)
		}
		res.values[name] = v
		ref := observation.Reference{Name: name, Secret: isSecret(d, auth, name, v)}
		if !ref.Secret {
			ref.Value = v
		}
		res.References = append(res.References, ref)
	}
	return res
}

// UTF8Hint is what to do about a referenced variable that isn't UTF-8.
const UTF8Hint = "set it to UTF-8 text; bytes that aren't text go in a file, or in an encoded form such as base64 that a script decodes"

// CheckUTF8 refuses a referenced variable whose value isn't valid UTF-8,
// naming it (never its value): a plan records and shows references as
// text, so such a value would read as U+FFFD there and never match the
// plan the wetrun is held to.
func (r *Resolution) CheckUTF8() error {
	switch len(r.NotUTF8) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("the referenced variable %s isn't valid UTF-8, so no plan can record or show its value", r.NotUTF8[0])
	}
	return fmt.Errorf("the referenced variables %s aren't valid UTF-8, so no plan can record or show their values", strings.Join(r.NotUTF8, ", "))
}

// Secret reports whether the reference name, holding value, is a secret,
// by the one rule of internal/secret: where it is used, zap.mask and
// zap.unmask, its name, the form of its value.
func Secret(d *declaration.Declaration, name, value string) bool {
	return isSecret(d, authRefs(d), name, value)
}

func isSecret(d *declaration.Declaration, auth map[string]bool, name, value string) bool {
	s, _ := classify(d, auth, name, value)
	return s
}

func classify(d *declaration.Declaration, auth map[string]bool, name, value string) (bool, string) {
	return secret.Classify(name, value, secret.Options{
		Auth:   auth[name],
		Mask:   slices.Contains(d.Mask, name),
		Unmask: slices.Contains(d.Unmask, name),
	})
}

// Classifier classifies the references of one declaration by the rule
// Secret applies, asking which are auth credentials once.
type Classifier struct {
	d    *declaration.Declaration
	auth map[string]bool
}

// NewClassifier is the Classifier of d.
func NewClassifier(d *declaration.Declaration) *Classifier {
	return &Classifier{d: d, auth: authRefs(d)}
}

// Classify reports whether the reference name, holding value, is a secret,
// and secret.Classify's reason.
func (c *Classifier) Classify(name, value string) (bool, string) {
	return classify(c.d, c.auth, name, value)
}

// authRefs names the variables d uses as an auth credential.
func authRefs(d *declaration.Declaration) map[string]bool {
	data, err := d.Encode()
	if err != nil {
		return nil
	}
	return secret.AuthRefs(data)
}

// Lookup returns the value name resolved to ("" when unset) and whether it
// was referenced at all.
func (r *Resolution) Lookup(name string) (string, bool) {
	v, ok := r.values[name]
	return v, ok
}

// Text resolves t; an unset reference reads as the empty string, which is
// why an unresolved pass is unverifiable.
func (r *Resolution) Text(t declaration.Text) string {
	s, _ := t.Resolve(func(n string) (string, bool) { v, _ := r.values[n]; return v, true })
	return s
}

// Recorded resolves from env the variables a plan's references block names,
// each keeping the secret flag the plan recorded, so the stage that acts on
// a plan can hold every value to the one the plan was made with.
func Recorded(refs []observation.Reference, env Env) *Resolution {
	res := &Resolution{values: map[string]string{}}
	for _, r := range refs {
		v, ok := env(r.Name)
		if !ok || v == "" {
			res.Unresolved = append(res.Unresolved, r.Name)
		}
		res.values[r.Name] = v
		ref := observation.Reference{Name: r.Name, Secret: r.Secret}
		if !ref.Secret {
			ref.Value = v
		}
		res.References = append(res.References, ref)
	}
	return res
}

// Masker masks the value of every secret res resolved to a value, in every
// form internal/mask knows.
func (res *Resolution) Masker() *mask.Masker {
	values := map[string]string{}
	for _, ref := range res.References {
		if !ref.Secret {
			continue
		}
		if v, _ := res.Lookup(ref.Name); v != "" {
			values[ref.Name] = v
		}
	}
	return mask.New(values)
}
