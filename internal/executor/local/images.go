package local

import (
	"fmt"
	"strconv"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/model"
)

var _ executor.RunChecker = (*Executor)(nil)

// CheckRun implements executor.RunChecker: a task with a command runs; one
// without runs only when the cluster file's images section maps its image
// to an entrypoint. Anything else is refused with the two fixes.
func (e *Executor) CheckRun(spec model.TaskSpec) error {
	if len(spec.Command) > 0 {
		return nil
	}
	if _, ok := model.EntrypointFor(e.images, spec.Image); ok {
		return nil
	}
	return &model.FieldError{Field: "command",
		Problem: "is missing, and this server runs tasks as local processes: it cannot run image " + quoteImage(spec.Image) + "'s entrypoint",
		Fix:     "give the command to run (hyp: --command '[python3, train.py]'), or ask the admin to map the image to a program in the cluster file's images: section (images: {IMAGE: [PROGRAM, ARGS...]}, docs/SCHEDULING.md)"}
}

// argv is what a pod of spec runs: its command, or the entrypoint the
// cluster file maps its image to, then its args. A task stored without
// either (by an older server, or before the images section changed) is
// refused here with the reason; the engine fails it ("could not start").
func (e *Executor) argv(spec executor.StartSpec) ([]string, error) {
	head := spec.Command
	if len(head) == 0 {
		entry, ok := model.EntrypointFor(e.images, spec.Image)
		if !ok {
			if spec.Image == "" {
				return nil, fmt.Errorf("task %s has no command to run", spec.Task)
			}
			return nil, fmt.Errorf("task %s has no command to run, and the cluster file maps no entrypoint for its image %s (images:); submit it again with a command", spec.Task, quoteImage(spec.Image))
		}
		head = entry
	}
	if head[0] == "" {
		return nil, fmt.Errorf("task %s has no command to run (its program is empty)", spec.Task)
	}
	return append(append(make([]string, 0, len(head)+len(spec.Args)), head...), spec.Args...), nil
}

// quoteImage quotes an image reference for a message, shortened when long
// (a member chose it; validation bounds it at model.MaxImageLen).
func quoteImage(image string) string {
	if len(image) > 80 {
		image = image[:80] + "..."
	}
	return strconv.Quote(image)
}
