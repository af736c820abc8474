package zapexec

import (
	"bytes"
	"os"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/fetch"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// contentCache is the operator's content cache (cache/files in $ZAP_HOME
// or ~/.zap: flat files each named by the blake3 of its bytes); nil when
// there is no state directory.
func contentCache() *fetch.Cache {
	st, err := state.Open(os.Getenv)
	if err != nil {
		return nil
	}
	return fetch.NewCache(st.ContentCache())
}

// fetcher is what a run fetches remote content with: through the content
// cache, with fetch's default bounds, the system's roots (SSL_CERT_FILE
// honoured) and direct connections. nil without a cache: a step that needs
// fetched bytes then fails, touching nothing.
func fetcher(cache *fetch.Cache) execute.Fetcher {
	if cache == nil {
		return nil
	}
	return fetch.New(cache, fetch.Options{})
}

// planPins are the pins a plan's steps carry, by resource id: what the
// reads before the run compare a remote file against (zap-exec reads no
// zap.lock; the plan is what was reviewed).
func planPins(p *plan.Plan) map[string]string {
	pins := map[string]string{}
	for _, c := range p.Changes {
		for _, s := range c.Steps {
			switch {
			case s.Op != nil && s.Op.From != nil && s.Op.From.Type == declaration.ContentRemote:
				pins[c.ID] = s.Op.From.Blake3
			case s.Op != nil && s.Op.Name == vocab.OpBuild && len(s.Op.Args) == vocab.BuildArgs:
				pins[c.ID] = s.Op.Args[vocab.BuildArgPin]
			}
		}
	}
	return pins
}

// pinEnv sets env's Pin and Remember: the plan's pins, with the SHA-512 the
// content cache holds for them, and read-back bytes remembered there.
func pinEnv(env *detect.Env, pins map[string]string, cache *fetch.Cache) {
	env.Pin = func(r *declaration.Resource, f declaration.Fetched) detect.Pin {
		pin := pins[r.ID]
		if pin == "" {
			pin = f.Blake3
		}
		if pin == "" {
			return detect.Pin{Hold: "the plan carries no pin for it"}
		}
		out := detect.Pin{Blake3: pin}
		if cache != nil {
			if e, err := cache.Open(pin); err == nil {
				out.SHA512 = e.SHA512
				e.Close()
			}
		}
		return out
	}
	if cache != nil {
		env.Remember = func(pin string, data []byte) {
			// Best effort: a cache that can't take them leaves the next
			// pass reading the bytes back again.
			if e, err := cache.Add(bytes.NewReader(data), pin, int64(len(data))); err == nil {
				e.Close()
			}
		}
	}
}
