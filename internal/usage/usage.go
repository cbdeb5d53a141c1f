// Package usage builds usage and cost reports from run history: GPU-hours,
// borrowed GPU-hours and vCPU-hours per day, team and instance type
// (summary), or per execution window (detailed), with cost from the
// instance types' prices, and the periods when no server recorded anything.
//
// It is a pure function of its inputs. It imports model and store (for the
// record types) only.
package usage

import (
	"fmt"
	"sort"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Kinds of report.
const (
	Summary  = "summary"
	Detailed = "detailed"
)

// Period is a time range.
type Period struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// Header describes a report, as HyperPod's reports do.
type Header struct {
	Cluster        string    `json:"cluster"`
	Type           string    `json:"type"`
	GeneratedAt    time.Time `json:"generatedAt"`
	From           time.Time `json:"from"`
	To             time.Time `json:"to"`
	MissingPeriods []Period  `json:"missingPeriods"`
}

// SummaryRow is one day × team × instance type.
type SummaryRow struct {
	Date             string  `json:"date"`
	Team             string  `json:"team"`
	InstanceType     string  `json:"instanceType"`
	GPUHours         float64 `json:"gpuHours"`
	BorrowedGPUHours float64 `json:"borrowedGpuHours"`
	VCPUHours        float64 `json:"vcpuHours"`
	Cost             float64 `json:"cost"`
}

// DetailRow is one execution window, clipped to the report's range.
type DetailRow struct {
	Task             string    `json:"task"`
	Team             string    `json:"team"`
	InstanceType     string    `json:"instanceType"`
	Priority         string    `json:"priority,omitempty"`
	Start            time.Time `json:"start"`
	End              time.Time `json:"end"`
	Status           string    `json:"status"`
	BorrowedGPUHours float64   `json:"borrowedGpuHours"`
	GPUHours         float64   `json:"gpuHours"`
	VCPUHours        float64   `json:"vcpuHours"`
	Cost             float64   `json:"cost"`
}

// Report is a whole usage report.
type Report struct {
	Header   Header       `json:"header"`
	Summary  []SummaryRow `json:"summary,omitempty"`
	Detailed []DetailRow  `json:"detailed,omitempty"`
}

// Build makes a report over [from, to) from runs; a run still open counts
// until now. teams, if not nil, limits the rows to those teams.
func Build(kind string, cluster string, cat model.Catalog, runs []model.Run, sessions []model.Session,
	from, to, now time.Time, teams map[string]bool) (*Report, error) {
	if kind != Summary && kind != Detailed {
		return nil, &model.FieldError{Field: "type", Problem: fmt.Sprintf("unknown report type %q", kind), Fix: "use summary or detailed"}
	}
	if !to.After(from) {
		return nil, &model.FieldError{Field: "to", Problem: "is not after from", Fix: "give a range with from before to"}
	}
	if cluster == "" {
		cluster = "taskgov"
	}
	r := &Report{Header: Header{Cluster: cluster, Type: kind, GeneratedAt: now, From: from, To: to,
		MissingPeriods: missing(sessions, runs, from, to)}}
	sums := map[[3]string]*SummaryRow{}
	for _, run := range runs {
		if teams != nil && !teams[run.Team] {
			continue
		}
		end := run.EndedAt
		if end.IsZero() {
			end = now
		}
		start, stop := maxTime(run.StartedAt, from), minTime(end, to)
		if !stop.After(start) {
			continue
		}
		price := cat[run.InstanceType].PricePerHour
		if kind == Detailed {
			h := stop.Sub(start).Hours()
			status := run.Outcome
			if run.EndedAt.IsZero() {
				status = "running"
			}
			r.Detailed = append(r.Detailed, DetailRow{Task: run.Task, Team: run.Team, InstanceType: run.InstanceType, Priority: run.Priority,
				Start: start, End: stop, Status: status, BorrowedGPUHours: h * float64(run.BorrowedGPUs), GPUHours: h * float64(run.GPUs),
				VCPUHours: h * run.VCPU, Cost: h * instances(run, cat) * price})
			continue
		}
		// Split the window at UTC midnights.
		for day := start; day.Before(stop); {
			next := time.Date(day.Year(), day.Month(), day.Day()+1, 0, 0, 0, 0, time.UTC)
			seg := minTime(next, stop).Sub(day).Hours()
			key := [3]string{day.UTC().Format("2006-01-02"), run.Team, run.InstanceType}
			row := sums[key]
			if row == nil {
				row = &SummaryRow{Date: key[0], Team: key[1], InstanceType: key[2]}
				sums[key] = row
			}
			row.GPUHours += seg * float64(run.GPUs)
			row.VCPUHours += seg * run.VCPU
			row.BorrowedGPUHours += seg * float64(run.BorrowedGPUs)
			row.Cost += seg * instances(run, cat) * price
			day = next
		}
	}
	for _, row := range sums {
		r.Summary = append(r.Summary, *row)
	}
	sort.Slice(r.Summary, func(a, b int) bool {
		x, y := r.Summary[a], r.Summary[b]
		if x.Date != y.Date {
			return x.Date < y.Date
		}
		if x.Team != y.Team {
			return x.Team < y.Team
		}
		return x.InstanceType < y.InstanceType
	})
	return r, nil
}

// instances is how many instances a run occupies (fractions for partial
// nodes), by GPUs, or by vCPU for CPU-only types.
func instances(run model.Run, cat model.Catalog) float64 {
	it := cat[run.InstanceType]
	if it.GPUs > 0 {
		return float64(run.GPUs) / float64(it.GPUs)
	}
	if it.VCPU > 0 {
		return run.VCPU / it.VCPU
	}
	return 0
}

// missing lists the gaps between server sessions within [from, to). A
// cleanly stopped session's gap starts at its stop; a crashed one's at the
// last run change recorded before the next start.
func missing(sessions []model.Session, runs []model.Run, from, to time.Time) []Period {
	out := []Period{}
	for i := 0; i+1 < len(sessions); i++ {
		end := sessions[i].StoppedAt
		next := sessions[i+1].StartedAt
		if end.IsZero() {
			end = sessions[i].StartedAt
			for _, r := range runs {
				for _, t := range []time.Time{r.StartedAt, r.EndedAt} {
					if t.After(end) && t.Before(next) {
						end = t
					}
				}
			}
		}
		gapFrom, gapTo := maxTime(end, from), minTime(next, to)
		if gapTo.After(gapFrom) {
			out = append(out, Period{From: gapFrom, To: gapTo})
		}
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
