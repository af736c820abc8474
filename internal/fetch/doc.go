// Package fetch fetches the content a config pins (a remote file's bytes,
// a build's source archive and its signature, an apt_repo's signing key) on
// the operator's machine, and keeps it in a content cache addressed by
// blake3. It is not wired into any command yet (issue 15).
//
// What a fetch guarantees (security.md, "Content Zap fetches";
// resources.md, "URLs"):
//
//   - Only https:// with a host is fetched, or http:// to a loopback host:
//     the name localhost (any case, no trailing dot), an address in
//     127.0.0.0/8, or ::1, each as resources.md lists them. A plain-http
//     connection is made only to a loopback address: the dialer checks the
//     address a name resolved to before it connects, so a localhost that
//     resolves elsewhere is refused with no connection made. A URL with
//     user:password@ (or any user part) is refused. CheckURL holds a
//     resolved URL to these rules alone.
//   - A redirect is followed only to https://, or to http:// on loopback by
//     a fetch whose every URL so far was on loopback; at most
//     Options.MaxRedirects of them, never to a URL with a user part.
//   - A bearer credential is sent as "Authorization: Bearer ..." only to
//     the declared URL's origin (scheme, host and port, the default port
//     made explicit); a redirect to another origin goes without it. No
//     request carries a Referer, which would take the previous URL, a
//     token in its query included, to the next origin.
//   - Every error is an *Error naming the URL as the config declares it
//     (Request.Declared), never the resolved URL: a message from the network
//     stack has every piece of the resolved URL its declared spelling
//     doesn't show (the host a reference gave, say) and the credential
//     replaced with "[resolved]". No path holds anything of the URL.
//   - Bounds: a size bound on the body (Options.MaxBytes, or the request's
//     Limit), a total time limit for the whole fetch, and connect, TLS
//     handshake and response-header timeouts; an error says which bound
//     was hit (ErrTooLarge, ErrTimeout). The bytes hashed are the bytes
//     served: no transport decompression.
//   - With a pin, bytes that don't hash to it are refused (*MismatchError,
//     naming the expected and the got blake3) and nothing is cached or
//     returned. Without one (trust on first fetch), the entry names the
//     blake3 of what was served, for the caller to record.
//
// # The content cache
//
// A Cache is one directory the caller names (under ~/.zap), mode 0700, of
// the user's, not a link; an entry is a file named by the 64 hex digits of
// its bytes' blake3 and nothing else, mode 0600. Entries are written to a
// random temporary name in the directory, synced, checked against the pin
// (and by Request.Check), and renamed into place; a run killed in between
// can leave a .tmp-* file there. Open looks an entry up by pin with no
// network, opens it only as a regular file of the user's that no one else
// can use, never through a link, and hashes it again: an entry whose bytes
// don't hash to its name is removed and reported (ErrCorrupt), and Fetch
// then fetches it again. An Entry carries the SHA-512 of the same bytes, the
// digest a target's sha512sum gives.
//
// # minisign
//
// A build source that declares verify is checked by the minisign binary
// in Request.Check (Verified, MinisignCheck), so a source whose signature doesn't
// verify is never cached, and so never pinned or built. The signature is
// fetched then, on a cache miss only, from signature_url or the source's
// URL with .minisig appended to its path (SignatureURL), with the source's
// credential only on the source's own origin (SignatureRequest), at most
// SignatureLimit bytes. FindMinisign finds the binary once: ZAP_MINISIGN
// (absolute only), else the first minisign in an absolute PATH directory;
// it refuses one inside node_modules, and one where the binary or any
// directory on the way to it (from where it was found and from where it
// resolves, links followed, each link's own way too) is writable by a
// group or others or owned by anyone but root and the user. minisign's
// exit status is the verdict; every refusal and failure names its path.
package fetch
