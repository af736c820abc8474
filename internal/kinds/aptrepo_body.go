package kinds

// aptListBody: the source line apt-list writes (its one argument), under
// the step's line: rather than on its = line, as the config supplies it
// and the target's shell expands it. It stays here, beside Body, while
// the apt_repo kind is internal/kinds/aptrepo: a kind's folder can't name
// this package's Body.
func aptListBody(args []string) (Body, bool) {
	if len(args) != 1 {
		return Body{}, false
	}
	return Body{Field: "line", Text: args[0], Args: 1}, true
}
