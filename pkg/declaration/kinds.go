package declaration

// Kind is a resource's type: the builder method that declared it, but for
// zap.pkg, whose resources have the type "package".
type Kind string

// The resource kinds.
const (
	KindFile      Kind = "file"
	KindDirectory Kind = "directory"
	KindLink      Kind = "link"
	KindScript    Kind = "script"
	KindPackage   Kind = "package"
	KindAptRepo   Kind = "apt_repo"
	KindInstaller Kind = "installer"
	KindUser      Kind = "user"
	KindService   Kind = "service"
	KindDatabase  Kind = "database"
	KindSwap      Kind = "swap"
	KindFirewall  Kind = "firewall"
	KindVerify    Kind = "verify"
	KindPipeline  Kind = "pipeline"
	KindBuild     Kind = "build"
)

// Supported lists the kinds this format version carries. The stages of this
// version act on file, directory, link and script; zap-detect holds a
// resource of any other kind as undetermined.
var Supported = []Kind{
	KindAptRepo, KindBuild, KindDatabase, KindDirectory, KindFile, KindFirewall,
	KindInstaller, KindLink, KindPackage, KindPipeline, KindScript, KindService,
	KindSwap, KindUser, KindVerify,
}

// ContentType selects where a file's content comes from.
type ContentType string

// The content sources.
const (
	// ContentInline is content written as declared.
	ContentInline ContentType = "inline"
	// ContentTemplate is content made from a {{name}} template.
	ContentTemplate ContentType = "template"
	// ContentSource is content copied from a file already on the target.
	ContentSource ContentType = "source"
	// ContentRemote is content fetched from a URL and pinned by blake3.
	ContentRemote ContentType = "remote"
	// ContentBytes is a project file's bytes, placed as they are: what
	// project_bytes gives.
	ContentBytes ContentType = "bytes"
)

// ExtractType is how fetched bytes are unpacked.
type ExtractType string

// The extract forms.
const (
	ExtractNone  ExtractType = "none"
	ExtractTarXZ ExtractType = "tar.xz"
	ExtractTarGZ ExtractType = "tar.gz"
)

// AssertionType selects what a verify assertion checks.
type AssertionType string

// The assertions.
const (
	// AssertPathExists asserts that a path exists, and optionally its type, mode,
	// owner and non-emptiness (a link is followed).
	AssertPathExists AssertionType = "path_exists"
	// AssertCommand asserts that a command exits 0, optionally printing a
	// substring.
	AssertCommand AssertionType = "command"
)

// The enumerations of the target and the resources, as they are spelled in
// a declaration.
var (
	PackageManagers = []string{"apt", "apk", "pacman", "brew"}
	// ServiceManagers lists the managers a target may declare. launchd
	// parses (resources.md) and has no backend.
	ServiceManagers  = []string{"systemd", "openrc", "launchd"}
	FirewallBackends = []string{"ufw", "nftables"}
	Policies         = []string{"allow", "deny", "reject"}
	Protocols        = []string{"tcp", "udp", "any"}
	SudoModes        = []string{"nopasswd", "password"}
	// DatabaseAuthMethods are the pg_hba.conf methods a database's auth may
	// name: the check refuses any other, and ts/types.ts's
	// DatabaseAuthMethod is generated from this list.
	DatabaseAuthMethods = []string{"scram-sha-256", "md5", "password", "gss", "ident", "pam", "reject"}
	FileTypes           = []string{"file", "directory"}
	// TemplateKinds are the forms a template variable's rendered value can
	// be held to (resources.md, template): domain is a DNS name (letters,
	// digits, . and -), port a number 1 to 65535, word one word of letters,
	// digits and _ . - + : / @, and quoted any text with no ', ", \, $,
	// backtick or line break.
	TemplateKinds = []string{"domain", "port", "word", "quoted"}
)
