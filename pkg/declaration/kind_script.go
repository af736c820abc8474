package declaration

import (
	"maps"
	"strings"

	"github.com/zap-go/zap/internal/strict"
)

// Script is a command guarded by an idempotency check.
type Script struct {
	Check Text            `json:"check"`
	Run   Text            `json:"run"`
	Cwd   string          `json:"cwd,omitempty"`
	Env   map[string]Text `json:"env,omitempty"`
}

func (x *Script) decode(f *strict.Fields) {
	f.Req("check", &x.Check)
	f.Req("run", &x.Run)
	f.Opt("cwd", &x.Cwd)
	f.Opt("env", textMapField(&x.Env))
}

func (x *Script) check() *fieldMsg {
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

func (x *Script) flat(c Common) any {
	return struct {
		Common
		*Script
	}{c, x}
}

func (x *Script) clone() spec {
	c := *x
	c.Env = maps.Clone(x.Env)
	return &c
}

func (x *Script) texts(out map[string]Text) {
	out["check"] = x.Check
	out["run"] = x.Run
	for k, v := range x.Env {
		out["env."+k] = v
	}
}
