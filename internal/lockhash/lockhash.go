// Package lockhash is zap.lock's view of a declaration: the config_hash a
// tracked pin's entry is minted for, and the standing of every tracked pin
// against the lock (current, missing, stale, unverifiable, orphaned), which
// every command that reads the lock asks here.
//
// # The config_hash
//
// An entry's config_hash is the blake3, 64 lowercase hex, of
//
//	resolve.HashTag  "zap resource hash v1\n": the resource-hash version
//	Tag              "zap.lock config_hash v1\n"
//	canonical JSON   {"declaration": <the resource>, "pin": "<blake3>"}
//
// where the resource is its JSON less what doesn't change what the pin is
// the pin for: its identity (id, name, depends_on), an auth credential (a
// remote file's content.auth, a build's source.auth) and a file's validate
// command. Its references resolve as the last-run report's resource hash
// resolves them (resolve.Hasher): a secret one, by the one rule of
// internal/secret, as the token [MASKED:NAME]; any other as its value, with
// every secret value the config references masked out of it, except that a
// secret form shorter than MinSecret characters (the value, trimmed, with
// its \n decoded, a line, a credential, and their encodings) is left in
// place (mask.NewMin). A build's run, env and source.verify are hashed as
// declared: a reference there is hashed as the reference.
//
// Moving either tag, or what the document covers, reads every entry stale
// once, until zap update re-mints it.
package lockhash

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/secret"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
)

// Tag follows resolve.HashTag in the hashed bytes: the config_hash's own
// version.
const Tag = "zap.lock config_hash v1\n"

// MinSecret is the fewest characters a form of a secret value has for the
// config_hash to mask it inside another value.
const MinSecret = 8

// Hasher hashes the tracked resources of one declaration under one
// resolution of its references.
type Hasher struct {
	d   *declaration.Declaration
	res *resolve.Resolution
	h   *resolve.Hasher
	cls *resolve.Classifier
}

// New is the Hasher of d with its references resolved as res.
func New(d *declaration.Declaration, res *resolve.Resolution) *Hasher {
	values := map[string]string{}
	for _, ref := range res.References {
		if v, _ := res.Lookup(ref.Name); ref.Secret && v != "" {
			values[ref.Name] = v
		}
	}
	return &Hasher{d: d, res: res, h: resolve.NewHasherMasking(res, mask.NewMin(values, MinSecret)), cls: resolve.NewClassifier(d)}
}

// ConfigHash is the config_hash of r with pin folded in.
func (h *Hasher) ConfigHash(r *declaration.Resource, pin string) (string, error) {
	doc, err := h.document(r, pin)
	if err != nil {
		return "", fmt.Errorf("resource %q: config_hash: %w", r.ID, err)
	}
	sum := blake3.New()
	sum.WriteString(resolve.HashTag)
	sum.WriteString(Tag)
	sum.Write(doc)
	return hex.EncodeToString(sum.Sum(nil)), nil
}

// document is the canonical JSON the config_hash hashes, less its tags.
func (h *Hasher) document(r *declaration.Resource, pin string) ([]byte, error) {
	m, declared, err := split(r)
	if err != nil {
		return nil, err
	}
	v, err := h.h.Resolve(m)
	if err != nil {
		return nil, err
	}
	out := v.(map[string]any)
	for k, d := range declared {
		putPath(out, k, d)
	}
	return canon.Marshal(map[string]any{"declaration": out, "pin": pin})
}

// The fields a build hashes as declared, as paths into its JSON.
var asDeclared = map[declaration.Kind][]string{
	declaration.KindBuild: {"run", "env", "source.verify"},
}

// The fields left out of the hash, but for the identity.
var leftOut = map[declaration.Kind][]string{
	declaration.KindFile:  {"validate", "content.auth"},
	declaration.KindBuild: {"source.auth"},
}

// split is r's JSON decoded, less its identity and what the hash leaves
// out, and apart from it the fields hashed as declared, by path.
func split(r *declaration.Resource) (map[string]any, map[string]any, error) {
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, nil, err
	}
	delete(m, "id")
	delete(m, "name")
	delete(m, "depends_on")
	for _, p := range leftOut[r.Type] {
		takePath(m, p)
	}
	declared := map[string]any{}
	for _, p := range asDeclared[r.Type] {
		if v, ok := takePath(m, p); ok {
			declared[p] = v
		}
	}
	return m, declared, nil
}

// takePath removes the value at a dotted path of m and returns it.
func takePath(m map[string]any, path string) (any, bool) {
	head, rest, nested := strings.Cut(path, ".")
	if !nested {
		v, ok := m[head]
		delete(m, head)
		return v, ok
	}
	sub, ok := m[head].(map[string]any)
	if !ok {
		return nil, false
	}
	return takePath(sub, rest)
}

// putPath sets the value at a dotted path of m, whose parents exist (they
// held it before takePath).
func putPath(m map[string]any, path string, v any) {
	head, rest, nested := strings.Cut(path, ".")
	if !nested {
		m[head] = v
		return
	}
	if sub, ok := m[head].(map[string]any); ok {
		putPath(sub, rest, v)
	}
}

// byValue names the references of r the hash resolves (not those of a
// field it leaves out or takes as declared), sorted.
func byValue(r *declaration.Resource) []string {
	m, _, err := split(r)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	collectRefs(m, seen)
	return slices.Sorted(func(yield func(string) bool) {
		for n := range seen {
			if !yield(n) {
				return
			}
		}
	})
}

// collectRefs adds the names every Text spelled with a reference in v
// references to seen.
func collectRefs(v any, seen map[string]bool) {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			collectRefs(e, seen)
		}
	case map[string]any:
		_, env := v["$env"]
		_, text := v["$text"]
		if len(v) == 1 && (env || text) {
			raw, err := json.Marshal(v)
			var t declaration.Text
			if err == nil && t.UnmarshalJSON(raw) == nil {
				for _, n := range t.Refs() {
					seen[n] = true
				}
			}
			return
		}
		for _, e := range v {
			collectRefs(e, seen)
		}
	}
}

// address names the references in where fetched bytes come from and go:
// the URL and the destination (a file's path, a build's output).
func address(f declaration.Fetched) []string {
	return append(f.URL.Refs(), f.Dest.Refs()...)
}

// UnsetSecrets names the variables the config uses as a secret by more than
// the form of a value (as a credential, through zap.mask, by its name) that
// are unset, when r's address holds a non-secret reference: then a secret's
// value may be inside that reference's, and can't be masked out of it
// while unset. zap lock and zap update mint no entry for r while any is.
func (h *Hasher) UnsetSecrets(r *declaration.Resource, f declaration.Fetched) []string {
	plainRef := false
	for _, n := range address(f) {
		if !h.h.Secret(n) {
			plainRef = true
		}
	}
	if !plainRef {
		return nil
	}
	var out []string
	for _, n := range h.d.Refs() {
		if v, _ := h.res.Lookup(n); v != "" {
			continue
		}
		if s, _ := h.cls.Classify(n, ""); s {
			out = append(out, n)
		}
	}
	return out
}

// unverified names what keeps a changed config_hash of r from reading
// stale: the unset variables the hash takes by value, and the unset
// secrets UnsetSecrets names. None: the entry is stale.
func (h *Hasher) unverified(r *declaration.Resource, f declaration.Fetched) []string {
	seen := map[string]bool{}
	for _, n := range byValue(r) {
		if v, _ := h.res.Lookup(n); v == "" && !h.h.Secret(n) {
			seen[n] = true
		}
	}
	for _, n := range h.UnsetSecrets(r, f) {
		seen[n] = true
	}
	return slices.Sorted(func(yield func(string) bool) {
		for n := range seen {
			if !yield(n) {
				return
			}
		}
	})
}

// Note is a reference the lock addresses by name only because its name or
// the form of its value reads as a secret: its value doesn't count in the
// config_hash of the resources that take it.
type Note struct {
	Name   string
	Reason string   // secret.Classify's
	IDs    []string // the tracked resources whose config_hash takes it
}

// notes are the Notes of the tracked resources rs.
func (h *Hasher) notes(rs []*declaration.Resource) []Note {
	byName := map[string]*Note{}
	var order []string
	for _, r := range rs {
		for _, n := range byValue(r) {
			v, _ := h.res.Lookup(n)
			s, reason := h.cls.Classify(n, v)
			if !s || reason == secret.ReasonAuth || reason == secret.ReasonMask {
				continue
			}
			if byName[n] == nil {
				byName[n] = &Note{Name: n, Reason: reason}
				order = append(order, n)
			}
			byName[n].IDs = append(byName[n].IDs, r.ID)
		}
	}
	slices.Sort(order)
	out := make([]Note, len(order))
	for i, n := range order {
		out[i] = *byName[n]
	}
	return out
}

// Entry mints r's entry for pin, the blake3 of the bytes fetched for it.
func (h *Hasher) Entry(r *declaration.Resource, f declaration.Fetched, pin string) (lock.Entry, error) {
	ch, err := h.ConfigHash(r, pin)
	if err != nil {
		return lock.Entry{}, err
	}
	return lock.Entry{ID: r.ID, Kind: f.Kind, Blake3: pin, ConfigHash: ch}, nil
}
