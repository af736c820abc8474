package declaration

import (
	"slices"
)

// Service is a service of the target's service manager.
type Service struct {
	// The name the manager knows, one word, such as 'nginx'. Takes no
	// reference.
	Service string `json:"service" zap:"instead=service"`
	// Whether it starts at boot (default true).
	Enabled *bool `json:"enabled,omitempty" zap:"instead=bool"`
	// Whether it runs now; left out, runtime state isn't managed.
	Running *bool `json:"running,omitempty" zap:"instead=bool"`
	// Ids whose change restarts the service when it is running.
	RestartOn []string `json:"restart_on,omitempty" zap:"instead=ids"`
	// Ids whose change reloads the service when it is running.
	ReloadOn []string `json:"reload_on,omitempty" zap:"instead=ids"`
}

var serviceNamePattern = newPattern(`^[A-Za-z0-9][A-Za-z0-9_.@:-]*$`)

func (x *Service) CheckForm() *Finding {
	if !serviceNamePattern.MatchString(x.Service) {
		return fieldf("service", "%q is not one word: a letter or digit, then letters, digits and _ . @ : -", x.Service)
	}
	return nil
}

func (x *Service) Clone() Body {
	c := *x
	c.Enabled, c.Running = clonePtr(x.Enabled), clonePtr(x.Running)
	c.RestartOn, c.ReloadOn = slices.Clone(x.RestartOn), slices.Clone(x.ReloadOn)
	return &c
}

func (x *Service) Texts(map[string]Text) {}

func (x *Service) manages(string) []managed {
	return []managed{{"service", "service", x.Service, "the service " + x.Service, false}}
}

func (x *Service) needsManager() (field, what string) { return "", "a service" }

// enabledService is the service, unless declared enabled: false.
func (x *Service) enabledService() string {
	if x.Enabled != nil && !*x.Enabled {
		return ""
	}
	return x.Service
}

func (x *Service) edges() (after, before []string) {
	return slices.Concat(x.RestartOn, x.ReloadOn), nil
}

func (x *Service) checkTriggers(self string, byID map[string]*Resource) *fieldMsg {
	for _, f := range []struct {
		name string
		ids  []string
	}{{"restart_on", x.RestartOn}, {"reload_on", x.ReloadOn}} {
		for _, id := range f.ids {
			if byID[id] == nil {
				return fieldf(f.name, "no resource has the id %q", id)
			}
			if id == self {
				return fieldf(f.name, "a service can't trigger itself")
			}
			if x.Running != nil && !*x.Running {
				return fieldf(f.name, "the service is declared running: false, so a trigger could never act on it")
			}
		}
	}
	return nil
}
