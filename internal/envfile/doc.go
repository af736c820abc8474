// Package envfile reads the env file that --env-file names: a strict subset
// of dotenv holding only lines the common loaders (dotenv for Node,
// python-dotenv, godotenv, docker compose) read alike. A line outside the
// subset is an error, never a guess.
//
// The subset, line by line (lines end in \n, or \r\n):
//
//   - A byte-order mark at the very start of the file is skipped.
//   - A blank line (spaces and tabs only) and a comment line (its first
//     non-blank character is #) are ignored.
//   - Any other line is an assignment, NAME=VALUE. Blanks before the name and
//     around the = are trimmed. A name is ASCII letters, digits and _, not
//     starting with a digit. An "export" prefix is dropped only when a space
//     or tab follows it and a name follows that, so export=1 assigns the
//     variable named export.
//   - A value is unquoted, single-quoted or double-quoted, and never spans
//     lines. There is no interpolation: $OTHER, ${OTHER} and $(cmd) are text
//     (a loader that interpolates still reads a $ its own way).
//   - An unquoted value runs to the end of the line, trailing blanks trimmed.
//     It may hold # only right after a non-blank (a#b): one beginning with #,
//     or holding one after a blank, is refused, as loaders disagree on where
//     its comment starts. It may not end in a backslash (a line continuation
//     to some loaders) or begin with a backquote (a quote to some).
//   - A quoted value ends at the first matching quote, and only blanks and
//     a comment may follow it. Quoted values take no escapes, because the
//     loaders agree on none: \n is a line break to some and two characters
//     to others, and \\ is one backslash or two. So a double-quoted value may
//     hold no backslash at all, and a single-quoted one no backslash before
//     another backslash or before its closing quote; anything else in the
//     quotes is the value as written. Write a value holding " in single
//     quotes, one holding ' in double quotes.
//   - No value holds a control character other than tab, quoted or not; no
//     line, comments included, holds a line break some loader sees and the
//     others don't (a carriage return not before \n, vertical tab, form feed,
//     U+0085, U+2028, U+2029); no assignment holds a NUL; and the file is
//     UTF-8. So a value that loads holds no NUL and no line break.
//   - A name may be assigned once.
//
// Parse reports the first line that breaks a rule, as an *Error naming the
// file, the line number, and the variable when the line has a valid name.
// It never quotes the line or any part of a value: a malformed line may be a
// secret (the second line of a key pasted across lines, say).
//
// Every reader of an env file is bounded, and the error names the bound:
// Load reads at most MaxSize bytes (16 MiB), Parse at most MaxLines lines
// (4096, blank and comment lines included) and values of at most MaxValue
// bytes (1 MiB); a value past MaxValue is refused with its line and name,
// never its text.
//
// Permissions warns about a file its group or everyone can write (whoever
// can rewrite it chooses the host a deploy goes to) and about one they can
// read while it holds a secret; chmod 600 answers both.
package envfile
