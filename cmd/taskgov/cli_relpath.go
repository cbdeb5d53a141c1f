package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// relativePathNote warns, on stderr, about words of a job's command that
// name a file by a relative path that exists here, in the CLI's working
// directory: the job does not run here. On the local executor it runs in
// its task's directory on the server (SERVER.md), on Kubernetes in the
// image's working directory, so such a path finds nothing (HyperPod's
// entry scripts are paths inside the image). The job is submitted as
// given; the note names the absolute path to use for a file on the
// server's host.
func relativePathNote(w io.Writer, command []string) {
	seen := map[string]bool{}
	for _, part := range command {
		for _, word := range strings.Fields(part) {
			word = strings.Trim(word, `"'`)
			if word == "" || seen[word] || strings.ContainsAny(word, "=$~`*?") || filepath.IsAbs(word) || strings.HasPrefix(word, "-") {
				continue
			}
			seen[word] = true
			if fi, err := os.Stat(word); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			abs, err := filepath.Abs(word)
			if err != nil {
				continue
			}
			fmt.Fprintf(w, "note: %s is a relative path: the job runs in its own directory on the server (local executor) "+
				"or in the image's working directory (Kubernetes), not here; to run this file on a server on this host, pass %s\n", word, abs)
		}
	}
}
