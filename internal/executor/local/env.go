package local

import (
	"sort"
	"strconv"
	"strings"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/model"
)

// DefaultPath is a pod's PATH unless its task's env sets one.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// podEnv is a pod's whole environment. Nothing comes from the server's own
// environment: PATH (DefaultPath unless the task sets it), HOME (the
// checkpoint directory), the task's env, then the documented variables,
// last so that they win over any reserved name the task's env still holds
// (the API refuses those; the executor does not rely on it).
func (e *Executor) podEnv(spec executor.StartSpec, pod executor.Pod, ckpt string, port int) []string {
	gpus := make([]string, len(pod.GPUs))
	for i, g := range pod.GPUs {
		gpus[i] = strconv.Itoa(g)
	}
	env := []string{"PATH=" + DefaultPath, "HOME=" + ckpt}
	keys := make([]string, 0, len(spec.Env))
	for k := range spec.Env {
		if !model.ReservedEnv(k) && k != "" && !strings.ContainsAny(k, "=\x00") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+spec.Env[k])
	}
	return append(env,
		dataDirVar+"="+e.stateDir,
		"TASKGOV_TASK="+spec.Task, "TASKGOV_TEAM="+spec.Team, "TASKGOV_NODE="+pod.Node,
		"TASKGOV_NODE_RANK="+strconv.Itoa(pod.Rank), "TASKGOV_NUM_NODES="+strconv.Itoa(len(spec.Pods)),
		"TASKGOV_CHECKPOINT_DIR="+ckpt, "TASKGOV_RESUME_COUNT="+strconv.Itoa(spec.Resumes),
		"CUDA_VISIBLE_DEVICES="+strings.Join(gpus, ","),
		"MASTER_ADDR=127.0.0.1", "MASTER_PORT="+strconv.Itoa(port),
		"WORLD_SIZE="+strconv.Itoa(len(spec.Pods)), "RANK="+strconv.Itoa(pod.Rank), "LOCAL_RANK=0")
}
