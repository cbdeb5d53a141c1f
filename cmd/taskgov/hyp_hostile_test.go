package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHypHostileOptionValues runs the real binary through its hyp and
// hyperpod links with option values a script or a hostile member may give:
// NaN, infinities and negative amounts, numbers too large for any type,
// words where numbers go, a job name in another script. Each is refused
// before anything is submitted, exit 2, in click's words on stderr (hyp
// configure: its own lines on stdout, exit 1, config.yaml untouched), and
// no job exists afterwards. `--vcpu nan` and `--memory inf` got as far as
// encoding the request and exited 1 with "json: unsupported value: NaN";
// `--node-count two` said `strconv.ParseInt: parsing "two": invalid syntax`;
// `--auto-resume perhaps` was taken for a command named perhaps.
func TestHypHostileOptionValues(t *testing.T) {
	runIn := linkRunner(t)
	ns := "hyperpod-ns-team-a"
	create := []string{"create", "hyp-pytorch-job", "--job-name", "hostile", "-n", ns, "--image", "i", "--command", "[sleep, 1]",
		"--instance-type", "ml.g5.12xlarge"}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"hyp", append(create[:len(create):len(create)], "--vcpu", "nan"), "vcpu: Input should be a finite number"},
		{"hyp", append(create[:len(create):len(create)], "--memory", "inf"), "memory: Input should be a finite number"},
		{"hyp", append(create[:len(create):len(create)], "--vcpu-limit", "-Inf", "--vcpu", "1"), "vcpu_limit: Input should be a finite number"},
		{"hyp", append(create[:len(create):len(create)], "--vcpu", "-2"), "vcpu: Input should be greater than or equal to 0"},
		{"hyp", append(create[:len(create):len(create)], "--accelerators", "-3"), "accelerators: Input should be greater than or equal to 0"},
		{"hyp", append(create[:len(create):len(create)], "--vcpu", "1e400"), "Invalid value for '--vcpu': '1e400' is out of range: give a finite number."},
		{"hyp", append(create[:len(create):len(create)], "--node-count", "two"), "Invalid value for '--node-count': 'two' is not a valid integer."},
		{"hyp", append(create[:len(create):len(create)], "--accelerators", "99999999999999999999"),
			"Invalid value for '--accelerators': '99999999999999999999' is out of range: give a whole number from"},
		{"hyp", append(create[:len(create):len(create)], "--max-retry", "1e3"), "Invalid value for '--max-retry': '1e3' is not a valid integer."},
		{"hyp", append(create[:len(create):len(create)], "--deep-health-check-passed-nodes-only", "maybe"),
			"Invalid value for '--deep-health-check-passed-nodes-only': 'maybe' is not a valid boolean"},
		{"hyp", []string{"create", "hyp-pytorch-job", "--job-name", "trâining", "-n", ns, "--image", "i", "--command", "[sleep, 1]"},
			"job_name: String should match pattern"},
		{"hyp", []string{"create", "hyp-pytorch-job", "--job-name", strings.Repeat("a", 64), "-n", ns, "--image", "i", "--command", "[sleep, 1]"},
			"job_name: String should have at most 63 characters"},
		{"hyperpod", []string{"start-job", "--job-name", "hostile", "-n", ns, "--image", "i", "--entry-script", "train.py",
			"--node-count", "99999999999999999999"}, "Invalid value for '--node-count': '99999999999999999999' is out of range"},
		{"hyperpod", []string{"start-job", "--job-name", "hostile", "-n", ns, "--image", "i", "--entry-script", "train.py",
			"--max-retry", "1e3"}, "Invalid value for '--max-retry': '1e3' is not a valid integer."},
		{"hyperpod", []string{"start-job", "--job-name", "hostile", "-n", ns, "--image", "i", "--entry-script", "train.py",
			"--auto-resume", "perhaps"}, "Invalid value for '--auto-resume': 'perhaps' is not a valid boolean"},
	} {
		out, errs, code := runIn("", c.name, c.args...)
		if code != exitInput || !strings.Contains(errs, c.want) || strings.Contains(errs, "strconv") || strings.Contains(out, "Successfully") {
			t.Fatalf("%s %s: exit %d (want %d), want %q on stderr\nstdout:\n%s\nstderr:\n%s", c.name, strings.Join(c.args, " "), code, exitInput, c.want, out, errs)
		}
	}

	// hyp configure refuses the same values and leaves config.yaml as it was.
	dir := t.TempDir()
	if _, errs, code := runIn(dir, "hyp", "init", "hyp-pytorch-job"); code != 0 {
		t.Fatalf("hyp init: exit %d: %s", code, errs)
	}
	before, err := os.ReadFile(filepath.Join(dir, hypConfigName))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"nan", "inf", "-1"} {
		out, errs, code := runIn(dir, "hyp", "configure", "--vcpu", v)
		if code != exitFailure || !strings.Contains(out, "vcpu: Input should") || !strings.Contains(out, "config.yaml was not updated") {
			t.Fatalf("hyp configure --vcpu %s: exit %d (want 1)\nstdout:\n%s\nstderr:\n%s", v, code, out, errs)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, hypConfigName)); string(after) != string(before) {
		t.Fatalf("a refused hyp configure changed config.yaml:\n%s", after)
	}
	// A config.yaml edited by hand to .nan: hyp validate lists the field.
	edited := strings.Replace(string(before), "\nvcpu: null", "\nvcpu: .nan", 1)
	if edited == string(before) {
		t.Fatalf("config.yaml has no `vcpu: null` line to edit:\n%s", before)
	}
	if err := os.WriteFile(filepath.Join(dir, hypConfigName), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := runIn(dir, "hyp", "validate"); code != exitFailure || !strings.Contains(out, "vcpu: Input should be a finite number") {
		t.Fatalf("hyp validate of vcpu: .nan: exit %d (want 1)\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}

	// Nothing was submitted.
	if out, errs, code := runIn("", "hyp", "list", "hyp-pytorch-job", "-n", ns); code != 0 || !strings.Contains(out, "No jobs found.") {
		t.Fatalf("hyp list after the refusals: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}
