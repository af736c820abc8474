package service

import (
	"strings"

	"github.com/zap-go/zap/internal/ops/opcmd"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/plan"
)

// forms holds, for each service operation and each manager, the commands
// its script runs in order, as the script's text writes them: "$svc"
// stands for the service and "${rl##*/}" for a runlevel. A command's text
// is found in the script with its line continuations joined
// (opcmd.Normalize); a test holds the two to one text.
var forms = map[plan.OpName]map[string][]string{
	OpEnable: {
		vocab.ManagerSystemd: {`systemctl enable -- "$svc"`},
		vocab.ManagerOpenRC:  {`rc-update add "$svc" default`},
	},
	OpDisable: {
		vocab.ManagerSystemd: {`systemctl disable -- "$svc"`},
		vocab.ManagerOpenRC:  {`rc-update del "$svc" "${rl##*/}"`},
	},
	OpStart: {
		vocab.ManagerSystemd: {`systemctl start -- "$svc"`},
		vocab.ManagerOpenRC:  {`rc-service "$svc" start`},
	},
	OpStop: {
		vocab.ManagerSystemd: {`systemctl stop -- "$svc"`},
		vocab.ManagerOpenRC:  {`rc-service "$svc" stop`},
	},
	OpRestart: {
		vocab.ManagerSystemd: {`systemctl daemon-reload`, `systemctl try-restart -- "$svc"`},
		vocab.ManagerOpenRC:  {`rc-service --ifstarted "$svc" restart`},
	},
	OpReload: {
		vocab.ManagerSystemd: {`systemctl daemon-reload`, `systemctl try-reload-or-restart -- "$svc"`},
		vocab.ManagerOpenRC:  {`rc-service --ifstarted "$svc" reload`},
	},
	OpZap: {
		vocab.ManagerOpenRC: {`rc-service "$svc" zap`},
	},
}

// words: a service operation (MANAGER SERVICE) reads as the commands its
// script runs for the manager, joined by "; ", the service one shell word
// (opcmd.Quote), each command under an explicit sudo as root (a plan shows
// every privileged command so, targets.md), else as the account the caller
// names; less the script's own checks of its arguments. svc-disable on
// OpenRC runs its rc-update del once for each runlevel that holds the
// service, which the words say. One with a path, the wrong arguments or a
// manager it has no commands for has no words of its own.
//
//	svc-reload systemd nginx   sudo systemctl daemon-reload; sudo systemctl try-reload-or-restart -- nginx
//	svc-reload openrc httpd    sudo rc-service --ifstarted httpd reload
func words(op *plan.Op) (opcmd.Words, bool) {
	if !op.Path.IsZero() || len(op.Args) != 2 {
		return opcmd.Words{}, false
	}
	cmds, ok := forms[op.Name][op.Args[0]]
	if !ok {
		return opcmd.Words{}, false
	}
	prefix := ""
	if op.Privilege == plan.Root {
		prefix = "sudo "
	}
	repl := strings.NewReplacer(`"$svc"`, opcmd.Quote(op.Args[1]), `"${rl##*/}"`, "RUNLEVEL")
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = prefix + repl.Replace(c)
	}
	text := strings.Join(out, "; ")
	if op.Name == OpDisable && op.Args[0] == vocab.ManagerOpenRC {
		text += ", for each RUNLEVEL that holds it"
	}
	return opcmd.Words{Text: text, As: op.Privilege != plan.Root}, true
}
