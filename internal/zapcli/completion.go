package zapcli

import (
	"context"
	"flag"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/exit"
)

// completionCommand is zap completion bash|zsh|fish.
func (a *app) completionCommand(f *flagSets) *ffcli.Command {
	return &ffcli.Command{
		Name:       "completion",
		ShortUsage: "zap completion bash|zsh|fish",
		ShortHelp:  "print a completion script for bash, zsh or fish",
		LongHelp: `Prints a script that completes zap's commands, each command's flags, the
shell zap completion takes and, after a flag that takes a path or where
CONFIG goes, file names. It is written from zap's own commands and flags,
so it is as current as this zap.

  bash  source <(zap completion bash), e.g. in ~/.bashrc
  zsh   source <(zap completion zsh) after compinit, or save it as _zap in
        a directory of $fpath
  fish  zap completion fish > ~/.config/fish/completions/zap.fish

Exit status: 0 printed; 2 no shell or one it doesn't know.`,
		FlagSet: f.plain("zap completion"),
		Exec: func(ctx context.Context, args []string) error {
			if len(args) != 1 {
				return exit.Fail(2, "zap completion takes one shell: bash, zsh or fish", "zap completion bash")
			}
			tree := completionTree()
			var script string
			switch args[0] {
			case "bash":
				script = bashCompletion(tree)
			case "zsh":
				script = zshCompletion(tree)
			case "fish":
				script = fishCompletion(tree)
			default:
				return exit.Fail(2, fmt.Sprintf("zap completion: no script for the shell %q", args[0]), "the shells are bash, zsh and fish")
			}
			_, err := fmt.Fprint(a.stdout, script)
			return err
		},
	}
}

// compCmd is one command of the tree a script completes.
type compCmd struct {
	// path is the command's words after zap ("" for zap itself,
	// "config validate").
	path string
	help string
	subs []*compCmd
	// flags are its flags, by name, with --help.
	flags []compFlag
	// files is a command whose arguments are file names: its usage
	// names CONFIG or DIR.
	files bool
	// args are the words its one argument is chosen from, when its usage
	// spells them a|b|c (zap completion's shells): offered while no
	// argument is typed yet.
	args []string
}

// compFlag is a flag: takesValue marks one that isn't a bool, after which
// the scripts offer file names (most of zap's take a PATH).
type compFlag struct {
	name       string
	help       string
	takesValue bool
}

// completable is a word the scripts can carry unquoted; choices is a
// usage's a|b|c of such words.
var (
	completable = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	choices     = regexp.MustCompile(`^[a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)+$`)
)

// argWords are the words a command's argument is chosen from, as its
// usage spells them (a|b|c); nil for none.
func argWords(usage string) []string {
	for _, f := range strings.Fields(usage) {
		if choices.MatchString(f) {
			return strings.Split(f, "|")
		}
	}
	return nil
}

// completionTree reads the commands and flags off zap's command tree, made
// afresh (on an app of its own, so no flag of this run is touched), in
// zap's order, every command before its subcommands.
func completionTree() []*compCmd {
	scratch := &app{}
	root := &compCmd{subs: nil}
	for _, c := range scratch.commands(&flagSets{a: scratch}) {
		if sub := compOf(c, ""); sub != nil {
			root.subs = append(root.subs, sub)
		}
	}
	root.flags = []compFlag{{name: "help", help: "print zap's commands"}}
	all := []*compCmd{}
	var walk func(c *compCmd)
	walk = func(c *compCmd) {
		all = append(all, c)
		for _, s := range c.subs {
			walk(s)
		}
	}
	walk(root)
	return all
}

// compOf is c, a command under parent's path, with its flags and
// subcommands; nil for a name no script can carry unquoted.
func compOf(c *ffcli.Command, parent string) *compCmd {
	if !completable.MatchString(c.Name) {
		return nil
	}
	path := strings.TrimSpace(parent + " " + c.Name)
	files := len(c.Subcommands) == 0 && (strings.Contains(c.ShortUsage, "CONFIG") || strings.Contains(c.ShortUsage, "DIR"))
	cc := &compCmd{path: path, help: c.ShortHelp, files: files, args: argWords(c.ShortUsage)}
	if words := completionArgs[path]; words != nil {
		cc.args = words()
	}
	if c.FlagSet != nil {
		c.FlagSet.VisitAll(func(f *flag.Flag) {
			if !completable.MatchString(f.Name) {
				return
			}
			_, usage := flag.UnquoteUsage(f)
			b, isBool := f.Value.(interface{ IsBoolFlag() bool })
			cc.flags = append(cc.flags, compFlag{name: f.Name, help: shortHelp(usage), takesValue: !(isBool && b.IsBoolFlag())})
		})
	}
	cc.flags = append(cc.flags, compFlag{name: "help", help: "print the command's help and flags"})
	sort.Slice(cc.flags, func(i, j int) bool { return cc.flags[i].name < cc.flags[j].name })
	for _, s := range c.Subcommands {
		if sub := compOf(s, path); sub != nil {
			cc.subs = append(cc.subs, sub)
		}
	}
	return cc
}

// shortHelp is a flag's usage cut to its first clause, at most 72
// characters (cut at a word), for a completion menu.
func shortHelp(s string) string {
	if i := strings.IndexAny(s, ";("); i > 0 {
		s = s[:i]
	}
	s = strings.TrimRight(strings.TrimSpace(s), ",:")
	if utf8.RuneCountInString(s) > 72 {
		cut := string([]rune(s)[:71])
		if i := strings.LastIndexByte(cut, ' '); i > 0 {
			cut = cut[:i]
		}
		s = strings.TrimRight(cut, " ,:") + "…"
	}
	return s
}

// names are the commands' paths, for a script's case of known paths.
func names(tree []*compCmd) []string {
	var out []string
	for _, c := range tree {
		if c.path != "" {
			out = append(out, c.path)
		}
	}
	return out
}

// flagNames are c's flags as typed (flagName: -j, --name); value those
// taking a value.
func flagNames(c *compCmd) (all, value []string) {
	for _, f := range c.flags {
		all = append(all, flagName(f.name))
		if f.takesValue {
			value = append(value, flagName(f.name))
		}
	}
	return all, value
}

func subNames(c *compCmd) []string {
	var out []string
	for _, s := range c.subs {
		out = append(out, s.path[strings.LastIndex(s.path, " ")+1:])
	}
	return out
}

// shQuote is s in single quotes, for bash and zsh.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// quoteEach is the words, each shQuoted, joined by sep.
func quoteEach(words []string, sep string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shQuote(w)
	}
	return strings.Join(q, sep)
}

const bashHead = `# bash completion for zap, written by zap completion bash from zap's own
# commands and flags. Load it with: source <(zap completion bash)
_zap() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmd="" w i subs="" flags="" values="" args="" past=""
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in -*) continue ;; esac
		case "${cmd:+$cmd }$w" in
		%s) cmd="${cmd:+$cmd }$w" ;;
		*) past=1; break ;;
		esac
	done
	case $cmd in
`

const bashTail = `	esac
	# After a flag that takes a path, and where CONFIG goes, bash's own
	# file name completion (-o default) takes over.
	case " $values " in *" $prev "*) COMPREPLY=(); return ;; esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
	elif [[ -n $subs ]]; then
		COMPREPLY=($(compgen -W "$subs" -- "$cur"))
	elif [[ -n $args && -z $past ]]; then
		COMPREPLY=($(compgen -W "$args" -- "$cur"))
	else
		COMPREPLY=()
	fi
	return 0
}
complete -o default -F _zap zap
`

// bashCompletion is the bash script: _zap finds the command typed so far
// and offers its subcommands, the words of its argument or, after a -, its
// flags.
func bashCompletion(tree []*compCmd) string {
	var b strings.Builder
	fmt.Fprintf(&b, bashHead, quoteEach(names(tree), "|"))
	for _, c := range tree {
		all, value := flagNames(c)
		fmt.Fprintf(&b, "\t%s) subs=%s; flags=%s; values=%s; args=%s ;;\n", shQuote(c.path),
			shQuote(strings.Join(subNames(c), " ")), shQuote(strings.Join(all, " ")), shQuote(strings.Join(value, " ")), shQuote(strings.Join(c.args, " ")))
	}
	b.WriteString(bashTail)
	return b.String()
}

const zshHead = `#compdef zap
# zsh completion for zap, written by zap completion zsh from zap's own
# commands and flags. Load it with source <(zap completion zsh) after
# compinit, or save it as _zap in a directory of $fpath.
_zap() {
	local cmd="" w i past=""
	local -a subs flags values args
	for ((i = 2; i < CURRENT; i++)); do
		w=${words[i]}
		[[ $w == -* ]] && continue
		case "${cmd:+$cmd }$w" in
		(%s) cmd="${cmd:+$cmd }$w" ;;
		(*) past=1; break ;;
		esac
	done
	case $cmd in
`

const zshTail = `	esac
	if (( ${values[(Ie)${words[CURRENT-1]}]} )); then
		_files
	elif [[ $PREFIX == -* ]]; then
		_describe -t flags 'flag' flags
	elif (( $#subs )); then
		_describe -t commands 'command' subs
	elif (( $#args )) && [[ -z $past ]]; then
		_describe -t values 'argument' args
	else
		_files
	fi
}
if [ "$funcstack[1]" = "_zap" ]; then
	_zap "$@"
else
	compdef _zap zap
fi
`

// zshCompletion is the zsh script: the bash one's logic, with each
// command's and flag's help beside it.
func zshCompletion(tree []*compCmd) string {
	var b strings.Builder
	fmt.Fprintf(&b, zshHead, quoteEach(names(tree), "|"))
	for _, c := range tree {
		var subs, flags []string
		for _, s := range c.subs {
			subs = append(subs, s.path[strings.LastIndex(s.path, " ")+1:]+":"+s.help)
		}
		for _, f := range c.flags {
			flags = append(flags, flagName(f.name)+":"+f.help)
		}
		_, value := flagNames(c)
		fmt.Fprintf(&b, "\t(%s) subs=(%s); flags=(%s); values=(%s); args=(%s) ;;\n", shQuote(c.path),
			quoteEach(subs, " "), quoteEach(flags, " "), quoteEach(value, " "), quoteEach(c.args, " "))
	}
	b.WriteString(zshTail)
	return b.String()
}

const fishHead = `# fish completion for zap, written by zap completion fish from zap's own
# commands and flags. Save it as ~/.config/fish/completions/zap.fish.
function __zap_cmd
	set -l cmd ''
	set -l words (commandline -opc)
	set -e words[1]
	for w in $words
		string match -q -- '-*' $w; and continue
		set -l next (string trim -- "$cmd $w")
		if contains -- $next %s
			set cmd $next
		else
			# A word past the command: its argument is typed.
			printf '%%s\n' "=$cmd" +
			return
		end
	end
	echo "=$cmd"
end
function __zap_is
	test (__zap_cmd)[1] = "=$argv[1]"
end
function __zap_bare
	set -l c (__zap_cmd)
	test "$c[1]" = "=$argv[1]"; and test (count $c) -eq 1
end
complete -c zap -f
`

// fishQuote is s in single quotes, for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// fishCompletion is the fish script: a complete line per subcommand and
// per flag, each under the condition that its command is the one typed.
func fishCompletion(tree []*compCmd) string {
	var b strings.Builder
	var paths []string
	for _, p := range names(tree) {
		paths = append(paths, fishQuote(p))
	}
	fmt.Fprintf(&b, fishHead, strings.Join(paths, " "))
	for _, c := range tree {
		cond := fishQuote("__zap_is " + fishQuote(c.path))
		for _, s := range c.subs {
			fmt.Fprintf(&b, "complete -c zap -n %s -a %s -d %s\n", cond, s.path[strings.LastIndex(s.path, " ")+1:], fishQuote(s.help))
		}
		for _, f := range c.flags {
			extra := ""
			if f.takesValue {
				extra = " -r -F"
			}
			// A one-letter flag is typed -j: fish's short option.
			opt := "-l"
			if len(f.name) == 1 {
				opt = "-s"
			}
			fmt.Fprintf(&b, "complete -c zap -n %s %s %s%s -d %s\n", cond, opt, f.name, extra, fishQuote(f.help))
		}
		if c.files {
			fmt.Fprintf(&b, "complete -c zap -n %s -F\n", cond)
		}
		if len(c.args) > 0 {
			fmt.Fprintf(&b, "complete -c zap -n %s -a %s\n", fishQuote("__zap_bare "+fishQuote(c.path)), fishQuote(strings.Join(c.args, " ")))
		}
	}
	return b.String()
}
