package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/taskgov/taskgov/internal/client"
)

// hypSubmitFailure is how `hyp create hyp-pytorch-job` reports a
// submission the server refused as invalid (400): as hyp reports the
// cluster's refusal of its HyperPodPytorchJob. hyp logs "Failed to create
// HyperPodPytorchJob NAME!" (its logger, stderr) and its
// handle_cli_exceptions echoes the message on stdout and exits 1: it is a
// failure of the cluster, not of the command line (exit 2 is for what the
// command line itself gets wrong). Other failures keep their own path
// (a conflict or not-found already exit 1; taskgov's own name keeps its
// codes).
func hypSubmitFailure(stderr io.Writer, job string, err error) error {
	var ce *client.Error
	if !hypMode || !errors.As(err, &ce) || ce.Status != http.StatusBadRequest {
		return err
	}
	fmt.Fprintf(stderr, "Failed to create HyperPodPytorchJob %s!\n", job)
	return echoed(err)
}
