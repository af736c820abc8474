package evaluate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// at returns where the n-th (from 1) occurrence of mark starts in the
// test bundle eval makes of body, as t.js:LINE:COL.
func at(t *testing.T, body, mark string, n int) string {
	t.Helper()
	code := "var __zap_config = { default: " + body + " };\n"
	off := -1
	for range n {
		i := strings.Index(code[off+1:], mark)
		if i < 0 {
			t.Fatalf("%q occurs fewer than %d times", mark, n)
		}
		off += 1 + i
	}
	line := strings.Count(code[:off], "\n") + 1
	col := off - strings.LastIndex(code[:off], "\n")
	return fmt.Sprintf("t.js:%d:%d", line, col)
}

// problems runs body and returns its problems' messages, wanting the
// config to fail with more than one.
func problems(t *testing.T, body string) (*Errors, []string) {
	t.Helper()
	_, err := eval(t, body, Options{})
	return messages(t, err)
}

// messages wants err to be more than one problem and returns their
// messages.
func messages(t *testing.T, err error) (*Errors, []string) {
	t.Helper()
	var all *Errors
	if !errors.As(err, &all) {
		t.Fatalf("err = %v (%T), want *Errors", err, err)
	}
	var out []string
	for _, e := range all.List {
		out = append(out, e.Error())
	}
	return all, out
}

func same(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRunEveryProblem: a config's mistakes in several calls are all
// reported, in the order made, each at the key of the field at fault.
func TestRunEveryProblem(t *testing.T) {
	body := `function (zap) {
		zap.target({local: true});
		zap.directory({id: 'a', path: '~/a', mode: 644});
		zap.link({id: 'b', path: '~/b', taget: '~/a'});
		zap.file({id: 'c', path: '~/c', content: {type: 'inline', content: 'x', mdoe: '644'}});
		console.log('ran on');
	}`
	var console strings.Builder
	_, err := eval(t, body, Options{Console: &console})
	_, got := messages(t, err)
	same(t, got, []string{
		at(t, body, "mode: 644", 1) + `: zap.directory "a": mode: want a string such as '644', not a number`,
		at(t, body, "taget", 1) + `: zap.link "b": unknown field "taget" (did you mean "target"?)`,
		at(t, body, "mdoe", 1) + `: zap.file "c": content: unknown field "mdoe"`,
	})
	if !strings.HasPrefix(err.Error(), "3 problems in the config:\n") {
		t.Errorf("Error() = %q", err)
	}
	// The config ran on past its mistakes: they are recorded, not thrown.
	if console.String() != "ran on\n" {
		t.Errorf("console = %q", console.String())
	}
}

// TestRunUnknownKeyNamed: a misspelled required key is named as unknown,
// with the key it misspells, and not reported missing as well.
func TestRunUnknownKeyNamed(t *testing.T) {
	body := `function (zap) {
		zap.target({local: true});
		zap.file({id: 'm', path: '~/m', contnet: {type: 'inline', content: 'x'}});
	}`
	e := wantError(t, body, "")
	if want := at(t, body, "contnet", 1) + `: zap.file "m": unknown field "contnet" (did you mean "content"?)`; e.Error() != want {
		t.Fatalf("err = %q, want %q", e.Error(), want)
	}
	// A key near nothing asked for is unknown, and the missing one missing.
	body = `function (zap) {
		zap.target({local: true});
		zap.file({id: 'm', path: '~/m', colour: 'red'});
	}`
	_, got := problems(t, body)
	same(t, got, []string{
		at(t, body, "({id: 'm'", 1) + `: zap.file "m": content: required field missing`,
		at(t, body, "colour", 1) + `: zap.file "m": unknown field "colour"`,
	})
}

// TestRunRefusedTypeNoUnknownKeys: an object whose type is refused
// reports no unknown key, since the keys it takes depend on the type.
func TestRunRefusedTypeNoUnknownKeys(t *testing.T) {
	e := wantError(t, `function (zap) {
		zap.target({local: true});
		zap.verify({id: 'v', assertions: [{type: 'port_open', port: 80}]});
	}`, "")
	if !strings.HasSuffix(e.Msg, `assertions[0].type: "port_open" is not an assertion type (want 'path_exists' or 'command')`) {
		t.Fatalf("err = %q, want the type alone", e.Error())
	}
}

// TestRunProblemsBounded: past MaxErrors the problems are counted, not
// listed.
func TestRunProblemsBounded(t *testing.T) {
	body := `function (zap) {
		zap.target({local: true});
		for (let i = 0; i < 10000; i++) zap.directory({id: 'd' + i, path: 7});
	}`
	all, got := problems(t, body)
	if len(got) != MaxErrors || all.More != 10000-MaxErrors {
		t.Fatalf("%d listed, %d more; want %d and %d", len(got), all.More, MaxErrors, 10000-MaxErrors)
	}
	if !strings.HasPrefix(all.Error(), "10000 problems in the config:\n") || !strings.HasSuffix(all.Error(), "\n… and 9980 more") {
		t.Fatalf("Error() = %q", all.Error())
	}
	if got[19] != at(t, body, "path: 7", 1)+`: zap.directory "d19": path: want a string, not a number` {
		t.Fatalf("the 20th: %q", got[19])
	}
}

// TestRunFieldPositions: where a problem is placed: the key a path leads
// to through literals, else the deepest key on the way, else the call.
func TestRunFieldPositions(t *testing.T) {
	for _, c := range []struct{ name, call, mark, want string }{
		{"nested key", `zap.file({id: 'f', path: '~/f', content: {type: 'inline', content: 7}})`, "content: 7", "content.content: want a string"},
		{"array item", `zap.directory({id: 'f', path: '~/f', depends_on: ['a', 7]})`, "7]", "depends_on[1]: want a string"},
		{"value from a variable", `zap.directory(Object.assign({}, {id: 'f', path: 7}))`, "(Object", "path: want a string"},
		{"key from a spread", `zap.directory({...{id: 'f', path: 7}})`, "({...", "path: want a string"},
		{"shorthand", `((path) => zap.directory({id: 'f', path}))(7)`, "path})", "path: want a string"},
		{"after a spread item", `zap.directory({id: 'f', path: '~/f', depends_on: [...['a'], 7]})`, "depends_on", "depends_on[1]: want a string"},
		{"key written twice", `zap.directory({id: 'f', path: '~/f', path: 7})`, "path: 7", "path: want a string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := "function (zap) {\n\t\tzap.target({local: true});\n\t\t" + c.call + ";\n\t}"
			e := wantError(t, body, c.want)
			if want := at(t, body, c.mark, 1); e.Pos != want {
				t.Fatalf("Pos = %s, want %s (%s)", e.Pos, want, e.Error())
			}
		})
	}
}

// TestRunNearMethod: a call of a method the zap object lacks is Zap's
// error at the call, and the hint names the method it reads as a typo of,
// then the kinds there are.
func TestRunNearMethod(t *testing.T) {
	body := `function (zap) {
		zap.target({local: true});
		zap.fiel({id: 'f'});
	}`
	e := wantError(t, body, at(t, body, "({id: 'f'", 1)+`: zap has no method "fiel"`)
	if e.Hint != "did you mean zap.file?" {
		t.Fatalf("Hint = %q", e.Hint)
	}
	if want := "\tthe kinds of resource (zap.KIND): file, directory, link, script, pkg,\n" +
		"\tapt_repo, installer, user, service, database, swap, firewall, verify,\n" +
		"\tpipeline, build; zap also has target, env, mask, unmask and deploy"; e.Detail != want {
		t.Fatalf("Detail =\n%s\nwant\n%s", e.Detail, want)
	}
	e = wantError(t, `function (zap) { zap.target({local: true}); zap.frobnicate({}); }`, `zap has no method "frobnicate"`)
	if e.Hint != "" || !strings.Contains(e.Detail, "the kinds of resource") {
		t.Fatalf("no near method: Hint = %q, Detail = %q", e.Hint, e.Detail)
	}
	// Another object's missing method is the interpreter's error, and no
	// hint points at zap.
	e = wantError(t, `function (zap) { zap.target({local: true}); const o = {}; o.fiel({}); }`, "TypeError: Object has no member 'fiel'")
	if e.Hint != "" {
		t.Fatalf("Hint for another object = %q", e.Hint)
	}
}

// TestRunOtherToolsNames: the names other tools give a resource are
// answered with what Zap calls it, and the kinds it has.
func TestRunOtherToolsNames(t *testing.T) {
	for name, want := range map[string]string{
		"dir":      "a directory is zap.directory",
		"symlink":  "a symbolic link is zap.link",
		"packages": "a package is zap.pkg",
		"apt":      "a package is zap.pkg, and an apt source with its key zap.apt_repo",
		"copy":     "a file, whatever its content, is zap.file",
		"template": "a file, whatever its content, is zap.file",
		"command":  "a command is run by zap.script",
		"exec":     "a command is run by zap.script",
		"shell":    "a command is run by zap.script",
		"systemd":  "a service is zap.service",
	} {
		t.Run(name, func(t *testing.T) {
			body := "function (zap) {\n\t\tzap.target({local: true});\n\t\tzap." + name + "({id: 'x'});\n\t}"
			e := wantError(t, body, at(t, body, "({id: 'x'", 1)+fmt.Sprintf(`: zap has no method %q`, name))
			if !strings.HasPrefix(e.Hint, want) || !strings.Contains(e.Detail, "the kinds of resource") {
				t.Fatalf("Hint = %q, want %q; Detail = %q", e.Hint, want, e.Detail)
			}
		})
	}
}

// TestCheckPlaced: the declaration's own checks report every problem,
// each at the key of its field in the call that declared the resource.
func TestCheckPlaced(t *testing.T) {
	body := `function (zap) {
		zap.target({local: true});
		zap.directory({id: 'a', path: '~/a', mode: '999'});
		zap.directory({id: 'b', path: 'rel'});
		zap.directory({id: 'c', path: '~/c', depends_on: ['nope']});
		zap.directory({id: 'a', path: '~/a2'});
	}`
	s := Script{Name: "t.js", Code: "var __zap_config = { default: " + body + " };\n"}
	ev, err := Evaluate(context.Background(), s, Options{Export: "__zap_config"})
	if err != nil {
		t.Fatal(err)
	}
	_, got := messages(t, ev.Check())
	same(t, got, []string{
		at(t, body, "mode: '999'", 1) + `: resource "a": mode: "999" is not an octal mode of 7777 at most, such as "644"`,
		at(t, body, "path: 'rel'", 1) + `: resource "b": path: "rel" must be absolute or start with ~/`,
		at(t, body, "({id: 'a', path: '~/a2'", 1) + `: resource "a": id declared twice`,
		at(t, body, "depends_on", 1) + `: resource "c": depends_on: no resource has the id "nope"`,
	})
}

func TestPathSegments(t *testing.T) {
	for path, want := range map[string]string{
		"mode":               "mode",
		"content.vars.a":     "content vars a",
		"allow[2].port":      "allow [2] port",
		"a[1][2]":            "a [1] [2]",
		"auth.hosts[0]":      "auth hosts [0]",
		"bad[x].y":           "bad",
		"content.kinds.b[1]": "content kinds b [1]",
	} {
		var parts []string
		for _, s := range pathSegments(path) {
			if s.index >= 0 {
				parts = append(parts, fmt.Sprintf("[%d]", s.index))
			} else {
				parts = append(parts, s.key)
			}
		}
		if got := strings.Join(parts, " "); got != want {
			t.Errorf("pathSegments(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestRunPortAsStringIsOneProblem: a port written as a string is that
// problem alone, not also "a port is 1 to 65535, not 0".
func TestRunPortAsStringIsOneProblem(t *testing.T) {
	body := `function (zap) { zap.target({host: 'web1', port: "2299"}); }`
	_, err := eval(t, body, Options{})
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("err = %v (%T), want the one problem", err, err)
	}
	if want := at(t, body, `port: "2299"`, 1) + `: zap.target: port: want a whole number, not a string`; e.Error() != want {
		t.Fatalf("err = %q, want %q", e.Error(), want)
	}
}
