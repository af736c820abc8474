package envfile

import "fmt"

// Problem is why Parse refuses a line.
type Problem string

// The problems Parse reports.
const (
	NoEquals              Problem = "no_equals"
	BadName               Problem = "bad_name"
	Duplicate             Problem = "duplicate"
	OpenQuote             Problem = "open_quote"
	AfterQuote            Problem = "after_quote"
	DoubleQuotedBackslash Problem = "double_quoted_backslash"
	SingleQuotedBackslash Problem = "single_quoted_backslash"
	Backquote             Problem = "backquote"
	HashStart             Problem = "hash_start"
	HashAfterBlank        Problem = "hash_after_blank"
	TrailingBackslash     Problem = "trailing_backslash"
	Control               Problem = "control"
	LineBreak             Problem = "line_break"
	NUL                   Problem = "nul"
	InvalidUTF8           Problem = "invalid_utf8"
	TooManyLines          Problem = "too_many_lines"
	ValueTooLong          Problem = "value_too_long"
)

var problems = map[Problem]struct{ message, hint string }{
	NoEquals: {"the line has no =",
		"write NAME=VALUE on one line; a value can't span lines"},
	BadName: {"what stands before the = isn't a variable name",
		"a name is letters, digits and _, not starting with a digit"},
	Duplicate: {"assigned twice", "keep one assignment"},
	OpenQuote: {"the value's quote is left open",
		"close the quote on the same line; a value can't span lines"},
	AfterQuote: {"text follows the value's closing quote",
		"only a comment may follow a quoted value"},
	DoubleQuotedBackslash: {"the double-quoted value holds a backslash",
		"loaders read escapes differently; put the value in single quotes"},
	SingleQuotedBackslash: {"the single-quoted value holds a backslash before a backslash or the closing quote",
		"loaders read that as an escape or not; write the value another way"},
	Backquote: {"the value begins with a backquote",
		"some loaders read a backquote as a quote; use single or double quotes"},
	HashStart: {"the unquoted value begins with #",
		"quote the value, or move the comment to its own line"},
	HashAfterBlank: {"the unquoted value holds # after a blank",
		"quote the value, or move the comment to its own line"},
	TrailingBackslash: {"the unquoted value ends in a backslash",
		"some loaders continue it on the next line; a value can't end in a backslash"},
	Control: {"the value holds a control character other than tab", ""},
	LineBreak: {"the line holds a carriage return, vertical tab, form feed, U+0085, U+2028 or U+2029",
		"some loaders read it as a line break; remove it"},
	NUL:         {"the line holds a NUL", ""},
	InvalidUTF8: {"the line isn't valid UTF-8", ""},
	TooManyLines: {fmt.Sprintf("the file goes on past line %d, the most lines an env file may have", MaxLines),
		"split it, or keep what the config doesn't reference elsewhere"},
	ValueTooLong: {fmt.Sprintf("the value is longer than %d KiB, the most an env-file value may be", MaxValue>>10),
		"keep a value that long in a file of its own"},
}

func (p Problem) message() string { return problems[p].message }
func (p Problem) hint() string    { return problems[p].hint }
