package declaration

import (
	"fmt"
	"strings"
	"testing"
)

// TestProblems: every resource's form checks and edges report their first
// problem, each naming the resource's index; Validate returns the first.
func TestProblems(t *testing.T) {
	in := doc(
		dir("a", `"/a"`, `,"mode":"999"`),
		dir("b", `"rel"`, `,"depends_on":["nope"]`),
		dir("c", `"/c"`, `,"depends_on":["gone"]`),
		dir("a", `"/a2"`, ""),
	)
	d, err := Read([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	list, total := d.Problems(0)
	var got []string
	for _, p := range list {
		i, ok := p.Resource()
		got = append(got, fmt.Sprintf("%d %v %s", i, ok, p))
	}
	want := []string{
		`0 true resource "a": mode: "999" is not an octal mode of 7777 at most, such as "644"`,
		`1 true resource "b": path: "rel" must be absolute or start with ~/`,
		`3 true resource "a": id declared twice`,
		`1 true resource "b": depends_on: no resource has the id "nope"`,
		`2 true resource "c": depends_on: no resource has the id "gone"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || total != len(want) {
		t.Fatalf("Problems (%d) =\n%s\nwant\n%s", total, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := d.Validate(); err == nil || err.Error() != want[0][len("0 true "):] {
		t.Fatalf("Validate = %v, want the first problem", err)
	}
	if list, total := d.Problems(2); len(list) != 2 || total != 5 {
		t.Fatalf("Problems(2): %d listed of %d, want 2 of 5", len(list), total)
	}
	// The target's problem comes first and names no resource.
	d.Target.Local = false
	list, _ = d.Problems(0)
	if _, ok := list[0].Resource(); ok || list[0].Field != "target.host" {
		t.Fatalf("first problem %v, want the target's", list[0])
	}
}

// TestProblemsDuplicateIDIsTheOnlyProblem: a second resource with an id
// already declared, depending on the first, is reported as the duplicate
// it is, not as a resource that depends on itself as well.
func TestProblemsDuplicateIDIsTheOnlyProblem(t *testing.T) {
	d, err := Read([]byte(doc(dir("app", `"/a"`, ""), dir("app", `"/b"`, `,"depends_on":["app"]`))))
	if err != nil {
		t.Fatal(err)
	}
	list, total := d.Problems(0)
	if total != 1 || list[0].Error() != `resource "app": id declared twice` {
		t.Fatalf("Problems = %v (%d), want only the duplicate id", list, total)
	}
}

// TestProblemsAcrossAfterTheRest: the checks across resources run only
// once the resources' own pass, so they see what they take for granted.
func TestProblemsAcrossAfterTheRest(t *testing.T) {
	d, err := Read([]byte(doc(dir("a", `"/x"`, ""), dir("b", `"/x"`, ""))))
	if err != nil {
		t.Fatal(err)
	}
	if list, total := d.Problems(0); total != 1 || !strings.Contains(list[0].Error(), `both manage /x`) {
		t.Fatalf("Problems = %v (%d)", list, total)
	}
	d, err = Read([]byte(doc(dir("a", `"/x"`, `,"mode":"9"`), dir("b", `"/x"`, ""))))
	if err != nil {
		t.Fatal(err)
	}
	if list, total := d.Problems(0); total != 1 || list[0].Field != "mode" {
		t.Fatalf("Problems = %v (%d), want only the mode", list, total)
	}
}
