package declaration

import "strings"

// AptRepo is an apt repository: its signing key, pinned, and its sources-list
// entry.
type AptRepo struct {
	// Where Zap fetches the signing key (https://). Takes a reference.
	KeyURL Text `json:"key_url"`
	// The key's pin: 64 lowercase hex of the blake3 of its bytes. Without it
	// the pin is tracked in zap.lock.
	KeyBlake3 string `json:"key_blake3,omitempty" zap:"instead=pin"`
	// The deb or deb-src line. It is read by a shell with /etc/os-release
	// sourced, so $VERSION_CODENAME works; signed-by= is added by Zap. Takes
	// no reference.
	Source string `json:"source" zap:"instead=apt_source"`
	// Where the key is stored (default /usr/share/keyrings/<id>.asc).
	KeyPath string `json:"key_path,omitempty" zap:"instead=apt_path"`
	// The .list file (default /etc/apt/sources.list.d/<id>.list).
	ListFile string `json:"list_file,omitempty" zap:"instead=apt_list"`
}

func (x *AptRepo) CheckForm() *Finding {
	if err := checkURL(x.KeyURL, true); err != nil {
		return fieldf("key_url", "%v", err)
	}
	if err := checkBlake3(x.KeyBlake3); err != nil {
		return fieldf("key_blake3", "%v", err)
	}
	if strings.TrimSpace(x.Source) == "" {
		return fieldf("source", "is blank")
	}
	if err := oneLine(x.Source); err != nil {
		return fieldf("source", "%v", err)
	}
	if !strings.HasPrefix(x.Source, "deb ") && !strings.HasPrefix(x.Source, "deb-src ") {
		return fieldf("source", "a source line begins with deb or deb-src")
	}
	for _, f := range []struct{ name, v string }{{"key_path", x.KeyPath}, {"list_file", x.ListFile}} {
		if f.v == "" {
			continue
		}
		if err := checkAbs(f.v); err != nil {
			return fieldf(f.name, "%v", err)
		}
		if strings.ContainsAny(f.v, " \t\"$`\\") {
			return fieldf(f.name, "holds whitespace or one of \", $, a backtick or \\")
		}
	}
	return nil
}

func (x *AptRepo) Clone() Body { return clonePtr(x) }

func (x *AptRepo) Texts(out map[string]Text) { out["key_url"] = x.KeyURL }

func (x *AptRepo) checkState() *fieldMsg {
	return statePaths(statePath{"key_path", Lit(x.KeyPath)}, statePath{"list_file", Lit(x.ListFile)})
}

// Paths are the key's and the list file's paths: as declared, else
// /usr/share/keyrings/<id>.asc and /etc/apt/sources.list.d/<id>.list for
// the resource id.
func (x *AptRepo) Paths(id string) (keyPath, listFile string) {
	keyPath, listFile = x.KeyPath, x.ListFile
	if keyPath == "" {
		keyPath = "/usr/share/keyrings/" + id + ".asc"
	}
	if listFile == "" {
		listFile = "/etc/apt/sources.list.d/" + id + ".list"
	}
	return keyPath, listFile
}

func (x *AptRepo) manages(id string) []managed {
	keyPath, listFile := x.Paths(id)
	return []managed{ownPath("key_path", Lit(keyPath)), ownPath("list_file", Lit(listFile))}
}
