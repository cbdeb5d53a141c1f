package ui

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"strings"
	"testing"
)

// TestVendoredChecksums: the embedded uPlot files are the ones
// scripts/vendor-ui.sh fetched (it checks the npm tarball's SHA-512 against
// its pin, then records these SHA-256 sums).
func TestVendoredChecksums(t *testing.T) {
	sums, err := assets.Open("assets/vendor/uplot/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	defer sums.Close()
	n := 0
	for sc := bufio.NewScanner(sums); sc.Scan(); n++ {
		want, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", sc.Text())
		}
		b, err := fs.ReadFile(assets, "assets/vendor/uplot/"+name)
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != want {
			t.Errorf("%s differs from what scripts/vendor-ui.sh fetched; run it again", name)
		}
	}
	if n != 3 {
		t.Errorf("SHA256SUMS lists %d files, want 3", n)
	}
}
