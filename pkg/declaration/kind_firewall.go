package declaration

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
)

// Firewall is the firewall: default policies and allow rules, which are
// additive.
type Firewall struct {
	// nftables needs an enabled service 'nftables' in the same config.
	Backend string `json:"backend" zap:"instead=backend,enum=ufw|nftables"`
	// The traffic let in, each a port ({port: 53, proto: 'udp'}; proto
	// tcp, udp or any, default tcp) or a ufw application profile by name.
	// Rules not listed are left in place.
	Allow []AllowRule `json:"allow" zap:"hook=allow" ts:"AllowRule[]"`
	// Default 'deny'.
	DefaultIncoming string `json:"default_incoming,omitempty" zap:"instead=enum" ts:"Policy"`
	// Default 'allow'.
	DefaultOutgoing string `json:"default_outgoing,omitempty" zap:"instead=enum" ts:"Policy"`
}

// AllowRule is a named ufw profile (its JSON a string) or a port rule
// ({"port": N, "proto": ...}).
type AllowRule struct {
	Profile string
	Port    int
	Proto   string
}

func (x *Firewall) CheckForm() *Finding {
	if !slices.Contains(FirewallBackends, x.Backend) {
		return fieldf("backend", "%q is not a backend (want ufw or nftables)", x.Backend)
	}
	for _, p := range []struct{ name, v string }{{"default_incoming", x.DefaultIncoming}, {"default_outgoing", x.DefaultOutgoing}} {
		if p.v != "" && !slices.Contains(Policies, p.v) {
			return fieldf(p.name, "%q is not a policy (want allow, deny or reject)", p.v)
		}
	}
	for i, a := range x.Allow {
		at := fmt.Sprintf("allow[%d]", i)
		if a.Port == 0 {
			if err := checkName(a.Profile); err != nil {
				return fieldf(at, "%v", err)
			}
			if x.Backend == "nftables" {
				return fieldf(at, "nftables has no application profiles: write a port rule, such as {port: 22}")
			}
			continue
		}
		if a.Port < 1 || a.Port > 65535 {
			return fieldf(at+".port", "a port is 1 to 65535")
		}
		if a.Proto != "" && !slices.Contains(Protocols, a.Proto) {
			return fieldf(at+".proto", "%q is not a protocol (want tcp, udp or any)", a.Proto)
		}
	}
	return nil
}

func (x *Firewall) Clone() Body {
	c := *x
	c.Allow = slices.Clone(x.Allow)
	return &c
}

func (x *Firewall) Texts(map[string]Text) {}

func (a *AllowRule) DecodeField(path string, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		if err := json.Unmarshal(raw, &a.Profile); err != nil {
			return &canon.PathError{Path: path, Msg: err.Error()}
		}
		return nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return &canon.PathError{Path: path, Msg: `want a profile name or {"port": N, "proto": ...}`}
	}
	f := strict.NewFields(path, raw)
	f.Req("port", &a.Port)
	f.Opt("proto", &a.Proto)
	if f.Err() == nil && a.Port == 0 {
		f.Fail("port", errors.New("a port is 1 to 65535"))
	}
	return f.Done()
}

// UnmarshalJSON decodes strictly; DecodeField does the work.
func (a *AllowRule) UnmarshalJSON(data []byte) error { return a.DecodeField("", data) }

func (a AllowRule) MarshalJSON() ([]byte, error) {
	if a.Port == 0 {
		return json.Marshal(a.Profile)
	}
	return json.Marshal(struct {
		Port  int    `json:"port"`
		Proto string `json:"proto,omitempty"`
	}{a.Port, a.Proto})
}

// manages makes the firewall one a config declares once.
func (x *Firewall) manages(string) []managed {
	return []managed{{what: "firewall", one: true}}
}

// neededService is the nftables service an nftables firewall needs enabled.
func (x *Firewall) neededService() (string, *fieldMsg) {
	if x.Backend != "nftables" {
		return "", nil
	}
	return "nftables", fieldf("backend", "an nftables firewall needs an enabled nftables service in the same config, or it vanishes on reboot: declare zap.service({id: 'nftables', service: 'nftables', enabled: true})")
}
