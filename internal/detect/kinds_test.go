package detect

import (
	"fmt"

	"github.com/zap-go/zap/pkg/declaration"
)

// Build makes r's detector as its kind's package (internal/kind/...) does,
// for the tests here, which can't import those packages (they import this
// one). The stages call kinds.Of(r).Detect.
func Build(r *declaration.Resource, env Env) Detector {
	switch r.Type {
	case declaration.KindFile:
		return NewFile(r.File, env)
	case declaration.KindDirectory:
		return NewDirectory(r.Directory, env)
	case declaration.KindLink:
		return NewLink(r.Link, env)
	case declaration.KindScript:
		return NewScript(r.Script, env)
	case declaration.KindPackage:
		return NewPackage(r.Package, env)
	case declaration.KindInstaller:
		return NewInstaller(r.Installer, env)
	case declaration.KindVerify:
		return NewVerify(r.Verify, env)
	case declaration.KindPipeline:
		return Pipeline{}
	case declaration.KindUser:
		return NewUser(r.User, env)
	case declaration.KindService:
		return NewService(r.Service, env)
	case declaration.KindSwap:
		return NewSwap(r.Swap, env)
	case declaration.KindFirewall:
		return NewFirewall(r.Firewall, env)
	}
	return Held(fmt.Sprintf("this zap can't read %s resources yet", r.Type))
}
