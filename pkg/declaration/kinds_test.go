package declaration

import (
	"strings"
	"testing"
)

// svc is a declaration on a target with a package and a service manager.
func svc(resources ...string) string {
	return withTarget(`{"local":true,"package_manager":"apt","service_manager":"systemd"}`, resources...)
}

const (
	hex64    = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	minisign = "RWSGOq2NVecA2UPNdBUZykf1CCb147pkmdtYxgb3Ti+JO/wCYvhbAb/U"
)

func TestValidateAcceptsKinds(t *testing.T) {
	for name, in := range map[string]string{
		"package":   svc(`{"id":"p","type":"package","from":{"apt":"memtest86+","apk":"curl"},"check":{"$text":["/opt/",{"$env":"X"}]}}`),
		"apt_repo":  svc(`{"id":"r","type":"apt_repo","key_url":"http://127.0.0.1:8080/key","key_blake3":"` + hex64 + `","source":"deb https://x.example/ $VERSION_CODENAME main"}`),
		"installer": svc(`{"id":"i","type":"installer","url":"https://sh.rustup.rs","check":"$HOME/.cargo/bin/rustup","shell":"sh -s -- -y"}`),
		"user":      svc(`{"id":"u","type":"user","username":"deploy","ssh_keys":{"keys":["ssh-ed25519 AAAA"]},"sudo":{"mode":"nopasswd","commands":["/bin/ls"]},"groups":["docker"]}`),
		"service and trigger": svc(`{"id":"s","type":"service","service":"getty@tty1.service","reload_on":["f"]}`,
			`{"id":"f","type":"file","path":"/f","triggers":["s"],"content":{"type":"inline","content":""}}`),
		"database": svc(`{"id":"d","type":"database","engine":"postgresql","database_name":{"$env":"DB"},"username":"app","auth":{"hosts":["::1/128"]}}`),
		"swap":     svc(`{"id":"w","type":"swap","size":"512M"}`),
		"nftables": svc(`{"id":"n","type":"service","service":"nftables"}`, `{"id":"fw","type":"firewall","backend":"nftables","allow":[{"port":22}]}`),
		"verify":   svc(`{"id":"v","type":"verify","assertions":[{"type":"path_exists","path":"/x","owner":"root"},{"type":"command","run":"true","expect":"a\nb"}]}`),
		"pipeline": svc(`{"id":"p","type":"pipeline","max_concurrency":1,"steps":[{"id":"a","run":"x"},{"id":"b","run":"y","name":"second"}]}`),
		"build":    svc(`{"id":"b","type":"build","source":{"type":"remote","url":"https://z.example/z.tar.xz","extract":{"type":"tar.xz","strip_components":1},"verify":{"scheme":"minisign","public_key":"` + minisign + `"},"blake3":"` + hex64 + `"},"run":"make","output":"~/.local/bin/z","cwd":"src"}`),
		"template": svc(`{"id":"t","type":"file","path":"/t","content":{"type":"template","template":"{{a}} {{b}} {{ .Values }}","vars":{"a":{"$env":"A"},"b":[1,null]},"kinds":{"a":"domain"}}}`),
		"deploy":   `{"format":"zap.declaration/1","target":{"local":true,"service_manager":"openrc"},"resources":[],"deploy":{"path":"/srv/app","artifacts":["build"],"shared":[".env"],"service":"app","releases":2,"health":{"domain":{"$env":"DOMAIN"},"path":"/ready","attempts":3,"interval_ms":100}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			d, err := Read([]byte(in))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if err := d.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestValidateRefusesKinds(t *testing.T) {
	file := func(id, extra string) string {
		return `{"id":"` + id + `","type":"file","path":"/` + id + `","content":{"type":"inline","content":""}` + extra + `}`
	}
	tests := []struct{ name, in, want string }{
		{"package name with a space", svc(`{"id":"p","type":"package","from":{"apt":"a b"}}`),
			`resource "p": from.apt: "a b" is not one word: a letter or digit, then letters, digits and + . _ - = ~ : / @, not ending in -`},
		{"apt version and suite", svc(`{"id":"p","type":"package","from":{"apt":"curl/bookworm=1.0"}}`),
			`resource "p": from.apt: "curl/bookworm=1.0" names a version and a suite together, which names no package apt knows`},
		{"apt architecture native", svc(`{"id":"p","type":"package","from":{"apt":"curl:native"}}`),
			`resource "p": from.apt: "curl:native" names the architecture native, which dpkg records no package under; name the architecture, or none`},
		{"apk !name", svc(`{"id":"p","type":"package","from":{"apk":"!curl"}}`),
			`resource "p": from.apk: "!curl" is not one word: a letter or digit, then letters, digits and + . _ - = ~ : / @, not ending in -`},
		{"reference in a command check", svc(`{"id":"p","type":"package","from":{"apt":"x"},"check":{"$text":["which ",{"$env":"B"}]}}`),
			`resource "p": check: a command check takes no reference: a check is a path (beginning /, ~ or $HOME) or a command run as written`},
		{"apt_repo key_url ftp", svc(`{"id":"r","type":"apt_repo","key_url":"ftp://x/key","source":"deb x main"}`),
			`resource "r": key_url: want an https:// URL, not ftp://`},
		{"apt_repo key_path with a backtick", svc("{\"id\":\"r\",\"type\":\"apt_repo\",\"key_url\":\"https://x/key\",\"source\":\"deb x main\",\"key_path\":\"/k`x`\"}"),
			`resource "r": key_path: holds whitespace or one of ", $, a backtick or \`},
		{"apt_repo default paths collide with a file", svc(`{"id":"r","type":"apt_repo","key_url":"https://x/key","source":"deb x main"}`,
			`{"id":"f","type":"file","path":"/etc/apt/sources.list.d/r.list","content":{"type":"inline","content":""}}`),
			`resource "f": path: "r" and "f" both manage /etc/apt/sources.list.d/r.list; declare it once`},
		{"installer user:password@", svc(`{"id":"i","type":"installer","url":"https://u:p@x/i.sh","check":"/x"}`),
			`resource "i": url: holds a user or password (user:password@); a credential goes in auth, as a reference`},
		{"user root", svc(`{"id":"u","type":"user","username":"root"}`),
			`resource "u": username: zap doesn't manage root (its home is /root, not /home/root); manage root's files with file and directory resources`},
		{"ssh_keys neither", svc(`{"id":"u","type":"user","username":"a","ssh_keys":{}}`), `resource "u": ssh_keys: takes copy_from or keys`},
		{"sudo true", svc(`{"id":"u","type":"user","username":"a","sudo":true}`),
			`resources[0] (u).sudo: true grants nothing: write 'nopasswd' or 'password' to grant sudo, or false to remove the grant`},
		{"service name with a backslash", svc(`{"id":"s","type":"service","service":"a\\b"}`),
			`resource "s": service: "a\\b" is not one word: a letter or digit, then letters, digits and _ . @ : -`},
		{"service without a manager", withTarget(`{"local":true}`, `{"id":"s","type":"service","service":"x"}`),
			`resource "s": a service needs the target's service_manager (systemd or openrc): declare it in zap.target`},
		{"restart_on itself", svc(`{"id":"s","type":"service","service":"x","restart_on":["s"]}`), `resource "s": restart_on: a service can't trigger itself`},
		{"trigger cycle", svc(`{"id":"s","type":"service","service":"x"}`, file("f", `,"triggers":["s"],"depends_on":["s"]`)),
			`depends_on: dependency cycle: f -> s -> f`},
		{"database role beginning with -", svc(`{"id":"d","type":"database","engine":"postgresql","database_name":"a","username":"-r"}`),
			`resource "d": username: "-r" begins with -, which pg_hba.conf reads as something else`},
		{"database method peer", svc(`{"id":"d","type":"database","engine":"postgresql","database_name":"a","username":"r","auth":{"hosts":["10.0.0.0/8"],"method":"peer"}}`),
			`resource "d": auth.method: "peer" is refused: PostgreSQL accepts peer only on a Unix-socket line, the route a database with no auth already takes`},
		{"database host name", svc(`{"id":"d","type":"database","engine":"postgresql","database_name":"a","username":"r","auth":{"hosts":["db.local"]}}`),
			`resource "d": auth.hosts[0]: "db.local" is not an IP address with its prefix length, such as '127.0.0.1/32'`},
		{"swap relative", svc(`{"id":"w","type":"swap","size":"1G","path":"swap"}`), `resource "w": path: "swap" must be an absolute path`},
		{"firewall port 0", svc(`{"id":"fw","type":"firewall","backend":"ufw","allow":[{"port":0}]}`), `resources[0] (fw).allow[0].port: a port is 1 to 65535`},
		{"second firewall", svc(`{"id":"a","type":"firewall","backend":"ufw","allow":[]}`, `{"id":"b","type":"firewall","backend":"ufw","allow":[]}`),
			`resource "b": a second firewall ("a" is the first): a config declares one`},
		{"verify relative path", svc(`{"id":"v","type":"verify","assertions":[{"type":"path_exists","path":"x"}]}`),
			`resource "v": assertions[0].path: "x" must be an absolute path (no ~, no relative path)`},
		{"verify owner numeric", svc(`{"id":"v","type":"verify","assertions":[{"type":"path_exists","path":"/x","owner":"0"}]}`),
			`resource "v": assertions[0].owner: "0" is not an account name (a lowercase letter or _, then lowercase letters, digits, _ or -; not a number)`},
		{"pipeline max_concurrency 2", svc(`{"id":"p","type":"pipeline","max_concurrency":2,"steps":[{"id":"a","run":"x"}]}`),
			`resource "p": max_concurrency: steps run one at a time: the executor doesn't run a max_concurrency above 1`},
		{"pipeline step id", svc(`{"id":"p","type":"pipeline","steps":[{"id":"a b","run":"x"}]}`),
			`resource "p": steps[0].id: "a b" is not an id: a letter, digit or _, then letters, digits, _, . or -`},
		{"build minisign key", svc(`{"id":"b","type":"build","source":{"type":"remote","url":"https://x/z","verify":{"scheme":"minisign","public_key":"` + strings.Replace(minisign, "RW", "RX", 1) + `"}},"run":"m","output":"/o"}`),
			`resource "b": source.verify.public_key: is not a minisign public key: the 56 base64 characters beginning RW on the key line of a .pub file`},
		{"build blake3 short", svc(`{"id":"b","type":"build","source":{"type":"remote","url":"https://x/z","blake3":"abc"},"run":"m","output":"/o"}`),
			`resource "b": source.blake3: "abc" is not a blake3 pin: 64 lowercase hex digits`},
		{"build source type", svc(`{"id":"b","type":"build","source":{"type":"git","url":"https://x/z"},"run":"m","output":"/o"}`),
			`resources[0] (b).source.type: unknown source type "git" (want remote)`},
		{"template placeholder without var", svc(`{"id":"t","type":"file","path":"/t","content":{"type":"template","template":"{{a}}{{b}}","vars":{"a":"x"}}}`),
			`resource "t": content.template: {{b}} has no variable in vars`},
		{"template var reference at depth", svc(`{"id":"t","type":"file","path":"/t","content":{"type":"template","template":"{{a}}","vars":{"a":[{"$env":"X"}]}}}`),
			`resources[0] (t).content.vars.a[0].$env: a value that isn't a string takes no reference at any depth; pass the referenced value as a string variable of its own`},
		{"template port kind", svc(`{"id":"t","type":"file","path":"/t","content":{"type":"template","template":"{{p}}","vars":{"p":70000},"kinds":{"p":"port"}}}`),
			`resource "t": content.vars.p: "70000" doesn't render as a port`},
		{"remote validate", svc(`{"id":"t","type":"file","path":"/t","validate":"true","content":{"type":"remote","url":"https://x/t"}}`),
			`resource "t": validate: is for text config (inline, template, source), not remote content`},
		{"deploy releases 1", `{"format":"zap.declaration/1","target":{"local":true},"resources":[],"deploy":{"path":"/a","artifacts":["b"],"releases":1}}`,
			`deploy.releases: keeps 1; keep 2 or more (the one deployed and the one it replaced)`},
		{"deploy path relative", `{"format":"zap.declaration/1","target":{"local":true},"resources":[],"deploy":{"path":"a","artifacts":["b"]}}`,
			`deploy.path: "a" must be an absolute path`},
		{"deploy shared with /", `{"format":"zap.declaration/1","target":{"local":true},"resources":[],"deploy":{"path":"/a","artifacts":["b"],"shared":["a/b"]}}`,
			`deploy.shared[0]: "a/b" is not a plain relative name (no /, no .., not beginning with -)`},
		{"deploy blank domain", `{"format":"zap.declaration/1","target":{"local":true},"resources":[],"deploy":{"path":"/a","artifacts":["b"],"health":{"domain":" "}}}`,
			`deploy.health.domain: is blank`},
		{"deploy artifact @", `{"format":"zap.declaration/1","target":{"local":true},"resources":[],"deploy":{"path":"/a","artifacts":["@x"]}}`,
			`deploy.artifacts[0]: "@x" begins with @, which tar would read as an option`},
		{"deploy service without a manager", `{"format":"zap.declaration/1","target":{"local":true},"resources":[],"deploy":{"path":"/a","artifacts":["b"],"service":"app"}}`,
			`deploy.service: restarting a service needs the target's service_manager (systemd or openrc): declare it in zap.target`},
		{"deploy reference in path", `{"format":"zap.declaration/1","target":{"local":true},"resources":[],"deploy":{"path":{"$env":"P"},"artifacts":["b"]}}`,
			`deploy.path: want string, not a JSON object`},
		{"target port 0", withTarget(`{"host":"h","port":0}`), `target.port: a port is 1 to 65535`},
		{"target package_manager", withTarget(`{"local":true,"package_manager":"dnf"}`), `target.package_manager: "dnf" is not a package manager (apt, apk, pacman or brew)`},
		{"target bootstrap_user numeric", withTarget(`{"host":"h","bootstrap_user":"0"}`),
			`target.bootstrap_user: "0" is not an account name (a lowercase letter or _, then lowercase letters, digits, _ or -; not a number)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Read([]byte(tt.in))
			if err == nil {
				err = d.Validate()
			}
			if err == nil || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}
