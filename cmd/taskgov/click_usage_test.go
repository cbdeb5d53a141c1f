package main

import (
	"encoding/json"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// TestLinkedUsageErrorsInClickWords: command lines of HyperPod's docs that
// its own CLIs refuse as click usage errors get click's sentences through
// the links, exit 2, and change nothing; they showed cobra's ("unknown
// flag: --name", "flag needs an argument", "--job-name: no job named",
// and `unknown command "maybe"` for a word after a flag that takes none).
// The first two are verbatim from HyperPod's training-init-experience
// notebook, whose `--name` hyp itself refuses (its option is --job-name).
func TestLinkedUsageErrorsInClickWords(t *testing.T) {
	cliServerWith(t, walkthroughCluster)
	hypMode = true
	t.Cleanup(func() { hypMode, hyperpodMode = false, false })
	mustCLI(t, "create", "hyp-pytorch-job", "--job-name", "my-pytorch-job", "--namespace", "hyperpod-ns-team-a",
		"--image", "pytorch/pytorch:latest", "--command", "[sleep, 30]")
	for _, c := range []struct {
		want string
		line []string
	}{
		{"No such option: --name (Possible options: --job-name, --namespace)", []string{"describe", "hyp-pytorch-job", "--name", "my-pytorch-job"}},
		{"No such option: --name (Possible options: --job-name, --namespace)", []string{"delete", "hyp-pytorch-job", "--name", "my-pytorch-job"}},
		{"Missing option '--since-hours'.", []string{"get-operator-logs", "hyp-recipe-job"}}, // README, Recipe Job
		{"Missing option '--job-name'.", []string{"describe", "hyp-pytorch-job"}},
		{"Option '--job-name' requires an argument.", []string{"describe", "hyp-pytorch-job", "--job-name"}},
		{"Option '-n' requires an argument.", []string{"list", "hyp-pytorch-job", "-n"}},
		{"No such option: -x", []string{"list", "hyp-pytorch-job", "-x"}},
		{"No such option: --job-nam Did you mean --job-name?", []string{"create", "hyp-pytorch-job", "--job-nam", "x",
			"--image", "i", "--command", "[true]"}},
		{"No such command 'lst'. Did you mean 'list'?", []string{"lst"}},
	} {
		if errs := mustFail(t, exitInput, c.want, c.line...); strings.TrimSpace(errs) != c.want {
			t.Fatalf("hyp %s: %q, want exactly %q", strings.Join(c.line, " "), errs, c.want)
		}
	}
	// A hostile option name (100 KB) gets the same sentence, without
	// suggestions, which are not looked for past 200 characters.
	long := "--" + strings.Repeat("name", 25000)
	if errs := mustFail(t, exitInput, "No such option: "+long, "describe", "hyp-pytorch-job", long); strings.Contains(errs, "Possible") {
		t.Fatalf("suggestions for a 100 KB option name: %.200s", errs)
	}
	if o := mustCLI(t, "list", "hyp-pytorch-job", "-n", "hyperpod-ns-team-a"); !strings.Contains(o, "my-pytorch-job") {
		t.Fatalf("a refused delete removed the job:\n%s", o)
	}

	hypMode, hyperpodMode = false, true
	mustFail(t, exitInput, "Missing option '--job-name'.", "get-job")
	mustFail(t, exitInput, "Got unexpected extra argument (maybe)", "get-job", "--job-name", "my-pytorch-job", "--verbose", "maybe")
	mustFail(t, exitInput, "Got unexpected extra arguments (maybe so)", "get-job", "--job-name", "my-pytorch-job", "--verbose", "maybe", "so")
	mustFail(t, exitInput, "No such option: --namspace (Possible options: --all-namespaces, --namespace)", "list-jobs", "--namspace", "x")
	// Under its own name taskgov keeps the parser's words.
	hyperpodMode = false
	mustFail(t, exitInput, "unknown flag: --bogus", "list-jobs", "--bogus")
	mustFail(t, exitInput, `unknown command "maybe" for "taskgov get-job"`, "get-job", "--job-name", "my-pytorch-job", "maybe")
}

// TestCloseMatchesAgreesWithDifflib: the options suggested for an unknown
// one are those Python's difflib.get_close_matches (click's) picks, in its
// order, for misspellings of every option of `hyp create hyp-pytorch-job`.
func TestCloseMatchesAgreesWithDifflib(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed (the reference is its difflib)")
	}
	hypMode = true
	t.Cleanup(func() { hypMode = false })
	cmd, _, err := newRootCmd().Find([]string{"create", "hyp-pytorch-job"})
	if err != nil {
		t.Fatal(err)
	}
	opts := append(longOptions(cmd), "--help")
	words := []string{"--name", "--bogus", "--n", "--", "--versoin", "--image-pull-policy", "--nodes"}
	for _, o := range opts {
		for i := 2; i < len(o); i += 3 { // a letter left out, and one doubled
			words = append(words, o[:i]+o[i+1:], o[:i+1]+o[i:])
		}
	}
	in, _ := json.Marshal(map[string][]string{"words": words, "opts": opts})
	ref := exec.Command(py, "-c", `import sys, json, difflib
d = json.load(sys.stdin)
json.dump([difflib.get_close_matches(w, d["opts"]) for w in d["words"]], sys.stdout)`)
	ref.Stdin = strings.NewReader(string(in))
	out, err := ref.Output()
	if err != nil {
		t.Fatalf("python3 difflib: %v", err)
	}
	var want [][]string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d misspellings of %d options compared", len(words), len(opts))
	for i, w := range words {
		got := closeMatches(w, opts)
		if len(got) == 0 && len(want[i]) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("closeMatches(%q) = %q; difflib gives %q", w, got, want[i])
		}
	}
}
