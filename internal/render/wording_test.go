package render

import (
	"testing"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// wordingCase is one operation and the line each caller words it as: a
// report's step line (execute.Summary, run as alice) and a plan's = line
// (OpSummary, on the local target as alice, or over SSH as alice).
type wordingCase struct {
	op     plan.Op
	report string
	plan   string
	// remote words it on a target over SSH (web1) rather than the local
	// one.
	remote bool
}

// wordingCases holds every operation the planner emits (each script in
// internal/ops/scripts), with representative arguments: the forms each
// has its own words for, the arguments that miss them, privileges that
// change the account or the sudo, and arguments a plan escapes.
func wordingCases() []wordingCase {
	lit := declaration.Lit
	text := func(s string) *declaration.Text { t := lit(s); return &t }
	str := func(s string) *string { return &s }
	strip := 1
	key := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop"
	remote := &declaration.Content{Type: declaration.ContentRemote, URL: text("https://example.com/tool.tar.gz"), Blake3: "af1349b9",
		Extract: &declaration.Extract{Type: declaration.ExtractTarGZ, StripComponents: &strip}}
	op := func(name string, p plan.Privilege, args ...string) plan.Op {
		return plan.Op{Name: plan.OpName(name), Args: args, Privilege: p}
	}
	withPath := func(o plan.Op, path string) plan.Op { o.Path = lit(path); return o }
	pg := func(name string, args ...declaration.Text) plan.Op {
		return plan.Op{Name: plan.OpName(name), TextArgs: args, Privilege: plan.Root}
	}
	return []wordingCase{
		{op: plan.Op{Name: "put", Path: lit("~/.config/app.toml"), Mode: "644", Content: str("a = 1\n"), Privilege: plan.Login},
			report: "put ~/.config/app.toml (mode 644, as alice)",
			plan:   "put ~/.config/app.toml (mode 644, as alice)"},
		{op: plan.Op{Name: "put", Path: lit("/etc/nginx/nginx.conf"), Owner: "root", Group: "root", Content: str("x"),
			Validate: text("nginx -t -c {path}"), Privilege: plan.Elevated},
			report: "put /etc/nginx/nginx.conf (owner root, group root, as alice, checked by nginx -t -c {path})",
			plan:   "put /etc/nginx/nginx.conf (mode not managed, owner root, group root, as alice, checked by nginx -t -c {path}, no final newline)"},
		{op: plan.Op{Name: "put", Path: lit("/etc/apt/keyrings/x.asc"), Mode: "644", From: &declaration.Content{Type: declaration.ContentRemote,
			URL: text("https://example.com/key.asc"), Blake3: "af1349b9"}, Privilege: plan.Root},
			report: "put /etc/apt/keyrings/x.asc (mode 644, as root, fetched from https://example.com/key.asc, blake3 af1349b9)",
			plan:   "put /etc/apt/keyrings/x.asc (mode 644, as root, fetched from https://example.com/key.asc, blake3 af1349b9)"},
		{op: plan.Op{Name: "dir", Path: lit("/srv/app"), Mode: "750", Owner: "app", Group: "app", Privilege: plan.Elevated},
			report: "dir /srv/app (mode 750, owner app, group app, as alice)",
			plan:   "dir /srv/app (mode 750, owner app, group app, as alice)"},
		{op: plan.Op{Name: "link", Path: lit("/srv/app/current"), Target: text("/srv/app/releases/v1"), Privilege: plan.Login},
			report: "link /srv/app/current -> /srv/app/releases/v1 (as alice)",
			plan:   "link /srv/app/current -> /srv/app/releases/v1 (as alice)"},
		{op: plan.Op{Name: "link", Path: lit("/srv/app/current"), Privilege: plan.Login},
			report: "link /srv/app/current ->  (as alice)",
			plan:   "link /srv/app/current ->  (as alice)"},
		{op: plan.Op{Name: "extract", Path: lit("/opt/tool"), Mode: "755", From: remote, Privilege: plan.Elevated},
			report: "extract /opt/tool (mode 755, as alice, fetched from https://example.com/tool.tar.gz, blake3 af1349b9, tar.gz, strip_components 1)",
			plan:   "extract /opt/tool (mode 755, as alice, fetched from https://example.com/tool.tar.gz, blake3 af1349b9, tar.gz, strip_components 1)"},
		{op: withPath(op("read", plan.Root), "/etc/app/secret"),
			report: "sudo read /etc/app/secret",
			plan:   "sudo read /etc/app/secret"},
		{op: plan.Op{Name: "put-stream", Path: lit("/usr/local/bin/tool"), Mode: "755", From: remote, Privilege: plan.Root},
			report: "sudo put-stream /usr/local/bin/tool",
			plan:   "sudo put-stream /usr/local/bin/tool"},
		{op: op("user-account", plan.Root, "deploy", "/bin/bash"),
			report: "sudo user-account deploy /bin/bash",
			plan:   "sudo user-account deploy /bin/bash"},
		{op: op("user-home", plan.Root, "deploy", "750"),
			report: "sudo user-home deploy 750",
			plan:   "sudo user-home deploy 750"},
		{op: op("user-groups", plan.Root, "deploy", "docker", "adm"),
			report: "sudo user-groups deploy docker adm",
			plan:   "sudo user-groups deploy docker adm"},
		{op: op("user-keys", plan.Root, "deploy", "keys", key, "ssh-rsa AAAAB3Nza ops"),
			report: "sudo user-keys deploy keys ssh-ed25519 …h2l9GKJl alice@laptop, ssh-rsa AAAAB3Nza ops",
			plan:   "sudo user-keys deploy keys ssh-ed25519 …h2l9GKJl alice@laptop, ssh-rsa AAAAB3Nza ops"},
		{op: op("user-keys", plan.Login, "deploy", "keys", "ssh-ed25519 AAAA bell\a\xff"),
			report: "user-keys deploy keys ssh-ed25519 AAAA bell\a\xff (as alice)",
			plan:   "user-keys deploy keys ssh-ed25519 AAAA bell<U+0007><U+FFFD> (as alice)"},
		{op: op("user-keys", plan.Root, "deploy", "copy_from", "root"),
			report: "sudo user-keys deploy copy_from root",
			plan:   "sudo user-keys deploy copy_from root"},
		{op: op("user-keys", plan.Root, "deploy", "keys"),
			report: "sudo user-keys deploy keys",
			plan:   "sudo user-keys deploy keys"},
		{op: op("user-sudo", plan.Root, "deploy", "nopasswd", "/usr/bin/systemctl restart app"),
			report: "sudo user-sudo deploy nopasswd /usr/bin/systemctl restart app",
			plan:   "sudo user-sudo deploy nopasswd /usr/bin/systemctl restart app"},
		{op: op("user-sudo", plan.Root, "deploy", "remove"),
			report: "sudo user-sudo deploy remove",
			plan:   "sudo user-sudo deploy remove"},
		{op: op("swap-make", plan.Root, "/swapfile", "1G"),
			report: "sudo swap-make /swapfile 1G",
			plan:   "sudo swap-make /swapfile 1G"},
		{op: op("swap-on", plan.Root, "/swapfile"),
			report: "sudo swap-on /swapfile",
			plan:   "sudo swap-on /swapfile"},
		{op: op("swap-fstab", plan.Root, "/swapfile"),
			report: "sudo swap-fstab /swapfile",
			plan:   "sudo swap-fstab /swapfile"},
		{op: pg("pg-database", lit("app"), declaration.Ref("DB_OWNER")),
			report: "pg database app, owned by the role {env:DB_OWNER} (as postgres)",
			plan:   "pg database app, owned by the role {env:DB_OWNER} (as postgres)"},
		{op: pg("pg-hba", lit("app"), lit("app"), lit("127.0.0.1/32"), lit("scram-sha-256")),
			report: "pg_hba rule: host app app 127.0.0.1/32 scram-sha-256 (as postgres)",
			plan:   "pg_hba rule: host app app 127.0.0.1/32 scram-sha-256 (as postgres)"},
		{op: pg("pg-database", lit("ap\tp\x1b"), lit("own\xe2")),
			report: "pg database ap\tp\x1b, owned by the role own\xe2 (as postgres)",
			plan:   "pg database ap    p<U+001B>, owned by the role own<U+FFFD> (as postgres)"},
		{op: pg("pg-database", lit("app")),
			report: "sudo pg-database app",
			plan:   "sudo pg-database app"},
		{op: pg("pg-hba", lit("app"), lit("app")),
			report: "sudo pg-hba app app",
			plan:   "sudo pg-hba app app"},
		{op: op("pg-database", plan.Root, "app", "app"),
			report: "pg database app, owned by the role app (as postgres)",
			plan:   "pg database app, owned by the role app (as postgres)"},
		{op: op("installer", plan.Login, "https://sh.rustup.rs", "sh -s -- -y"),
			report: "run the script fetched from https://sh.rustup.rs (piped to sh -s -- -y)",
			plan:   "run the script fetched from https://sh.rustup.rs (piped to sh -s -- -y)"},
		{op: op("installer", plan.Root, "https://example.com/\x1b[2J", "sh\t-s"),
			report: "run the script fetched from https://example.com/\x1b[2J (piped to sh\t-s)",
			plan:   "run the script fetched from https://example.com/<U+001B>[2J (piped to sh    -s)"},
		{op: op("installer", plan.Login, "https://sh.rustup.rs"),
			report: "installer https://sh.rustup.rs (as alice)",
			plan:   "installer https://sh.rustup.rs (as alice)"},
		{op: op("apt-source", plan.Login, "deb [signed-by=/etc/apt/keyrings/x.asc] https://example.com/debian $VERSION_CODENAME main"),
			report: "apt-source deb [signed-by=/etc/apt/keyrings/x.asc] https://example.com/debian $VERSION_CODENAME main (as alice)",
			plan:   "apt-source deb [signed-by=/etc/apt/keyrings/x.asc] https://example.com/debian $VERSION_CODENAME main (as alice)"},
		{op: withPath(op("apt-list", plan.Root, "deb https://example.com/debian bookworm main"), "/etc/apt/sources.list.d/x.list"),
			report: "sudo apt-list /etc/apt/sources.list.d/x.list deb https://example.com/debian bookworm main",
			plan:   "sudo apt-list /etc/apt/sources.list.d/x.list"},
		{op: withPath(op("build", plan.Login, "af1349b9", "tar.gz", "1", ".", "tool.tar.gz"), "/opt/tool/bin/tool"),
			report: "build /opt/tool/bin/tool af1349b9 tar.gz 1 . tool.tar.gz (as alice)",
			plan:   "build /opt/tool/bin/tool af1349b9 tar.gz 1 . tool.tar.gz (as alice)"},
		{op: op("verify-path", plan.Login, "/srv/token", "file", "600", "", ""),
			report: "path_exists /srv/token (file, mode 600)",
			plan:   "verify-path /srv/token file 600   (as alice)"},
		{op: op("verify-path", plan.Login, "/srv/bin/tool", "", "", "zaptest", "not_empty"),
			report: "path_exists /srv/bin/tool (owner zaptest, not empty)",
			plan:   "verify-path /srv/bin/tool   zaptest not_empty (as alice)"},
		{op: op("verify-path", plan.Login, "/srv/token", "file"),
			report: "verify-path /srv/token file (as alice)",
			plan:   "verify-path /srv/token file (as alice)"},
		{op: op("svc-enable", plan.Root, "systemd", "chrony"),
			report: "sudo systemctl enable -- chrony",
			plan:   "sudo systemctl enable -- chrony"},
		{op: op("svc-enable", plan.Login, "systemd", "chrony"),
			report: "systemctl enable -- chrony (as alice)",
			plan:   "systemctl enable -- chrony (as alice)"},
		{op: withPath(op("svc-enable", plan.Root, "systemd", "chrony"), "/etc/chrony"),
			report: "sudo svc-enable /etc/chrony systemd chrony",
			plan:   "sudo svc-enable /etc/chrony systemd chrony"},
		{op: op("svc-disable", plan.Root, "openrc", "httpd"),
			report: "sudo rc-update del httpd RUNLEVEL, for each RUNLEVEL that holds it",
			plan:   "sudo rc-update del httpd RUNLEVEL, for each RUNLEVEL that holds it"},
		{op: op("svc-disable", plan.Elevated, "openrc", "httpd"),
			report: "rc-update del httpd RUNLEVEL, for each RUNLEVEL that holds it (as alice)",
			plan:   "rc-update del httpd RUNLEVEL, for each RUNLEVEL that holds it (as alice)"},
		{op: op("svc-start", plan.Root, "systemd", "it's\x1b"),
			report: "sudo systemctl start -- 'it'\\''s\x1b'",
			plan:   "sudo systemctl start -- 'it'\\''s<U+001B>'"},
		{op: op("svc-stop", plan.Root, "openrc", "httpd"),
			report: "sudo rc-service httpd stop",
			plan:   "sudo rc-service httpd stop"},
		{op: op("svc-restart", plan.Root, "systemd", "nginx"),
			report: "sudo systemctl daemon-reload; sudo systemctl try-restart -- nginx",
			plan:   "sudo systemctl daemon-reload; sudo systemctl try-restart -- nginx"},
		{op: op("svc-reload", plan.Root, "systemd", "nginx"),
			report: "sudo systemctl daemon-reload; sudo systemctl try-reload-or-restart -- nginx",
			plan:   "sudo systemctl daemon-reload; sudo systemctl try-reload-or-restart -- nginx"},
		{op: op("svc-reload", plan.Root, "openrc", "httpd"),
			report: "sudo rc-service --ifstarted httpd reload",
			plan:   "sudo rc-service --ifstarted httpd reload"},
		{op: op("svc-zap", plan.Root, "openrc", "httpd"),
			report: "sudo rc-service httpd zap",
			plan:   "sudo rc-service httpd zap"},
		{op: op("svc-zap", plan.Root, "systemd", "httpd"),
			report: "sudo svc-zap systemd httpd",
			plan:   "sudo svc-zap systemd httpd"},
		{op: op("svc-start", plan.Root, "systemd"),
			report: "sudo svc-start systemd",
			plan:   "sudo svc-start systemd"},
		{op: op("ledger-mark", plan.Root, "nginx", "restart"),
			report: "sudo ledger-mark nginx restart",
			plan:   "sudo ledger-mark nginx restart"},
		{op: op("ledger-clear", plan.Root, "nginx"),
			report: "sudo ledger-clear nginx",
			plan:   "sudo ledger-clear nginx"},
		{op: op("firewall-ufw-allow", plan.Root, "OpenSSH"),
			report: "sudo ufw allow OpenSSH",
			plan:   "sudo ufw allow OpenSSH"},
		{op: op("firewall-ufw-allow", plan.Root, "Nginx Full"),
			report: "sudo ufw allow 'Nginx Full'",
			plan:   "sudo ufw allow 'Nginx Full'"},
		{op: op("firewall-ufw-default", plan.Root, "incoming", "deny"),
			report: "sudo ufw default deny incoming",
			plan:   "sudo ufw default deny incoming"},
		{op: op("firewall-ufw-enable", plan.Root),
			report: "sudo ufw --force enable",
			plan:   "sudo ufw --force enable"},
		{op: op("firewall-ufw-enable", plan.Root, "now"),
			report: "sudo firewall-ufw-enable now",
			plan:   "sudo firewall-ufw-enable now"},
		{op: op("firewall-nft-apply", plan.Root, "drop", "accept", "tcp dport 22 accept"),
			report: "sudo firewall-nft-apply drop accept tcp dport 22 accept",
			plan:   "sudo firewall-nft-apply drop accept tcp dport 22 accept"},
		{op: op("pkg-update-apt", plan.Root),
			report: "sudo apt-get update -q -o DPkg::Lock::Timeout=120",
			plan:   "sudo apt-get update -q -o DPkg::Lock::Timeout=120"},
		{op: op("pkg-update-apk", plan.Root),
			report: "sudo apk update",
			plan:   "sudo apk update"},
		{op: op("pkg-update-apt", plan.Root, "extra"),
			report: "sudo pkg-update-apt extra",
			plan:   "sudo pkg-update-apt extra"},
		{op: op("pkg-install-apt", plan.Root, "nginx-light", "curl", "nginx=1.22*"),
			report: "sudo apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=120 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold -- nginx-light curl 'nginx=1.22*'",
			plan:   "sudo apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=120 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold -- nginx-light curl 'nginx=1.22*'"},
		{op: op("pkg-install-apk", plan.Root, "curl", "so:libc.so.6"),
			report: "sudo apk add -- curl so:libc.so.6",
			plan:   "sudo apk add -- curl so:libc.so.6"},
		{op: op("pkg-install-apk", plan.Login, "curl"),
			report: "apk add -- curl (as alice)",
			plan:   "apk add -- curl (as alice)"},
		{op: op("pkg-install-apt", plan.Root),
			report: "sudo pkg-install-apt",
			plan:   "sudo pkg-install-apt"},
		{op: op("mystery", plan.Elevated, "a\tb"),
			report: "mystery a\tb (as alice)",
			plan:   "mystery a    b (as alice)"},
		// Over SSH an elevated operation runs as root through sudo: a
		// file operation says so and who owns what it makes, as its
		// script does it; another carries the sudo in front.
		{op: plan.Op{Name: "dir", Path: lit("~/app"), Mode: "755", Privilege: plan.Elevated}, remote: true,
			report: "dir ~/app (mode 755, through sudo, owner of its directory when new, root under a shared directory such as /tmp)",
			plan:   "dir ~/app (mode 755, through sudo, owner of its directory when new, root under a shared directory such as /tmp)"},
		{op: plan.Op{Name: "put", Path: lit("~/app/hello.txt"), Content: str("x\n"), Privilege: plan.Elevated}, remote: true,
			report: "put ~/app/hello.txt (through sudo, owner of its directory when new, root under a shared directory such as /tmp)",
			plan:   "put ~/app/hello.txt (mode not managed, through sudo, owner of its directory when new, root under a shared directory such as /tmp)"},
		{op: plan.Op{Name: "link", Path: lit("/usr/local/bin/app"), Target: text("/opt/app/bin/app"), Privilege: plan.Elevated}, remote: true,
			report: "link /usr/local/bin/app -> /opt/app/bin/app (through sudo, owned by root)",
			plan:   "link /usr/local/bin/app -> /opt/app/bin/app (through sudo, owned by root)"},
		{op: plan.Op{Name: "put", Path: lit("/etc/nginx/nginx.conf"), Mode: "644", Owner: "root", Content: str("x\n"), Privilege: plan.Elevated}, remote: true,
			report: "put /etc/nginx/nginx.conf (mode 644, owner root, through sudo)",
			plan:   "put /etc/nginx/nginx.conf (mode 644, owner root, through sudo)"},
		{op: plan.Op{Name: "link", Path: lit("~/app/current"), Target: text("releases/v1"), Privilege: plan.Login}, remote: true,
			report: "link ~/app/current -> releases/v1 (as alice)",
			plan:   "link ~/app/current -> releases/v1 (as alice)"},
		{op: op("mystery", plan.Elevated, "a\tb"), remote: true,
			report: "sudo mystery a\tb",
			plan:   "sudo mystery a    b"},
		{op: op("user-keys", plan.Login, "deploy", "keys", "ssh-ed25519 AAAA ops"), remote: true,
			report: "user-keys deploy keys ssh-ed25519 AAAA ops (as alice)",
			plan:   "user-keys deploy keys ssh-ed25519 AAAA ops (as alice)"},
	}
}

// TestOperationWording: every operation reads, in a report's step line
// and in a plan's = line, as the words below, byte for byte; every
// operation script has a case. Every one that runs as root carries its
// sudo (targets.md), but for a file operation, whose parentheses say "as
// root", or over SSH "through sudo" and who owns what it makes.
func TestOperationWording(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range wordingCases() {
		op := c.op
		seen[string(op.Name)] = true
		ctx := observation.Context{Target: "local", User: "alice"}
		if c.remote {
			ctx.Target = "web1"
		}
		if got := execute.Summary(plan.Step{Type: plan.StepOp, Op: &op}, "alice", c.remote); got != c.report {
			t.Errorf("%s %q: execute.Summary\n got %q\nwant %q", op.Name, op.Written(), got, c.report)
		}
		if got := OpSummary(ctx, &op); got != c.plan {
			t.Errorf("%s %q: OpSummary\n got %q\nwant %q", op.Name, op.Written(), got, c.plan)
		}
	}
	for _, name := range ops.Names() {
		if !seen[name] {
			t.Errorf("%s: an operation with no case here", name)
		}
	}
}
