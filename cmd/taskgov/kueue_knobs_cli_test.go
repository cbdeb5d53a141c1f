package main

import (
	"os"
	"path/filepath"
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
		{[]string{"--lending-limit", "ml.p5.48xlarge:gpus=1.5"}, "gives gpus=1.5, a fraction (GPUs are whole)"},
		{[]string{"--lending-limit", "ml.p5.48xlarge:tpus=2"}, `names an unknown resource "tpus" (gpus, vcpu or memoryGiB)`},
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
	// A new amount keeps the type's lending limit; one below it is refused.
	mustCLI(t, "team", "update", "product", "--quota", "ml.p5.48xlarge:gpus=12")
	if out := mustCLI(t, "team", "describe", "product"); !strings.Contains(out, "Lending limit:       ml.p5.48xlarge 8 GPUs") {
		t.Fatalf("--quota dropped the type's lending limit:\n%s", out)
	}
	if _, errs, code := cli(t, "team", "update", "product", "--quota", "ml.p5.48xlarge:gpus=4"); code != exitInput ||
		!strings.Contains(errs, "above the quota's 4 GPUs") {
		t.Fatalf("--quota below the lending limit: exit %d:\n%s", code, errs)
	}
	mustCLI(t, "team", "update", "product", "--quota", "ml.p5.48xlarge:gpus=16")
	// HyperPod has no field for it: export says so.
	if _, errs, code := cli(t, "export", "--format", "hyperpod"); code != 0 ||
		!strings.Contains(errs, "not exported: team product: lendingLimit of ml.p5.48xlarge has no HyperPod field") {
		t.Fatalf("export with a lending limit: exit %d:\n%s", code, errs)
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

// TestBorrowWithinGroupInTheCLI: a team file with borrowWithinGroup is
// stored and read back through the real server, export names it, and one
// on a team that never borrows is refused with the field and a fix.
func TestBorrowWithinGroupInTheCLI(t *testing.T) {
	dir := cliServer(t)
	file := filepath.Join(dir, "team.yaml")
	_ = os.WriteFile(file, []byte("borrowWithinGroup: {policy: LowerPriority, maxPriorityWeight: 50}\nquotas: [{instanceType: ml.p5.48xlarge, count: 1}]\n"), 0o644)
	mustCLI(t, "team", "create", "vision", "-f", file)
	if out := mustCLI(t, "team", "describe", "vision", "-o", "json"); !strings.Contains(out, `"borrowWithinGroup": {`) ||
		!strings.Contains(out, `"policy": "LowerPriority"`) || !strings.Contains(out, `"maxPriorityWeight": 50`) {
		t.Fatalf("describe lacks borrowWithinGroup:\n%s", out)
	}
	if _, errs, _ := cli(t, "export", "--format", "hyperpod"); !strings.Contains(errs, "not exported: team vision: borrowWithinGroup has no HyperPod field") {
		t.Fatalf("export does not name borrowWithinGroup:\n%s", errs)
	}
	_, errs, code := cli(t, "team", "update", "vision", "--lending", "Lend")
	if code != exitInput || !strings.Contains(errs, "borrowWithinGroup: is set, but the team's lending is Lend: it never borrows") {
		t.Fatalf("borrowWithinGroup on a team that does not borrow: exit %d:\n%s", code, errs)
	}
}
