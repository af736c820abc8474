package declaration

import "testing"

// Zap keeps its state in /var/lib/zap: a declaration that would manage it
// fails the structural gate (resources.md), judged on the paths as written.
func TestStateDirRefused(t *testing.T) {
	const state = "where Zap keeps its state"
	deploy := func(path string) string {
		return `{"format":"zap.declaration/1","target":{"local":true},"resources":[],"deploy":{"path":"` + path + `","artifacts":["dist"]}}`
	}
	tests := []struct {
		name, in, want string
	}{
		{"a file in it", doc(file("f", `"/var/lib/zap/pending/nginx"`, "")),
			`resource "f": path: /var/lib/zap/pending/nginx is at or under /var/lib/zap, ` + state},
		{"the directory itself", doc(dir("d", `"/var/lib/zap"`, "")),
			`resource "d": path: /var/lib/zap is at or under /var/lib/zap, ` + state},
		{"a trailing slash", doc(dir("d", `"/var/lib/zap/"`, "")),
			`resource "d": path: /var/lib/zap/ is at or under /var/lib/zap, ` + state},
		{". and .. as written", doc(dir("d", `"/var/lib/x/.././zap/pending"`, "")),
			`resource "d": path: /var/lib/x/.././zap/pending is at or under /var/lib/zap, ` + state},
		{"doubled slashes", doc(file("f", `"//var//lib/zap/x"`, "")),
			`resource "f": path: //var//lib/zap/x is at or under /var/lib/zap, ` + state},
		{"a reference below it", doc(file("f", `{"$text":["/var/lib/zap/pending/",{"$env":"SVC"}]}`, "")),
			`resource "f": path: /var/lib/zap/pending/{env:SVC} is at or under /var/lib/zap, ` + state},
		{"a home-rooted path going up", doc(dir("d", `"~/../../var/lib/zap"`, "")),
			`resource "d": path: "~/../../var/lib/zap" goes up with .. from the home directory: write the path from / instead`},
		{"$HOME going up", doc(file("f", `"$HOME/a/../b"`, "")),
			`resource "f": path: "$HOME/a/../b" goes up with .. from the home directory: write the path from / instead`},
		{"a link in it", doc(link("l", `"/var/lib/zap/pending"`, `"/tmp"`)),
			`resource "l": path: /var/lib/zap/pending is at or under /var/lib/zap, ` + state},
		{"a link to it", doc(link("l", `"/srv/state"`, `"/var/lib/zap"`)),
			`resource "l": target: leads to /var/lib/zap, and a link can't lead into /var/lib/zap, ` + state},
		{"a link under it", doc(link("l", `"/srv/pending"`, `"/var/lib/zap/pending/"`)),
			`resource "l": target: leads to /var/lib/zap/pending, and a link can't lead into /var/lib/zap, ` + state},
		{"a link to a directory above it", doc(link("l", `"/srv/lib"`, `"/var/lib"`)),
			`resource "l": target: leads to /var/lib, and a link can't lead into /var/lib/zap, ` + state},
		{"a link to /", doc(link("l", `"/srv/root"`, `"/"`)),
			`resource "l": target: leads to /, and a link can't lead into /var/lib/zap, ` + state},
		{"a relative link target", doc(link("l", `"/var/lib/other"`, `"zap/pending"`)),
			`resource "l": target: leads to /var/lib/zap/pending, and a link can't lead into /var/lib/zap, ` + state},
		{"a relative link target going up", doc(link("l", `"/srv/a/b"`, `"../../var"`)),
			`resource "l": target: leads to /var, and a link can't lead into /var/lib/zap, ` + state},
		{"a link placed at /var/lib", doc(link("l", `"/var/lib"`, `"/srv/lib"`)),
			`resource "l": path: a link at /var/lib would replace a directory above /var/lib/zap, ` + state},
		{"a link placed at /var", doc(link("l", `"/var/"`, `"/srv/var"`)),
			`resource "l": path: a link at /var would replace a directory above /var/lib/zap, ` + state},
		{"a build's output", doc(`{"id":"b","type":"build","source":{"type":"remote","url":"https://z.example/z.tar.xz"},"run":"make","output":"/var/lib/zap/bin"}`),
			`resource "b": output: /var/lib/zap/bin is at or under /var/lib/zap, ` + state},
		{"a swap file", doc(`{"id":"s","type":"swap","size":"1G","path":"/var/lib/zap/swap"}`),
			`resource "s": path: /var/lib/zap/swap is at or under /var/lib/zap, ` + state},
		{"a deploy path", deploy("/var/lib/zap/app"),
			`deploy.path: /var/lib/zap/app is at or under /var/lib/zap, ` + state},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Read([]byte(tt.in))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			err = d.Validate()
			if err == nil {
				t.Fatalf("Validate accepted it, want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Validate:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

// What only reaches /var/lib/zap once a reference or ~ resolves, and what
// merely looks like it, passes the gate.
func TestStateDirAccepted(t *testing.T) {
	for name, in := range map[string]string{
		"a sibling":                    doc(dir("d", `"/var/lib/zapper"`, "")),
		"the directory above":          doc(dir("d", `"/var/lib"`, "")),
		"a reference that may lead in": doc(file("f", `{"$text":[{"$env":"DIR"},"/zap/x"]}`, "")),
		"a reference right after zap":  doc(file("f", `{"$text":["/var/lib/zap",{"$env":"SUFFIX"}]}`, "")),
		"a home path":                  doc(dir("d", `"~/var/lib/zap"`, "")),
		"a link from home going up":    doc(link("l", `"~/state"`, `"../../var/lib/zap-like"`)),
		"a link target by reference":   doc(link("l", `"/srv/x"`, `{"$env":"TARGET"}`)),
		"a relative link target":       doc(link("l", `"/var/lib/x"`, `"zapper"`)),
		"a link in /var/lib":           doc(link("l", `"/var/lib/x"`, `"/srv/x"`)),
	} {
		t.Run(name, func(t *testing.T) {
			d, err := Read([]byte(in))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if err := d.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}
