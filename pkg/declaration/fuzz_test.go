package declaration

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/zap-go/zap/pkg/canon"
)

// canonicalSeeds are declarations in canonical form with no empty optional
// field: each decodes and encodes back to exactly its own bytes.
var canonicalSeeds = []string{
	`{"format":"zap.declaration/1","resources":[],"target":{"local":true}}`,
	`{"format":"zap.declaration/1","mask":["TOKEN"],"resources":[` +
		`{"content":{"content":"welcome\n<&>\u2028\u0000","type":"inline"},"depends_on":["conf"],"group":"staff","id":"hello","mode":"644","name":"a greeting","owner":"alice","path":"~/hello.txt","type":"file","validate":"test -s {}"},` +
		`{"id":"conf","mode":"750","path":{"$text":[{"$env":"APP"},"/conf"]},"type":"directory"},` +
		`{"id":"cur","path":"/srv/current","target":{"$env":"RELEASE"},"type":"link"},` +
		`{"check":"test -x app","cwd":"/srv","env":{"A":"b","TOKEN":{"$env":"TOKEN"}},"id":"build","run":"set -e\n\tmake","type":"script"}` +
		`],"target":{"local":true},"unmask":["APP"]}`,
	`{"format":"zap.declaration/1","resources":[{"id":"l","path":"$HOME/l","target":{"$text":[{"$env":"A"},{"$env":"B"},"x",{"$env":"A"}]},"type":"link"}],` +
		`"target":{"bootstrap_user":"root","home":"/home/deploy","host":{"$env":"HOST"},"identity":"~/.ssh/id","package_manager":"apt","port":2222,"service_manager":"systemd","user":{"$text":["u-",{"$env":"N"}]}}}`,
	`{"format":"zap.declaration/1","resources":[{"content":{"content":"","type":"inline"},"id":"empty","path":"/e","triggers":["x"],"type":"file"}],"target":{}}`,
	// Every kind, every content source and the deploy block (the golden
	// declaration of cmd/zap-eval's eval_kinds_golden script).
	`{"format":"zap.declaration/1","deploy":{"artifacts":["build","package.json"],"build":"gro build","health":{"attempts":10,"domain":{"$env":"DOMAIN"},"interval_ms":500,"path":"/health"},"path":"/srv/app","prepare":["npm ci"],"releases":5,"service":"app","shared":[".env"]},"resources":[{"enabled":true,"id":"nftables","service":"nftables","type":"service"},{"allow":[{"port":22}],"backend":"nftables","id":"nft","type":"firewall"},{"check":"/usr/bin/rg","from":{"apk":"ripgrep","apt":"ripgrep"},"id":"rg","type":"package"},{"id":"nodesource","key_url":"https://deb.nodesource.com/gpgkey/nodesource.gpg.key","source":"deb https://deb.nodesource.com/node_20.x $VERSION_CODENAME main","type":"apt_repo"},{"check":"~/.cargo/bin/rustup","id":"rustup","shell":"sh -s -- -y","type":"installer","url":"https://sh.rustup.rs"},{"id":"ops","ssh_keys":{"copy_from":"deploy"},"sudo":false,"type":"user","username":"ops"},{"id":"web","sudo":"password","type":"user","username":"web"},{"groups":["docker"],"home_mode":"711","id":"deploy","shell":"/bin/bash","ssh_keys":{"keys":["ssh-ed25519 AAAA ops"]},"sudo":{"commands":["/bin/systemctl restart app"],"mode":"nopasswd"},"type":"user","username":"deploy"},{"enabled":true,"id":"nginx","reload_on":["site"],"running":true,"service":"nginx","type":"service"},{"content":{"kinds":{"domain":"domain"},"template":"server_name {{domain}}; listen {{port}}; x {{obj}}","type":"template","vars":{"domain":{"$env":"DOMAIN"},"obj":{"a":null,"b":[1,"x"]},"port":8080}},"id":"site","path":"/etc/nginx/sites-available/app","type":"file"},{"auth":{"hosts":["127.0.0.1/32"],"method":"scram-sha-256"},"database_name":"app","engine":"postgresql","id":"db","type":"database","username":{"$env":"USER"}},{"id":"swap","size":"2G","type":"swap"},{"assertions":[{"file_type":"directory","path":"/etc/app","type":"path_exists"},{"expect":"ok","run":"true","type":"command"}],"id":"v","type":"verify"},{"id":"p","max_concurrency":1,"steps":[{"id":"a","name":"first","run":"echo a"},{"id":"b","run":"echo b"}],"type":"pipeline"},{"id":"zig","output":"~/.local/bin/zig","run":"zig build","source":{"extract":{"strip_components":1,"type":"tar.xz"},"type":"remote","url":"https://ziglang.org/zig.tar.xz","verify":{"public_key":"RWSGOq2NVecA2UPNdBUZykf1CCb147pkmdtYxgb3Ti+JO/wCYvhbAb/U","scheme":"minisign"}},"type":"build"},{"content":{"path":"~/x","type":"source"},"id":"src","path":"/etc/x","type":"file"},{"content":{"auth":{"$env":"TOKEN"},"blake3":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","extract":{"type":"tar.gz"},"type":"remote","url":"http://127.0.0.1:8080/z.tar.gz"},"id":"rem","path":"/opt/zig","type":"file"}],"target":{"local":true,"package_manager":"apt","service_manager":"systemd"}}`,
	`{"format":"zap.declaration/1","resources":[{"id":"u","ssh_keys":{"copy_from":"ops"},"sudo":false,"type":"user","username":"u"},{"content":{"template":"{{a}}","type":"template","vars":{"a":null}},"id":"t","path":"/t","type":"file"}],"target":{"local":true}}`,
}

// otherSeeds are inputs Read refuses or reads into another spelling.
var otherSeeds = []string{
	`{"format":"zap.declaration/1","target":{"local":true},"resources":[],"mask":[],"unmask":[]}`,
	` {"format" : "zap.declaration/1", "target":{"local":true,"port":0,"host":"h"},"resources":[{"id":"a","type":"script","check":"c","run":"r","env":{},"name":"","cwd":""}]}`,
	`{"format":"zap.declaration/1","target":{"local":false},"resources":[{"id":"d","type":"directory","path":"\u002fx","depends_on":[]}]}`,
	`{"format":"zap.declaration/2","target":{},"resources":[]}`,
	`{"target":{},"format":"zap.declaration/1","resources":[]}`,
	`{"format":"zap.declaration/1","target":{},"resources":[null]}`,
	`{"format":"zap.declaration/1","target":{},"resources":[{"id":"a","id":"a"}]}`,
	`{"format":"zap.declaration/1","target":{},"resources":[{"id":"f","type":"file","path":{"$text":["a","b"]},"content":{"type":"inline","content":"x"}}]}`,
	`{"format":"zap.declaration/1","target":{"port":1.5},"resources":[]}`,
	"{\"format\":\"zap.declaration/1\",\"target\":{},\"resources\":[{\"id\":\"\xff\",\"type\":\"link\",\"path\":\"\uFDD0\",\"target\":\"t\"}]}",
}

// FuzzDeclarationRoundTrip checks, for any input Read accepts, that Encode
// writes something Read accepts again and that encoding that gives the same
// bytes; that a canonical seed encodes to exactly its own bytes; and that
// Validate and the accessors never panic on what Read accepts.
func FuzzDeclarationRoundTrip(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	for _, s := range otherSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := Read(in)
		if err != nil {
			return
		}
		out, err := d.Encode()
		if err != nil {
			t.Fatalf("Encode of what Read accepted: %v\ninput %q", err, in)
		}
		d2, err := Read(out)
		if err != nil {
			t.Fatalf("Read refuses what Encode wrote: %v\n  input %q\nencoded %q", err, in, out)
		}
		out2, err := d2.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, out2) {
			t.Fatalf("encoding is not stable:\n once %q\ntwice %q", out, out2)
		}
		if c, err := canon.Transform(out); err != nil || !bytes.Equal(c, out) {
			t.Fatalf("Encode wrote non-canonical bytes %q", out)
		}
		// Validate and the accessors must cope with anything Read accepts.
		err1, err2 := d.Validate(), d2.Validate()
		if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Fatalf("Validate differs across a round trip: %v, then %v", err1, err2)
		}
		_ = d.Refs()
		for i := range d.Resources {
			_ = d.Resources[i].ManagedPath()
			_ = d.Resources[i].Texts()
		}
	})
}

func TestCanonicalSeedsReproduce(t *testing.T) {
	for _, s := range canonicalSeeds {
		if c, err := canon.Transform([]byte(s)); err != nil || string(c) != s {
			t.Fatalf("seed is not canonical:\n%s\n%s", s, c)
		}
		d, err := Read([]byte(s))
		if err != nil {
			t.Fatalf("Read(%s): %v", s, err)
		}
		out, err := d.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != s {
			t.Errorf("decode then encode\n got %s\nwant %s", out, s)
		}
	}
}

// FuzzTextJSON checks that a Text that decodes encodes to a spelling that
// decodes to the same Text and encodes to the same bytes again, and that
// canonical JSON that decodes as a Text is its one spelling: it encodes back
// to exactly the input.
func FuzzTextJSON(f *testing.F) {
	for _, s := range []string{
		`""`, `"plain"`, `"<&>\u2028\n"`, `{"$env":"A"}`, `{"$text":["/srv/",{"$env":"APP"},"/x"]}`,
		`{"$text":[{"$env":"A"},{"$env":"B"}]}`, `{"$text":["a"]}`, `{"$text":["a","b",{"$env":"C"}]}`,
		`{"$text":["",{"$env":"A"}]}`, `{"$env":"1"}`, `{"$env":"A","$text":[]}`, "\"\uFDD0\"",
		` { "$text" : [ "x" , { "$env" : "Y" } ] } `, `"\u0041"`, `{"$text":[{"$env":"A"},"\ufdd1"]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if canon.Check(in, nil) != nil {
			return // Read never hands a Text what Check refuses
		}
		var x Text
		if err := x.UnmarshalJSON(in); err != nil {
			return
		}
		out, err := canon.Marshal(x)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		var y Text
		if err := y.UnmarshalJSON(out); err != nil {
			t.Fatalf("a Text's own encoding %q is refused: %v (input %q)", out, err, in)
		}
		if !reflect.DeepEqual(x.Parts(), y.Parts()) {
			t.Fatalf("%q decodes to %+v, its encoding %q to %+v", in, x.Parts(), out, y.Parts())
		}
		again, err := canon.Marshal(y)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("encoding is not stable: %q, then %q", out, again)
		}
		if c, err := canon.Transform(in); err == nil && bytes.Equal(c, in) && !bytes.Equal(out, in) {
			t.Fatalf("canonical %q has a second spelling %q", in, out)
		}
	})
}
