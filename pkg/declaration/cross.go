package declaration

// What other stages read of a resource across kinds: its trigger edges,
// the service it manages, the packages it installs, the template it
// renders, the project file its content comes from, what it fetches and where the bytes go. Each is derived here,
// once, from the optional methods a kind's body has; a package outside
// this one and the kinds' folders reads these, never a concrete body
// (internal/kinds, TestBodiesStayInTheirKinds).

// The fields that declare a trigger edge (TriggerEdge.Field).
const (
	FieldTriggers  = "triggers"
	FieldRestartOn = "restart_on"
	FieldReloadOn  = "reload_on"
)

// A TriggerEdge is one trigger a resource declares: a change of From
// triggers To, a service, declared by Field (FieldTriggers on a file,
// naming services; FieldRestartOn or FieldReloadOn on a service, naming
// resources).
type TriggerEdge struct {
	From, To, Field string
}

// A triggerer is a kind whose resources declare trigger edges.
type triggerer interface {
	// triggerEdges lists the edges of the resource with the id self.
	triggerEdges(self string) []TriggerEdge
}

// TriggerEdges lists the trigger edges r declares, in the order its fields
// list them: a file's triggers, a service's restart_on then reload_on.
func (r *Resource) TriggerEdges() []TriggerEdge {
	if t, ok := r.Body.(triggerer); ok {
		return t.triggerEdges(r.ID)
	}
	return nil
}

func (x *File) triggerEdges(self string) []TriggerEdge {
	out := make([]TriggerEdge, 0, len(x.Triggers))
	for _, svc := range x.Triggers {
		out = append(out, TriggerEdge{From: self, To: svc, Field: FieldTriggers})
	}
	return out
}

func (x *Service) triggerEdges(self string) []TriggerEdge {
	out := make([]TriggerEdge, 0, len(x.RestartOn)+len(x.ReloadOn))
	for _, src := range x.RestartOn {
		out = append(out, TriggerEdge{From: src, To: self, Field: FieldRestartOn})
	}
	for _, src := range x.ReloadOn {
		out = append(out, TriggerEdge{From: src, To: self, Field: FieldReloadOn})
	}
	return out
}

// ServiceName returns the name of the service r manages (a service's
// manager knows it by), and whether r is a service.
func (r *Resource) ServiceName() (string, bool) {
	if s, ok := r.Body.(*Service); ok {
		return s.Service, true
	}
	return "", false
}

// PackageNames returns the package r installs by each manager's name for
// it (a package's from), and whether r is a package.
func (r *Resource) PackageNames() (map[string]string, bool) {
	if p, ok := r.Body.(*Package); ok {
		return p.From, true
	}
	return nil, false
}

// Template returns the template content r renders (a file's whose content
// is a template), or nil.
func (r *Resource) Template() *Content {
	if f, ok := r.Body.(*File); ok && f.Content.Template != nil {
		return &f.Content
	}
	return nil
}

// ProjectContent returns the content r reads from a file of the config's
// project (a file's whose content names one), or nil.
func (r *Resource) ProjectContent() *Content {
	if f, ok := r.Body.(*File); ok && f.Content.File != "" {
		return &f.Content
	}
	return nil
}

// WithoutCredential returns r less the credential it fetches with: a copy
// with the credential cleared when it has one, else r itself.
func (r *Resource) WithoutCredential() *Resource {
	if c, ok := r.Body.(credentialKind); !ok || c.credential() == nil {
		return r
	}
	c := r.Clone()
	c.Body.(credentialKind).dropCredential()
	return &c
}

// Assertions returns the assertions r checks (a verify's, one step each),
// or nil.
func (r *Resource) Assertions() []Assertion {
	if v, ok := r.Body.(*Verify); ok {
		return v.Assertions
	}
	return nil
}

// BuildCommand returns the command a build runs on the target and its
// environment, and whether r is a build: zap-exec resolves them before
// the build's step runs.
func (r *Resource) BuildCommand() (run Text, env map[string]Text, ok bool) {
	if b, ok := r.Body.(*Build); ok {
		return b.Run, b.Env, true
	}
	return Text{}, nil, false
}
