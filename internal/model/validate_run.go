package model

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Limits on what a task may store. Every submitted field is kept in the
// task's record and copied into events and messages, so each has a size
// bound, refused at the edge with the limit named.
const (
	MaxCommandArgs  = 1024
	MaxCommandBytes = 32 << 10 // all arguments together
	MaxEnvVars      = 256
	MaxEnvBytes     = 32 << 10 // all names and values together
	MaxEnvNameLen   = 256
	MaxImageLen     = 512
	// MaxIdempotencyKeyLen bounds a submission's idempotency key.
	MaxIdempotencyKeyLen = 255
	// MaxRetry bounds a task's auto-resume retries; each retry also waits
	// longer than the last (see RetryBackoff).
	MaxRetry = 100
)

// reservedEnv are the variables every pod gets from taskgov; a task's env
// may not set them (a forged TASKGOV_DATA_DIR once hid a pod from the
// stray-process sweep).
var reservedEnv = map[string]bool{
	"CUDA_VISIBLE_DEVICES": true, "MASTER_ADDR": true, "MASTER_PORT": true,
	"WORLD_SIZE": true, "RANK": true, "LOCAL_RANK": true,
}

// ReservedEnv reports whether name is set by taskgov for every pod:
// TASKGOV_* and the torchrun variables.
func ReservedEnv(name string) bool {
	return strings.HasPrefix(name, "TASKGOV_") || reservedEnv[name]
}

// ValidateRun checks what a task runs: its command, args, environment and
// image. The core ignores these fields (the simulator's tasks have none), so
// the API calls this beside ValidateTask. A command is required unless an
// image is given (its entrypoint then runs; whether this server's executor
// can run it is the executor's to say, executor.RunChecker).
func ValidateRun(s TaskSpec) error {
	var errs Errors
	switch {
	case len(s.Command) == 0 && s.Image == "":
		errs = append(errs, fieldErr("command", `give the program and its arguments, e.g. ["python3", "train.py"]`, "is missing"))
	case len(s.Command) > 0 && s.Command[0] == "":
		errs = append(errs, fieldErr("command", `start with the program to run, e.g. ["python3", "train.py"]`, "its first element (the program) is empty"))
	}
	errs = append(errs, checkArgv(s.Command, s.Args)...)
	if len(s.Env) > MaxEnvVars {
		errs = append(errs, fieldErr("env", fmt.Sprintf("set at most %d variables", MaxEnvVars), "has %d variables", len(s.Env)))
	}
	total := 0
	for _, k := range sortedKeys(s.Env) {
		v := s.Env[k]
		total += len(k) + len(v)
		switch {
		case !validEnvName(k):
			errs = append(errs, fieldErr("env", fmt.Sprintf("name variables with letters, digits and '_', not starting with a digit, at most %d characters", MaxEnvNameLen),
				"%q is not a valid variable name", clip(k)))
		case ReservedEnv(k):
			errs = append(errs, fieldErr("env", "drop it: taskgov sets TASKGOV_*, CUDA_VISIBLE_DEVICES, MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK and LOCAL_RANK for every pod",
				"%s is reserved", k))
		case strings.IndexByte(v, 0) >= 0:
			errs = append(errs, fieldErr("env", "remove the NUL byte; an environment value cannot hold one", "the value of %s contains a NUL byte", k))
		}
	}
	if total > MaxEnvBytes {
		errs = append(errs, fieldErr("env", fmt.Sprintf("keep names and values within %d KiB together; pass long inputs in a file", MaxEnvBytes>>10), "is %d bytes", total))
	}
	if len(s.Image) > MaxImageLen || strings.ContainsFunc(s.Image, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		errs = append(errs, fieldErr("image", fmt.Sprintf("give an image reference of at most %d characters without spaces or control characters", MaxImageLen), "is not a valid image reference"))
	}
	switch s.ImagePullPolicy {
	case "", "Always", "IfNotPresent", "Never":
	default:
		errs = append(errs, fieldErr("imagePullPolicy", "use Always, IfNotPresent or Never (Kubernetes' image pull policies), or leave it out", "%q is not an image pull policy", s.ImagePullPolicy))
	}
	return errs.orNil()
}

// checkArgv bounds the command and args together: they are one argv.
func checkArgv(command, args []string) Errors {
	var errs Errors
	if n := len(command) + len(args); n > MaxCommandArgs {
		errs = append(errs, fieldErr("command", fmt.Sprintf("use at most %d arguments in command and args together; pass long inputs in a file", MaxCommandArgs), "has %d arguments", n))
	}
	total := 0
	for _, part := range []struct {
		field string
		argv  []string
	}{{"command", command}, {"args", args}} {
		for i, a := range part.argv {
			total += len(a)
			if strings.IndexByte(a, 0) >= 0 {
				errs = append(errs, fieldErr(part.field, "remove the NUL byte; a process argument cannot hold one", "argument %d contains a NUL byte", i))
				break
			}
		}
	}
	if total > MaxCommandBytes {
		errs = append(errs, fieldErr("command", fmt.Sprintf("keep the command and args within %d KiB together; pass long inputs in a file", MaxCommandBytes>>10), "is %d bytes", total))
	}
	return errs
}

// checkFloors refuses a per-pod request that is positive but rounds to
// nothing in whole milli-vCPU or MiB: such a task would run while counted
// against no capacity and no quota.
func checkFloors(r Request) *FieldError {
	if r.VCPU > 0 && math.Round(r.VCPU*1000) < 1 {
		return fieldErr("perNode", "ask for at least 0.001 vCPU (one milli-vCPU), or leave vcpu out to get the instance's share per GPU",
			"vcpu %g rounds to zero milli-vCPU", r.VCPU)
	}
	if r.MemoryGiB > 0 && math.Round(r.MemoryGiB*1024) < 1 {
		return fieldErr("perNode", "ask for at least 0.001 GiB (one MiB), or leave memoryGiB out to get the instance's share per GPU",
			"memoryGiB %g rounds to zero MiB", r.MemoryGiB)
	}
	return nil
}

func validEnvName(k string) bool {
	if k == "" || len(k) > MaxEnvNameLen {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// clip shortens a user-given string for an error message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Retry backoff: a failed task's retry n (from 1) starts no sooner than
// RetryBackoffBase·2^(n-1) after the failure, and never later than
// RetryBackoffMax. A task that fails at once then restarts a handful of
// times a minute, not hundreds of times a second.
const (
	RetryBackoffBase = time.Second
	RetryBackoffMax  = 5 * time.Minute
)

// RetryBackoff is how long retry n (from 1) waits after the failure.
func RetryBackoff(n int) time.Duration {
	d := RetryBackoffBase
	for i := 1; i < n && d < RetryBackoffMax; i++ {
		d *= 2
	}
	return min(d, RetryBackoffMax)
}

// ValidateIdempotencyKey checks a submission's Idempotency-Key header.
func ValidateIdempotencyKey(k string) error {
	if len(k) > MaxIdempotencyKeyLen || strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
		return fieldErr("Idempotency-Key", fmt.Sprintf("use at most %d visible ASCII characters, e.g. a random UUID made once per submission and sent again with each retry", MaxIdempotencyKeyLen),
			"is not a valid idempotency key")
	}
	if strings.HasPrefix(k, WorkloadKeyPrefix) {
		return fieldErr("Idempotency-Key", "use another key, e.g. a random UUID", "starts with %s, which taskgov keeps for its Kubernetes workloads' tasks", WorkloadKeyPrefix)
	}
	return nil
}

// WorkloadKeyPrefix starts the idempotency key of a Kubernetes workload's
// task (the rest is its object's UID); clients may not send such keys.
const WorkloadKeyPrefix = "kubernetes.uid."
