package declaration

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// file, dir, link and script write one resource object each.
func file(id, path, extra string) string {
	return `{"id":"` + id + `","type":"file","path":` + path + `,"content":{"type":"inline","content":"x"}` + extra + `}`
}

func dir(id, path, extra string) string {
	return `{"id":"` + id + `","type":"directory","path":` + path + extra + `}`
}

func link(id, path, target string) string {
	return `{"id":"` + id + `","type":"link","path":` + path + `,"target":` + target + `}`
}

func script(id, check, run, extra string) string {
	return `{"id":"` + id + `","type":"script","check":` + check + `,"run":` + run + extra + `}`
}

func withTarget(target string, resources ...string) string {
	return `{"format":"zap.declaration/1","target":` + target + `,"resources":[` + strings.Join(resources, ",") + `]}`
}

func TestValidateAccepts(t *testing.T) {
	tests := []struct{ name, in string }{
		{"empty", doc()},
		{"every kind", doc(
			file("f", `"/etc/motd"`, `,"mode":"0644","owner":"root","group":"_www","validate":"test -s $1"`),
			dir("d", `"~"`, `,"mode":"7777","owner":"www-data","group":"nogroup$"`),
			link("l", `"$HOME/current"`, `{"$env":"REL"}`),
			script("s", `"test -f x"`, "\"set -e\\nmake\\tall\\n\"", `,"cwd":"/srv","env":{"A":"1","zap_x":{"$env":"B"}}`),
		)},
		{"a chain of dependencies", doc(
			dir("a", `"/a"`, `,"depends_on":["b"]`), dir("b", `"/b"`, `,"depends_on":["c"]`), dir("c", `"/c"`, ""),
		)},
		{"a diamond", doc(
			dir("a", `"/a"`, `,"depends_on":["b","c"]`), dir("b", `"/b"`, `,"depends_on":["d"]`),
			dir("c", `"/c"`, `,"depends_on":["d"]`), dir("d", `"/d"`, ""),
		)},
		{"a path that begins with a reference", doc(file("f", `{"$text":[{"$env":"DIR"},"/x"]}`, ""))},
		{"a literal that reads like a reference is another path", doc(
			dir("a", `"/srv/{env:A}"`, ""), dir("b", `{"$text":["/srv/",{"$env":"A"}]}`, ""),
		)},
		{"different references are different paths", doc(
			dir("a", `{"$text":[{"$env":"A"},"/x"]}`, ""), dir("b", `{"$text":[{"$env":"B"},"/x"]}`, ""),
		)},
		{"scripts manage no path", doc(script("a", `"c"`, `"r"`, ""), script("b", `"c"`, `"r"`, ""))},
		{"a tab in a one-line field", doc(dir("d", "\"/a\\tb\"", `,"name":"a\tname"`))},
		{"a remote target", withTarget(`{"host":{"$env":"HOST"},"user":"deploy","port":2222,"home":"/home/deploy","bootstrap_user":"root"}`)},
		{"mask and unmask", `{"format":"zap.declaration/1","target":{"local":true},"resources":[],"mask":["A"],"unmask":["B"]}`},
		{"an id of 128 characters", doc(dir(strings.Repeat("a", 128), `"/a"`, ""))},
		{"content from project files", doc(
			`{"id":"t","type":"file","path":"/t","content":{"type":"inline","content":"x\n","file":"files/motd.txt"}}`,
			`{"id":"p","type":"file","path":"/p","content":{"type":"template","template":"{{a}}","vars":{"a":"1"},"file":"site.conf"}}`,
			`{"id":"b","type":"file","path":"/b","content":{"type":"bytes","base64":"AAH/","file":"img/logo.png"},"validate":"test -s $1"}`,
			`{"id":"e","type":"file","path":"/e","content":{"type":"bytes","base64":"","file":"empty"}}`,
		)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Read([]byte(tt.in))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if err := d.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestValidateRefuses(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // the whole message
	}{
		// ids and dependencies
		{"duplicate id", doc(dir("a", `"/a"`, ""), dir("a", `"/b"`, "")), `resource "a": id declared twice`},
		{"empty id", doc(dir("", `"/a"`, "")), `resources[0].id: "" is not an id: a letter, digit or _, then letters, digits, _, . or -`},
		{"id with a space", doc(dir("a b", `"/a"`, "")), `resources[0].id: "a b" is not an id: a letter, digit or _, then letters, digits, _, . or -`},
		{"id beginning with -", doc(dir("-a", `"/a"`, "")), `resources[0].id: "-a" is not an id: a letter, digit or _, then letters, digits, _, . or -`},
		{"id beginning with .", doc(dir(".a", `"/a"`, "")), `resources[0].id: ".a" is not an id: a letter, digit or _, then letters, digits, _, . or -`},
		{"id of 129 characters", doc(dir(strings.Repeat("a", 129), `"/a"`, "")), `resources[0].id: "` + strings.Repeat("a", 129) + `" is not an id: a letter, digit or _, then letters, digits, _, . or -`},
		{"dangling depends_on", doc(dir("a", `"/a"`, `,"depends_on":["nope"]`)), `resource "a": depends_on: no resource has the id "nope"`},
		{"self-dependency", doc(dir("a", `"/a"`, `,"depends_on":["a"]`)), `resource "a": depends_on: a resource can't depend on itself`},
		{"depends_on listed twice", doc(dir("a", `"/a"`, `,"depends_on":["b","b"]`), dir("b", `"/b"`, "")), `resource "a": depends_on: "b" is listed twice`},
		{"two-resource cycle", doc(dir("a", `"/a"`, `,"depends_on":["b"]`), dir("b", `"/b"`, `,"depends_on":["a"]`)),
			`depends_on: dependency cycle: a -> b -> a`},
		{"three-resource cycle", doc(
			dir("x", `"/x"`, ""),
			dir("c", `"/c"`, `,"depends_on":["a"]`), dir("a", `"/a"`, `,"depends_on":["x","b"]`), dir("b", `"/b"`, `,"depends_on":["c"]`)),
			`depends_on: dependency cycle: a -> b -> c -> a`},
		{"a trigger", doc(file("f", `"/f"`, `,"triggers":["d"]`), dir("d", `"/d"`, "")),
			`resource "f": triggers: "d" is a directory, and only a service can be triggered`},
		{"a dangling trigger", doc(file("f", `"/f"`, `,"triggers":["nope"]`)), `resource "f": triggers: no resource has the id "nope"`},

		// content from project files
		{"bytes not base64", doc(`{"id":"b","type":"file","path":"/b","content":{"type":"bytes","base64":"AA","file":"x"}}`),
			`resource "b": content.base64: is not standard padded base64`},
		{"an absolute project file", doc(`{"id":"t","type":"file","path":"/t","content":{"type":"inline","content":"x","file":"/etc/passwd"}}`),
			`resource "t": content.file: "/etc/passwd" is absolute: a project file is named relative to the project`},
		{"a project file out of the project", doc(`{"id":"t","type":"file","path":"/t","content":{"type":"inline","content":"x","file":"a/../../x"}}`),
			`resource "t": content.file: "a/../../x" is not a clean path inside the project (no empty, . or .. part)`},

		// modes, owners and groups
		{"mode 8", doc(dir("d", `"/d"`, `,"mode":"8"`)), `resource "d": mode: "8" is not an octal mode of 7777 at most, such as "644"`},
		{"mode 77777", doc(dir("d", `"/d"`, `,"mode":"77777"`)), `resource "d": mode: "77777" is not an octal mode of 7777 at most, such as "644"`},
		{"mode abc", doc(file("f", `"/f"`, `,"mode":"abc"`)), `resource "f": mode: "abc" is not an octal mode of 7777 at most, such as "644"`},
		{"mode u+x", doc(file("f", `"/f"`, `,"mode":"u+x"`)), `resource "f": mode: "u+x" is not an octal mode of 7777 at most, such as "644"`},
		{"numeric owner", doc(file("f", `"/f"`, `,"owner":"1000"`)),
			`resource "f": owner: "1000" is not an account name (a lowercase letter or _, then lowercase letters, digits, _ or -; not a number)`},
		{"uppercase owner", doc(dir("d", `"/d"`, `,"owner":"Root"`)),
			`resource "d": owner: "Root" is not an account name (a lowercase letter or _, then lowercase letters, digits, _ or -; not a number)`},
		{"owner beginning with -", doc(dir("d", `"/d"`, `,"owner":"-r"`)),
			`resource "d": owner: "-r" is not an account name (a lowercase letter or _, then lowercase letters, digits, _ or -; not a number)`},
		{"numeric group", doc(dir("d", `"/d"`, `,"group":"0"`)),
			`resource "d": group: "0" is not a group name (a lowercase letter or _, then lowercase letters, digits, _ or -; not a number)`},

		// paths
		{"relative path", doc(file("f", `"etc/motd"`, "")), `resource "f": path: "etc/motd" must be absolute or start with ~/`},
		{"path of another user's home", doc(file("f", `"~bob/x"`, "")), `resource "f": path: "~bob/x" must be absolute or start with ~/`},
		{"$HOMEX is not $HOME", doc(dir("d", `"$HOMEX/y"`, "")), `resource "d": path: "$HOMEX/y" must be absolute or start with ~/`},
		{"path beginning with -", doc(dir("d", `"-rf"`, "")), `resource "d": path: begins with -`},
		{"empty path", doc(dir("d", `""`, "")), `resource "d": path: is blank`},
		{"newline in a path", doc(dir("d", `"/a\nb"`, "")), `resource "d": path: holds a line break or control character (U+000A)`},
		{"NUL in a path", doc(link("l", `"/a\u0000"`, `"/t"`)), `resource "l": path: holds a line break or control character (U+0000)`},
		{"line separator in a path", doc(dir("d", `"/a\u2028"`, "")), `resource "d": path: holds a line break or control character (U+2028)`},
		{"C1 control in a name", doc(dir("d", `"/d"`, `,"name":"a\u0085"`)), `resource "d": name: holds a line break or control character (U+0085)`},
		{"DEL in a link target", doc(link("l", `"/l"`, `"/t\u007f"`)), `resource "l": target: holds a line break or control character (U+007F)`},
		{"escape in a cwd", doc(script("s", `"c"`, `"r"`, `,"cwd":"/a\u001b[2J"`)), `resource "s": cwd: holds a line break or control character (U+001B)`},
		{"blank link target", doc(link("l", `"/l"`, `""`)), `resource "l": target: is blank`},
		{"link target beginning with -", doc(link("l", `"/l"`, `"-x"`)), `resource "l": target: begins with -`},

		// commands
		{"blank run", doc(script("s", `"c"`, `" \n\t "`, "")), `resource "s": run: is blank`},
		{"blank check", doc(script("s", `""`, `"r"`, "")), `resource "s": check: is blank`},
		{"NUL in a run", doc(script("s", `"c"`, `"echo a\u0000b"`, "")), `resource "s": run: holds a NUL byte`},
		{"NUL in a check", doc(script("s", `{"$text":["test \u0000",{"$env":"A"}]}`, `"r"`, "")), `resource "s": check: holds a NUL byte`},
		{"blank validate", doc(file("f", `"/f"`, `,"validate":"  "`)), `resource "f": validate: is blank`},
		{"relative cwd", doc(script("s", `"c"`, `"r"`, `,"cwd":"srv"`)), `resource "s": cwd: must be an absolute path (no ~, no relative path)`},
		{"cwd under ~", doc(script("s", `"c"`, `"r"`, `,"cwd":"~/src"`)), `resource "s": cwd: must be an absolute path (no ~, no relative path)`},
		{"env name beginning __zap_", doc(script("s", `"c"`, `"r"`, `,"env":{"__zap_marker":"x"}`)), `resource "s": env.__zap_marker: a name can't begin with __zap_`},
		{"env name not a name", doc(script("s", `"c"`, `"r"`, `,"env":{"1X":"x"}`)), `resource "s": env: "1X" is not an environment variable name`},
		{"NUL in an env value", doc(script("s", `"c"`, `"r"`, `,"env":{"A":"a\u0000"}`)), `resource "s": env.A: holds a NUL byte`},

		// the target
		{"local target with a host", withTarget(`{"local":true,"host":"h"}`), `target: a local target takes no host, user, port, identity, home or bootstrap_user`},
		{"local target with a port", withTarget(`{"local":true,"port":22}`), `target: a local target takes no host, user, port, identity, home or bootstrap_user`},
		{"remote target without a host", withTarget(`{"user":"deploy"}`), `target.host: a remote target needs a host (or declare local: true)`},
		{"no target at all", withTarget(`{}`), `target.host: a remote target needs a host (or declare local: true)`},
		{"host beginning with -", withTarget(`{"host":"-oProxyCommand=x"}`), `target.host: must be a name that doesn't begin with -`},
		{"empty host", withTarget(`{"host":""}`), `target.host: is blank`},
		{"host with an ssh-style port", withTarget(`{"host":"tgtuser@127.0.0.1:2299"}`), `target.host: "tgtuser@127.0.0.1:2299" ends in a port, which ssh doesn't take from a host name: declare host: "tgtuser@127.0.0.1", port: 2299`},
		{"bracketed v6 host with a port", withTarget(`{"host":"[::1]:22"}`), `target.host: "[::1]:22" ends in a port, which ssh doesn't take from a host name: declare host: "::1", port: 22`},
		{"whitespace host", withTarget(`{"host":" \t "}`), `target.host: is blank`},
		{"blank user", withTarget(`{"host":"h","user":"  "}`), `target.user: is blank`},
		{"empty bootstrap_user", withTarget(`{"host":"h","bootstrap_user":""}`), `target.bootstrap_user: is blank`},
		{"user beginning with -", withTarget(`{"host":"h","user":"-l"}`), `target.user: must be a name that doesn't begin with -`},
		{"newline in a host", withTarget(`{"host":"h\nx"}`), `target.host: holds a line break or control character (U+000A)`},
		{"port too large", withTarget(`{"host":"h","port":65536}`), `target.port: a port is 1 to 65535`},
		{"relative home", withTarget(`{"host":"h","home":"home/u"}`), `target.home: must be an absolute path`},
		{"line break in home", withTarget(`{"host":"h","home":"/home/u\nx"}`), `target.home: holds a line break or control character (U+000A)`},
		{"control character in identity", withTarget(`{"host":"h","identity":"~/.ssh/id\u0007"}`), `target.identity: holds a line break or control character (U+0007)`},

		// one resource per path
		{"the same path twice", doc(file("a", `"/etc/x"`, ""), dir("b", `"/etc/x"`, "")), `resource "b": path: "a" and "b" both manage /etc/x; declare it once`},
		{"~/x and $HOME/x", doc(file("a", `"~/x"`, ""), link("b", `"$HOME/x"`, `"/t"`)), `resource "b": path: "a" and "b" both manage ~/x; declare it once`},
		{"a trailing slash", doc(dir("a", `"/srv/app"`, ""), dir("b", `"/srv/app/"`, "")), `resource "b": path: "a" and "b" both manage /srv/app; declare it once`},
		{"// and /./", doc(dir("a", `"/srv//app/./x"`, ""), dir("b", `"/srv/app/x"`, "")), `resource "b": path: "a" and "b" both manage /srv/app/x; declare it once`},
		{"~ and $HOME/", doc(dir("a", `"~"`, ""), dir("b", `"$HOME/"`, "")), `resource "b": path: "a" and "b" both manage ~; declare it once`},
		{"the same reference", doc(dir("a", `{"$text":[{"$env":"A"},"/x"]}`, ""), dir("b", `{"$text":[{"$env":"A"},"/x/"]}`, "")),
			`resource "b": path: "a" and "b" both manage {env:A}/x; declare it once`},

		// mask and unmask
		{"a name in both mask and unmask", `{"format":"zap.declaration/1","target":{"local":true},"resources":[],"mask":["A","B"],"unmask":["B"]}`,
			`unmask: B is given to both mask and unmask`},
		{"a mask that isn't a name", `{"format":"zap.declaration/1","target":{"local":true},"resources":[],"mask":["A B"]}`,
			`mask: "A B" is not a variable name`},
		{"an unmask that isn't a name", `{"format":"zap.declaration/1","target":{"local":true},"resources":[],"unmask":["1"]}`,
			`unmask: "1" is not a variable name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Read([]byte(tt.in))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			err = d.Validate()
			if err == nil {
				t.Fatalf("Validate accepted %s, want %q", tt.in, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Validate\n got %q\nwant %q", err, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("Validate: %T, want a *Error", err)
			}
		})
	}
}

func TestValidateShapeInCode(t *testing.T) {
	// A Declaration built in code can break what Read guarantees.
	d := &Declaration{Format: "zap.declaration/2", Target: Target{Local: true}}
	if err := d.Validate(); err == nil || err.Error() != `format: want "zap.declaration/1"` {
		t.Errorf("wrong format: %v", err)
	}
	d = &Declaration{Format: Format, Target: Target{Local: true}, Resources: []Resource{
		{Common: Common{ID: "a", Type: KindFile}, Body: &Directory{Path: Lit("/a")}},
	}}
	if err := d.Validate(); err == nil || err.Error() != `resource "a": type: the resource's body doesn't match its type "file"` {
		t.Errorf("another kind's body: %v", err)
	}
	d.Resources[0] = Resource{Common: Common{ID: "a", Type: KindFile}, Body: &File{Path: Lit("/a"), Content: Content{Type: ContentInline}}}
	if err := d.Validate(); err == nil || err.Error() != `resource "a": content.content: required field missing` {
		t.Errorf("inline content missing: %v", err)
	}
}

func TestManagedPath(t *testing.T) {
	tests := []struct {
		path Text
		want string
	}{
		{Lit("/etc/motd"), "/etc/motd"},
		{Lit("/"), "/"},
		{Lit("//"), "/"},
		{Lit("/srv/app/"), "/srv/app"},
		{Lit("/srv//app/./x/."), "/srv/app/x"},
		{Lit("/srv/../etc"), "/srv/../etc"},
		{Lit("~"), "~"},
		{Lit("~/"), "~"},
		{Lit("~/x/"), "~/x"},
		{Lit("$HOME"), "~"},
		{Lit("$HOME/x"), "~/x"},
		{Lit("$HOME//x/./"), "~/x"},
		{Concat(Part{Env: "APP"}, Part{Lit: "/current/"}), "{env:APP}/current"},
		{Concat(Part{Lit: "$HOME/"}, Part{Env: "APP"}), "~/{env:APP}"},
	}
	for _, tt := range tests {
		for _, r := range []Resource{
			{Common: Common{Type: KindFile}, Body: &File{Path: tt.path}},
			{Common: Common{Type: KindDirectory}, Body: &Directory{Path: tt.path}},
			{Common: Common{Type: KindLink}, Body: &Link{Path: tt.path}},
		} {
			if got := r.ManagedPath(); got != tt.want {
				t.Errorf("%s %q: ManagedPath = %q, want %q", r.Type, tt.path.String(), got, tt.want)
			}
		}
	}
	s := Resource{Common: Common{Type: KindScript}, Body: &Script{Run: Lit("x")}}
	if got := s.ManagedPath(); got != "" {
		t.Errorf("a script's ManagedPath = %q, want none", got)
	}
}

// TestNormalPathShortcut holds normalizePath's shortcut, a path it finds
// normal given back as it is, to what splitting and joining it gives: every
// path of up to five characters from the ones a normalization turns on.
func TestNormalPathShortcut(t *testing.T) {
	split := func(s string) string {
		if rest, ok := strings.CutPrefix(s, "$HOME"); ok && (rest == "" || rest[0] == '/') {
			s = "~" + rest
		}
		var out []string
		for i, c := range strings.Split(s, "/") {
			if (c == "" && i > 0) || c == "." {
				continue
			}
			out = append(out, c)
		}
		if s = strings.Join(out, "/"); s == "" {
			s = "/"
		}
		return s
	}
	parts := []string{"/", ".", "a", "~", "$HOME", "$HOMES", ".."}
	var walk func(s string, n int)
	walk = func(s string, n int) {
		if got, want := normalizePath(s), split(s); got != want {
			t.Errorf("normalizePath(%q) = %q, want %q", s, got, want)
		}
		if n == 0 {
			return
		}
		for _, p := range parts {
			walk(s+p, n-1)
		}
	}
	walk("", 5)
}

func TestRefsAndTexts(t *testing.T) {
	in := `{"format":"zap.declaration/1","target":{"host":{"$env":"HOST"},"user":{"$text":[{"$env":"USER_PREFIX"},"-deploy"]},"bootstrap_user":"root"},"resources":[` +
		file("f", `{"$text":[{"$env":"DIR"},"/f"]}`, `,"validate":{"$text":["check ",{"$env":"CHECKER"}]}`) + `,` +
		dir("d", `{"$env":"DIR"}`, "") + `,` +
		link("l", `"/l"`, `{"$text":[{"$env":"REL"},"/",{"$env":"DIR"}]}`) + `,` +
		script("s", `"test -f x"`, `{"$text":["run ",{"$env":"ZED"}]}`, `,"env":{"T":{"$env":"TOKEN"},"P":"plain"}`) +
		`]}`
	d, err := Read([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	texts := func(r *Resource) map[string]string {
		out := map[string]string{}
		for k, v := range r.Texts() {
			out[k] = v.String()
		}
		return out
	}
	wantTexts := []map[string]string{
		{"path": "{env:DIR}/f", "validate": "check {env:CHECKER}"},
		{"path": "{env:DIR}"},
		{"path": "/l", "target": "{env:REL}/{env:DIR}"},
		{"check": "test -f x", "run": "run {env:ZED}", "env.T": "{env:TOKEN}", "env.P": "plain"},
	}
	wantRefs := [][]string{{"CHECKER", "DIR"}, {"DIR"}, {"DIR", "REL"}, {"TOKEN", "ZED"}}
	for i := range d.Resources {
		r := &d.Resources[i]
		if got := texts(r); !reflect.DeepEqual(got, wantTexts[i]) {
			t.Errorf("%s: Texts = %q, want %q", r.ID, got, wantTexts[i])
		}
		if got := r.Refs(); !reflect.DeepEqual(got, wantRefs[i]) {
			t.Errorf("%s: Refs = %q, want %q", r.ID, got, wantRefs[i])
		}
	}
	noValidate := Resource{Common: Common{Type: KindFile}, Body: &File{Path: Lit("/x")}}
	if got := noValidate.Texts(); len(got) != 1 {
		t.Errorf("a file without validate: Texts = %v", got)
	}
	if got := d.Target.Refs(); !reflect.DeepEqual(got, []string{"HOST", "USER_PREFIX"}) {
		t.Errorf("Target.Refs = %q", got)
	}
	want := []string{"CHECKER", "DIR", "HOST", "REL", "TOKEN", "USER_PREFIX", "ZED"}
	if got := d.Refs(); !reflect.DeepEqual(got, want) {
		t.Errorf("Declaration.Refs = %q, want %q", got, want)
	}
	empty := &Declaration{}
	if got := empty.Refs(); len(got) != 0 {
		t.Errorf("Refs of nothing = %#v, want an empty list", got)
	}
}

func TestCycle(t *testing.T) {
	mk := func(edges map[string][]string) *Declaration {
		d := &Declaration{}
		for id, deps := range edges {
			d.Resources = append(d.Resources, Resource{Common: Common{ID: id, DependsOn: deps}})
		}
		return d
	}
	if got := mk(map[string][]string{"a": {"b"}, "b": nil, "c": {"a", "b"}}).Cycle(); got != nil {
		t.Errorf("Cycle of a DAG = %q", got)
	}
	if got := mk(map[string][]string{"a": {"a"}}).Cycle(); !reflect.DeepEqual(got, []string{"a", "a"}) {
		t.Errorf("Cycle of a self-loop = %q", got)
	}
	got := mk(map[string][]string{"z": {"y"}, "y": {"x"}, "x": {"z"}, "w": {"x"}}).Cycle()
	if !reflect.DeepEqual(got, []string{"x", "z", "y", "x"}) {
		t.Errorf("Cycle = %q, want x -> z -> y -> x", got)
	}
	if got := mk(map[string][]string{"a": {"missing"}}).Cycle(); got != nil {
		t.Errorf("Cycle with a dangling edge = %q", got)
	}
}

func TestUnmaskAuthCredential(t *testing.T) {
	doc := `{"format":"zap.declaration/1","target":{"local":true},"resources":[` +
		`{"id":"dl","type":"file","path":"/opt/x","content":{"type":"remote","url":"https://x.example/x","auth":{"$env":"DL_KEY"}}}` +
		`],"unmask":["DL_KEY"]}`
	d, err := Read([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	err = d.Validate()
	want := `unmask: DL_KEY is the auth credential of "dl", and a credential is always a secret`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	// Unmasking a variable used elsewhere is the config's call.
	d.Unmask = []string{"OTHER"}
	if err := d.Validate(); err != nil {
		t.Errorf("unmask of another variable: %v", err)
	}
}

func TestHostPortSplitsOnlyASSHStylePort(t *testing.T) {
	for _, s := range []string{"::1", "fe80::1", "web", "user@web", "web:", "web:x", "[::1]"} {
		if _, _, ok := hostPort(s); ok {
			t.Errorf("%q taken for host:port", s)
		}
	}
}

// TestReadRefusesProjectContent: the fields of content from a project file
// are read on their types only, and a bytes source needs both.
func TestReadRefusesProjectContent(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"bytes with no file", doc(`{"id":"b","type":"file","path":"/b","content":{"type":"bytes","base64":"AA=="}}`),
			`resources[0] (b).content.file: required field missing`},
		{"bytes with no base64", doc(`{"id":"b","type":"file","path":"/b","content":{"type":"bytes","file":"x"}}`),
			`resources[0] (b).content.base64: required field missing`},
		{"a file on source content", doc(`{"id":"t","type":"file","path":"/t","content":{"type":"source","path":"/x","file":"x"}}`),
			`resources[0] (t).content.file: unknown field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read([]byte(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("Read: got %v, want %q", err, tt.want)
			}
		})
	}
}
