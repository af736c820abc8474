package zapeval

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/zap-go/zap/internal/project"
	"github.com/zap-go/zap/internal/testhook"
)

// account is a user the evaluation can be dropped to.
type account struct {
	Uid, Gid uint32
	Name     string
	Home     string
}

// passwd looks an account up by uid in the passwd database.
type passwd func(uid uint32) (account, error)

func lookupPasswd(uid uint32) (account, error) {
	u, err := user.LookupId(strconv.FormatUint(uint64(uid), 10))
	if err != nil {
		return account{}, err
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return account{}, fmt.Errorf("user %s: primary group %q isn't a number", u.Username, u.Gid)
	}
	return account{Uid: uid, Gid: uint32(gid), Name: u.Username, Home: u.HomeDir}, nil
}

// dropTarget decides whom an evaluation started as root runs as (security.md):
// the user who ran sudo when that user owns the project, with SUDO_GID;
// otherwise the project's owner, with the primary group passwd gives. It
// refuses a project root owns, a drop into group 0, a project that is the
// user's home or holds it, and a project the user can't search down to.
func dropTarget(proj *project.Project, getenv func(string) string, lookup passwd) (account, error) {
	fi, err := os.Stat(proj.Root)
	if err != nil {
		return account{}, ownErr(fmt.Errorf("project %s: %w", proj.Root, err))
	}
	owner := project.Owner(fi)
	if owner == 0 {
		return account{}, configErr(
			fmt.Errorf("project %s belongs to root, and zap-eval never evaluates as root: no user who could edit the config is there to run it as", proj.Root),
			"give the project to the user who edits it (chown -R USER "+proj.Root+"), or run zap-eval as that user")
	}
	acct, err := lookup(owner)
	if err != nil {
		return account{}, configErr(fmt.Errorf("project %s belongs to uid %d, which has no passwd entry to run the evaluation as: %w", proj.Root, owner, err))
	}
	if sudo := getenv("SUDO_UID"); sudo != "" && sudo == strconv.FormatUint(uint64(owner), 10) {
		gid, err := strconv.ParseUint(getenv("SUDO_GID"), 10, 32)
		if err != nil {
			return account{}, configErr(fmt.Errorf("SUDO_GID %q is not a group id: the evaluation runs as the user who ran sudo, in the group they ran it with", getenv("SUDO_GID")))
		}
		acct.Gid = uint32(gid)
	}
	if acct.Gid == 0 {
		return account{}, configErr(fmt.Errorf("the evaluation would run as %s in group 0 (root's), which it never does", acct.Name),
			"run zap-eval as "+acct.Name+", or give it a primary group of its own")
	}
	if home, err := filepath.EvalSymlinks(acct.Home); err == nil && project.Within(home, proj.Root) {
		return account{}, configErr(
			fmt.Errorf("project %s is the home directory of %s, who the evaluation runs as, or holds it", proj.Root, acct.Name),
			"put the config in a directory of its own with a package.json, such as ~/infra")
	}
	for d := proj.Root; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return account{}, ownErr(err)
		}
		if !searchable(fi, acct) {
			return account{}, configErr(fmt.Errorf("%s can't search %s, on the way to the project %s", acct.Name, d, proj.Root),
				"let "+acct.Name+" search it (chmod o+x "+d+"), or keep the project where its owner can reach it")
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	return acct, nil
}

// searchable reports whether a, with no supplementary groups, may search
// the directory fi describes.
func searchable(fi os.FileInfo, a account) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	m := fi.Mode().Perm()
	switch {
	case st.Uid == a.Uid:
		return m&0o100 != 0
	case st.Gid == a.Gid:
		return m&0o010 != 0
	}
	return m&0o001 != 0
}

// errDone is a run whose diagnostics the evaluating process wrote.
var errDone = errors.New("done")

// reportCredentials prints, in a zap-eval built for the tests and asked to, whom the evaluation
// runs as: the scripts' proof that it never runs as root.
func reportCredentials(stderr io.Writer) {
	if !testhook.On() || os.Getenv("ZAPEVAL_TEST_CREDENTIALS") == "" {
		return
	}
	groups, _ := syscall.Getgroups()
	fmt.Fprintf(stderr, "credentials: uid %d gid %d groups %v\n", os.Getuid(), os.Getgid(), groups)
}
