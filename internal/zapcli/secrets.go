package zapcli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/zap-go/zap/internal/envfile"
	"github.com/zap-go/zap/internal/envpass"
	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/secret"
)

// maskedWriter is one of zap's own outputs: everything written through it
// is masked by the Masker the command has, once the config is evaluated
// and its secrets resolved. Before that it passes bytes on as they are:
// nothing zap prints before it knows the secrets comes from them (an env
// file's errors name no value).
type maskedWriter struct {
	mu    sync.Mutex
	under io.Writer
	mw    *mask.Writer // nil until a Masker is set
}

func (w *maskedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	mw := w.mw
	w.mu.Unlock()
	if mw == nil {
		return w.under.Write(p)
	}
	return mw.Write(p)
}

// setMasker flushes what the old Masker held back and masks what follows
// with m.
func (w *maskedWriter) setMasker(m *mask.Masker) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.mw != nil {
		_ = w.mw.Close()
	}
	w.mw = mask.NewWriter(w.under, m)
}

// flush writes the tail the Masker held back (a possible start of a
// secret): before zap waits for an answer, and at exit. Writing after a
// flush starts a new stream.
func (w *maskedWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.mw != nil {
		_ = w.mw.Close()
	}
}

// outputs wraps the app's stdout and stderr in maskedWriters over
// colouring ones (off until useColour), keeping the raw ones for the
// terminal checks. Masking comes first, so it sees the text as rendered.
func (a *app) wrapOutputs() {
	a.rawStdout, a.rawStderr = a.stdout, a.stderr
	a.outColour, a.errColour = render.NewColour(a.stdout), render.NewColour(a.stderr)
	a.outMask = &maskedWriter{under: a.outColour}
	a.errMask = &maskedWriter{under: a.errColour}
	a.stdout, a.stderr = a.outMask, a.errMask
}

// flushOutputs writes what masking and colouring held back.
func (a *app) flushOutputs() {
	if a.outMask != nil {
		a.outMask.flush()
		a.errMask.flush()
		a.outColour.Flush()
		a.errColour.Flush()
	}
}

// maskString masks s with the command's Masker, once there is one.
func (a *app) maskString(s string) string {
	return a.masker.String(s)
}

// useSecrets builds the command's one Masker from the resolved value of
// every secret the declaration references (internal/secret's rule, through
// resolve) and masks every output with it from here on.
func (a *app) useSecrets(res *resolve.Resolution) {
	a.masker = res.Masker()
	if a.outMask != nil {
		a.outMask.setMasker(a.masker)
		a.errMask.setMasker(a.masker)
	}
}

// maskJSON masks one encoded JSON document (an event line) and keeps it
// valid: the bytes masked as text when that is still valid JSON (masking
// only ever replaces text inside strings then), else every string of the
// decoded value masked and the value encoded again.
func maskJSON(m *mask.Masker, line []byte) []byte {
	out := bytes.Clone(m.Bytes(line))
	if bytes.Equal(out, line) || json.Valid(out) {
		return out
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		// Not JSON to begin with: text masking is all there is.
		return out
	}
	enc, err := json.Marshal(maskValue(m, v))
	if err != nil {
		return out
	}
	return enc
}

func maskValue(m *mask.Masker, v any) any {
	switch v := v.(type) {
	case string:
		return m.String(v)
	case []any:
		for i := range v {
			v[i] = maskValue(m, v[i])
		}
		return v
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[m.String(k)] = maskValue(m, e)
		}
		return out
	}
	return v
}

// loadEnvFile reads --env-file into the operator environment before
// anything resolves: a name the file sets takes the file's value over the
// shell's, in every stage's environment too. Its permission warnings print
// once, here.
func (a *app) loadEnvFile() error {
	if a.envFile == "" {
		return nil
	}
	isSecret := func(name, value string) bool {
		s, _ := secret.Classify(name, value, secret.Options{})
		return s
	}
	vars, warns, err := envfile.Load(a.envFile, isSecret)
	if err != nil {
		var pe *envfile.Error
		if errors.As(err, &pe) {
			var hints []string
			if h := pe.Hint(); h != "" {
				hints = append(hints, h)
			}
			return exit.Fail(2, "env file "+escape.Line(pe.Error()), hints...)
		}
		if errors.Is(err, os.ErrNotExist) {
			return exit.Fail(2, fmt.Sprintf("env file %s not found", escape.Line(a.envFile)), "--env-file names a file of NAME=VALUE lines")
		}
		return exit.Fail(2, escape.Line(err.Error()))
	}
	set := make(map[string]string, len(vars))
	kept := vars[:0:0]
	for _, v := range vars {
		if v.Name == "HOME" {
			// ~ and $HOME are the target's home, which locally is the
			// home Zap runs with; an env file doesn't move it.
			fmt.Fprintf(a.stderr, "warning: %s sets HOME, which an env file doesn't set: ~ and $HOME resolve against the home Zap runs with\n", escape.Line(a.envFile))
			continue
		}
		set[v.Name] = v.Value
		kept = append(kept, v)
	}
	vars = kept
	// A variable too long for an environment string, and any past the
	// share of the environment env files get, goes to the stages that
	// resolve references on a descriptor instead (internal/envpass); no
	// process gets it in its environment.
	env := make([]string, 0, len(a.environ)+len(vars))
	for _, kv := range a.environ {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := set[name]; !ok {
			env = append(env, kv)
		}
	}
	small, big := envpass.Split(vars)
	env = append(env, small...)
	a.environ = env
	if a.bigEnv, err = envpass.NewFile(big); err != nil {
		return exit.BadInput(fmt.Errorf("env file %s: %w", escape.Line(a.envFile), err))
	}
	lookup, getenv := a.lookupEnv, a.getenv
	a.lookupEnv = func(name string) (string, bool) {
		if v, ok := set[name]; ok {
			return v, true
		}
		return lookup(name)
	}
	a.getenv = func(name string) string {
		if v, ok := set[name]; ok {
			return v
		}
		return getenv(name)
	}
	for _, w := range warns {
		fmt.Fprintf(a.stderr, "warning: %s\nhint: %s\n", escape.Line(w.String()), escape.Line(w.Hint()))
	}
	return nil
}
