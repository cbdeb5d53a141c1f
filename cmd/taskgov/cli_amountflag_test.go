package main

import (
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestTeamAmountFlagsRefuseWhatTheyCannotHold: --quota and --lending-limit
// read TYPE:gpus=N,... through one parser, so a fraction of a GPU, a
// negative or non-finite amount, an unknown or repeated key is refused by
// both, naming the flag, the value and the fix, and the team is left as
// it was (before the shared parser, --quota ml.p5.48xlarge:gpus=1.5 set
// 1 GPU silently and accepted gpus=-1 up to the server, tpus=2 without
// naming it, and NaN). The server refuses 1.5 GPUs in a JSON body too.
func TestTeamAmountFlagsRefuseWhatTheyCannotHold(t *testing.T) {
	cliServer(t)
	before := mustCLI(t, "team", "describe", "product", "-o", "json")
	for _, c := range []struct{ amount, want string }{
		{"gpus=1.5", `gives gpus=1.5, a fraction (GPUs are whole)`},
		{"gpus=-1", `gives gpus=-1, a negative amount (GPUs are whole)`},
		{"gpus=-0.5", `gives gpus=-0.5, a fraction (GPUs are whole)`},
		{"gpus=NaN", `gives gpus=NaN, not a number`},
		{"gpus=1e400", `gives gpus=1e400, not a number`},
		{"gpus=8,gpus=4", `gives gpus twice`},
		{"gpus=8,vcpu=-1", `gives vcpu=-1, a negative amount`},
		{"gpus=8,memoryGiB=Inf", `gives memoryGiB=Inf, not a number`},
		{"gpus=8,tpus=2", `names an unknown resource "tpus" (gpus, vcpu or memoryGiB)`},
		{"gpus", `has "gpus", not KEY=NUMBER`},
	} {
		for _, flag := range []string{"--quota", "--lending-limit"} {
			v := "ml.p5.48xlarge:" + c.amount
			_, errs, code := cli(t, "team", "update", "product", flag, v)
			if code != exitInput || !strings.Contains(errs, flag+": \""+v+"\" "+c.want) || !strings.Contains(errs, "; use ml.p5.48xlarge") {
				t.Errorf("team update %s %s: exit %d, want %q and the fix in:\n%s", flag, v, code, c.want, errs)
			}
		}
	}
	for _, c := range []struct{ value, want string }{
		{"ml.p5.48xlarge=1.5", `gives the count 1.5, a fraction (instances are whole)`},
		{"ml.p5.48xlarge=-2", `gives the count -2, a negative amount (instances are whole)`},
		{"ml.p5.48xlarge=", `gives the count , not a number (instances are whole)`},
		{"=2", `names no instance type`},
		{":gpus=2", `names no instance type`},
		{"ml.p5.48xlarge", `gives no amount`},
	} {
		_, errs, code := cli(t, "team", "update", "product", "--quota", c.value)
		if code != exitInput || !strings.Contains(errs, c.want) {
			t.Errorf("team update --quota %s: exit %d, want %q in:\n%s", c.value, code, c.want, errs)
		}
	}
	if _, errs, code := cli(t, "team", "create", "vision", "--quota", "ml.p5.48xlarge:gpus=1.5"); code != exitInput ||
		!strings.Contains(errs, "a fraction") {
		t.Errorf("team create --quota gpus=1.5: exit %d:\n%s", code, errs)
	}
	if after := mustCLI(t, "team", "describe", "product", "-o", "json"); after != before {
		t.Fatalf("a refused update changed the team:\nbefore %s\nafter %s", before, after)
	}
	if _, _, code := cli(t, "team", "describe", "vision"); code != exitNotFound {
		t.Fatalf("a refused create made the team (exit %d)", code)
	}
	// Whole amounts in any spelling pass: 1e1 GPUs is 10.
	mustCLI(t, "team", "update", "product", "--quota", "ml.p5.48xlarge:gpus=1e1,vcpu=0")
	if out := mustCLI(t, "team", "list"); !strings.Contains(out, "ml.p5.48xlarge:gpus=10") {
		t.Fatalf("gpus=1e1 should set 10 GPUs:\n%s", out)
	}

	// The API: a JSON body with 1.5 GPUs is refused (400), nothing changed.
	body := `{"name": "product", "lending": "Lend", "quotas": [{"instanceType": "ml.p5.48xlarge", "gpus": 1.5}]}`
	req, _ := http.NewRequest("PUT", os.Getenv("TASKGOV_SERVER")+"/api/v1/teams/product", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+os.Getenv("TASKGOV_TOKEN"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b), `"field":"quotas[0].gpus"`) || !strings.Contains(string(b), "must be a whole number, not 1.5") {
		t.Fatalf("PUT with 1.5 GPUs: %d %s", resp.StatusCode, b)
	}
	if out := mustCLI(t, "team", "list"); !strings.Contains(out, "ml.p5.48xlarge:gpus=10") {
		t.Fatalf("a refused PUT changed the team:\n%s", out)
	}
}
