package config

import (
	"errors"
	"strings"
	"testing"

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
