package model

import (
	"fmt"
	"sort"
	"strings"
)

// MaxImages bounds the cluster file's images section.
const MaxImages = 1000

// A cluster file's images section maps a container image to a local
// entrypoint:
//
//	images:
//	  pytorch/pytorch:latest: [python3, /opt/train/main.py]
//
// The local executor runs a task that gives such an image and no command
// as that argv, in the task's directory, with the task's args appended (as
// Kubernetes appends a container's args to its image's entrypoint). A
// task with an unmapped image and no command is refused at submission
// (executor/local, CheckRun). Duplicate images are refused by the YAML
// decoder, which names both lines.

// EntrypointFor returns the argv images maps image to, and whether it
// maps it.
func EntrypointFor(images map[string][]string, image string) ([]string, bool) {
	argv, ok := images[image]
	return argv, ok && image != ""
}

// validateImages checks the images section: each key an image reference
// as a task's image must be, each value a non-empty argv whose program is
// named and whose arguments a process can take.
func validateImages(images map[string][]string) Errors {
	var errs Errors
	if len(images) > MaxImages {
		return append(errs, fieldErr("images", fmt.Sprintf("map at most %d images", MaxImages), "maps %d images", len(images)))
	}
	names := make([]string, 0, len(images))
	for k := range images {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, image := range names {
		argv := images[image]
		f := fmt.Sprintf("images[%q]", clip(image))
		if msg := imageProblem(image); msg != "" {
			errs = append(errs, fieldErr(f, fmt.Sprintf("key each entry by an image reference of at most %d characters without spaces or control characters, as tasks give it", MaxImageLen), "%s", msg))
			continue
		}
		switch {
		case len(argv) == 0:
			errs = append(errs, fieldErr(f, "give the program to run and its arguments, e.g. [python3, /opt/train/main.py]", "is empty"))
		case argv[0] == "":
			errs = append(errs, fieldErr(f, "start with the program to run, e.g. [python3, /opt/train/main.py]", "its first element (the program) is empty"))
		default:
			for _, e := range checkArgv(argv, nil) {
				e.Field = f
				errs = append(errs, e)
			}
		}
	}
	return errs
}

// imageProblem says what is wrong with an image reference, or "".
func imageProblem(image string) string {
	switch {
	case image == "":
		return "the image is empty"
	case len(image) > MaxImageLen:
		return fmt.Sprintf("the image is %d characters long", len(image))
	case strings.ContainsFunc(image, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return "the image holds a space or a control character"
	}
	return ""
}
