// Package mask hides secret values in text Zap prints or writes. Masking is
// by value: a Masker is built from the resolved secrets (name -> value) and
// replaces every occurrence of a secret, in any form it knows, with
// [MASKED:NAME].
//
// The forms of a secret value v:
//
//   - v itself, and v with surrounding whitespace trimmed;
//   - each of those URL-encoded (url.QueryEscape and url.PathEscape),
//     JSON-escaped (what encoding/json writes between the quotes, with and
//     without its HTML escaping, and with Zap's --json stream escapes of
//     invisible characters on top), single-quoted for a shell as Zap's own
//     commands carry it (each single quote closed, written as \' and
//     reopened), and as Zap's text output spells it (escape.Line);
//   - for a value that spans several lines, each line of 24 characters or
//     more, trimmed, apart from -----BEGIN…----- and -----END…----- lines;
//     a value written on one line with \n (a PEM key in an env file) also
//     counts with those decoded, as a whole and line by line;
//   - the password of a URL in v (scheme://user:password@…, the password
//     running to the first @ after the colon, as libpq reads it, unless what
//     precedes a / ? or # in it is all digits, a port), also percent-decoded;
//     the user of an http or https URL (git+https included), which HTTP reads
//     only as a credential; the token of a Bearer or Basic authorization value,
//     and the password inside a Basic one's base64. Each counts when it is 8
//     characters or more and appears only once in its own value: a password
//     that is also an ordinary word of the value (postgres://app:postgres@db)
//     is masked only as part of the whole.
//
// Every form of a line or a credential is taken in the encodings above too.
// A value that is empty or whitespace only masks nothing.
//
// Replacement scans left to right and, where several forms start at one
// place, takes the longest, so a shorter form never splits a longer one;
// replaced text isn't scanned again. When two secrets share a form, the one
// whose own value it is wins, then the first name in byte order, so the
// result doesn't depend on map order.
//
// A Writer masks a stream as it passes: it holds back only a tail that could
// still be the start of a form (never more than the longest form's length
// minus one) and writes it on Close, so its output equals String of the
// whole stream however the writes split it.
package mask
