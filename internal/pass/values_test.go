package pass

import (
	"testing"

	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

func TestBadValues(t *testing.T) {
	d, err := declaration.Read(canonical(t, `{"format":"zap.declaration/1","target":{"local":true},"resources":[
{"id":"s","type":"script","check":"test -e /x","run":{"$text":["echo '",{"$env":"Q"},"'"]},"env":{"E":{"$env":"D"}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"Q": "it's", "D": "a\uFDD0b"}
	res := resolve.Resolve(d, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	p := &plan.Plan{Changes: []plan.Change{{ID: "s", Resource: d.Resources[0]}}}
	bad := BadValues(p, res)
	if len(bad) != 2 || bad[0].String() != "resource s: run: the value of Q holds a single quote, which Zap refuses in a command" ||
		bad[1].Field != "env.E" {
		t.Fatalf("bad values %v", bad)
	}
	env["Q"] = "fine"
	env["D"] = "it's fine in env"
	res = resolve.Resolve(d, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if bad := BadValues(p, res); len(bad) != 0 {
		t.Fatalf("bad values %v", bad)
	}
}
