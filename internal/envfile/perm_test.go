package envfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

type fileInfo fs.FileMode

func (m fileInfo) Name() string       { return "zap.env" }
func (m fileInfo) Size() int64        { return 0 }
func (m fileInfo) Mode() fs.FileMode  { return fs.FileMode(m) }
func (m fileInfo) ModTime() time.Time { return time.Time{} }
func (m fileInfo) IsDir() bool        { return false }
func (m fileInfo) Sys() any           { return nil }

// secretByName stands in for internal/secret: a name ending in PASS.
func secretByName(name, _ string) bool { return strings.HasSuffix(name, "PASS") }

func TestPermissions(t *testing.T) {
	withSecret := []Var{{Name: "HOST", Value: "db"}, {Name: "DB_PASS", Value: "pw"}, {Name: "SMTP_PASS", Value: "pw2"}}
	plain := []Var{{Name: "HOST", Value: "db"}}
	tests := []struct {
		name string
		mode fs.FileMode
		vars []Var
		want []string // each warning, then its hint
	}{
		{"600 is quiet", 0o600, withSecret, nil},
		{"400 is quiet", 0o400, withSecret, nil},
		{"644 without a secret is quiet", 0o644, plain, nil},
		{"640 with secrets", 0o640, withSecret, []string{
			"env file zap.env can be read by its group and holds a secret (DB_PASS, SMTP_PASS)", "chmod 600 zap.env"}},
		{"604 with secrets", 0o604, withSecret, []string{
			"env file zap.env can be read by everyone and holds a secret (DB_PASS, SMTP_PASS)", "chmod 600 zap.env"}},
		{"644 with secrets", 0o644, withSecret, []string{
			"env file zap.env can be read by its group and everyone and holds a secret (DB_PASS, SMTP_PASS)", "chmod 600 zap.env"}},
		{"620 without a secret", 0o620, plain, []string{
			"env file zap.env can be written by its group: whoever can rewrite it chooses the host a deploy goes to", "chmod 600 zap.env"}},
		{"602", 0o602, plain, []string{
			"env file zap.env can be written by everyone: whoever can rewrite it chooses the host a deploy goes to", "chmod 600 zap.env"}},
		{"666 with secrets", 0o666, withSecret, []string{
			"env file zap.env can be written by its group and everyone: whoever can rewrite it chooses the host a deploy goes to", "chmod 600 zap.env",
			"env file zap.env can be read by its group and everyone and holds a secret (DB_PASS, SMTP_PASS)", "chmod 600 zap.env"}},
		{"setuid bits don't count", fs.ModeSetuid | fs.ModeSticky | 0o600, withSecret, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, w := range Permissions("zap.env", fileInfo(tt.mode), tt.vars, secretByName) {
				got = append(got, w.String(), w.Hint())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestPermissionsFields(t *testing.T) {
	ws := Permissions("e", fileInfo(0o646), []Var{{Name: "A_PASS", Value: "x"}}, secretByName)
	want := []Warning{
		{File: "e", Access: Writable, Others: true},
		{File: "e", Access: Readable, Group: true, Others: true, Secrets: []string{"A_PASS"}},
	}
	if !reflect.DeepEqual(ws, want) {
		t.Fatalf("got  %+v\nwant %+v", ws, want)
	}
	if ws := Permissions("e", fileInfo(0o644), []Var{{Name: "A_PASS"}}, nil); ws != nil {
		t.Fatalf("a nil isSecret warned %+v", ws)
	}
}

func TestPermissionsAsksWithNameAndValue(t *testing.T) {
	byValue := func(_, value string) bool { return strings.HasPrefix(value, "postgres://") }
	ws := Permissions("e", fileInfo(0o644), []Var{{Name: "URL", Value: "postgres://a:b@c/d"}, {Name: "X", Value: "y"}}, byValue)
	if len(ws) != 1 || !reflect.DeepEqual(ws[0].Secrets, []string{"URL"}) {
		t.Fatalf("got %+v", ws)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "zap.env")
	if err := os.WriteFile(path, []byte("DB_PASS=hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	vars, ws, err := Load(path, secretByName)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(vars, []Var{{Name: "DB_PASS", Value: "hunter2", Line: 1}}) {
		t.Fatalf("vars %+v", vars)
	}
	if len(ws) != 1 || ws[0].Access != Readable || ws[0].File != path {
		t.Fatalf("warnings %+v", ws)
	}

	if err := os.WriteFile(path, []byte("DB_PASS=\"hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = Load(path, secretByName)
	var e *Error
	if !errors.As(err, &e) || e.File != path || e.Problem != OpenQuote || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("Load error %v", err)
	}

	_, _, err = Load(filepath.Join(dir, "missing.env"), secretByName)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load of a missing file: %v", err)
	}
}
