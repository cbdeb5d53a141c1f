package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// TestTypeErrorNamesFieldLineAndKind: a value of the wrong kind is named
// by its place in the document, its line and what it must be; the
// decoder's own text named a YAML tag and a Go type ("cannot unmarshal
// !!str `two` into int32").
func TestTypeErrorNamesFieldLineAndKind(t *testing.T) {
	p := writeFile(t, `nodeGroups:
  - {name: p5, instanceType: ml.p5.48xlarge, count: two}
policy:
  borrowUnallocated: maybe
  preemptionDelaySeconds: [1, 2]
  priorityClasses: {name: a}
teams:
  - name: a
    quotas: [{instanceType: ml.p5.48xlarge, count: "a very long value"}]
`)
	_, err := LoadCluster(p)
	if err == nil || !errors.Is(err, model.ErrInvalid) {
		t.Fatalf("want an invalid-input error, got %v", err)
	}
	for _, want := range []string{
		`5 problems:`,
		`line 2: nodeGroups[0].count must be a whole number, not "two"`,
		`line 4: policy.borrowUnallocated must be true or false, not "maybe"`,
		`line 5: policy.preemptionDelaySeconds must be a number, not a list`,
		`line 6: policy.priorityClasses must be a list, not a mapping`,
		`line 9: teams[0].quotas[0].count must be a whole number, not "a very long value"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	for _, leak := range []string{"cannot unmarshal", "!!", "int32", "model."} {
		if strings.Contains(err.Error(), leak) {
			t.Errorf("error leaks %q:\n%v", leak, err)
		}
	}
	// A document that is not a mapping at all.
	_, err = LoadCluster(writeFile(t, "- a\n- b\n"))
	if err == nil || !strings.Contains(err.Error(), "line 1: the document must be a mapping") {
		t.Errorf("a list for a document: %v", err)
	}
}

// TestManyTypeErrorsAreCheap: a file with thousands of wrong values is
// refused at once, with the count and the first ones listed (describing
// each error scanned the whole file: 16,000 wrong values took minutes), and
// two wrong values on one flow-style line are each named by their place.
func TestManyTypeErrorsAreCheap(t *testing.T) {
	var b strings.Builder
	b.WriteString("nodeGroups:\n  - {name: p5, instanceType: ml.p5.48xlarge, count: x}\nteams:\n")
	const n = 20000
	for i := range n {
		fmt.Fprintf(&b, "  - {name: t%d, quotas: [{instanceType: ml.p5.48xlarge, count: two}]}\n", i)
	}
	p := writeFile(t, b.String())
	start := time.Now()
	_, err := LoadCluster(p)
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("refusing %d wrong values took %v", n, took)
	}
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	for _, want := range []string{
		fmt.Sprintf("%d problems:", n+1),
		`line 2: nodeGroups[0].count must be a whole number, not "x"`,
		`line 4: teams[0].quotas[0].count must be a whole number, not "two"`,
		fmt.Sprintf("... and %d more; fix these and validate again", n+1-maxProblems),
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%.2000s", want, msg)
		}
	}
	if lines := strings.Count(msg, "\n"); lines > maxProblems+2 {
		t.Errorf("the message lists %d lines, want the first %d problems", lines, maxProblems)
	}

	p = writeFile(t, "nodeGroups:\n  - {name: p5, instanceType: ml.p5.48xlarge, count: two}\nteams:\n  - {name: a, quotas: [{instanceType: ml.p5.48xlarge, count: two}, {instanceType: ml.p5.48xlarge, count: two}]}\n")
	_, err = LoadCluster(p)
	for _, want := range []string{"teams[0].quotas[0].count", "teams[0].quotas[1].count"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
