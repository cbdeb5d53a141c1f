package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskgov/taskgov/examples"
)

// TestReadmeCommandLines runs the command lines of README.md's quick tour
// and its HyperPod section as a new user types them, against a real server
// on the README's cluster (examples/demo-cluster.yaml): every line must
// exit 0. Only the lines a test cannot type are left out: building the
// binary, starting the server, logging in (the test's server and token
// stand for them), making the links (their names pick the mode), and the
// Hydra file the user brings. `--follow` is dropped so the line returns.
// Without the README's --instance-type on the HyperPod lines (the demo's
// teams hold two quota types) or with its apply before its export, a line
// fails.
func TestReadmeCommandLines(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cliServerWith(t, string(examples.DemoCluster))
	t.Cleanup(func() { hypMode, hyperpodMode = false, false })

	// The tour reads the clone's files; the HyperPod block writes folders,
	// so it runs in a scratch directory.
	tour := readmeBlock(t, string(readme), "## A quick tour with the CLI")
	hp := readmeBlock(t, string(readme), "### HyperPod's CLIs")
	scratch := t.TempDir()
	t.Chdir(repo)
	ran := 0
	for i, line := range append(tour, hp...) {
		if i == len(tour) {
			t.Chdir(scratch)
		}
		// The user's $PWD is the clone (or a folder in it, for the
		// $(dirname $PWD) of hyp's init experience).
		line = strings.ReplaceAll(line, "$(dirname $PWD)", repo)
		line = strings.ReplaceAll(line, "$PWD", repo)
		for _, step := range strings.Split(line, " && ") {
			words := shellWords(t, step)
			if len(words) == 0 {
				continue
			}
			switch words[0] {
			case "go", "ln":
				continue
			case "mkdir":
				if err := os.Mkdir(words[1], 0o755); err != nil {
					t.Fatal(err)
				}
				continue
			case "cd":
				t.Chdir(words[1])
				continue
			}
			prog := filepath.Base(words[0])
			args := words[1:]
			if len(args) > 0 && (args[0] == "server" || args[0] == "login") ||
				strings.Contains(step, "--config-file job.yaml") {
				continue
			}
			args = without(args, "--follow")
			hypMode, hyperpodMode = prog == "hyp", prog == "hyperpod"
			out, errs, code := cli(t, args...)
			hypMode, hyperpodMode = false, false
			if code != 0 {
				t.Fatalf("README line\n  %s\nexit %d\n%s%s", step, code, out, errs)
			}
			ran++
		}
	}
	if ran < 25 {
		t.Fatalf("ran %d README lines; the README's blocks were not found whole", ran)
	}
}

// readmeBlock returns the command lines of the first ```sh block after the
// heading, continuation lines joined and comments cut.
func readmeBlock(t *testing.T, readme, heading string) []string {
	t.Helper()
	i := strings.Index(readme, "\n"+heading)
	if i < 0 {
		t.Fatalf("README.md has no %q", heading)
	}
	rest := readme[i:]
	start := strings.Index(rest, "```sh\n")
	end := strings.Index(rest[start+6:], "```")
	if start < 0 || end < 0 {
		t.Fatalf("README.md: no sh block after %q", heading)
	}
	body := strings.ReplaceAll(rest[start+6:start+6+end], "\\\n", " ")
	var lines []string
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(cutComment(l)); l != "" {
			lines = append(lines, strings.TrimSuffix(l, " &"))
		}
	}
	return lines
}

// cutComment drops a # comment that starts outside quotes.
func cutComment(l string) string {
	var q rune
	for i, r := range l {
		switch {
		case q != 0:
			if r == q {
				q = 0
			}
		case r == '\'' || r == '"':
			q = r
		case r == '#' && (i == 0 || l[i-1] == ' '):
			return l[:i]
		}
	}
	return l
}

// shellWords splits a line as sh does for the README's lines: blanks
// separate words, quotes group them.
func shellWords(t *testing.T, l string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	var q rune
	in := false
	for _, r := range l {
		switch {
		case q != 0 && r == q:
			q = 0
		case q != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			q, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if q != 0 {
		t.Fatalf("unbalanced quote in README line %q", l)
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

func without(args []string, drop string) []string {
	var out []string
	for _, a := range args {
		if a != drop {
			out = append(out, a)
		}
	}
	return out
}
