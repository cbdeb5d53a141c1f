package sim

import (
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
)

// WriteHTML writes a self-contained report: tables and inline SVG charts, no
// scripts, no external assets, so it opens offline.
func WriteHTML(w io.Writer, title string, r *Report) error {
	teams := make([]string, 0)
	if len(r.Timeline) > 0 {
		for t := range r.Timeline[0].ByTeam {
			teams = append(teams, t)
		}
		sort.Strings(teams)
	}
	var alloc, pend []point
	perTeam := make([][]point, len(teams))
	for _, s := range r.Timeline {
		alloc = append(alloc, point{s.T, s.Allocated})
		pend = append(pend, point{s.T, float64(s.Pending)})
		for i, t := range teams {
			perTeam[i] = append(perTeam[i], point{s.T, s.ByTeam[t]})
		}
	}
	var series []line
	for i, t := range teams {
		series = append(series, line{Name: t, Points: perTeam[i]})
	}
	data := map[string]any{
		"Title": title, "R": r,
		"Alloc":   chart("GPUs allocated over time", []line{{Name: "allocated", Points: alloc}}),
		"Pending": chart("Pending tasks over time", []line{{Name: "pending", Points: pend}}),
		"Teams":   chart("GPUs allocated per team", series),
	}
	return page.Execute(w, data)
}

type point struct{ X, Y float64 }

type line struct {
	Name   string
	Points []point
}

var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// chart renders lines as an SVG with axes and a legend.
func chart(title string, lines []line) template.HTML {
	const w, h, pad = 720.0, 260.0, 48.0
	maxX, maxY := 1.0, 1.0
	for _, l := range lines {
		for _, p := range l.Points {
			maxX, maxY = max(maxX, p.X), max(maxY, p.Y)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" role="img" aria-label="%s">`, w, h+20*float64(len(lines)), template.HTMLEscapeString(title))
	fmt.Fprintf(&b, `<text x="%.0f" y="16" font-size="14" font-weight="bold">%s</text>`, pad, template.HTMLEscapeString(title))
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#333"/>`, pad, h-pad, w-10, h-pad)
	fmt.Fprintf(&b, `<line x1="%.0f" y1="24" x2="%.0f" y2="%.0f" stroke="#333"/>`, pad, pad, h-pad)
	for i := 0; i <= 4; i++ {
		y := h - pad - float64(i)/4*(h-pad-24)
		fmt.Fprintf(&b, `<text x="4" y="%.0f" font-size="11">%.4g</text>`, y+4, maxY*float64(i)/4)
		x := pad + float64(i)/4*(w-10-pad)
		anchor := "middle" // the last label ends at the axis' end, inside the chart
		if i == 4 {
			anchor = "end"
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="11" text-anchor="%s">%.4gh</text>`, x, h-pad+16, anchor, maxX*float64(i)/4/3600)
	}
	for i, l := range lines {
		color := palette[i%len(palette)]
		var pts []string
		for _, p := range l.Points {
			x := pad + p.X/maxX*(w-10-pad)
			y := h - pad - p.Y/maxY*(h-pad-24)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`, color, strings.Join(pts, " "))
		ly := h + 4 + 20*float64(i)
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="12" height="12" fill="%s"/><text x="%.0f" y="%.0f" font-size="12">%s</text>`,
			pad, ly, color, pad+18, ly+11, template.HTMLEscapeString(l.Name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct": func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
	"f1":  func(f float64) string { return fmt.Sprintf("%.1f", f) },
	"f3":  func(f float64) string { return fmt.Sprintf("%.3f", f) },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>body{font-family:sans-serif;margin:24px;max-width:960px}table{border-collapse:collapse;margin:12px 0}
td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}</style>
</head><body>
<h1>{{.Title}}</h1>
<table>
<tr><th>measure</th><th>taskgov</th><th>bound</th></tr>
<tr><td>tasks completed / submitted</td><td>{{.R.Tasks.Completed}} / {{.R.Tasks.Submitted}}</td><td></td></tr>
<tr><td>makespan (s)</td><td>{{f1 .R.MakespanS}}</td><td>≥ {{f1 .R.Bounds.MakespanLowerS}}</td></tr>
<tr><td>GPU allocation, mean</td><td>{{pct .R.Utilization.GPUAllocatedMean}}</td><td></td></tr>
<tr><td>useful utilisation, mean</td><td>{{pct .R.Utilization.UsefulMean}}</td><td>≤ {{pct .R.Utilization.UpperBound}}</td></tr>
<tr><td>JCT mean / p50 / p99 (s)</td><td>{{f1 .R.JCT.MeanS}} / {{f1 .R.JCT.P50S}} / {{f1 .R.JCT.P99S}}</td><td>mean ≥ {{f1 .R.Bounds.JCTMeanLowerS}}</td></tr>
<tr><td>wait mean / p99 (s)</td><td>{{f1 .R.Wait.MeanS}} / {{f1 .R.Wait.P99S}}</td><td></td></tr>
<tr><td>preemptions / lost GPU-hours</td><td>{{.R.Preemptions.Count}} / {{f1 .R.Preemptions.LostGPUHours}}</td><td></td></tr>
<tr><td>weighted Jain fairness</td><td>{{f3 .R.Fairness.JainWeighted}}</td><td>≤ 1</td></tr>
<tr><td>quota guarantee violated (GPU·s)</td><td>{{f1 .R.Fairness.GuaranteeViolationGPUSecs}}</td><td></td></tr>
<tr><td>locality optimality</td><td>{{f3 .R.Topology.LocalityOptimality}}</td><td>≤ 1</td></tr>
<tr><td>scheduler decisions / wall (s)</td><td>{{.R.Scheduler.Decisions}} / {{f3 .R.Scheduler.WallS}}</td><td></td></tr>
</table>
<h2>Waits</h2>
<table><tr><th>priority class</th><th>tasks</th><th>mean (s)</th><th>p99 (s)</th></tr>
{{range $k, $v := .R.Wait.ByPriority}}<tr><td>{{$k}}</td><td>{{$v.N}}</td><td>{{f1 $v.MeanS}}</td><td>{{f1 $v.P99S}}</td></tr>{{end}}</table>
<table><tr><th>team</th><th>tasks</th><th>mean (s)</th><th>p99 (s)</th></tr>
{{range $k, $v := .R.Wait.ByTeam}}<tr><td>{{$k}}</td><td>{{$v.N}}</td><td>{{f1 $v.MeanS}}</td><td>{{f1 $v.P99S}}</td></tr>{{end}}</table>
<h2>Preemptions</h2>
<table><tr><th>reason</th><th>count</th><th>lost GPU-hours</th></tr>
{{range $k, $v := .R.Preemptions.ByReason}}<tr><td>{{$k}}</td><td>{{$v.Count}}</td><td>{{f1 $v.LostGPUHours}}</td></tr>{{end}}</table>
<h2>Topology</h2>
<table><tr><th>spread level</th><th>fraction of multi-node placements</th></tr>
{{range $k, $v := .R.Topology.LevelFractions}}<tr><td>{{$k}}</td><td>{{pct $v}}</td></tr>{{end}}</table>
<h2>Over time</h2>
{{.Alloc}}
{{.Pending}}
{{.Teams}}
</body></html>
`))
