package tsgen

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/schema"
	"github.com/zap-go/zap/pkg/declaration"
)

// hookTypes are the TypeScript types of the fields the evaluator reads by a
// hook (zap:"hook=NAME"), with the hand-written declarations they name, as
// types.ts spells them. The evaluator's TestHookForms decodes each form
// these allow and refuses the forms outside them; a change here goes with a
// change there.
var hookTypes = map[string]struct {
	field string
	decls map[string]string
}{
	"sudo": {"Sudo", map[string]string{
		"Sudo": "SudoMode | { mode: SudoMode; commands: string[] } | false",
	}},
	"allow": {"AllowRule[]", map[string]string{
		"AllowRule": "string | { port: number; proto?: " + literals(declaration.Protocols) + " }",
	}},
	"check": {"string", nil},
	"vars": {"Record<string, JsonValue>", map[string]string{
		"JsonValue": "string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }",
	}},
}

// TestHookTypes holds every hooked field's TypeScript type to hookTypes: a
// new hook fails until its type is listed here and its forms in the
// evaluator's TestHookForms.
func TestHookTypes(t *testing.T) {
	lines := strings.Split(typesTS(t), "\n")
	seen := map[string]bool{}
	for _, s := range schema.All() {
		for _, f := range s.Fields {
			if f.Hook == "" {
				continue
			}
			seen[f.Hook] = true
			want, ok := hookTypes[f.Hook]
			if !ok {
				t.Errorf("%v.%s: hook %q has no entry in hookTypes (nor its forms in evaluate's TestHookForms)", s.Type, f.GoName, f.Hook)
				continue
			}
			if got := tsType(f); got != want.field {
				t.Errorf("%v.%s: TypeScript type %s, hookTypes says %s", s.Type, f.GoName, got, want.field)
			}
		}
	}
	for hook, want := range hookTypes {
		if !seen[hook] {
			t.Errorf("hookTypes lists %q, which no field names", hook)
		}
		for name, text := range want.decls {
			if got := aliasText(t, lines, name); got != text {
				t.Errorf("types.ts: %s = %s, hookTypes says %s", name, got, text)
			}
		}
	}
}

// aliasText is the right-hand side of types.ts's export type name = ...;.
func aliasText(t *testing.T, lines []string, name string) string {
	t.Helper()
	start, end, ok := find(lines, name)
	if !ok {
		t.Fatalf("types.ts declares no %s", name)
	}
	for start < end && !strings.HasPrefix(lines[start], "export ") {
		start++
	}
	text := strings.Join(lines[start:end+1], " ")
	_, rhs, _ := strings.Cut(strings.TrimSuffix(text, ";"), "=")
	return normal(rhs)
}

// TestHandWrittenChecked: every struct tsgen leaves to types.ts's hand is
// held to its struct by TestHandWrittenUnions.
func TestHandWrittenChecked(t *testing.T) {
	checked := map[string]bool{}
	for _, c := range handWrittenUnions {
		checked[c.typ.Name()] = true
	}
	for name := range handWritten {
		if !checked[name] {
			t.Errorf("%s is written by hand in types.ts, but TestHandWrittenUnions does not check it", name)
		}
	}
}
