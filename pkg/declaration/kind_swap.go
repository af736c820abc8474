package declaration

import (
	"strings"
)

// Swap is a swap file, listed in /etc/fstab.
type Swap struct {
	// The size when the file is made, such as '2G'. Not compared later.
	Size string `json:"size" zap:"instead=swap_size"`
	// Absolute, no whitespace, no ~ and no reference (default /swapfile).
	Path string `json:"path,omitempty" zap:"instead=swap_path"`
}

// DefaultSwapPath is the path of a swap that declares none.
const DefaultSwapPath = "/swapfile"

// FilePath is the swap file's path: as declared, else DefaultSwapPath.
func (s *Swap) FilePath() string {
	if s.Path == "" {
		return DefaultSwapPath
	}
	return s.Path
}

var sizePattern = newPattern(`^[0-9]+[KMGT]?$`)

func (x *Swap) CheckForm() *Finding {
	if !sizePattern.MatchString(x.Size) || strings.Trim(x.Size, "0KMGT") == "" {
		return fieldf("size", "%q is not a size above 0, such as '2G'", x.Size)
	}
	if x.Path != "" {
		if err := checkAbs(x.Path); err != nil {
			return fieldf("path", "%v", err)
		}
		if strings.ContainsAny(x.Path, " \t") {
			return fieldf("path", "holds whitespace, which an /etc/fstab field can't")
		}
	}
	return nil
}

func (x *Swap) Clone() Body { return clonePtr(x) }

func (x *Swap) Texts(map[string]Text) {}

func (x *Swap) checkState() *fieldMsg { return statePaths(statePath{"path", Lit(x.Path)}) }

func (x *Swap) manages(string) []managed { return []managed{ownPath("path", Lit(x.FilePath()))} }
