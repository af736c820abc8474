// Package resolve turns a declaration's references into values from the
// operator environment: the references block a plan records, the names left
// unresolved, and the lookup the stages that act use.
package resolve

import (
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
	// Unresolved names the variables that are unset or empty.
	Unresolved []string
	values     map[string]string
}

// Resolve reads every variable d references from env.
func Resolve(d *declaration.Declaration, env Env) *Resolution {
	res := &Resolution{values: map[string]string{}}
	secret := map[string]bool{}
	for _, n := range d.Mask {
		secret[n] = true
	}
	for _, name := range d.Refs() {
		v, ok := env(name)
		if !ok || v == "" {
			res.Unresolved = append(res.Unresolved, name)
		}
		res.values[name] = v
		ref := observation.Reference{Name: name, Secret: Secret(d, name, v)}
		if !ref.Secret {
			ref.Value = v
		}
		res.References = append(res.References, ref)
	}
	return res
}

// Secret reports whether the reference name, holding value, is a secret.
// Today that is a name zap.mask lists and zap.unmask doesn't; the rest of
// the rule (the name, the form of the value) is to come.
func Secret(d *declaration.Declaration, name, value string) bool {
	for _, n := range d.Unmask {
		if n == name {
			return false
		}
	}
	for _, n := range d.Mask {
		if n == name {
			return true
		}
	}
	return false
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
