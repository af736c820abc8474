package main

import (
	"bytes"
	"strings"
	"testing"
)

// stream is go test -json's output for two packages: one with a failed
// test, a passed one and two skips (a plain test's and a testscript
// script's, whose skip message comes before the script's log), one that
// passes.
const stream = `{"Action":"start","Package":"example.com/a"}
{"Action":"run","Package":"example.com/a","Test":"TestBroken"}
{"Action":"output","Package":"example.com/a","Test":"TestBroken","Output":"=== RUN   TestBroken\n"}
{"Action":"output","Package":"example.com/a","Test":"TestBroken","Output":"    a_test.go:9: got 1, want 2\n"}
{"Action":"output","Package":"example.com/a","Test":"TestBroken","Output":"--- FAIL: TestBroken (0.00s)\n"}
{"Action":"fail","Package":"example.com/a","Test":"TestBroken"}
{"Action":"output","Package":"example.com/a","Test":"TestQuiet","Output":"    a_test.go:20: passing chatter\n"}
{"Action":"pass","Package":"example.com/a","Test":"TestQuiet"}
{"Action":"output","Package":"example.com/a","Test":"TestPlain","Output":"    a_test.go:30: a log first\n"}
{"Action":"output","Package":"example.com/a","Test":"TestPlain","Output":"    a_test.go:31: needs a widget\n"}
{"Action":"output","Package":"example.com/a","Test":"TestPlain","Output":"--- SKIP: TestPlain (0.00s)\n"}
{"Action":"skip","Package":"example.com/a","Test":"TestPlain"}
{"Action":"output","Package":"example.com/a","Test":"TestScripts/seq","Output":"    cmd.go:380: needs seq\n"}
{"Action":"output","Package":"example.com/a","Test":"TestScripts/seq","Output":"    testscript.go:609: WORK=$WORK\n"}
{"Action":"output","Package":"example.com/a","Test":"TestScripts/seq","Output":"        > [!exec:seq] skip 'needs seq'\n"}
{"Action":"skip","Package":"example.com/a","Test":"TestScripts/seq"}
{"Action":"output","Package":"example.com/a","Output":"FAIL\n"}
{"Action":"output","Package":"example.com/a","Output":"FAIL\texample.com/a\t0.01s\n"}
{"Action":"fail","Package":"example.com/a"}
{"Action":"output","Package":"example.com/b","Output":"PASS\n"}
{"Action":"output","Package":"example.com/b","Output":"ok  \texample.com/b\t0.01s\n"}
{"Action":"pass","Package":"example.com/b"}
`

func TestReportShowsFailuresPackageLinesAndSkips(t *testing.T) {
	var out bytes.Buffer
	r := newReport(&out)
	if err := r.read(strings.NewReader(stream)); err != nil {
		t.Fatal(err)
	}
	if r.finish(false, "1") {
		t.Error("a run with a failed test passed")
	}
	got := out.String()
	for _, want := range []string{
		"    a_test.go:9: got 1, want 2\n--- FAIL: TestBroken (0.00s)\n",
		"FAIL\texample.com/a\t0.01s\n",
		"ok  \texample.com/b\t0.01s\n",
		"skipped: 2 test(s)\n",
		"skip: example.com/a TestPlain: needs a widget\n",
		"skip: example.com/a TestScripts/seq: needs seq\n",
		"go test exited 1\n",
		"tests: 1 passed, 1 failed, 2 skipped\n",
		"make test: FAIL\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
	for _, never := range []string{"passing chatter", "=== RUN", "PASS\n"} {
		if strings.Contains(strings.ReplaceAll(got, "make test: PASS", ""), never) {
			t.Errorf("the report shows %q:\n%s", never, got)
		}
	}
}

func TestReportFailsOnUnacceptedSkipOnlyWhenStrict(t *testing.T) {
	const skipOnly = `{"Action":"output","Package":"example.com/a","Test":"TestPlain","Output":"    a_test.go:31: needs a widget\n"}
{"Action":"skip","Package":"example.com/a","Test":"TestPlain"}
{"Action":"output","Package":"example.com/a","Output":"ok  \texample.com/a\t0.01s\n"}
{"Action":"pass","Package":"example.com/a"}
`
	for _, strict := range []bool{false, true} {
		var out bytes.Buffer
		r := newReport(&out)
		if err := r.read(strings.NewReader(skipOnly)); err != nil {
			t.Fatal(err)
		}
		if ok := r.finish(strict, "0"); ok == strict {
			t.Errorf("strict %v: passed %v with a skip no one accepted:\n%s", strict, ok, out.String())
		}
		if strict && !strings.Contains(out.String(), "TestPlain: needs a widget [NOT ACCEPTED]") {
			t.Errorf("strict: the skip isn't marked:\n%s", out.String())
		}
	}
}

func TestReportFailsWhenTestBinaryDiesOrStatusIsMissing(t *testing.T) {
	const died = `{"Action":"output","Package":"example.com/a","Test":"TestHang","Output":"    a_test.go:5: started\n"}
{"Action":"output","Package":"example.com/a","Output":"FAIL\texample.com/a\t600.0s\n"}
`
	var out bytes.Buffer
	r := newReport(&out)
	if err := r.read(strings.NewReader(died)); err != nil {
		t.Fatal(err)
	}
	if r.finish(false, "missing") {
		t.Error("passed with a test that never ended")
	}
	if !strings.Contains(out.String(), "--- NOT ENDED: example.com/a TestHang") || !strings.Contains(out.String(), "a_test.go:5: started") {
		t.Errorf("the unended test isn't shown:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "go test's exit status wasn't recorded") {
		t.Errorf("a missing status isn't said:\n%s", out.String())
	}
}
