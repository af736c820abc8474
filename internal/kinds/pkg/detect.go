package pkg

import (
	"fmt"
	"strings"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// The package managers' queries (resources.md, package; detection.md, What
// a read can conclude). Each is one of Zap's own commands, run as the login
// user under LC_ALL=C.
//
// dpkgQuery lists every package dpkg's database records, one line each:
// name, architecture, status (db:Status-Abbrev) and version, tab-separated.
// Its text is the same for every apt package of a pass, so the pass runs it
// once (see Pass) and each package's verdict finds its own lines in the
// answer: a 100-package config costs one dpkg-query, not a hundred. dpkg's
// own name match is what the verdict does: a name matches its records for
// every architecture, name:arch only the record for that architecture (so
// tzdata:amd64 never matches the tzdata dpkg records as all, as dpkg-query
// itself won't). dpkg-query exits 0 with its list, also for an empty
// database, and 2 when it can't read the database; any exit but 0 holds.
const dpkgQuery = `dpkg-query -W -f='${Package}\t${Architecture}\t${db:Status-Abbrev}\t${Version}\n'`

// apkQuery is apk's own query for one name as declared: apk info -e parses
// it as a dependency (name, @tag, version operator), as apk add does, and
// exits 0 when an installed package provides it, 1 when none does, and 250
// (or another status) when it can't open its database. apk's match of
// versions, tags and provides (so:, cmd:) is apk's to make, so each apk
// package runs its own query; apk opens its database in milliseconds.
// Its output (the name, when found) is not read: the exit status decides.
const apkQuery = `apk info -e -- NAME`

// Package detects a package through the target's package manager's query,
// or through its declared check.
type Package struct {
	// Manager is the target's package manager (apt or apk) and Name the
	// package's entry for it as declared.
	Manager string
	Name    string
	// CheckPath is a check path, resolved; CheckShown is how a reason
	// names it. CheckCommand is a check command, run as written. At most
	// one of them is set; with neither the manager's query decides.
	CheckPath    string
	CheckShown   string
	CheckCommand string
}

// Queries: the check (a path's type, elevated; a command, login) or the
// manager's query (a probe, login).
func (p *Package) Queries() []detect.Query {
	switch {
	case p.CheckPath != "":
		return []detect.Query{{Op: detect.OpType, Lane: observation.LaneElevated, Path: p.CheckPath}}
	case p.CheckCommand != "":
		return []detect.Query{{Op: detect.OpCommand, Lane: observation.LaneLogin, Command: &detect.Command{Text: p.CheckCommand, Timeout: vocab.CheckTimeout}}}
	}
	return []detect.Query{detect.NewProbe(observation.LaneLogin, PackageQuery(p.Manager, p.Name))}
}

// PackageQuery is the probe text that reads whether name is installed
// through manager (apt or apk); "" for another manager.
func PackageQuery(manager, name string) string {
	switch manager {
	case vocab.ManagerApt:
		return dpkgQuery
	case vocab.ManagerApk:
		return strings.Replace(apkQuery, "NAME", vocab.Quote(name), 1)
	}
	return ""
}

// Verdict: installed is converged and not installed absent, by the check or
// the manager's query; a query that failed (any exit but 0 and 1, none at
// all, output that doesn't parse) holds and never reads absent. A check
// that reads not installed holds when there is no name to install.
func (p *Package) Verdict(a []detect.Answer) detect.Result {
	if len(a) != 1 {
		return detect.Holding(fmt.Sprintf("%d answers for the package's 1 read", len(a)))
	}
	r := a[0]
	installed, res := false, detect.Result{}
	switch {
	case p.CheckPath != "":
		installed, res = p.checkPath(r)
	case p.CheckCommand != "":
		installed, res = p.checkCommand(r)
	default:
		installed, res = p.query(r)
	}
	switch {
	case res.Verdict != "":
		return res
	case installed:
		return detect.Converged()
	case p.Manager != "" && p.Manager != vocab.ManagerApt && p.Manager != vocab.ManagerApk:
		return detect.Holding(fmt.Sprintf("the check reads the package not installed, and this zap has no %s backend to install it with (apt and apk only)", p.Manager))
	case p.Name == "":
		return detect.Holding(p.noName() + ", and the check reads the package not installed: there is nothing to install")
	}
	return detect.Absent()
}

func (p *Package) noName() string {
	if p.Manager == "" {
		return "the target declares no package_manager"
	}
	return "from names no package for " + p.Manager + " (the target's package_manager)"
}

// checkPath: anything at the path (links followed) is installed; nothing
// there, or a path the read can't reach, is not.
func (p *Package) checkPath(r detect.Answer) (bool, detect.Result) {
	switch r.Status {
	case detect.StatusOK:
		return true, detect.Result{}
	case detect.StatusMissing:
		return false, detect.Result{}
	}
	return false, detect.Holding(detect.Problem(r, "the check path "+p.CheckShown, 0))
}

// checkCommand: exit 0 is installed, any other exit not; no exit holds.
func (p *Package) checkCommand(r detect.Answer) (bool, detect.Result) {
	switch r.Status {
	case detect.StatusOK:
		return r.Exit == 0, detect.Result{}
	case detect.StatusTimedOut:
		return false, detect.Holding(fmt.Sprintf("the check timed out after %ds", vocab.CheckTimeout))
	case detect.StatusFailed:
		if r.Detail != "" {
			return false, detect.Holding("the check gave no exit status: " + r.Detail)
		}
		return false, detect.Holding("the check gave no exit status")
	}
	return false, detect.Holding(detect.Problem(r, "the check", vocab.CheckTimeout))
}

// query reads the manager's answer.
func (p *Package) query(r detect.Answer) (bool, detect.Result) {
	what := "dpkg-query"
	if p.Manager == vocab.ManagerApk {
		what = "apk info -e"
	}
	if r.Status != detect.StatusOK {
		return false, detect.Holding(detect.Problem(r, "the package database ("+what+")", vocab.ProbeTimeout))
	}
	switch {
	case p.Manager == vocab.ManagerApk && r.Exit == 0:
		return true, detect.Result{}
	case p.Manager == vocab.ManagerApk && r.Exit == 1:
		return false, detect.Result{}
	case r.Exit != 0:
		return false, detect.Holding(fmt.Sprintf("the package query failed: %s exited %d%s, so whether %s is installed is unknown", what, r.Exit, exitHint(r.Exit), p.Name))
	}
	records, err := ParseDpkgList(r.Output)
	if err != nil {
		return false, detect.Holding("the package query's output doesn't parse: " + err.Error())
	}
	return DpkgInstalled(records, p.Name), detect.Result{}
}

// exitHint explains the statuses a shell gives a command it couldn't run.
func exitHint(code int) string {
	switch code {
	case 127:
		return " (the command was not found)"
	case 126:
		return " (the command could not be run)"
	}
	return ""
}

// DpkgRecord is one line of the dpkg query: a package dpkg's database
// records.
type DpkgRecord struct {
	Package, Architecture, Status, Version string
}

// Installed reports whether the record's status is installed: dpkg's status
// (the second letter of db:Status-Abbrev) is installed, or installed with
// triggers awaited or pending. Its selection doesn't matter, so a package
// held back (hi) is installed; half-installed, unpacked, half-configured,
// and removed with its configuration left (rc) are not.
func (d DpkgRecord) Installed() bool {
	return len(d.Status) >= 2 && strings.ContainsRune("iWt", rune(d.Status[1]))
}

// ParseDpkgList parses the dpkg query's output: one record a line, four
// tab-separated fields. A line of another shape is an error: the answer is
// not read at all.
func ParseDpkgList(out string) ([]DpkgRecord, error) {
	var recs []DpkgRecord
	out = strings.TrimSuffix(out, "\n")
	if out == "" {
		return nil, nil
	}
	for i, line := range strings.Split(out, "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 || f[0] == "" || len(f[2]) != 3 {
			return nil, fmt.Errorf("line %d is not a package record (name, architecture, status, version)", i+1)
		}
		recs = append(recs, DpkgRecord{Package: f[0], Architecture: f[1], Status: f[2], Version: f[3]})
	}
	return recs, nil
}

// AptName is an apt package name taken apart as apt takes it: the
// selector after the last = (a version) or / (a suite), then the
// architecture after the first : of what is left.
type AptName struct {
	Name, Arch, Version, Suite string
}

// ParseAptName splits name (one that passed declaration.ValidPackageName)
// as apt-get reads it.
func ParseAptName(name string) AptName {
	var n AptName
	if i := strings.LastIndexAny(name, "=/"); i >= 0 {
		if name[i] == '=' {
			n.Version = name[i+1:]
		} else {
			n.Suite = name[i+1:]
		}
		name = name[:i]
	}
	n.Name, n.Arch, _ = strings.Cut(name, ":")
	return n
}

// DpkgInstalled reports whether name, an apt name as declared, reads
// installed in records: a record of its package (of its architecture, when
// it names one; at its version, when it names one) is installed. A suite
// only says where apt takes the package from, so it reads installed at any
// version.
func DpkgInstalled(records []DpkgRecord, name string) bool {
	n := ParseAptName(name)
	for _, r := range records {
		if r.Package != n.Name || (n.Arch != "" && r.Architecture != n.Arch) || (n.Version != "" && r.Version != n.Version) {
			continue
		}
		if r.Installed() {
			return true
		}
	}
	return false
}

// NewPackage makes a package's detector: its check when it declares one
// (a path with its references and ~ resolved, or a command as written),
// else the target's package manager's query. A manager with no backend, no
// manager, or no entry for it holds, unless the check decides.
func NewPackage(pk *declaration.Package, env detect.Env) detect.Detector {
	p := &Package{Manager: env.PackageManager}
	if p.Manager != "" {
		p.Name = pk.From[p.Manager]
	}
	if pk.Check != nil {
		if declaration.IsPathCheck(*pk.Check) {
			path, shown, reason := detect.ResolvePath("check", *pk.Check, env)
			if reason != "" {
				return detect.Held(reason)
			}
			p.CheckPath, p.CheckShown = path, shown
		} else {
			p.CheckCommand = pk.Check.String()
		}
		return p
	}
	switch {
	case p.Manager == "":
		return detect.Held(detect.NoManager)
	case p.Manager != vocab.ManagerApt && p.Manager != vocab.ManagerApk:
		return detect.Held(fmt.Sprintf("this zap has no %s backend (apt and apk only), so the package can't be read (give it a check)", p.Manager))
	case p.Name == "":
		return detect.Held(p.noName() + detect.NoEntry)
	}
	if why, ok := declaration.ValidPackageName(p.Manager, p.Name); !ok {
		return detect.Held(fmt.Sprintf("from.%s: %q %s", p.Manager, p.Name, why))
	}
	return p
}
