package zapcli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zap-go/zap/internal/mask"
)

// runEnv is fake.run with an operator environment.
func (f *fake) runEnv(env map[string]string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	a := &app{
		stdin:  strings.NewReader(""),
		stdout: &out,
		stderr: &errb,
		getenv: func(k string) string {
			if k == "HOME" {
				return f.home
			}
			return env[k]
		},
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		environ:   []string{"FAKE=" + f.dir, "PATH=/usr/bin:/bin", "GORACE=atexit_sleep_ms=0"},
		now:       func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
		stageDir:  f.bin,
	}
	code = a.main(context.Background(), args)
	return code, out.String(), errb.String()
}

const remoteDecl = `{"format":"zap.declaration/1","mask":["SECRET_HOST"],
"target":{"host":{"$env":"SECRET_HOST"},"user":{"$env":"SSH_USER"}},
"resources":[{"id":"d","type":"directory","path":"/srv/d"}]}`

func TestMaskedHostWetrunRefused(t *testing.T) {
	f := newFake(t)
	f.stage("zap-eval", 0, "", remoteDecl)
	env := map[string]string{"SECRET_HOST": "db7.internal.example", "SSH_USER": "deploy"}
	code, out, errs := f.runEnv(env, "apply", "--wetrun")
	want(t, "wetrun on a masked host", code, 2, out, errs)
	if !strings.Contains(errs, "secret reference SECRET_HOST") || strings.Contains(errs+out, "db7.internal") {
		t.Errorf("stderr:\n%s", errs)
	}
	if n := readOr(f.dir+"/zap-detect.count", "0"); n != "0" {
		t.Errorf("zap-detect ran %s time(s) before the refusal", n)
	}
}

func TestEmptyConnectingUserStopsBeforeConnecting(t *testing.T) {
	f := newFake(t)
	f.stage("zap-eval", 0, "", remoteDecl)
	code, out, errs := f.runEnv(map[string]string{"SECRET_HOST": "db7.internal.example"}, "plan")
	want(t, "plan with no user", code, 2, out, errs)
	if !strings.Contains(errs, "resolves to nothing: SSH_USER unset or empty") {
		t.Errorf("stderr:\n%s", errs)
	}
	if n := readOr(f.dir+"/zap-detect.count", "0"); n != "0" {
		t.Errorf("zap-detect ran %s time(s)", n)
	}
}

func TestEnvFile(t *testing.T) {
	f := newFake(t)
	f.stage("zap-eval", 0, "", declJSON)
	os.WriteFile("bad.env", []byte("A=1\nDB_PASSWORD=\"s3cr\\et-value\"\n"), 0o600)
	code, out, errs := f.run("config", "validate", "--env-file", "bad.env")
	want(t, "a bad env file", code, 2, out, errs)
	if !strings.Contains(errs, "error: env file bad.env:2: DB_PASSWORD: the double-quoted value holds a backslash") || strings.Contains(errs, "s3cr") {
		t.Errorf("stderr:\n%s", errs)
	}
	os.WriteFile("open.env", []byte("DB_PASSWORD=hunter2hunter2\n"), 0o666)
	os.Chmod("open.env", 0o666)
	code, out, errs = f.run("config", "validate", "--env-file", "open.env")
	want(t, "a readable env file", code, 0, out, errs)
	for _, w := range []string{
		"warning: env file open.env can be written by its group and everyone",
		"warning: env file open.env can be read by its group and everyone and holds a secret (DB_PASSWORD)",
		"hint: chmod 600 open.env",
	} {
		if !strings.Contains(errs, w) {
			t.Errorf("missing %q in:\n%s", w, errs)
		}
	}
	code, out, errs = f.run("plan", "--env-file", "missing.env")
	want(t, "a missing env file", code, 2, out, errs)

	// HOME in an env file moves nothing: ~ stays the home Zap runs with.
	os.WriteFile("home.env", []byte("HOME=/elsewhere\nA=1\n"), 0o600)
	code, out, errs = f.run("config", "validate", "--env-file", "home.env")
	want(t, "an env file setting HOME", code, 0, out, errs)
	if !strings.Contains(errs, "warning: home.env sets HOME, which an env file doesn't set") {
		t.Errorf("stderr:\n%s", errs)
	}
}

func TestMaskJSONStaysValid(t *testing.T) {
	m := mask.New(map[string]string{"TOKEN": `secret","n`})
	line := []byte(`{"k":"a secret","n":2,"e":"saw secret\",\"n"}`)
	// The raw form spans structure here: masking the text would give
	// {"k":"a [MASKED:TOKEN]":2,...}, so each string is masked instead.
	out := maskJSON(m, line)
	if !json.Valid(out) || !bytes.Contains(out, []byte(`"e":"saw [MASKED:TOKEN]"`)) {
		t.Fatalf("masked %s", out)
	}
	if got := maskJSON(m, []byte(`{"e":"saw secret\",\"n"}`)); string(got) != `{"e":"saw [MASKED:TOKEN]"}` {
		t.Fatalf("masked %s", got)
	}
}
