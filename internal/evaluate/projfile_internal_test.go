package evaluate

import (
	"strings"
	"testing"
)

// TestProjectPath: a path is relative to the module that names it, starts
// ./ or ../, and stays inside the project; a module outside the project
// names none.
func TestProjectPath(t *testing.T) {
	for _, tc := range []struct{ module, name, want, err string }{
		{"zap.ts", "./files/motd.txt", "files/motd.txt", ""},
		{"roles/web.ts", "./site.conf", "roles/site.conf", ""},
		{"roles/web.ts", "../files/logo.png", "files/logo.png", ""},
		{"hosts/a/zap.ts", "../../x//y/./z", "x/y/z", ""},
		{"", "./x", "x", ""},
		{"zap.ts", "../outside.txt", "", "leads outside the project"},
		{"roles/web.ts", "../../x", "", "leads outside the project"},
		{"zap.ts", "files/motd.txt", "", "starting ./ or ../"},
		{"zap.ts", "/etc/passwd", "", "starting ./ or ../"},
		{"zap.ts", "./", "", "names the project's folder"},
		{"zap.ts", "./a\x00b", "", "NUL"},
		{"@zap-go/zap/recipes/nginx.ts", "./x", "", "a module of @zap-go/zap names no project file"},
		{"/srv/linked/pkg/index.ts", "./x", "", "a module outside the project"},
	} {
		got, err := projectPath(tc.module, tc.name)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("projectPath(%q, %q) = %q, %v; want %q", tc.module, tc.name, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("projectPath(%q, %q) = %q, %v; want an error with %q", tc.module, tc.name, got, err, tc.err)
		}
	}
}
