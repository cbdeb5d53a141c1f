package executor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaimCheckpointDir: directories from before owner files, a taken
// move-aside name, and an owner file that cannot be read.
func TestClaimCheckpointDir(t *testing.T) {
	root := t.TempDir()
	mk := func(name string) string {
		d := filepath.Join(root, name)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "ckpt"), []byte(name), 0o600); err != nil {
			t.Fatal(err)
		}
		return d
	}

	// No owner file: a first run moves it aside, a later run claims it.
	old := mk("old")
	if moved, err := ClaimCheckpointDir(old, StartSpec{Seq: 7}); err != nil || moved != old+".earlier" {
		t.Fatalf("first run over an unowned directory: %q %v", moved, err)
	}
	live := mk("live")
	if moved, err := ClaimCheckpointDir(live, StartSpec{Seq: 7, Resumes: 1}); err != nil || moved != "" {
		t.Fatalf("later run over an unowned directory: %q %v", moved, err)
	}
	if _, err := os.Stat(filepath.Join(live, "ckpt")); err != nil {
		t.Fatal(err)
	}

	// DIR.<owner> taken: the next free name.
	taken := mk("taken")
	if err := os.WriteFile(taken+OwnerSuffix, []byte("3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mk("taken.3")
	if moved, err := ClaimCheckpointDir(taken, StartSpec{Seq: 4}); err != nil || moved != taken+".3-2" {
		t.Fatalf("taken name: %q %v", moved, err)
	}
	if b, _ := os.ReadFile(taken + OwnerSuffix); strings.TrimSpace(string(b)) != "4" {
		t.Fatalf("owner after the claim: %q", b)
	}

	// An owner file that is not one: an error, and nothing moved.
	bad := mk("bad")
	if err := os.WriteFile(bad+OwnerSuffix, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ClaimCheckpointDir(bad, StartSpec{Seq: 2}); err == nil || !strings.Contains(err.Error(), "remove it") {
		t.Fatalf("garbled owner: %v", err)
	}
	unread := mk("unread")
	if err := os.Mkdir(unread+OwnerSuffix, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := ClaimCheckpointDir(unread, StartSpec{Seq: 2}); err == nil {
		t.Fatal("an unreadable owner file was taken for none")
	}
	for _, d := range []string{bad, unread} {
		if _, err := os.Stat(filepath.Join(d, "ckpt")); err != nil {
			t.Fatalf("%s moved after an error: %v", d, err)
		}
	}
}
