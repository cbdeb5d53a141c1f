package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHypPullPolicyIsKept: hyp create's --pull-policy is stored with the
// job (the task spec's imagePullPolicy, read back after a restart) and
// hyp describe shows it as HyperPod's CLI does (the container's
// imagePullPolicy; N/A when none was given); it showed N/A whatever was
// given. A value that is not a pull policy is refused naming the field,
// and no job is made. hyperpod start-job's --pull-policy is kept too.
func TestHypPullPolicyIsKept(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, []byte(walkthroughCluster), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := startServerOn(t, dir, cfg, "")
	hypMode = true
	t.Cleanup(func() { hypMode = false })
	ns := "hyperpod-ns-team-a"
	create := func(job string, extra ...string) (string, string, int) {
		return cli(t, append([]string{"create", "hyp-pytorch-job", "--job-name", job, "-n", ns, "--image", "i", "--command", "[sleep, 600]"}, extra...)...)
	}
	if _, errs, code := create("pp", "--pull-policy", "Always"); code != 0 {
		t.Fatalf("hyp create --pull-policy Always: exit %d: %s", code, errs)
	}
	if _, errs, code := create("np"); code != 0 {
		t.Fatalf("hyp create: exit %d: %s", code, errs)
	}
	policy := func(job string) string {
		o := mustCLI(t, "describe", "hyp-pytorch-job", "--job-name", job, "-n", ns)
		for _, l := range strings.Split(o, "\n") {
			if v, ok := strings.CutPrefix(l, "    Image Pull Policy: "); ok {
				return v
			}
		}
		t.Fatalf("describe has no Image Pull Policy line:\n%s", o)
		return ""
	}
	if p := policy("pp"); p != "Always" {
		t.Errorf("describe pp: Image Pull Policy %q, want Always", p)
	}
	if p := policy("np"); p != "N/A" {
		t.Errorf("describe np: Image Pull Policy %q, want N/A", p)
	}
	// hyp sends any --pull-policy (its schema takes a string); the
	// cluster's refusal is a failed create: exit 1 (hypSubmitFailure).
	_, errs, code := create("bad", "--pull-policy", "Sometimes")
	if code != exitFailure || !strings.Contains(errs, `imagePullPolicy: "Sometimes" is not an image pull policy; use Always, IfNotPresent or Never`) {
		t.Errorf("hyp create --pull-policy Sometimes: exit %d: %s", code, errs)
	}
	if _, _, code := cli(t, "describe", "hyp-pytorch-job", "--job-name", "bad", "-n", ns); code == 0 {
		t.Error("a refused create made the job")
	}
	hypMode = false
	mustCLI(t, "start-job", "--job-name", "v2", "-n", ns, "--image", "i", "--command", "sleep 600", "--pull-policy", "Never")
	if o := mustCLI(t, "get-job", "--job-name", "v2", "-o", "json"); !strings.Contains(o, `"imagePullPolicy": "Never"`) {
		t.Errorf("start-job --pull-policy Never is not in the job:\n%s", o)
	}
	stop()
	startServerOn(t, dir, "", "")
	hypMode = true
	if p := policy("pp"); p != "Always" {
		t.Errorf("after a restart, describe pp: Image Pull Policy %q, want Always", p)
	}
}

// TestHypSetClusterContextRefusesAnUnknownCluster: as HyperPod's CLI,
// which describes the named cluster before it changes any context,
// set-cluster-context (and the v2 CLI's connect-cluster) with a name the
// server does not serve fails (exit 1 through the links, on stderr),
// naming the cluster it serves, and leaves the saved context as it was;
// it accepted any name.
func TestHypSetClusterContextRefusesAnUnknownCluster(t *testing.T) {
	cliServerWith(t, walkthroughCluster)
	hypMode = true
	t.Cleanup(func() { hypMode, hyperpodMode = false, false })
	mustCLI(t, "set-cluster-context", "--cluster-name", "taskgov", "--namespace", "hyperpod-ns-team-a")
	before := mustCLI(t, "get-cluster-context")
	_, errs, code := cli(t, "set-cluster-context", "--cluster-name", "prod-east", "--namespace", "hyperpod-ns-team-b")
	if code != exitFailure || !strings.Contains(errs, "cannot connect to cluster prod-east: this taskgov server serves one cluster, taskgov; nothing was saved") {
		t.Errorf("set-cluster-context prod-east: exit %d: %s", code, errs)
	}
	if after := mustCLI(t, "get-cluster-context"); after != before {
		t.Errorf("a refused set-cluster-context changed the context:\n%s\nwas\n%s", after, before)
	}
	hypMode, hyperpodMode = false, true
	if _, errs, code := cli(t, "connect-cluster", "--cluster-name", "prod-east"); code != exitFailure || !strings.Contains(errs, "serves one cluster, taskgov") {
		t.Errorf("hyperpod connect-cluster prod-east: exit %d: %s", code, errs)
	}
	hyperpodMode = false
	if _, errs, code := cli(t, "connect-cluster", "--cluster-name", "prod-east"); code != exitNotFound || !strings.Contains(errs, "--cluster-name taskgov") {
		t.Errorf("taskgov connect-cluster prod-east: exit %d: %s", code, errs)
	}
}
