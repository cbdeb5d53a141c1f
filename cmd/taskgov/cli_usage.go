package main

import (
	"encoding/csv"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/usage"
)

func usageCmd() *cobra.Command {
	c := &cobra.Command{Use: "usage", Short: "Usage and cost reports"}
	var from, to, kind, format string
	var teams []string
	report := &cobra.Command{Use: "report", Short: "GPU-hours, borrowed GPU-hours, vCPU-hours and cost, by day, team and instance type (or per run)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || to == "" {
				return &model.FieldError{Field: "--from/--to", Problem: "both are needed", Fix: "pass --from 2026-11-01 --to 2026-12-01"}
			}
			switch format {
			case "table", "csv", "json", "yaml":
			default: // refused before asking the server, not printed as a table
				return &model.FieldError{Field: "--format", Problem: fmt.Sprintf("unknown format %q", format), Fix: "use table, csv, json or yaml"}
			}
			cl, err := apiClient()
			if err != nil {
				return err
			}
			rep, err := cl.UsageReport(cmd.Context(), from, to, kind, teams...)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			h := rep.Header
			switch format {
			case "json", "yaml":
				return printOut(out, format, rep, nil)
			case "csv":
				cw := csv.NewWriter(out)
				_ = cw.Write([]string{"# cluster", h.Cluster, "type", h.Type, "generated", h.GeneratedAt.Format(time.RFC3339),
					"from", h.From.Format(time.RFC3339), "to", h.To.Format(time.RFC3339), "missing periods", strconv.Itoa(len(h.MissingPeriods))})
				for _, p := range h.MissingPeriods {
					_ = cw.Write([]string{"# missing", p.From.Format(time.RFC3339), p.To.Format(time.RFC3339)})
				}
				if h.Type == usage.Detailed {
					_ = cw.Write([]string{"task", "team", "instance_type", "priority", "start", "end", "status", "gpu_hours", "borrowed_gpu_hours", "vcpu_hours", "cost"})
					for _, r := range rep.Detailed {
						_ = cw.Write([]string{r.Task, r.Team, r.InstanceType, r.Priority, r.Start.Format(time.RFC3339), r.End.Format(time.RFC3339),
							r.Status, f4(r.GPUHours), f4(r.BorrowedGPUHours), f4(r.VCPUHours), f4(r.Cost)})
					}
				} else {
					_ = cw.Write([]string{"date", "team", "instance_type", "gpu_hours", "borrowed_gpu_hours", "vcpu_hours", "cost"})
					for _, r := range rep.Summary {
						_ = cw.Write([]string{r.Date, r.Team, r.InstanceType, f4(r.GPUHours), f4(r.BorrowedGPUHours), f4(r.VCPUHours), f4(r.Cost)})
					}
				}
				cw.Flush()
				return cw.Error()
			}
			return printOut(out, "table", rep, func(tw *tabwriter.Writer) {
				row(tw, "Cluster:", h.Cluster, "Report:", h.Type, "Generated:", h.GeneratedAt.Format(time.RFC3339))
				row(tw, "From:", h.From.Format(time.RFC3339), "To:", h.To.Format(time.RFC3339), "Missing periods:", len(h.MissingPeriods))
				for _, p := range h.MissingPeriods {
					row(tw, "  missing", p.From.Format(time.RFC3339), p.To.Format(time.RFC3339))
				}
				row(tw, "")
				if h.Type == usage.Detailed {
					row(tw, "TASK", "TEAM", "INSTANCE TYPE", "START", "END", "STATUS", "GPU-H", "BORROWED GPU-H", "COST")
					for _, r := range rep.Detailed {
						row(tw, r.Task, r.Team, r.InstanceType, r.Start.Format(time.RFC3339), r.End.Format(time.RFC3339), r.Status, f4(r.GPUHours), f4(r.BorrowedGPUHours), f4(r.Cost))
					}
					return
				}
				row(tw, "DATE", "TEAM", "INSTANCE TYPE", "GPU-H", "BORROWED GPU-H", "VCPU-H", "COST")
				for _, r := range rep.Summary {
					row(tw, r.Date, r.Team, r.InstanceType, f4(r.GPUHours), f4(r.BorrowedGPUHours), f4(r.VCPUHours), f4(r.Cost))
				}
			})
		}}
	f := report.Flags()
	f.StringVar(&from, "from", "", "start: a date (2026-11-01) or RFC 3339")
	f.StringVar(&to, "to", "", "end (exclusive)")
	f.StringVar(&kind, "type", "summary", "summary or detailed")
	f.StringVar(&format, "format", "table", "table, csv, json or yaml")
	f.StringSliceVar(&teams, "team", nil, "only these teams' rows (repeatable; a member may name only its own team)")
	c.AddCommand(report)
	return c
}

func f4(f float64) string { return fmt.Sprintf("%.4f", f) }
