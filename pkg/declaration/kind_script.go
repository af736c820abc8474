package declaration

import (
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/zap-go/zap/pkg/canon"
)

// Script is a command guarded by a check: run executes only when check fails.
type Script struct {
	// A command whose exit 0 means the script is already applied. Make it
	// precise: it carries the whole idempotency contract. Takes a reference.
	Check Text `json:"check"`
	// The command run when check fails. Takes a reference.
	Run Text `json:"run"`
	// The working directory of check and run: an absolute path, as written.
	// Takes no reference.
	Cwd string `json:"cwd,omitempty" zap:"instead=script_cwd"`
	// Extra environment for check and run. Values take references and may
	// hold any byte but NUL; names don't begin with __zap_.
	Env map[string]Text `json:"env,omitempty" zap:"instead=varname"`
}

func (x *Script) CheckForm() *Finding {
	if err := checkCommand(x.Check); err != nil {
		return fieldf("check", "%v", err)
	}
	if err := checkCommand(x.Run); err != nil {
		return fieldf("run", "%v", err)
	}
	if x.Cwd != "" {
		if !strings.HasPrefix(x.Cwd, "/") {
			return fieldf("cwd", "must be an absolute path (no ~, no relative path)")
		}
		if err := oneLine(x.Cwd); err != nil {
			return fieldf("cwd", "%v", err)
		}
	}
	return checkEnv(x.Env, "env")
}

func (x *Script) Clone() Body {
	c := *x
	c.Env = maps.Clone(x.Env)
	return &c
}

func (x *Script) Texts(out map[string]Text) {
	out["check"] = x.Check
	out["run"] = x.Run
	for k, v := range x.Env {
		out["env."+k] = v
	}
}

func (x *Script) appendCanonical(b []byte, r *Resource) ([]byte, bool) {
	b = append(b, `{"check":`...)
	b = x.Check.appendCanonical(b)
	if x.Cwd != "" {
		b = member(b, true, "cwd", x.Cwd)
	}
	b = r.dependsOn(b)
	if len(x.Env) > 0 {
		keys := make([]string, 0, len(x.Env))
		for k := range x.Env {
			if !utf8.ValidString(k) {
				// encoding/json writes each invalid byte as \ufffd,
				// which can make two keys one: canon.Marshal decides,
				// spelling the whole resource.
				return nil, false
			}
			keys = append(keys, k)
		}
		slices.SortFunc(keys, cmpKey)
		b = append(b, `,"env":{`...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = canon.AppendString(b, k)
			b = append(b, ':')
			b = x.Env[k].appendCanonical(b)
		}
		b = append(b, '}')
	}
	b = member(b, true, "id", r.ID)
	if r.Name != "" {
		b = member(b, true, "name", r.Name)
	}
	b = append(b, `,"run":`...)
	b = x.Run.appendCanonical(b)
	b = member(b, true, "type", string(r.Type))
	return append(b, '}'), true
}
