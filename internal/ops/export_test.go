package ops

// Tarball and SHA512Hex lend the archive helpers of build_test.go to the
// external tests (extract_test.go).
var (
	Tarball   = tarball
	SHA512Hex = sha512Hex
)
