package declaration

// Kind is a resource's type: the builder method that declared it.
type Kind string

// The resource kinds. Only the kinds listed in Supported are read by this
// version of the stages; the others are named so that their documents keep
// one vocabulary as they arrive.
const (
	KindFile      Kind = "file"
	KindDirectory Kind = "directory"
	KindLink      Kind = "link"
	KindScript    Kind = "script"
)

// Supported lists the kinds this format version carries.
var Supported = []Kind{KindDirectory, KindFile, KindLink, KindScript}

// ContentType selects where a file's content comes from.
type ContentType string

// The content sources.
const (
	ContentInline ContentType = "inline"
)
