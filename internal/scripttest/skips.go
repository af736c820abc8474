package scripttest

// AcceptedSkip is a test that may skip on the machine .ci/run prepares, run
// as root: make test (internal/scripttest/testreport) fails CI on any skip
// there that isn't one of these. Each is named, with its reason, in
// docs/testing.md (TestAcceptedSkipsAreDocumented).
type AcceptedSkip struct {
	Package string // import path
	Test    string // the test's full name, subtests included
	Why     string
}

// AcceptedSkips are the skips accepted as root in CI.
var AcceptedSkips = []AcceptedSkip{
	{
		Package: "github.com/zap-go/zap/internal/localhost",
		Test:    "TestDigestUnreadable",
		Why:     "root reads a mode 000 file; zap-detect's detect_file_unreadable.txtar covers it as an unprivileged account",
	},
	{
		Package: "github.com/zap-go/zap/internal/localops",
		Test:    "TestPutDeniedDirectoryIsPermission",
		Why:     "root writes into a read-only directory; the test needs an unprivileged uid",
	},
}

// SkipAccepted reports whether the skip of test in pkg is one of
// AcceptedSkips.
func SkipAccepted(pkg, test string) bool {
	for _, a := range AcceptedSkips {
		if a.Package == pkg && a.Test == test {
			return true
		}
	}
	return false
}
