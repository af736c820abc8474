package resolve

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
)

// HashTag opens the hashed bytes of a resource: the resource-hash version.
// zap.lock's config_hash (internal/lockhash) puts it ahead of its own bytes
// too, so a change to what the hash covers reads every entry stale once.
const HashTag = "zap resource hash v1\n"

// ResourceHash is what a last-run report records of a resource's
// declaration, so that zap status can tell a resource changed since: the
// blake3 of its canonical JSON less id, name, depends_on and a fetching
// resource's credential (a file's content.auth, a build's source.auth),
// with every reference resolved: a plain one to its value ("" when unset), a
// secret one to the token [MASKED:NAME]. Every secret's value is masked out
// of the other strings too, so the hash can't be used to test a guess at a
// secret. pin is the tracked pin zap.lock holds for r ("" for a resource
// with none: a vendored pin is in the declaration already); when set it
// follows the document, so moving it moves the hash; a pin given for a
// resource that tracks none is ignored. secret reports whether
// what is hashed references a secret.
func ResourceHash(r *declaration.Resource, res *Resolution, pin string) (hash string, secret bool, err error) {
	return NewHasher(res).Hash(r, pin)
}

// pinTag separates the document from a tracked pin in the hashed bytes. The
// document is canonical JSON ending in '}', so no document reads as another
// with a pin.
const pinTag = "\npin "

// Hasher hashes the resources of one resolution (ResourceHash): what is the
// same for each of them (the secret names, the masker) is made once.
type Hasher struct {
	res     *Resolution
	secrets map[string]bool
	masker  *mask.Masker
	// plain is true when the resolution holds no secret value, so masking
	// changes no string.
	plain bool
}

// NewHasher is the Hasher of res.
func NewHasher(res *Resolution) *Hasher { return NewHasherMasking(res, nil) }

// NewHasherMasking is the Hasher of res masking secret values with m
// rather than res.Masker() (nil: that one). zap.lock's config_hash masks
// no form shorter than 8 characters (internal/lockhash).
func NewHasherMasking(res *Resolution, m *mask.Masker) *Hasher {
	secrets := map[string]bool{}
	values := 0
	for _, ref := range res.References {
		if ref.Secret {
			secrets[ref.Name] = true
			if v, _ := res.Lookup(ref.Name); v != "" {
				values++
			}
		}
	}
	if m == nil {
		m = res.Masker()
	}
	return &Hasher{res: res, secrets: secrets, masker: m, plain: values == 0}
}

// Resolve is v, a value decoded from a resource's JSON (with
// json.Decoder.UseNumber), with every reference resolved as Hash resolves
// it: a secret one to its [MASKED:NAME] token, any other to its value with
// every secret value masked out of it, as out of every other string.
func (h *Hasher) Resolve(v any) (any, error) { return h.walk(v) }

// Secret reports whether the reference name is a secret in the resolution.
func (h *Hasher) Secret(name string) bool { return h.secrets[name] }

// Mask masks the value of every secret of the resolution out of s.
func (h *Hasher) Mask(s string) string { return h.mask(s) }

// The spellings of a reference in a resource's JSON: a Text holding one is
// an object with one of these keys.
var (
	envKey  = []byte(`"$env"`)
	textKey = []byte(`"$text"`)
)

// Hash is ResourceHash of r with pin.
func (h *Hasher) Hash(r *declaration.Resource, pin string) (hash string, secret bool, err error) {
	if f, ok := r.Fetched(); !ok || !f.Tracked() {
		pin = ""
	}
	// Changing or rotating a token changes nothing on the target.
	r = r.WithoutCredential()
	raw, err := json.Marshal(r)
	if err != nil {
		return "", false, err
	}
	for _, n := range r.Refs() {
		if h.secrets[n] {
			secret = true
		}
	}
	var doc []byte
	if h.plain && !bytes.Contains(raw, envKey) && !bytes.Contains(raw, textKey) {
		// Nothing to resolve and nothing to mask: walk would give back
		// the decoded value as it is, so the canonical form of the
		// resource's own members, less the three, is the same bytes.
		doc, err = h.plainDoc(r, raw)
	} else {
		doc, err = h.walkDoc(r, raw)
	}
	if err != nil {
		return "", false, err
	}
	sum := blake3.New()
	sum.WriteString(HashTag)
	sum.Write(doc)
	if pin != "" {
		sum.WriteString(pinTag)
		sum.WriteString(pin)
	}
	return hex.EncodeToString(sum.Sum(nil)), secret, nil
}

// TargetTag opens the hashed bytes of a target (TargetHash).
const TargetTag = "zap target hash v1\n"

// TargetHash is what a last-run report records of the declaration's target,
// so that zap status can tell the target changed since (its host, user,
// port, home, package_manager...): the blake3 of its canonical JSON with
// every reference resolved and every secret masked, as ResourceHash
// resolves a resource's. secret reports whether the target references a
// secret.
func (h *Hasher) TargetHash(t *declaration.Target) (hash string, secret bool, err error) {
	raw, err := json.Marshal(t)
	if err != nil {
		return "", false, err
	}
	for _, n := range t.Refs() {
		secret = secret || h.secrets[n]
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return "", false, err
	}
	v, err := h.walk(m)
	if err != nil {
		return "", false, fmt.Errorf("target: %w", err)
	}
	doc, err := canon.Marshal(v)
	if err != nil {
		return "", false, err
	}
	sum := blake3.New()
	sum.WriteString(TargetTag)
	sum.Write(doc)
	return hex.EncodeToString(sum.Sum(nil)), secret, nil
}

// plainDoc is the canonical JSON of raw, one resource's encoding, less id,
// name and depends_on, for a resource with no reference and a resolution
// with no secret value. Anything canon.Members doesn't split goes the long
// way.
func (h *Hasher) plainDoc(r *declaration.Resource, raw []byte) ([]byte, error) {
	m, ok := canon.Members(raw)
	if !ok {
		return h.walkDoc(r, raw)
	}
	// The members, less the three, as one object in any order, which
	// canon.Transform writes in canonical form (sorted, and each value
	// canonical): the bytes canon.Marshal makes of the same value.
	doc := make([]byte, 0, len(raw)+2)
	doc = append(doc, '{')
	for k, v := range m {
		switch k {
		case "id", "name", "depends_on":
			continue
		}
		if !plainKey(k) {
			return h.walkDoc(r, raw)
		}
		if len(doc) > 1 {
			doc = append(doc, ',')
		}
		doc = append(doc, '"')
		doc = append(doc, k...)
		doc = append(doc, '"', ':')
		doc = append(doc, v...)
	}
	doc = append(doc, '}')
	return canon.Transform(doc)
}

// plainKey is true for a key that is its own JSON string's body: printable
// ASCII with no quote or backslash.
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// walkDoc is the canonical JSON of raw, one resource's encoding, less id,
// name and depends_on, with every reference resolved and every secret value
// masked (walk).
func (h *Hasher) walkDoc(r *declaration.Resource, raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	delete(m, "id")
	delete(m, "name")
	delete(m, "depends_on")
	v, err := h.walk(m)
	if err != nil {
		return nil, fmt.Errorf("resource %q: %w", r.ID, err)
	}
	return canon.Marshal(v)
}

func token(name string) string { return "[MASKED:" + name + "]" }

// walk replaces every Text spelled with a reference ({"$env":...} or
// {"$text":[...]}) by its resolved string, and masks secret values out of
// every string.
func (h *Hasher) walk(v any) (any, error) {
	switch v := v.(type) {
	case string:
		return h.mask(v), nil
	case []any:
		out := make([]any, len(v))
		if err := walkAll(h, slices.All(v), func(i int, w any) { out[i] = w }); err != nil {
			return nil, err
		}
		return out, nil
	case map[string]any:
		_, env := v["$env"]
		_, text := v["$text"]
		if len(v) == 1 && (env || text) {
			return h.text(v)
		}
		out := make(map[string]any, len(v))
		if err := walkAll(h, maps.All(v), func(k string, w any) { out[k] = w }); err != nil {
			return nil, err
		}
		return out, nil
	}
	return v, nil
}

// walkAll walks each value of all, handing set its key and what it became.
func walkAll[K comparable](h *Hasher, all iter.Seq2[K, any], set func(K, any)) error {
	for k, e := range all {
		w, err := h.walk(e)
		if err != nil {
			return err
		}
		set(k, w)
	}
	return nil
}

func (h *Hasher) text(v map[string]any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var t declaration.Text
	if err := t.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, p := range t.Parts() {
		switch {
		case p.Env == "":
			b.WriteString(h.mask(p.Lit))
		case h.secrets[p.Env]:
			b.WriteString(token(p.Env))
		default:
			val, _ := h.res.Lookup(p.Env)
			b.WriteString(h.mask(val))
		}
	}
	return b.String(), nil
}

func (h *Hasher) mask(s string) string { return h.masker.String(s) }
