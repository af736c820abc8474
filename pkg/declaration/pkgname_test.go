package declaration

import "testing"

// TestValidPackageName is every name form of resources.md, Package names:
// what each manager takes, and each refusal with its reason.
func TestValidPackageName(t *testing.T) {
	ok := func(m, n string) struct{ m, n, why string } { return struct{ m, n, why string }{m, n, ""} }
	no := func(m, n, why string) struct{ m, n, why string } { return struct{ m, n, why string }{m, n, why} }
	const notWord = "is not one word: a letter or digit, then letters, digits and + . _ - = ~ : / @, not ending in -"
	for _, c := range []struct{ m, n, why string }{
		// One word, for every manager.
		ok("apt", "curl"), ok("apt", "0ad"), ok("apt", "g++"), ok("apt", "memtest86+"), ok("apt", "libc6.1"),
		no("apt", "", notWord), no("apt", "a b", notWord), no("apt", "curl;id", notWord), no("apt", "$(id)", notWord),
		no("apt", "-curl", notWord), no("apt", "curl-", notWord), no("apt", "+x", notWord), no("apt", "cu\nrl", notWord),
		no("apt", "'curl'", notWord), no("apt", "curl*", notWord), no("apt", "é", notWord),
		no("pacman", "a b", notWord), no("brew", "x-", notWord), ok("pacman", "ripgrep"), ok("brew", "ripgrep"),
		// apt: a version, a suite, an architecture, and the two together
		// that apt knows.
		ok("apt", "nginx=1.22.1-9"), ok("apt", "nginx=1:1.22.1-9"), ok("apt", "nginx=1.0~rc1+deb12u1"),
		ok("apt", "nginx/bookworm-backports"), ok("apt", "libc6:i386"), ok("apt", "libc6:amd64=2.36-9"),
		ok("apt", "libc6:arm64/bookworm"), ok("apt", "linux-image-6.1.0-13-amd64"),
		no("apt", "curl=", "has an empty version (name=)"),
		no("apt", "curl:amd64=", "has an empty version (name=)"),
		no("apt", "curl:", "has an empty architecture (name:)"),
		no("apt", "curl:=1.0", "has an empty architecture (name:)"),
		no("apt", "curl/", "has an empty suite (name/)"),
		no("apt", "curl:any", "names the architecture any, which dpkg records no package under; name the architecture, or none"),
		no("apt", "curl:native", "names the architecture native, which dpkg records no package under; name the architecture, or none"),
		no("apt", "curl:all", "names the architecture all, which apt reads as the native one; name the architecture, or none"),
		no("apt", "curl:AMD64", `names the architecture "AMD64", which isn't one word of lowercase letters, digits and -`),
		no("apt", "curl:amd_64", `names the architecture "amd_64", which isn't one word of lowercase letters, digits and -`),
		no("apt", "curl:amd64:i386", `names the architecture "amd64:i386", which isn't one word of lowercase letters, digits and -`),
		no("apt", "curl/bookworm=1.0", "names a version and a suite together, which names no package apt knows"),
		no("apt", "curl=1.0/bookworm", "names a version and a suite together, which names no package apt knows"),
		no("apt", "curl=1.0=2.0", "names more than one version or suite, which names no package apt knows"),
		no("apt", "curl/a/b", "names more than one version or suite, which names no package apt knows"),
		// apk: name, a version, a fuzzy version, a repository tag, a
		// provider.
		ok("apk", "curl"), ok("apk", "curl=8.5.0-r0"), ok("apk", "curl~8.5"), ok("apk", "curl@edge"),
		ok("apk", "curl@edge=8.5.0-r0"), ok("apk", "so:libc.musl-x86_64.so.1"), ok("apk", "cmd:bash"), ok("apk", "py3-pip"),
		no("apk", "curl>=1.2", notWord), no("apk", "curl<2", notWord), no("apk", "!curl", notWord), no("apk", ".curl", notWord),
		no("apk", "curl=", "has a version operator with nothing after it"),
		no("apk", "curl~", "has a version operator with nothing after it"),
		no("apk", "curl==", "has a version operator with nothing after it"),
		no("apk", "curl@edge=", "has a version operator with nothing after it"),
	} {
		why, good := ValidPackageName(c.m, c.n)
		if good != (c.why == "") || why != c.why {
			t.Errorf("ValidPackageName(%s, %q) = %q, %v; want %q", c.m, c.n, why, good, c.why)
		}
	}
}
