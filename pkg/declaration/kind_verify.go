package declaration

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/zap-go/zap/internal/strict"
)

// Verify is a list of assertions checked at detection and again, in order, on
// a wetrun.
type Verify struct {
	// The checks, each read by its type; every one must hold.
	Assertions []Assertion `json:"assertions"`
}

// Assertion is one check of a verify, read by its type.
type Assertion struct {
	// What is checked: path_exists or command.
	Type AssertionType `json:"type" zap:"instead=enum,enum=path_exists|command,refuse=an assertion type"`
	// Absolute, as written; takes no reference.
	Path string `json:"path,omitempty" zap:"instead=assert_path,on=path_exists,required"`
	// The path must be a file or a directory (a link is followed).
	FileType string `json:"file_type,omitempty" zap:"instead=enum,on=path_exists,enum=file|directory"`
	// The octal mode, such as '644'.
	Mode string `json:"mode,omitempty" zap:"mode,on=path_exists"`
	// The account that must own the path, by name.
	Owner string `json:"owner,omitempty" zap:"instead=account,on=path_exists"`
	// Whether the size must be above zero (default false).
	NotEmpty *bool `json:"not_empty,omitempty" zap:"instead=bool,on=path_exists"`
	// The command that must exit 0. Takes references.
	Run *Text `json:"run,omitempty" zap:"on=command,required"`
	// A substring stdout must hold.
	Expect *string `json:"expect,omitempty" zap:"instead=expect,on=command"`
}

func (x *Verify) CheckForm() *Finding {
	if len(x.Assertions) == 0 {
		return fieldf("assertions", "lists no assertion")
	}
	for i, a := range x.Assertions {
		if m := a.check(fmt.Sprintf("assertions[%d]", i)); m != nil {
			return m
		}
	}
	return nil
}

// check checks the assertion at the field at.
func (a Assertion) check(at string) *fieldMsg {
	switch a.Type {
	case AssertPathExists:
		if err := checkAbs(a.Path); err != nil {
			return fieldf(at+".path", "%v (no ~, no relative path)", err)
		}
		if a.FileType != "" && !slices.Contains(FileTypes, a.FileType) {
			return fieldf(at+".file_type", "%q is not a file type (want file or directory)", a.FileType)
		}
		if a.Mode != "" && !ValidMode(a.Mode) {
			return fieldf(at+".mode", "%q is not an octal mode of 7777 at most, such as \"644\"", a.Mode)
		}
		if a.Owner != "" && !ValidAccount(a.Owner) {
			return fieldf(at+".owner", "%q is not an account name (a lowercase letter or _, then lowercase letters, digits, _ or -; not a number)", a.Owner)
		}
	case AssertCommand:
		if a.Run == nil {
			return fieldf(at+".run", "required field missing")
		}
		if err := checkCommand(*a.Run); err != nil {
			return fieldf(at+".run", "%v", err)
		}
	}
	return nil
}

func (x *Verify) Clone() Body {
	c := *x
	c.Assertions = cloneEach(x.Assertions, Assertion.clone)
	return &c
}

func (a Assertion) clone() Assertion {
	a.NotEmpty, a.Run, a.Expect = clonePtr(a.NotEmpty), clonePtr(a.Run), clonePtr(a.Expect)
	return a
}

func (x *Verify) Texts(out map[string]Text) {
	for i, a := range x.Assertions {
		if a.Run != nil {
			out[fmt.Sprintf("assertions[%d].run", i)] = *a.Run
		}
	}
}

func (a *Assertion) DecodeField(path string, raw json.RawMessage) error {
	f := strict.NewFields(path, raw)
	f.Req("type", &a.Type)
	switch {
	case f.Err() != nil:
	case a.Type == AssertPathExists:
		f.Req("path", &a.Path)
		f.Opt("file_type", &a.FileType)
		f.Opt("mode", &a.Mode)
		f.Opt("owner", &a.Owner)
		f.Opt("not_empty", &a.NotEmpty)
	case a.Type == AssertCommand:
		strict.ReqNew(f, "run", &a.Run)
		f.Opt("expect", &a.Expect)
	default:
		f.Fail("type", fmt.Errorf("unknown assertion type %q (want path_exists or command)", a.Type))
	}
	return f.Done()
}

// UnmarshalJSON decodes strictly; DecodeField does the work.
func (a *Assertion) UnmarshalJSON(data []byte) error { return a.DecodeField("", data) }

// Describe says what a verify assertion asks for, in the words a plan's #
// line and a drift's desired value use: "path_exists /srv/token (file,
// mode 600, owner app, not empty)", "command test -s /srv/token", `command
// curl -fs https://localhost/ (stdout contains "ok")`. A command reads as
// its first line as written (a reference as {env:NAME}), with " …" when
// more lines follow.
func (a Assertion) Describe() string {
	switch a.Type {
	case AssertPathExists:
		var w []string
		if a.FileType != "" {
			w = append(w, a.FileType)
		}
		if a.Mode != "" {
			w = append(w, "mode "+a.Mode)
		}
		if a.Owner != "" {
			w = append(w, "owner "+a.Owner)
		}
		if a.NotEmpty != nil && *a.NotEmpty {
			w = append(w, "not empty")
		}
		if len(w) == 0 {
			return "path_exists " + a.Path
		}
		return "path_exists " + a.Path + " (" + strings.Join(w, ", ") + ")"
	case AssertCommand:
		run := ""
		if a.Run != nil {
			run = a.Run.String()
		}
		run = strings.TrimRight(run, "\n")
		if i := strings.IndexByte(run, '\n'); i >= 0 {
			run = run[:i] + " …"
		}
		if a.Expect != nil {
			return fmt.Sprintf("command %s (stdout contains %q)", run, *a.Expect)
		}
		return "command " + run
	}
	return string(a.Type)
}
