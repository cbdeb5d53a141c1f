package executor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// A task's checkpoint directory is named after the task, but a finished
// task's name may be reused by a new task. The directory belongs to one task
// record at a time (its Seq), written down in an owner file beside it that
// only the server writes. A new task of the name does not start from the
// earlier task's checkpoints unless it asks to (StartSpec.KeepCheckpoints):
// the earlier task's directory is moved aside, never deleted, to
// DIR.<its seq> (DIR.earlier when its owner is unknown), and the new task
// gets an empty one.

// OwnerSuffix names the owner file of a checkpoint directory: DIR + OwnerSuffix.
// Task names hold no '.', so neither it nor a moved-aside directory can be
// another task's directory.
const OwnerSuffix = ".owner"

// ClaimCheckpointDir makes dir the checkpoint directory of spec's task
// record before its pods start, and returns where an earlier task's
// directory was moved ("" if nowhere). A spec without a Seq claims nothing:
// the directory is the name's. The caller creates dir if it is missing.
//
// It is idempotent: a record that owns dir keeps it on every later run, so
// a run after a server restart resumes from its own checkpoints. A crash
// between the move and the owner file's write leaves the owner naming the
// earlier task and no dir, which the next try completes. An error (a
// failed rename or write) leaves the earlier directory where it was, or
// moved; the task must not start.
func ClaimCheckpointDir(dir string, spec StartSpec) (string, error) {
	if spec.Seq == 0 {
		return "", nil
	}
	owner, known, err := readOwner(dir + OwnerSuffix)
	if err != nil {
		return "", err
	}
	if known && owner == spec.Seq {
		return "", nil
	}
	moved := ""
	// Without an owner file the directory predates owners: it is the
	// record's own if this is not its first run.
	earlier := known || spec.Resumes == 0
	if earlier && !spec.KeepCheckpoints {
		if moved, err = moveAside(dir, owner, known); err != nil {
			return "", err
		}
	}
	if err := writeOwner(dir+OwnerSuffix, spec.Seq); err != nil {
		return moved, err
	}
	return moved, nil
}

// readOwner reads an owner file; a missing one is not an error.
func readOwner(path string) (int64, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("reading the owner of a checkpoint directory: %w", err)
	}
	seq, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("checkpoint directory owner file %s holds %q, not a task record number; remove it", path, b)
	}
	return seq, true, nil
}

// writeOwner replaces an owner file atomically (a temporary file renamed).
func writeOwner(path string, seq int64) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.FormatInt(seq, 10)+"\n"), 0o600); err != nil {
		return fmt.Errorf("recording the owner of a checkpoint directory: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("recording the owner of a checkpoint directory: %w", err)
	}
	return nil
}

// moveAside renames a non-empty dir to a free DIR.<owner> (or DIR.earlier),
// with -2, -3, ... if taken; a missing or empty dir is left alone.
func moveAside(dir string, owner int64, known bool) (string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(entries) == 0 {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the earlier task's checkpoint directory: %w", err)
	}
	base := dir + ".earlier"
	if known {
		base = dir + "." + strconv.FormatInt(owner, 10)
	}
	to := base
	for i := 2; ; i++ {
		if _, err := os.Lstat(to); errors.Is(err, fs.ErrNotExist) {
			break
		}
		to = base + "-" + strconv.Itoa(i)
	}
	if err := os.Rename(dir, to); err != nil {
		return "", fmt.Errorf("moving the earlier task's checkpoint directory aside: %w", err)
	}
	return to, nil
}
