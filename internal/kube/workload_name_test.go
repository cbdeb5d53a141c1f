package kube

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// TestIsWorkloadTaskNeedsTaskNameForm: a keyless task with no command and
// no image is a workload's only if its name is of TaskName's form, so an
// API task an older store kept in that shape is never swept as one.
func TestIsWorkloadTaskNeedsTaskNameForm(t *testing.T) {
	u := &unstructured.Unstructured{}
	u.SetName("train.llama")
	u.SetUID(types.UID("0b6f3e0c-5d2a-4f7e-9a41-2c3d4e5f6a7b"))
	name := TaskName(u)
	for _, c := range []struct {
		name, key string
		command   []string
		image     string
		want      bool
	}{
		{name, "", nil, "", true},
		{"job-1", "", nil, "", false},                 // an old API task: kept
		{"eval-deadbeeg", "", nil, "", false},         // not hex
		{"-deadbeef", "", nil, "", false},             // no base
		{name, "", []string{"sleep", "1"}, "", false}, // has a command
		{"job-1", WorkloadKey(u), nil, "", true},      // a key says it
	} {
		if got := IsWorkloadTask(c.name, c.key, c.command, c.image); got != c.want {
			t.Errorf("IsWorkloadTask(%q, %q, %v, %q) = %v, want %v", c.name, c.key, c.command, c.image, got, c.want)
		}
	}
}
