package render

import (
	"bytes"
	"testing"

	"github.com/zap-go/zap/pkg/observation"
)

const triggerPlan = `{"format":"zap.plan/1","target":{"local":true,"service_manager":"systemd"},
"context":{"target":"local","user":"root","home":"/root"},
"changes":[
 {"id":"site","type":"file","action":"update","resource":{"id":"site","type":"file","path":"/etc/site","triggers":["web"],"content":{"type":"inline","content":"x"}},
  "steps":[{"type":"op","op":{"name":"ledger-mark","args":["nginx","reload"],"privilege":"root"}},{"type":"op","op":{"name":"put","path":"/etc/site","content":"x","sha512":"y","privilege":"elevated"}}]},
 {"id":"web","type":"service","action":"update","resource":{"id":"web","type":"service","service":"nginx","running":true,"reload_on":["site"]},
  "trigger":{"action":"reload","by":["site"],"pending":"reload"},
  "steps":[{"type":"op","op":{"name":"svc-reload","args":["systemd","nginx"],"privilege":"root"}},{"type":"op","op":{"name":"ledger-clear","args":["nginx"],"privilege":"root"}}]}
],
"held":[{"id":"api","type":"service","reason":"systemctl is-active api exited 1"},{"id":"conf","type":"file","triggers":[{"id":"api","action":"restart"}]}],
"warnings":["/var/lib/zap/pending/old owes old a restart"],
"plan_hash":"abc"}`

const wantTriggerPlan = `UNDETERMINED — 1 resource(s) could not be read
  api  service: systemctl is-active api exited 1
  held behind them (1):
    conf  file: would restart the service api, which is held
nothing is planned for them, and converged is not established; the next pass reads them again

warning: /var/lib/zap/pending/old owes old a restart

target: local
user: root
home: /root

[~] site  file
    path: /etc/site
    content: inline, 1 bytes, sha512 a4abd4448c49562d…
    triggers: web
    = sudo ledger-mark nginx reload
    = put /etc/site (mode not managed, as root)
[~] web  service
    service: nginx
    enabled: true
    running: true
    reload_on: site
    trigger: reload if running (fired by site; a pending reload an earlier run owes)
    = sudo systemctl daemon-reload; sudo systemctl try-reload-or-restart -- nginx
    = sudo ledger-clear nginx

Plan: 2 change(s)
plan_hash: abc
`

func TestTriggerPlan(t *testing.T) {
	var b bytes.Buffer
	Plan(&b, readPlan(t, triggerPlan), PlanOptions{Mode: ModePlan})
	if b.String() != wantTriggerPlan {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), wantTriggerPlan)
	}
}

func TestDetectPending(t *testing.T) {
	var b bytes.Buffer
	Pending(&b, []observation.Marker{{Service: "nginx", Action: "reload"}})
	if want := "owed    nginx: a reload an earlier run owes\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
