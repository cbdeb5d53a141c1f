package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/taskgov/taskgov/internal/model"
)

// printOut writes v as json or yaml, or calls table for people.
func printOut(w io.Writer, format string, v any, table func(tw *tabwriter.Writer)) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case "yaml":
		// Through JSON, so that YAML keys are the API's field names.
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		var generic any
		if err := json.Unmarshal(b, &generic); err != nil {
			return err
		}
		out, err := yaml.Marshal(generic)
		if err != nil {
			return err
		}
		_, err = w.Write(out)
		return err
	case "table", "":
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		table(tw)
		return tw.Flush()
	}
	return &model.FieldError{Field: "--output", Problem: fmt.Sprintf("unknown format %q", format), Fix: "use table, json or yaml"}
}

// checkOutput refuses an --output value that is not one of allowed, as
// HyperPod's choice options do, before anything is asked of the server (a
// job is not submitted only for its answer to be refused); through the
// links in click's words (checkChoice).
func checkOutput(format string, allowed ...string) error {
	if linkedCLI() {
		return checkChoice("output", format, allowed...)
	}
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	fix := allowed[len(allowed)-1]
	if len(allowed) > 1 {
		fix = strings.Join(allowed[:len(allowed)-1], ", ") + " or " + fix
	}
	return &model.FieldError{Field: "--output", Problem: fmt.Sprintf("unknown format %q", format), Fix: "use " + fix}
}

// checkChoice refuses a value of a choice option that is not one of
// allowed, in click's words (HyperPod's CLIs are click programs), before
// anything is submitted.
func checkChoice(flag, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return &usageError{fmt.Sprintf("Invalid value for '--%s': '%s' is not one of '%s'.", flag, value, strings.Join(allowed, "', '"))}
}

// row writes tab-separated cells.
func row(tw *tabwriter.Writer, cells ...any) {
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = fmt.Sprint(c)
	}
	fmt.Fprintln(tw, strings.Join(parts, "\t"))
}

// ago renders a time as an age for tables ("-" when zero).
func ago(t time.Time, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
