package declaration

// Directory is a directory, made with its missing parents.
type Directory struct {
	// Absolute or under ~. Takes a reference.
	Path Text `json:"path"`
	// The octal mode, such as '755'. A string, not a number.
	Mode string `json:"mode,omitempty" zap:"mode"`
	// The owner's account name (not a uid).
	Owner string `json:"owner,omitempty" zap:"instead=account"`
	// The group's name (not a gid).
	Group string `json:"group,omitempty" zap:"instead=account"`
}

func (x *Directory) CheckForm() *Finding {
	if err := checkPath(x.Path); err != nil {
		return fieldf("path", "%v", err)
	}
	return checkPerms(x.Mode, x.Owner, x.Group)
}

func (x *Directory) Clone() Body { return clonePtr(x) }

func (x *Directory) Texts(out map[string]Text) { out["path"] = x.Path }

func (x *Directory) managedPath() Text { return x.Path }

func (x *Directory) appendCanonical(b []byte, r *Resource) ([]byte, bool) {
	b, comma := r.openDependsOn(b)
	b = r.attrs(b, comma, x.Group, x.Mode, x.Owner)
	b = append(b, `,"path":`...)
	b = x.Path.appendCanonical(b)
	b = member(b, true, "type", string(r.Type))
	return append(b, '}'), true
}
