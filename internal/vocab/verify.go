package vocab

// ExpectStatus is what a verify's command assertion with an expected text
// exits with when its command exited 0 but didn't print the text
// (the verify kind's AssertionCommand, internal/kinds/verify, wraps it so), and ExpectMissed the line the wrapper
// writes last on stderr then. Neither reaches the user: the failure says
// the text wasn't found. (A command that itself exits 86 reads the same at
// detection: a command's answer carries its status alone.)
const (
	ExpectStatus = 86
	ExpectMissed = "zap: the command exited 0, but its stdout does not contain the expected text"
)
