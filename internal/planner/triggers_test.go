package planner

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// svcRes is a service resource named name, restarted on restart and
// reloaded on reload (nil for none).
func svcRes(id, name string, running *bool, restart, reload []string, deps ...string) declaration.Resource {
	return declaration.Resource{
		Common: declaration.Common{ID: id, Type: declaration.KindService, DependsOn: deps},
		Body:   &declaration.Service{Service: name, Running: running, RestartOn: restart, ReloadOn: reload},
	}
}

// triggering is a file whose triggers name svcs.
func triggering(id, path string, svcs ...string) declaration.Resource {
	r := fileRes(id, path, "x")
	declaration.BodyOf[*declaration.File](&r).Triggers = svcs
	return r
}

func yes() *bool { b := true; return &b }

// on observes es on a target of manager, with the pending markers given.
func on(manager string, pending []observation.Marker, es ...entry) *observation.Observations {
	o := observe(es...)
	o.Declaration.Target.ServiceManager = manager
	o.Pending = pending
	return o
}

// stepLines is each step of c as "name arg arg" (an op) or "# note".
func stepLines(c *plan.Change) []string {
	var out []string
	for _, s := range c.Steps {
		switch {
		case s.Op != nil && len(s.Op.Args) > 0:
			out = append(out, string(s.Op.Name)+" "+strings.Join(s.Op.Args, " "))
		case s.Op != nil:
			out = append(out, string(s.Op.Name)+" "+s.Op.Path.String())
		case s.Note != "":
			out = append(out, "# "+s.Note)
		default:
			out = append(out, "> "+s.Command.Run.String())
		}
	}
	return out
}

func change(t *testing.T, p *plan.Plan, id string) *plan.Change {
	t.Helper()
	for i := range p.Changes {
		if p.Changes[i].ID == id {
			return &p.Changes[i]
		}
	}
	t.Fatalf("no change for %s in %v", id, changeIDs(p))
	return nil
}

func wantSteps(t *testing.T, p *plan.Plan, id string, want ...string) {
	t.Helper()
	if got := stepLines(change(t, p, id)); !slices.Equal(got, want) {
		t.Errorf("%s steps:\n got %q\nwant %q", id, got, want)
	}
}

// A site file that triggers a reload: the marker before the file's put,
// the service after it, its reload (try-, after daemon-reload, in the
// script), then the clear. The service reads converged: the trigger runs
// alone.
func TestTriggerReloadOrder(t *testing.T) {
	p := mustPlan(t, on("systemd", nil,
		converged(svcRes("nginx", "nginx", yes(), nil, []string{"site"})),
		drifted(fileRes("site", "/etc/nginx/sites-enabled/site", "x")),
	))
	if got := changeIDs(p); !slices.Equal(got, []string{"site", "nginx"}) {
		t.Fatalf("order %v", got)
	}
	wantSteps(t, p, "site", "ledger-mark nginx reload", "put /etc/nginx/sites-enabled/site")
	wantSteps(t, p, "nginx", "svc-reload systemd nginx", "ledger-clear nginx")
	c := change(t, p, "nginx")
	if c.Action != plan.Update || len(c.Drift) != 0 || !reflect.DeepEqual(c.Trigger, &plan.Trigger{Action: "reload", By: []string{"site"}}) {
		t.Errorf("nginx change %+v trigger %+v", c, c.Trigger)
	}
	for _, s := range c.Steps {
		if s.Op.Privilege != plan.Root {
			t.Errorf("%s runs as %s", s.Op.Name, s.Op.Privilege)
		}
	}
}

// Ordering follows the trigger edge even when the ids sort the other way,
// and a file's triggers order like restart_on.
func TestTriggerEdgesOrder(t *testing.T) {
	p := mustPlan(t, on("openrc", nil,
		absent(triggering("zz-conf", "/etc/conf", "a-svc")),
		converged(svcRes("a-svc", "httpd", yes(), nil, nil)),
		absent(dirRes("m", "/m")),
	))
	if got := changeIDs(p); !slices.Equal(got, []string{"m", "zz-conf", "a-svc"}) {
		t.Errorf("order %v", got)
	}
	wantSteps(t, p, "zz-conf", "ledger-mark httpd restart", "put /etc/conf")
	wantSteps(t, p, "a-svc", "svc-restart openrc httpd", "ledger-clear httpd")
}

// A restart outranks a reload: from two sources in one plan, from a
// pending restart against a reload fired now, and from a restart fired
// now against a pending reload. The marker the first source writes is the
// stronger action.
func TestTriggerRestartOutranksReload(t *testing.T) {
	svc := svcRes("web", "nginx", yes(), []string{"unit"}, []string{"site"})
	for _, c := range []struct {
		name    string
		pending []observation.Marker
		site    entry
		unit    entry
		want    plan.Trigger
		first   string
		mark    string
	}{
		{"both fire", nil, drifted(fileRes("site", "/site", "x")), drifted(fileRes("unit", "/unit", "x")),
			plan.Trigger{Action: "restart", By: []string{"site", "unit"}}, "site", "ledger-mark nginx restart"},
		{"a pending restart, a reload fired", []observation.Marker{{Service: "nginx", Action: "restart"}}, drifted(fileRes("site", "/site", "x")), converged(fileRes("unit", "/unit", "x")),
			plan.Trigger{Action: "restart", By: []string{"site"}, Pending: "restart"}, "site", "ledger-mark nginx restart"},
		{"a pending reload, a restart fired", []observation.Marker{{Service: "nginx", Action: "reload"}}, converged(fileRes("site", "/site", "x")), absent(fileRes("unit", "/unit", "x")),
			plan.Trigger{Action: "restart", By: []string{"unit"}, Pending: "reload"}, "unit", "ledger-mark nginx restart"},
		{"a pending reload alone", []observation.Marker{{Service: "nginx", Action: "reload"}}, converged(fileRes("site", "/site", "x")), converged(fileRes("unit", "/unit", "x")),
			plan.Trigger{Action: "reload", Pending: "reload"}, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := mustPlan(t, on("systemd", c.pending, converged(svc), c.site, c.unit))
			got := change(t, p, "web")
			if !reflect.DeepEqual(got.Trigger, &c.want) {
				t.Errorf("trigger %+v, want %+v", got.Trigger, c.want)
			}
			wantSteps(t, p, "web", "svc-"+string(c.want.Action)+" systemd nginx", "ledger-clear nginx")
			for _, ch := range p.Changes {
				has := slices.Contains(stepLines(&ch), c.mark)
				if ch.ID == c.first != has && ch.ID != "web" {
					t.Errorf("%s: the marker step present %v, want it only on %q", ch.ID, has, c.first)
				}
			}
		})
	}
}

// A service converged but for its trigger runs the trigger alone; a
// drifted one runs the trigger first (it acts only on a running service,
// so a start after it starts on the new state), then enable and start,
// then the clear. OpenRC zaps a crashed service before starting it.
func TestServiceSteps(t *testing.T) {
	run := svcRes("svc", "httpd", yes(), []string{"conf"}, nil)
	p := mustPlan(t, on("openrc", nil,
		drifted(run, svcDiff("enabled", "disabled", "enabled"), svcDiff("running", "crashed", "running")),
		absent(fileRes("conf", "/etc/conf", "x")),
	))
	wantSteps(t, p, "svc", "svc-restart openrc httpd", "svc-enable openrc httpd", "svc-zap openrc httpd", "svc-start openrc httpd", "ledger-clear httpd")

	p = mustPlan(t, on("systemd", nil, drifted(svcRes("svc", "nginx", yes(), nil, nil), svcDiff("running", "inactive", "running"))))
	wantSteps(t, p, "svc", "svc-start systemd nginx")
	if c := change(t, p, "svc"); c.Trigger != nil {
		t.Errorf("an untriggered service has the trigger %+v", c.Trigger)
	}
	off := false
	s := svcRes("svc", "nginx", &off, nil, nil)
	declaration.BodyOf[*declaration.Service](&s).Enabled = &off
	p = mustPlan(t, on("systemd", nil, drifted(s, svcDiff("enabled", "enabled", "disabled"), svcDiff("running", "running", "stopped"))))
	wantSteps(t, p, "svc", "svc-disable systemd nginx", "svc-stop systemd nginx")

	// A marker an older config left for a service now declared stopped is
	// only cleared: a stopped service owes nothing.
	p = mustPlan(t, on("systemd", []observation.Marker{{Service: "nginx", Action: "restart"}}, drifted(s, svcDiff("running", "running", "stopped"))))
	wantSteps(t, p, "svc", "svc-stop systemd nginx", "ledger-clear nginx")

	// A converged service with no trigger has no change.
	p = mustPlan(t, on("systemd", nil, converged(svcRes("svc", "nginx", yes(), nil, []string{"f"})), converged(fileRes("f", "/f", "x"))))
	if len(p.Changes) != 0 {
		t.Errorf("changes %v", changeIDs(p))
	}

	// launchd: notes, no marker.
	p, err := Plan(on("launchd", nil, drifted(svcRes("svc", "x", yes(), []string{"f"}, nil), svcDiff("running", "stopped", "running")), absent(fileRes("f", "/f", "x"))))
	if err != nil {
		t.Fatal(err)
	}
	wantSteps(t, p, "f", "put /f")
	wantSteps(t, p, "svc", "# this zap has no launchd backend: restart x if it is running by hand", "# this zap has no launchd backend: start x by hand")
}

// A pending marker on a converged service whose sources are converged
// owes its action: the trigger runs alone. A marker for a service no
// resource manages plans nothing (the warning is carried to the plan).
func TestPendingMarkerRefires(t *testing.T) {
	o := on("systemd", []observation.Marker{{Service: "nginx", Action: "reload"}, {Service: "other", Action: "restart"}},
		converged(svcRes("web", "nginx", yes(), nil, []string{"site"})),
		converged(fileRes("site", "/site", "x")),
	)
	o.Warnings = []string{"a warning"}
	p := mustPlan(t, o)
	if got := changeIDs(p); !slices.Equal(got, []string{"web"}) {
		t.Fatalf("changes %v", got)
	}
	wantSteps(t, p, "web", "svc-reload systemd nginx", "ledger-clear nginx")
	if !slices.Equal(p.Warnings, []string{"a warning"}) {
		t.Errorf("warnings %q", p.Warnings)
	}
}

// Holds along trigger edges: forward from a held source to its service,
// in reverse from a held service to each source whose change fires it
// (never along a plain depends_on), repeating; and the owed-marker
// exception.
func TestTriggerHolds(t *testing.T) {
	restartFire := func(id string) []plan.Fire { return []plan.Fire{{ID: id, Action: "restart"}} }
	reloadFire := func(id string) []plan.Fire { return []plan.Fire{{ID: id, Action: "reload"}} }
	for _, tc := range []struct {
		name    string
		pending []observation.Marker
		es      []entry
		changes []string
		held    []plan.Hold
	}{
		{
			name: "a held service holds the source its change fires",
			es: []entry{
				undetermined(svcRes("web", "nginx", yes(), nil, []string{"site"}), "systemctl is-active nginx exited 1"),
				drifted(fileRes("site", "/site", "x")),
				absent(dirRes("plain", "/plain")),
			},
			changes: []string{"plain"},
			held: []plan.Hold{
				{ID: "web", Type: declaration.KindService, Reason: "systemctl is-active nginx exited 1"},
				{ID: "site", Type: declaration.KindFile, Triggers: reloadFire("web")},
			},
		},
		{
			name: "a converged source isn't held by its held service",
			es: []entry{
				undetermined(svcRes("web", "nginx", yes(), []string{"site"}, nil), "r"),
				converged(fileRes("site", "/site", "x")),
			},
			changes: []string{},
			held:    []plan.Hold{{ID: "web", Type: declaration.KindService, Reason: "r"}},
		},
		{
			name: "never along a plain depends_on",
			es: []entry{
				undetermined(svcRes("web", "nginx", yes(), nil, nil, "dir"), "r"),
				absent(dirRes("dir", "/dir")),
			},
			changes: []string{"dir"},
			held:    []plan.Hold{{ID: "web", Type: declaration.KindService, Reason: "r"}},
		},
		{
			name: "a held source holds its service forward, which holds its other sources",
			es: []entry{
				undetermined(fileRes("a", "/a", "x"), "unreadable"),
				drifted(fileRes("b", "/b", "x")),
				converged(triggering("c", "/c", "web")),
				converged(svcRes("web", "nginx", yes(), []string{"a", "b"}, nil)),
				absent(dirRes("d", "/d", "b")),
			},
			changes: []string{},
			held: []plan.Hold{
				{ID: "a", Type: declaration.KindFile, Reason: "unreadable"},
				{ID: "b", Type: declaration.KindFile, Triggers: restartFire("web")},
				{ID: "d", Type: declaration.KindDirectory, WaitsOn: []string{"b"}},
				{ID: "web", Type: declaration.KindService, WaitsOn: []string{"a"}},
			},
		},
		{
			name: "a source that is a service holds its own sources",
			es: []entry{
				undetermined(svcRes("top", "top", yes(), []string{"mid"}, nil), "r"),
				drifted(svcRes("mid", "mid", yes(), nil, []string{"conf"}), svcDiff("running", "inactive", "running")),
				absent(fileRes("conf", "/conf", "x")),
			},
			changes: []string{},
			held: []plan.Hold{
				{ID: "top", Type: declaration.KindService, Reason: "r"},
				{ID: "conf", Type: declaration.KindFile, Triggers: reloadFire("mid")},
				{ID: "mid", Type: declaration.KindService, Triggers: restartFire("top")},
			},
		},
		{
			name:    "the owed-marker exception: an unreadable source doesn't hold the owed action",
			pending: []observation.Marker{{Service: "nginx", Action: "reload"}},
			es: []entry{
				undetermined(fileRes("site", "/site", "x"), "unreadable"),
				converged(svcRes("web", "nginx", yes(), nil, []string{"site"})),
			},
			changes: []string{"web"},
			held:    []plan.Hold{{ID: "site", Type: declaration.KindFile, Reason: "unreadable"}},
		},
		{
			name:    "the exception waits on what the service declares",
			pending: []observation.Marker{{Service: "nginx", Action: "reload"}},
			es: []entry{
				undetermined(fileRes("site", "/site", "x"), "unreadable"),
				undetermined(dirRes("dep", "/dep"), "gone"),
				converged(svcRes("web", "nginx", yes(), nil, []string{"site"}, "dep")),
			},
			changes: []string{},
			held: []plan.Hold{
				{ID: "dep", Type: declaration.KindDirectory, Reason: "gone"},
				{ID: "site", Type: declaration.KindFile, Reason: "unreadable"},
				{ID: "web", Type: declaration.KindService, WaitsOn: []string{"dep"}},
			},
		},
		{
			name:    "a source that changed and is held behind another still holds the service",
			pending: []observation.Marker{{Service: "nginx", Action: "reload"}},
			es: []entry{
				undetermined(dirRes("dir", "/etc/x"), "unreadable"),
				drifted(fileRes("site", "/etc/x/site", "x", "dir")),
				converged(svcRes("web", "nginx", yes(), nil, []string{"site"})),
			},
			changes: []string{},
			held: []plan.Hold{
				{ID: "dir", Type: declaration.KindDirectory, Reason: "unreadable"},
				{ID: "site", Type: declaration.KindFile, WaitsOn: []string{"dir"}, Triggers: reloadFire("web")},
				{ID: "web", Type: declaration.KindService, WaitsOn: []string{"site"}},
			},
		},
		{
			name: "without a marker, an unreadable source doesn't hold a converged service",
			es: []entry{
				undetermined(fileRes("site", "/site", "x"), "unreadable"),
				converged(svcRes("web", "nginx", yes(), nil, []string{"site"})),
			},
			changes: []string{},
			held:    []plan.Hold{{ID: "site", Type: declaration.KindFile, Reason: "unreadable"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustPlan(t, on("systemd", tc.pending, tc.es...))
			if got := changeIDs(p); !slices.Equal(got, tc.changes) {
				t.Errorf("changes %v, want %v", got, tc.changes)
			}
			if !reflect.DeepEqual(p.Held, tc.held) {
				t.Errorf("held\n got %+v\nwant %+v", p.Held, tc.held)
			}
			// No marker is ever written for a held service.
			for _, c := range p.Changes {
				for _, l := range stepLines(&c) {
					if strings.HasPrefix(l, "ledger-mark") {
						for _, h := range p.Held {
							if strings.Contains(l, " "+h.ID+" ") {
								t.Errorf("%s marks the held %s", c.ID, h.ID)
							}
						}
					}
				}
			}
		})
	}
}

// The planner refuses a trigger naming an id nobody declares.
func TestTriggerDangling(t *testing.T) {
	o := on("systemd", nil, converged(svcRes("web", "nginx", yes(), []string{"nope"}, nil)))
	if _, err := Plan(o); err == nil || !strings.Contains(err.Error(), `restart_on: no resource has the id "nope"`) {
		t.Errorf("Plan: %v", err)
	}
}

func svcDiff(field, observed, desired string) observation.Difference {
	return observation.Difference{Field: field, Observed: observed, Desired: desired}
}
