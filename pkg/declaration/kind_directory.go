package declaration

// Directory is a directory with optional managed permissions.
type Directory struct {
	Path  Text   `json:"path"`
	Mode  string `json:"mode,omitempty" zap:"mode"`
	Owner string `json:"owner,omitempty" zap:"instead=account"`
	Group string `json:"group,omitempty" zap:"instead=account"`
}

func (x *Directory) check() *fieldMsg {
	if err := checkPath(x.Path); err != nil {
		return fieldf("path", "%v", err)
	}
	return checkPerms(x.Mode, x.Owner, x.Group)
}

func (x *Directory) clone() spec { return clonePtr(x) }

func (x *Directory) texts(out map[string]Text) { out["path"] = x.Path }

func (x *Directory) managedPath() Text { return x.Path }

func (x *Directory) appendCanonical(b []byte, r *Resource) ([]byte, bool) {
	b, comma := r.openDependsOn(b)
	b = r.attrs(b, comma, x.Group, x.Mode, x.Owner)
	b = append(b, `,"path":`...)
	b = x.Path.appendCanonical(b)
	b = member(b, true, "type", string(r.Type))
	return append(b, '}'), true
}
