package declaration

// Installer is software installed by piping a downloaded script into a shell,
// once.
type Installer struct {
	// The install script's https:// URL.
	URL string `json:"url" zap:"instead=url_fixed"`
	// A path (absolute, or beginning ~ or $HOME) whose existence means the
	// software is installed.
	Check Text `json:"check"`
	// The command the script is piped into (default sh), one line, such as
	// 'bash -s -- --yes'.
	Shell string `json:"shell,omitempty" zap:"instead=installer_shell"`
}

func (x *Installer) CheckForm() *Finding {
	if x.URL == "" {
		return fieldf("url", "is blank")
	}
	if err := oneLine(x.URL); err != nil {
		return fieldf("url", "%v", err)
	}
	if err := CheckURLValue(x.URL, false); err != nil {
		return fieldf("url", "%v", err)
	}
	if err := checkPath(x.Check); err != nil {
		return fieldf("check", "%v", err)
	}
	if x.Shell != "" {
		if err := checkName(x.Shell); err != nil {
			return fieldf("shell", "%v", err)
		}
	}
	return nil
}

func (x *Installer) Clone() Body { return clonePtr(x) }

func (x *Installer) Texts(out map[string]Text) { out["check"] = x.Check }
