package main

import (
	"strings"
	"testing"
)

// TestLendingLimitInTheCLI: `team update --lending-limit` sets a quota
// entry's lending limit through the real server, `team describe` shows it
// and the GPUs the scheduler now lends (at most the limit), bad limits are
// refused with the field and a fix and leave the team as it was, and
// TYPE=none lends all idle quota again.
func TestLendingLimitInTheCLI(t *testing.T) {
	cliServer(t)
	mustCLI(t, "team", "update", "product", "--lending-limit", "ml.p5.48xlarge:gpus=8")
	out := mustCLI(t, "team", "describe", "product")
	if !strings.Contains(out, "Lending limit:       ml.p5.48xlarge 8 GPUs") {
		t.Fatalf("describe lacks the lending limit:\n%s", out)
	}
	// product's 16 idle GPUs: 8 lent, not 16.
	if !lentGPUs(out, "8") {
		t.Fatalf("describe: product should lend 8 of its 16 idle GPUs:\n%s", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--lending-limit", "ml.p5.48xlarge:gpus=24"}, "lendingLimit.gpus: is 24 GPUs, above the quota's 16 GPUs"},
		{[]string{"--lending-limit", "ml.g5.12xlarge:gpus=4"}, "the team has no quota of ml.g5.12xlarge to lend"},
		{[]string{"--lending-limit", "ml.p5.48xlarge:gpus=1.5"}, "gives a fraction of a GPU"},
		{[]string{"--lending-limit", "ml.p5.48xlarge:tpus=2"}, `names an unknown resource "tpus"`},
		{[]string{"--lending", "DontLend"}, "the team's lending is DontLend: it lends nothing"},
	} {
		_, errs, code := cli(t, append([]string{"team", "update", "product"}, c.args...)...)
		if code != exitInput || !strings.Contains(errs, c.want) {
			t.Fatalf("team update %v: exit %d, want %q in:\n%s", c.args, code, c.want, errs)
		}
	}
	if out := mustCLI(t, "team", "describe", "product"); !strings.Contains(out, "ml.p5.48xlarge 8 GPUs") || !strings.Contains(out, "Lend\n") {
		t.Fatalf("a refused update changed the team:\n%s", out)
	}
	mustCLI(t, "team", "update", "product", "--lending-limit", "ml.p5.48xlarge=none")
	out = mustCLI(t, "team", "describe", "product")
	if !strings.Contains(out, "none (lends all idle quota)") || !lentGPUs(out, "16") {
		t.Fatalf("after =none, product should lend all 16 idle GPUs:\n%s", out)
	}
}

// lentGPUs reports whether describe's ml.p5.48xlarge row lends n GPUs.
func lentGPUs(describe, n string) bool {
	for _, line := range strings.Split(describe, "\n") {
		if f := strings.Fields(line); len(f) == 5 && f[0] == "ml.p5.48xlarge" {
			return f[4] == n
		}
	}
	return false
}
