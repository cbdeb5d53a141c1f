package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"go.yaml.in/yaml/v3"

	"github.com/taskgov/taskgov/internal/model"
)

// Decode reads one YAML document from data into out, refusing unknown fields.
func Decode(data []byte, out any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(out); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("the document is empty: %w", model.ErrInvalid)
		}
		return fmt.Errorf("%s; fix the YAML (field names are case-sensitive): %w", Describe(data, out, err), model.ErrInvalid)
	}
	return nil
}

// Describe is the text of err, an error of a strict YAML decode of data
// into out (yaml.Decoder with KnownFields), in a reader's words: unknown
// fields and values of the wrong kind named by their line and place in
// the document, never by a Go type (unknown.go, typeerr.go).
func Describe(data []byte, out any, err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return "yaml: " + describeUnknown(data, out, te)
	}
	return err.Error()
}

// LoadCluster reads and validates a cluster file.
func LoadCluster(path string) (model.Cluster, error) {
	var c model.Cluster
	data, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("reading cluster file: %w", err)
	}
	if err := Decode(data, &c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("%s:\n%w", path, err)
	}
	return c, nil
}
