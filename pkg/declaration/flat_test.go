package declaration

import (
	"encoding/json"
	"strings"
	"testing"
)

// A required list or map left nil is written empty, never null, so that
// what MarshalJSON writes Read accepts; the body itself is left as it is.
func TestMarshalRequiredEmpty(t *testing.T) {
	db := &Database{Engine: "postgresql", DatabaseName: Lit("d"), Username: Lit("u"), Auth: &DatabaseAuth{Method: "md5"}}
	tests := []struct {
		r    Resource
		want string
	}{
		{Resource{Common: Common{ID: "p", Type: KindPipeline}, Body: &Pipeline{}}, `"steps":[]`},
		{Resource{Common: Common{ID: "v", Type: KindVerify}, Body: &Verify{}}, `"assertions":[]`},
		{Resource{Common: Common{ID: "f", Type: KindFirewall}, Body: &Firewall{Backend: "ufw"}}, `"allow":[]`},
		{Resource{Common: Common{ID: "k", Type: KindPackage}, Body: &Package{}}, `"from":{}`},
		{Resource{Common: Common{ID: "d", Type: KindDatabase}, Body: db}, `"auth":{"hosts":[],"method":"md5"}`},
	}
	for _, tt := range tests {
		out, err := json.Marshal(tt.r)
		if err != nil || !strings.Contains(string(out), tt.want) || strings.Contains(string(out), "null") {
			t.Errorf("Marshal(%s) = %s, %v; want it to hold %s", tt.r.ID, out, err, tt.want)
		}
	}
	if db.Auth.Hosts != nil {
		t.Errorf("Marshal changed the body it wrote: hosts %#v", db.Auth.Hosts)
	}
	out, err := json.Marshal(Resource{Common: Common{ID: "u", Type: KindUser}, Body: &User{Username: "u"}})
	if err != nil || string(out) != `{"id":"u","type":"user","username":"u"}` {
		t.Errorf("Marshal of a body with no required list = %s, %v", out, err)
	}
}
