package user

import (
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"github.com/zap-go/zap/internal/detect"
	"slices"
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// HomeRoot is the directory every managed account's home is made in: Zap
// manages a user's home as /home/<username>, whatever the distro's default.
const HomeRoot = "/home"

// SudoersDir is where a user's sudoers file is installed, named after the
// account.
const SudoersDir = "/etc/sudoers.d"

// KeysLimit and SudoersLimit are the most of a user's authorized_keys and
// of its sudoers file that is read; a longer file drifts.
const (
	KeysLimit    = 1 << 20
	SudoersLimit = 64 << 10
)

// UserHome is the home Zap manages for the account name.
func UserHome(name string) string { return HomeRoot + "/" + name }

// SudoersPath is the sudoers file of the account name.
func SudoersPath(name string) string { return SudoersDir + "/" + name }

// SudoersText is the sudoers file a grant installs for the account name,
// byte for byte what the user-sudo operation writes: one comment line and
// one rule. A listed command is sudoers text as declared, joined with ", ".
func SudoersText(name string, s *declaration.Sudo) string {
	tag := "NOPASSWD: "
	if s.Mode == "password" {
		tag = "PASSWD: "
	}
	cmds := "ALL"
	if len(s.Commands) > 0 {
		cmds = strings.Join(s.Commands, ", ")
	}
	return "# zap: the sudo grant of " + name + "\n" + name + " ALL=(ALL:ALL) " + tag + cmds + "\n"
}

// AuthorizedKeys is the authorized_keys a keys list writes: each key on a
// line of its own.
func AuthorizedKeys(keys []string) string {
	return strings.Join(keys, "\n") + "\n"
}

// userAccountProbe reads, as the login user, the account's /etc/passwd
// entry (getent, else awk over /etc/passwd), its groups (id -nG) and, when
// HOME is 1, what is at /home/<name> without following a link. It prints
// one line each:
//
//	passwd -|<entry>        no such account, or its passwd line
//	groups <names>          (an existing account)
//	home missing|unsearchable|none|<%f> <%u>
//
// getent exits 2 for no such account; any other failure exits nonzero.
const userAccountProbe = `n=NAME check_home=HOME
who=$n
` + passwdRead + `if [ -n "$pw" ]; then
	printf 'passwd %s\n' "$pw"
	g=$(id -nG "$n") || exit 4
	printf 'groups %s\n' "$g"
else
	echo 'passwd -'
fi
[ "$check_home" = 1 ] || exit 0
h=/home/$n
if [ ! -d /home ]; then
	echo 'home missing'
elif [ ! -x /home ]; then
	echo 'home unsearchable'
elif [ -e "$h" ] || [ -L "$h" ]; then
	st=$(stat -c '%f %u' -- "$h") || exit 5
	printf 'home %s\n' "$st"
else
	echo 'home none'
fi
`

// passwdRead sets pw to the passwd line of the account named $who ("" for
// none): getent's where there is one (which exits 2 for no such account),
// else /etc/passwd's; any other failure exits 3.
const passwdRead = `if command -v getent >/dev/null 2>&1; then
	pw=$(getent passwd "$who")
	rc=$?
	[ "$rc" -eq 0 ] || [ "$rc" -eq 2 ] || exit 3
else
	pw=$(awk -F: -v n="$who" '$1 == n { print; exit }' /etc/passwd) || exit 3
fi
pw=$(printf '%s\n' "$pw" | head -n 1)
`

// userKeysReader reads, as the account it runs as, the authorized_keys in
// the directory $1: "keys link", "keys none", "keys other", "keys
// unreadable", or "keys file" followed by the first KeysLimit+1 bytes.
const userKeysReader = `f=$1/authorized_keys
if [ -L "$f" ]; then echo 'keys link'
elif [ ! -e "$f" ]; then echo 'keys none'
elif [ ! -f "$f" ]; then echo 'keys other'
elif [ ! -r "$f" ]; then echo 'keys unreadable'
else echo 'keys file'; exec head -c LIMIT -- "$f"
fi
`

// userAs is the shell function zap_as USER CMD..., which runs a command as
// the account USER: the one user-keys writes the keys with (ops' shared
// part "as").
var userAs = ops.Part("as")

// userRootProbe reads, as root, an ssh_keys account's /etc/shadow password
// field (classified: star, lock, empty or other; the field itself never
// crosses), what is at /home/<name>/.ssh without following a link, and
// the authorized_keys there read as the account (userKeysReader):
//
//	account none            (no such account: nothing more)
//	shadow star|lock|empty|other|none
//	sshdir none|link|other|<%a> <%u>
//	keys ...                (when sshdir is a directory)
const userRootProbe = `n=NAME
USERAS
if ! id -u "$n" >/dev/null 2>&1; then
	echo 'account none'
	exit 0
fi
f=$(awk -F: -v n="$n" '$1 == n { print $2; found = 1; exit } END { exit !found }' /etc/shadow)
case $? in
0) ;;
1) f=- ;;
*) exit 3 ;;
esac
case $f in
-) echo 'shadow none' ;;
'*') echo 'shadow star' ;;
'') echo 'shadow empty' ;;
'!'*) echo 'shadow lock' ;;
*) echo 'shadow other' ;;
esac
d=/home/$n/.ssh
if [ -L "$d" ]; then
	echo 'sshdir link'
	exit 0
elif [ ! -e "$d" ]; then
	echo 'sshdir none'
	exit 0
elif [ ! -d "$d" ]; then
	echo 'sshdir other'
	exit 0
fi
st=$(stat -c '%a %u' -- "$d") || exit 4
printf 'sshdir %s\n' "$st"
zap_as "$n" sh -c READER sh "$d"
`

// userSourceProbe reads, as root, a copy_from source's authorized_keys:
// found through that account's /etc/passwd home and read as that account
// (userKeysReader): "source none" (no such account), "home <home>", then
// the reader's answer.
const userSourceProbe = `s=NAME
USERAS
who=$s
` + passwdRead + `if [ -z "$pw" ]; then
	echo 'source none'
	exit 0
fi
h=$(printf '%s\n' "$pw" | cut -d: -f6)
printf 'home %s\n' "$h"
zap_as "$s" sh -c READER sh "$h/.ssh"
`

func probeText(tmpl, name string, home bool) string {
	h := "0"
	if home {
		h = "1"
	}
	reader := strings.ReplaceAll(userKeysReader, "LIMIT", strconv.Itoa(KeysLimit+1))
	return strings.NewReplacer("NAME", vocab.Quote(name), "HOME", h, "USERAS", userAs, "READER", vocab.Quote(reader)).Replace(tmpl)
}

// User detects a user account. It is read with up to four queries:
//
//   - login: the account probe (passwd entry, groups, and what is at the
//     home when home_mode or ssh_keys is declared);
//   - root, with ssh_keys: the shadow field, ~/.ssh and authorized_keys;
//   - root, with copy_from: the source's authorized_keys;
//   - elevated, with sudo: the sudoers file, its first SudoersLimit bytes.
type User struct {
	Spec *declaration.User
}

func (u *User) readsHome() bool { return u.Spec.HomeMode != "" || u.Spec.SSHKeys != nil }

func (u *User) copyFrom() string {
	if u.Spec.SSHKeys != nil {
		return u.Spec.SSHKeys.CopyFrom
	}
	return ""
}

// Queries: see User.
func (u *User) Queries() []detect.Query {
	n := u.Spec.Username
	q := []detect.Query{detect.NewProbe(observation.LaneLogin, probeText(userAccountProbe, n, u.readsHome()))}
	if u.Spec.SSHKeys != nil {
		q = append(q, detect.NewProbe(observation.LaneRoot, probeText(userRootProbe, n, false)))
	}
	if src := u.copyFrom(); src != "" {
		q = append(q, detect.NewProbe(observation.LaneRoot, probeText(userSourceProbe, src, false)))
	}
	if u.Spec.Sudo != nil {
		q = append(q, detect.Query{Op: detect.OpContent, Lane: observation.LaneElevated, Path: SudoersPath(n), Limit: SudoersLimit})
	}
	return q
}

// account is what the account probe read.
type account struct {
	exists bool
	uid    string
	home   string
	shell  string
	groups []string
	// at is what is at /home/<name>: "" (not read), "missing" or
	// "unsearchable" (/home), "none", or "ok" with typ, uid and mode.
	at      string
	homeTyp detect.FileType
	homeUID string
	homeMod uint32
}

// probeLines splits a probe's output into its leading "word rest" lines,
// stopping after the line whose word is stop (the rest of the output is
// returned as tail).
func probeLines(out, stop string) (map[string]string, string) {
	m := map[string]string{}
	for out != "" {
		line, rest, _ := strings.Cut(out, "\n")
		word, val, _ := strings.Cut(line, " ")
		m[word] = val
		out = rest
		if word == stop && stop != "" {
			return m, out
		}
	}
	return m, ""
}

func parseAccount(out string, readsHome bool) (account, error) {
	m, _ := probeLines(out, "")
	var a account
	pw, ok := m["passwd"]
	if !ok {
		return a, fmt.Errorf("no passwd line")
	}
	if pw != "-" {
		f := strings.Split(pw, ":")
		if len(f) != 7 {
			return a, fmt.Errorf("a passwd entry of %d fields", len(f))
		}
		a.exists, a.uid, a.home, a.shell = true, f[2], f[5], f[6]
		g, ok := m["groups"]
		if !ok {
			return a, fmt.Errorf("no groups line")
		}
		a.groups = strings.Fields(g)
	}
	if !readsHome {
		return a, nil
	}
	h, ok := m["home"]
	if !ok {
		return a, fmt.Errorf("no home line")
	}
	switch h {
	case "missing", "unsearchable", "none":
		a.at = h
		return a, nil
	}
	f := strings.Fields(h)
	if len(f) != 2 {
		return a, fmt.Errorf("a home line that doesn't parse")
	}
	raw, err := strconv.ParseUint(f[0], 16, 32)
	if err != nil {
		return a, fmt.Errorf("a home mode that doesn't parse")
	}
	a.at, a.homeTyp, a.homeMod, a.homeUID = "ok", modeType(uint32(raw)), uint32(raw)&0o7777, f[1]
	return a, nil
}

// modeType is the file type of a raw st_mode.
func modeType(m uint32) detect.FileType {
	switch m & 0o170000 {
	case 0o100000:
		return detect.TypeRegular
	case 0o040000:
		return detect.TypeDirectory
	case 0o120000:
		return detect.TypeSymlink
	case 0o010000:
		return detect.TypeFIFO
	case 0o140000:
		return detect.TypeSocket
	case 0o020000:
		return detect.TypeCharDev
	case 0o060000:
		return detect.TypeBlockDev
	}
	return detect.TypeOther
}

// keysRead is what a reader said about an authorized_keys: its state
// (link, none, other, unreadable, file) and, for a file, its content.
type keysRead struct {
	state   string
	content string
}

func parseKeys(m map[string]string, tail string) (keysRead, error) {
	k, ok := m["keys"]
	if !ok {
		return keysRead{}, fmt.Errorf("no keys line")
	}
	switch k {
	case "link", "none", "other", "unreadable":
		return keysRead{state: k}, nil
	case "file":
		return keysRead{state: k, content: tail}, nil
	}
	return keysRead{}, fmt.Errorf("a keys line that doesn't parse")
}

// probeAnswer checks a probe's answer: ok with exit 0, or a reason to hold.
func probeAnswer(a detect.Answer, what string) string {
	switch {
	case a.Status == detect.StatusOK && a.Exit == 0:
		return ""
	case a.Status == detect.StatusOK:
		return fmt.Sprintf("reading %s failed (exit %d)", what, a.Exit)
	case a.Status == detect.StatusTimedOut:
		return detect.Problem(a, what, vocab.ProbeTimeout)
	}
	return detect.Problem(a, what, 0)
}

// Verdict: see resources.md ("user") and detection.md. The holds come
// first (a read that failed, a home Zap won't act on); then an account that
// doesn't exist is absent; then each declared attribute is compared.
func (u *User) Verdict(a []detect.Answer) detect.Result {
	qs := u.Queries()
	if len(a) != len(qs) {
		return detect.Holding(fmt.Sprintf("%d answers for the user's %d reads", len(a), len(qs)))
	}
	s := u.Spec
	n := s.Username
	if r := probeAnswer(a[0], "the account "+n); r != "" {
		return detect.Holding(r)
	}
	acct, err := parseAccount(a[0].Output, u.readsHome())
	if err != nil {
		return detect.Holding(fmt.Sprintf("reading the account %s gave output that doesn't parse (%v)", n, err))
	}
	if u.readsHome() {
		if r := u.homeHold(acct); r != "" {
			return detect.Holding(r)
		}
	}
	i := 1
	var root, src *detect.Answer
	if s.SSHKeys != nil {
		root = &a[i]
		i++
		if r := probeAnswer(*root, "the password field and authorized_keys of "+n); r != "" {
			return detect.Holding(r)
		}
	}
	if u.copyFrom() != "" {
		src = &a[i]
		i++
		if r := probeAnswer(*src, "the authorized_keys of "+u.copyFrom()); r != "" {
			return detect.Holding(r)
		}
	}
	var sudoers *detect.Answer
	if s.Sudo != nil {
		sudoers = &a[i]
		switch sudoers.Status {
		case detect.StatusOK, detect.StatusMissing, detect.StatusNotRegular:
			if sudoers.Status == detect.StatusNotRegular && sudoers.Type != detect.TypeSymlink {
				return detect.Holding(fmt.Sprintf("%s is %s, not a regular file: zap replaces only a file or a symbolic link there", SudoersPath(n), sudoers.Type.Describe()))
			}
		case detect.StatusHardLinked:
			return detect.Holding(fmt.Sprintf("%s has %d hard links: replace it with a copy of its own (a single link)", SudoersPath(n), sudoers.Links))
		default:
			return detect.Holding(detect.Problem(*sudoers, SudoersPath(n), 0))
		}
	}
	if !acct.exists {
		return detect.Absent()
	}

	var drift []observation.Difference
	if s.Shell != "" && acct.shell != s.Shell {
		drift = append(drift, observation.Difference{Field: "shell", Observed: acct.shell, Desired: s.Shell})
	}
	if s.HomeMode != "" {
		want, _ := strconv.ParseUint(s.HomeMode, 8, 32)
		if uint32(want) != acct.homeMod {
			drift = append(drift, observation.Difference{Field: "home_mode", Observed: strconv.FormatUint(uint64(acct.homeMod), 8), Desired: s.HomeMode})
		}
	}
	if len(s.Groups) > 0 {
		var lacking []string
		for _, g := range s.Groups {
			if !slices.Contains(acct.groups, g) {
				lacking = append(lacking, g)
			}
		}
		if len(lacking) > 0 {
			drift = append(drift, observation.Difference{Field: "groups", Observed: strings.Join(acct.groups, " "), Desired: "also " + strings.Join(lacking, " ")})
		}
	}
	if root != nil {
		d, reason := u.keysDrift(acct, root.Output, src)
		if reason != "" {
			return detect.Holding(reason)
		}
		drift = append(drift, d...)
	}
	if sudoers != nil {
		if d := sudoDrift(n, s.Sudo, *sudoers); d != nil {
			drift = append(drift, *d)
		}
	}
	if len(drift) > 0 {
		return detect.Drifted(drift)
	}
	return detect.Converged()
}

// homeHold is the reason a user that declares home_mode or ssh_keys holds
// for its home, or "".
func (u *User) homeHold(acct account) string {
	n := u.Spec.Username
	home := UserHome(n)
	if acct.exists && acct.home != home {
		found := "none"
		if acct.home != "" {
			found = acct.home
		}
		return fmt.Sprintf("%s's home in /etc/passwd is %s, not %s: zap manages a user's home as /home/<name>, so its `home_mode` and `ssh_keys` would miss the account's own", n, found, home)
	}
	switch acct.at {
	case "missing":
		return fmt.Sprintf("%s is missing: zap manages a user's home as %s", HomeRoot, home)
	case "unsearchable":
		return fmt.Sprintf("%s can't be searched by the connecting user, so what is at %s can't be read", HomeRoot, home)
	case "none":
		if acct.exists {
			return fmt.Sprintf("%s doesn't exist, and the account %s does: zap makes the home only when it creates the account; make the directory (owned by %s), or declare neither `home_mode` nor `ssh_keys`", home, n, n)
		}
		return ""
	}
	switch acct.homeTyp {
	case detect.TypeDirectory:
	case detect.TypeSymlink:
		return fmt.Sprintf("%s is a symbolic link: zap acts through no link it didn't make, so a home linked elsewhere declares neither `home_mode` nor `ssh_keys`", home)
	default:
		return fmt.Sprintf("%s is %s, not a directory: zap manages a user's home as the directory %s", home, acct.homeTyp.Describe(), home)
	}
	if acct.homeUID == "0" || (acct.exists && acct.homeUID == acct.uid) {
		return ""
	}
	whose := n + " has no account yet"
	if acct.exists {
		whose = n + "'s uid is " + acct.uid
	}
	return fmt.Sprintf("%s is owned by uid %s (%s); chown it to %s, or remove it: zap manages a user's home as the directory %s, the user's own or root's", home, acct.homeUID, whose, n, home)
}

// keysDrift compares ~/.ssh, authorized_keys and the shadow field with the
// declared ssh_keys, or gives a reason to hold.
func (u *User) keysDrift(acct account, out string, src *detect.Answer) ([]observation.Difference, string) {
	n := u.Spec.Username
	m, tail := probeLines(out, "keys")
	if _, ok := m["account"]; ok {
		return nil, fmt.Sprintf("the account %s was there for one read and not for another", n)
	}
	var drift []observation.Difference
	switch m["shadow"] {
	case "star":
	case "lock":
		drift = append(drift, observation.Difference{Field: "password", Observed: "! (locked)", Desired: "* (no password, not locked)"})
	case "empty":
		drift = append(drift, observation.Difference{Field: "password", Observed: "empty (no password needed)", Desired: "* (no password, not locked)"})
	case "other":
		drift = append(drift, observation.Difference{Field: "password", Observed: "a password", Desired: "* (no password, not locked)"})
	case "none":
		return nil, fmt.Sprintf("%s has no entry in /etc/shadow", n)
	default:
		return nil, fmt.Sprintf("reading the password field of %s gave output that doesn't parse", n)
	}
	dir := UserHome(n) + "/.ssh"
	sshdir, ok := m["sshdir"]
	if !ok {
		return nil, fmt.Sprintf("reading %s gave output that doesn't parse", dir)
	}
	desired := u.desiredKeys(src)
	var have keysRead
	switch sshdir {
	case "none":
		have.state = "none"
	case "link":
		// Apply refuses it: nothing is written through a link.
		return append(drift, observation.Difference{Field: "ssh_keys", Observed: dir + " is a symbolic link", Desired: desired.full()}), ""
	case "other":
		return append(drift, observation.Difference{Field: "ssh_keys", Observed: dir + " is not a directory", Desired: desired.full()}), ""
	default:
		f := strings.Fields(sshdir)
		if len(f) != 2 {
			return nil, fmt.Sprintf("reading %s gave output that doesn't parse", dir)
		}
		if f[0] != "700" || f[1] != acct.uid {
			drift = append(drift, observation.Difference{Field: "ssh_dir", Observed: fmt.Sprintf("mode %s, uid %s", f[0], f[1]), Desired: fmt.Sprintf("mode 700, uid %s (%s)", acct.uid, n)})
		}
		var err error
		if have, err = parseKeys(m, tail); err != nil {
			return nil, fmt.Sprintf("reading %s/authorized_keys gave output that doesn't parse (%v)", dir, err)
		}
	}
	if d := keysDiff(have, desired); d != nil {
		drift = append(drift, *d)
	}
	return drift, ""
}

// wantKeys is the authorized_keys a user should have: the content (ok
// false when a copy_from source couldn't be read) and how it is shown.
type wantKeys struct {
	ok      bool
	content string
	shown   string
}

func (u *User) desiredKeys(src *detect.Answer) wantKeys {
	k := u.Spec.SSHKeys
	if k.CopyFrom == "" {
		return wantKeys{ok: true, content: AuthorizedKeys(k.Keys), shown: countKeys(len(k.Keys), "declared key")}
	}
	from := k.CopyFrom + "'s authorized_keys"
	m, tail := probeLines(src.Output, "keys")
	if _, ok := m["source"]; ok {
		return wantKeys{shown: from + " (no such account)"}
	}
	r, err := parseKeys(m, tail)
	switch {
	case err != nil:
		return wantKeys{shown: from + " (its read doesn't parse)"}
	case r.state == "file" && len(r.content) > KeysLimit:
		return wantKeys{shown: from + " (larger than 1 MiB)"}
	case r.state == "file":
		return wantKeys{ok: true, content: r.content, shown: from + ", " + countKeys(keyLines(r.content), "key line")}
	case r.state == "none":
		return wantKeys{shown: from + " (there is none)"}
	}
	return wantKeys{shown: from + " (" + k.CopyFrom + " can't read it)"}
}

// keysDiff compares the authorized_keys read with the desired content,
// surrounding whitespace trimmed. Neither is shown: only counts and a
// digest prefix.
func keysDiff(have keysRead, want wantKeys) *observation.Difference {
	var observed string
	switch have.state {
	case "none":
		observed = "no authorized_keys"
	case "link":
		observed = "authorized_keys is a symbolic link"
	case "other":
		observed = "authorized_keys is not a regular file"
	case "unreadable":
		observed = "authorized_keys can't be read as the user"
	case "file":
		if len(have.content) > KeysLimit {
			observed = "authorized_keys is larger than 1 MiB"
			break
		}
		if want.ok && strings.TrimSpace(have.content) == strings.TrimSpace(want.content) {
			return nil
		}
		observed = countKeys(keyLines(have.content), "key line") + ", sha512 " + shortSum(strings.TrimSpace(have.content))
	}
	return &observation.Difference{Field: "ssh_keys", Observed: observed, Desired: want.full()}
}

// full is how a difference shows the desired keys: with a digest prefix
// when they are known.
func (w wantKeys) full() string {
	if !w.ok {
		return w.shown
	}
	return w.shown + ", sha512 " + shortSum(strings.TrimSpace(w.content))
}

func keyLines(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			n++
		}
	}
	return n
}

func countKeys(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func shortSum(s string) string {
	sum := sha512.Sum512([]byte(s))
	return hex.EncodeToString(sum[:])[:16] + "…"
}

// sudoDrift compares the sudoers file's content with the declared grant,
// both with surrounding whitespace trimmed; a file longer than
// SudoersLimit drifts.
func sudoDrift(name string, s *declaration.Sudo, a detect.Answer) *observation.Difference {
	path := SudoersPath(name)
	if s.Remove {
		switch a.Status {
		case detect.StatusMissing:
			return nil
		case detect.StatusNotRegular:
			return &observation.Difference{Field: "sudo", Observed: path + " is a symbolic link", Desired: "no sudoers file"}
		}
		return &observation.Difference{Field: "sudo", Observed: path + " is there", Desired: "no sudoers file"}
	}
	want := SudoersText(name, s)
	desired := grantShown(s)
	switch a.Status {
	case detect.StatusMissing:
		return &observation.Difference{Field: "sudo", Observed: "no sudoers file", Desired: desired}
	case detect.StatusNotRegular:
		return &observation.Difference{Field: "sudo", Observed: path + " is a symbolic link", Desired: desired}
	}
	if a.Over {
		return &observation.Difference{Field: "sudo", Observed: fmt.Sprintf("%s is longer than %d bytes", path, SudoersLimit), Desired: desired}
	}
	have := strings.TrimSpace(a.Content)
	if have == strings.TrimSpace(want) {
		return nil
	}
	return &observation.Difference{Field: "sudo", Observed: path + " differs (sha512 " + short(sha512Hex(have)) + ")", Desired: desired + " (sha512 " + short(sha512Hex(strings.TrimSpace(want))) + ")"}
}

func short(sum string) string {
	if len(sum) > 16 {
		return sum[:16] + "…"
	}
	return sum
}

func grantShown(s *declaration.Sudo) string {
	if len(s.Commands) == 0 {
		return s.Mode + ", every command"
	}
	return s.Mode + ", " + countKeys(len(s.Commands), "command")
}

func NewUser(u *declaration.User, _ detect.Env) detect.Detector {
	if u.Username == "root" {
		// The structural gate refuses it; never read it all the same.
		return detect.Held("username: zap doesn't manage root")
	}
	return &User{Spec: u}
}

func sha512Hex(s string) string {
	sum := sha512.Sum512([]byte(s))
	return hex.EncodeToString(sum[:])
}
