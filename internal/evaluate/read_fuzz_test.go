package evaluate

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
)

// readSeeds are resources of every kind, as zap-eval writes them
// (cmd/zap-eval's eval_kinds_golden): each is read back as a config's value.
var readSeeds = []string{
	`{"enabled":true,"id":"nftables","service":"nftables","type":"service"}`,
	`{"allow":[{"port":22}],"backend":"nftables","id":"nft","type":"firewall"}`,
	`{"check":"/usr/bin/rg","from":{"apk":"ripgrep","apt":"ripgrep"},"id":"rg","type":"package"}`,
	`{"id":"nodesource","key_url":"https://deb.nodesource.com/gpgkey/nodesource.gpg.key","source":"deb https://deb.nodesource.com/node_20.x $VERSION_CODENAME main","type":"apt_repo"}`,
	`{"check":"~/.cargo/bin/rustup","id":"rustup","shell":"sh -s -- -y","type":"installer","url":"https://sh.rustup.rs"}`,
	`{"id":"ops","ssh_keys":{"copy_from":"deploy"},"sudo":false,"type":"user","username":"ops"}`,
	`{"id":"web","sudo":"password","type":"user","username":"web"}`,
	`{"groups":["docker"],"home_mode":"711","id":"deploy","shell":"/bin/bash","ssh_keys":{"keys":["ssh-ed25519 AAAA ops"]},"sudo":{"commands":["/bin/systemctl restart app"],"mode":"nopasswd"},"type":"user","username":"deploy"}`,
	`{"enabled":true,"id":"nginx","reload_on":["site"],"running":true,"service":"nginx","type":"service"}`,
	`{"content":{"kinds":{"domain":"domain"},"template":"server_name {{domain}}; listen {{port}}; x {{obj}}","type":"template","vars":{"domain":{"$env":"DOMAIN"},"obj":{"a":null,"b":[1,"x"]},"port":8080}},"id":"site","path":"/etc/nginx/sites-available/app","type":"file"}`,
	`{"auth":{"hosts":["127.0.0.1/32"],"method":"scram-sha-256"},"database_name":"app","engine":"postgresql","id":"db","type":"database","username":{"$env":"USER"}}`,
	`{"id":"swap","size":"2G","type":"swap"}`,
	`{"assertions":[{"file_type":"directory","path":"/etc/app","type":"path_exists"},{"expect":"ok","run":"true","type":"command"}],"id":"v","type":"verify"}`,
	`{"id":"p","max_concurrency":1,"steps":[{"id":"a","name":"first","run":"echo a"},{"id":"b","run":"echo b"}],"type":"pipeline"}`,
	`{"id":"zig","output":"~/.local/bin/zig","run":"zig build","source":{"extract":{"strip_components":1,"type":"tar.xz"},"type":"remote","url":"https://ziglang.org/zig.tar.xz","verify":{"public_key":"RWSGOq2NVecA2UPNdBUZykf1CCb147pkmdtYxgb3Ti+JO/wCYvhbAb/U","scheme":"minisign"}},"type":"build"}`,
	`{"content":{"path":"~/x","type":"source"},"id":"src","path":"/etc/x","type":"file"}`,
	`{"content":{"auth":{"$env":"TOKEN"},"blake3":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","extract":{"type":"tar.gz"},"type":"remote","url":"http://127.0.0.1:8080/z.tar.gz"},"id":"rem","path":"/opt/zig","type":"file"}`}

// maxFuzzInput bounds a fuzz input: the converter that hands the reader its
// values bounds their depth (maxDepth) and the interpreter's heap their
// size; the reader adds no bound of its own, since it walks the schema, not
// the value (a struct's fields, at the depth the structs nest).
const maxFuzzInput = 64 << 10

// FuzzReadResource reads arbitrary JSON as each kind's resource and holds
// the generic reader to what the declaration's own decoder takes: it never
// panics, keeps at most MaxErrors problems, and a resource it reads without
// a problem is written as JSON the strict decoder reads back unchanged.
func FuzzReadResource(f *testing.F) {
	for i, s := range readSeeds {
		f.Add([]byte(s), uint8(i))
	}
	f.Add([]byte(`{"id":"x","content":{"type":"bogus","url":"u"}}`), uint8(4))
	f.Add([]byte(`{"id":"x","allow":[0,{"port":0},"a"]}`), uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		if len(data) > maxFuzzInput {
			return
		}
		issued := map[string]bool{}
		tree, err := jsonTree(json.NewDecoder(bytes.NewReader(data)), issued, 0)
		if err != nil {
			return
		}
		for _, kind := range []declaration.Kind{declaration.Supported[int(k)%len(declaration.Supported)], kindOf(tree)} {
			if kind == "" {
				continue
			}
			d := &decoder{issued: issued}
			r, _ := d.resource(tree, kind)
			if len(d.errs) > MaxErrors {
				t.Fatalf("%d problems kept, want at most %d", len(d.errs), MaxErrors)
			}
			if d.failures() > 0 {
				continue
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatalf("%s: read without a problem, yet its JSON fails: %v", kind, err)
			}
			var back declaration.Resource
			if err := back.UnmarshalJSON(b); err != nil {
				t.Fatalf("%s: the decoder refuses what the reader read: %v\n%s", kind, err, b)
			}
			if b2, _ := json.Marshal(back); !bytes.Equal(b, b2) {
				t.Fatalf("%s: read back differs:\n%s\n%s", kind, b, b2)
			}
		}
	})
}

// kindOf is the kind a resource's JSON names in type, or "".
func kindOf(tree any) declaration.Kind {
	if o, ok := tree.(*object); ok {
		v, _ := o.get("type")
		if s, ok := v.(string); ok {
			for _, k := range declaration.Supported {
				if string(k) == s {
					return k
				}
			}
		}
	}
	return ""
}

// jsonTree reads one JSON value as the converter would hand it to the
// reader, a Text's {"$env": NAME} and {"$text": [...]} as the marker
// string zap.env returns (NAME issued); "type" is dropped, as the reader
// never sees it. It refuses nesting past maxDepth, as the converter does.
func jsonTree(dec *json.Decoder, issued map[string]bool, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("too deep")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		if x == '[' {
			list := []any{}
			for dec.More() {
				v, err := jsonTree(dec, issued, depth+1)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		}
		o := &object{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k := kt.(string)
			v, err := jsonTree(dec, issued, depth+1)
			if err != nil {
				return nil, err
			}
			if !o.has(k) && !(depth == 0 && k == "type") {
				o.add(k, v)
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		if s, ok := refString(o, issued); ok {
			return s, nil
		}
		return o, nil
	case nil:
		// The converter hands on null only in a template variable; the
		// reader takes it anywhere without a panic.
		return jsonNull{}, nil
	}
	return tok, nil
}

// refString is a Text's object form as the marker string it stands for.
func refString(o *object, issued map[string]bool) (string, bool) {
	if len(o.keys) != 1 {
		return "", false
	}
	part := func(v any) (string, bool) {
		switch p := v.(type) {
		case string:
			return p, true
		case *object:
			v, _ := p.get("$env")
			if name, ok := v.(string); ok && len(p.keys) == 1 && declaration.ValidEnvName(name) {
				issued[name] = true
				return marker(name), true
			}
		}
		return "", false
	}
	switch o.keys[0] {
	case "$env":
		return part(o)
	case "$text":
		v, _ := o.get("$text")
		list, ok := v.([]any)
		if !ok {
			return "", false
		}
		var b strings.Builder
		for _, v := range list {
			s, ok := part(v)
			if !ok {
				return "", false
			}
			b.WriteString(s)
		}
		return b.String(), true
	}
	return "", false
}

// TestReadSeeds reads each seed as its kind's resource: without a problem,
// and to the same JSON.
func TestReadSeeds(t *testing.T) {
	for _, s := range readSeeds {
		issued := map[string]bool{}
		tree, err := jsonTree(json.NewDecoder(strings.NewReader(s)), issued, 0)
		if err != nil {
			t.Fatal(err)
		}
		var typed struct{ Type declaration.Kind }
		if err := json.Unmarshal([]byte(s), &typed); err != nil {
			t.Fatal(err)
		}
		d := &decoder{issued: issued}
		r, _ := d.resource(tree, typed.Type)
		if d.failures() > 0 {
			t.Errorf("%s: %v", s, d.errs)
			continue
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := normalJSON(t, b), normalJSON(t, []byte(s)); got != want {
			t.Errorf("read\n%s\nas\n%s", want, got)
		}
	}
}

// normalJSON is b with its objects' keys sorted.
func normalJSON(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}
