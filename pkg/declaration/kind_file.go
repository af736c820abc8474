package declaration

import "slices"

// File is a regular file, written whole.
type File struct {
	// Takes a reference and ~.
	Path Text `json:"path"`
	// Where the file's text comes from, by its type.
	Content Content `json:"content"`
	// The octal mode, such as '644'. A string, not a number.
	Mode string `json:"mode,omitempty" zap:"mode"`
	// The account that owns the file, by name; left as it is when unset.
	Owner string `json:"owner,omitempty" zap:"instead=account"`
	// The file's group, by name; left as it is when unset.
	Group string `json:"group,omitempty" zap:"instead=account"`
	// Ids of services restarted or reloaded (as each declares) when this
	// file changes.
	Triggers []string `json:"triggers,omitempty" zap:"instead=ids"`
	// A command that must exit 0 after the write, such as 'sudo nginx -t';
	// when it fails the old file is put back. Not on remote content.
	Validate *Text `json:"validate,omitempty"`
}

func (x *File) CheckForm() *Finding {
	if err := checkPath(x.Path); err != nil {
		return fieldf("path", "%v", err)
	}
	if m := x.checkContent(); m != nil {
		return m
	}
	if m := checkPerms(x.Mode, x.Owner, x.Group); m != nil {
		return m
	}
	if x.Validate != nil {
		if err := checkCommand(*x.Validate); err != nil {
			return fieldf("validate", "%v", err)
		}
	}
	return nil
}

func (x *File) Clone() Body {
	c := *x
	c.Content = x.Content.clone()
	c.Triggers = slices.Clone(x.Triggers)
	c.Validate = clonePtr(x.Validate)
	return &c
}

func (x *File) Texts(out map[string]Text) {
	out["path"] = x.Path
	if x.Validate != nil {
		out["validate"] = *x.Validate
	}
	c := x.Content
	for k, v := range c.Vars {
		if v.Text != nil {
			out["content.vars."+k] = *v.Text
		}
	}
	for _, p := range []struct {
		name string
		v    *Text
	}{{"content.path", c.Path}, {"content.url", c.URL}, {"content.auth", c.Auth}} {
		if p.v != nil {
			out[p.name] = *p.v
		}
	}
}

func (x *File) managedPath() Text { return x.Path }

func (x *File) credential() *Text { return x.Content.Auth }

func (x *File) credentialField() string { return "content.auth" }

func (x *File) dropCredential() { x.Content.Auth = nil }

func (x *File) needsManager() (field, what string) {
	if len(x.Triggers) > 0 {
		return "triggers", "a trigger"
	}
	return "", ""
}

func (x *File) edges() (after, before []string) { return nil, x.Triggers }

func (x *File) checkTriggers(_ string, byID map[string]*Resource) *fieldMsg {
	for _, t := range x.Triggers {
		target := byID[t]
		if target == nil {
			return fieldf("triggers", "no resource has the id %q", t)
		}
		if BodyOf[*Service](target) == nil {
			return fieldf("triggers", "%q is a %s, and only a service can be triggered", t, target.Type)
		}
		if s := BodyOf[*Service](target); s.Running != nil && !*s.Running {
			return fieldf("triggers", "%q is declared running: false, so a trigger could never act on it", t)
		}
	}
	return nil
}

func (x *File) appendCanonical(b []byte, r *Resource) ([]byte, bool) {
	b = append(b, `{"content":`...)
	b, ok := x.Content.appendCanonical(b)
	if !ok {
		return nil, false
	}
	b = r.dependsOn(b)
	b = r.attrs(b, true, x.Group, x.Mode, x.Owner)
	b = append(b, `,"path":`...)
	b = x.Path.appendCanonical(b)
	if len(x.Triggers) > 0 {
		b = append(b, `,"triggers":`...)
		b = appendStrings(b, x.Triggers)
	}
	b = member(b, true, "type", string(r.Type))
	if x.Validate != nil {
		b = append(b, `,"validate":`...)
		b = x.Validate.appendCanonical(b)
	}
	return append(b, '}'), true
}

// sizeHint is the length of the inline content, escaped.
func (x *File) sizeHint() int {
	if x.Content.Inline == nil {
		return 0
	}
	return len(*x.Content.Inline) * 9 / 8
}
