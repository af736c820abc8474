package evaluate

import (
	"fmt"

	"github.com/dop251/goja"
)

// envRefHook is the registered symbol under which the global object holds
// the function env_ref (@zap-go/zap/env_ref.ts) calls. Through it a name
// env_ref gives is issued as one zap.env gives is, so its marker reads as a
// reference and not as damage. env_ref needs no builder, so a recipe module
// can make a reference at its top level, before the config's function runs.
const envRefHook = "zap.env_ref"

// installEnvRef defines the hook: a property that can't be written,
// deleted or listed.
func (b *builder) installEnvRef() error {
	issue := b.rt.ToValue(func(call goja.FunctionCall) goja.Value {
		if len(call.Arguments) != 1 {
			b.throw(&Error{Msg: fmt.Sprintf("env_ref takes one variable name, such as env_ref('API_URL'), not %d arguments", len(call.Arguments))})
		}
		name, err := b.name("env_ref", call.Arguments[0])
		if err != nil {
			b.throw(err)
		}
		b.issued[name] = true
		return b.rt.ToValue(marker(name))
	})
	define, err := b.rt.RunString(`(function (f) { Object.defineProperty(globalThis, Symbol.for('` + envRefHook + `'), {value: f}); })`)
	if err != nil {
		return fmt.Errorf("env_ref hook: %w", err)
	}
	fn, _ := goja.AssertFunction(define)
	if _, err := fn(goja.Undefined(), issue); err != nil {
		return fmt.Errorf("env_ref hook: %w", err)
	}
	return nil
}
