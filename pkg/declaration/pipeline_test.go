package declaration

import "testing"

// TestRefusesPipelineFeatures holds the structural gate to refusing, by
// name, what the executor doesn't run in a pipeline (configs.md), and the
// installer's and verify's own refusals, each with its exact message.
func TestRefusesPipelineFeatures(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"pipeline env", svc(`{"id":"p","type":"pipeline","env":{"A":"b"},"steps":[{"id":"a","run":"x"}]}`),
			`resource "p": env: a pipeline takes no env: the executor doesn't run one; set variables inside each step's run`},
		{"max_concurrency 2", svc(`{"id":"p","type":"pipeline","max_concurrency":2,"steps":[{"id":"a","run":"x"}]}`),
			`resource "p": max_concurrency: steps run one at a time: the executor doesn't run a max_concurrency above 1`},
		{"max_concurrency 0", svc(`{"id":"p","type":"pipeline","max_concurrency":0,"steps":[{"id":"a","run":"x"}]}`),
			`resource "p": max_concurrency: a count is 1 or more`},
		{"no steps", svc(`{"id":"p","type":"pipeline","steps":[]}`),
			`resource "p": steps: lists no step`},
		{"duplicate step ids", svc(`{"id":"p","type":"pipeline","steps":[{"id":"a","run":"x"},{"id":"b","run":"y"},{"id":"a","run":"z"}]}`),
			`resource "p": steps[2].id: "a" is the id of an earlier step`},
		{"step cwd", svc(`{"id":"p","type":"pipeline","steps":[{"id":"a","run":"x","cwd":"/srv"}]}`),
			`resource "p": steps[0].cwd: a step takes no cwd: the executor doesn't run one; write cd ... && inside run`},
		{"step env", svc(`{"id":"p","type":"pipeline","steps":[{"id":"a","run":"x","env":{"A":"b"}}]}`),
			`resource "p": steps[0].env: a step takes no env: the executor doesn't run one; write FOO=bar cmd inside run`},
		{"step depends_on", svc(`{"id":"p","type":"pipeline","steps":[{"id":"a","run":"x"},{"id":"b","run":"y","depends_on":["a"]}]}`),
			`resource "p": steps[1].depends_on: steps run in declared order: the executor doesn't run dependencies between steps; order them by position`},
		{"step name on two lines", svc(`{"id":"p","type":"pipeline","steps":[{"id":"a","run":"x","name":"a\nb"}]}`),
			`resource "p": steps[0].name: holds a line break or control character (U+000A)`},
		{"installer http", svc(`{"id":"i","type":"installer","url":"http://example.com/i.sh","check":"/x"}`),
			`resource "i": url: want an https:// URL, not http://`},
		{"installer relative check", svc(`{"id":"i","type":"installer","url":"https://example.com/i.sh","check":"bin/x"}`),
			`resource "i": check: "bin/x" must be absolute or start with ~/`},
		{"verify no assertion", svc(`{"id":"v","type":"verify","assertions":[]}`),
			`resource "v": assertions: lists no assertion`},
		{"verify file type", svc(`{"id":"v","type":"verify","assertions":[{"type":"path_exists","path":"/x","file_type":"link"}]}`),
			`resource "v": assertions[0].file_type: "link" is not a file type (want file or directory)`},
		{"verify mode", svc(`{"id":"v","type":"verify","assertions":[{"type":"path_exists","path":"/x","mode":"0999"}]}`),
			`resource "v": assertions[0].mode: "0999" is not an octal mode of 7777 at most, such as "644"`},
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
