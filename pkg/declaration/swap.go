package declaration

// DefaultSwapPath is the path of a swap that declares none.
const DefaultSwapPath = "/swapfile"

// FilePath is the swap file's path: as declared, else DefaultSwapPath.
func (s *Swap) FilePath() string {
	if s.Path == "" {
		return DefaultSwapPath
	}
	return s.Path
}
