package scenario

import (
	"fmt"
	"strings"
	"time"

	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/model"
)

// Epoch is time zero of every scenario.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Options tune a run.
type Options struct {
	Seed int64
	// Check runs the core's invariant check after every cycle.
	Check bool
}

// Run replays f through a fresh core and returns the trace. Steps must be in
// time order. A refused input is a trace line ("error: ..."), not an error:
// scenario files record refusals they expect; Check says whether a run
// passes.
func Run(f *File, o Options) (string, error) {
	for i := 1; i < len(f.Steps); i++ {
		if f.Steps[i].At.Duration < f.Steps[i-1].At.Duration {
			return "", fmt.Errorf("steps: step %d at %s comes after step %d at %s; put the steps in time order",
				i+1, f.Steps[i].At.Duration, i, f.Steps[i-1].At.Duration)
		}
	}
	s, err := core.New(f.Cluster, o.Seed)
	if err != nil {
		return "", fmt.Errorf("cluster: %w", err)
	}
	var b strings.Builder
	for _, st := range f.Steps {
		now := Epoch.Add(st.At.Duration)
		fmt.Fprintf(&b, "@%s\n", st.At.Duration)
		for _, line := range apply(s, st, now) {
			fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(line, "\n", "\n    "))
		}
		d := s.Schedule(now)
		writeDecision(&b, d, s.Catalog(), st.Quiet)
		if st.ShowTopology {
			for _, line := range strings.Split(strings.TrimRight(s.TopologyView().Text(96), "\n"), "\n") {
				b.WriteString("  | " + line + "\n")
			}
		}
		if o.Check {
			if err := s.CheckInvariants(); err != nil {
				return b.String(), fmt.Errorf("after step at %s: %w", st.At.Duration, err)
			}
		}
	}
	return b.String(), nil
}

// apply feeds one step's inputs to the core and returns trace lines for
// refused inputs, requeued failures and deleted teams.
func apply(s *core.Scheduler, st Step, now time.Time) []string {
	var errs []string
	note := func(what string, err error) {
		if err != nil {
			errs = append(errs, "error: "+what+": "+err.Error())
		}
	}
	if st.SetPolicy != nil {
		note("setPolicy", s.SetPolicy(*st.SetPolicy))
	}
	for _, t := range st.SetTeam {
		note("setTeam "+t.Name, s.SetTeam(t))
	}
	for _, n := range st.AddNodes {
		note("addNode "+n.Name, s.AddNode(n))
	}
	for _, n := range st.NodeDown {
		note("nodeDown "+n, s.SetNodeHealth(n, false, now))
	}
	for _, n := range st.NodeUp {
		note("nodeUp "+n, s.SetNodeHealth(n, true, now))
	}
	for _, n := range st.Cordon {
		note("cordon "+n, s.Cordon(n, true))
	}
	for _, n := range st.Uncordon {
		note("uncordon "+n, s.Cordon(n, false))
	}
	for _, n := range st.Drain {
		note("drain "+n, s.Drain(n, now))
	}
	for _, name := range st.Checkpoint {
		note("checkpoint "+name, s.Checkpoint(name, now))
	}
	for _, name := range st.Complete {
		note("complete "+name, s.Complete(name))
	}
	for _, name := range st.Fail {
		requeued, err := s.Fail(name, now)
		note("fail "+name, err)
		switch {
		case requeued:
			errs = append(errs, "requeue "+name+" after failure (auto-resume)")
		case err == nil:
			errs = append(errs, "end "+name+" after failure (no auto-resume retries left)")
		}
	}
	for _, name := range st.Cancel {
		note("cancel "+name, s.Cancel(name))
	}
	for _, name := range st.Suspend {
		note("suspend "+name, s.Suspend(name, now))
	}
	for _, name := range st.Resume {
		note("resume "+name, s.Resume(name, now))
	}
	for _, c := range st.SetPriority {
		note("setPriority "+c.Task, s.SetPriority(c.Task, c.Class))
	}
	for _, name := range st.DeleteTeam {
		// Said when done, too: the team's quota leaves its group's pool,
		// which later decisions read.
		if err := s.DeleteTeam(name); err != nil {
			note("deleteTeam "+name, err)
		} else {
			errs = append(errs, "delete team "+name)
		}
	}
	for _, t := range st.Submit {
		note("submit "+t.Name, s.Submit(t, now))
	}
	return errs
}

// Check says whether a run's trace passes: with an expect block, the trace
// must equal it (refusals it records are expected); without one, no input
// may have been refused.
func Check(f *File, trace string) error {
	if f.Expect != "" {
		if trace != f.Expect {
			return fmt.Errorf("the trace differs from the file's expect block:\n%s", diff(f.Expect, trace))
		}
		return nil
	}
	var refused []string
	for _, line := range strings.Split(trace, "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "error: ") {
			refused = append(refused, l)
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf("%d input(s) refused; fix them, or record the refusals in an expect block:\n  %s",
			len(refused), strings.Join(refused, "\n  "))
	}
	return nil
}

// diff shows the first line where want and got part, with a little context.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, a, b)
		}
	}
	return "(they differ only in line endings)"
}

// writeDecision renders a decision, one line per event.
func writeDecision(b *strings.Builder, d model.Decision, cat model.Catalog, quiet bool) {
	for _, p := range d.Preemptions {
		fmt.Fprintf(b, "  preempt %s (%s) %s", p.Task, p.Team, p.Reason)
		if p.For != "" {
			fmt.Fprintf(b, " for %s", p.For)
		}
		fmt.Fprintf(b, ", loses %.0f GPU·s\n", p.LostGPUSeconds)
	}
	for _, a := range d.Admissions {
		fmt.Fprintf(b, "  admit %s (%s) on %s", a.Task, a.Team, pods(a, cat))
		if a.Borrowed {
			b.WriteString(" borrowed")
		}
		if a.Spread > 0 {
			fmt.Fprintf(b, " spread %d (best %d)", a.Spread, a.BestSpread)
		}
		if len(a.WaitFor) > 0 {
			fmt.Fprintf(b, " after %s", strings.Join(a.WaitFor, ","))
		}
		b.WriteString("\n")
	}
	if quiet {
		return
	}
	for _, w := range d.Waiting {
		fmt.Fprintf(b, "  wait %s (%s) #%d %s: %s\n", w.Task, w.Team, w.Position, w.Reason.Code, w.Reason.Message())
	}
}

// pods renders a placement: node names, with GPU indices when a pod has part
// of a node.
func pods(a model.Admission, cat model.Catalog) string {
	full := int(cat[a.InstanceType].GPUs)
	parts := make([]string, len(a.Pods))
	for i, p := range a.Pods {
		parts[i] = p.Node
		if len(p.GPUs) > 0 && len(p.GPUs) < full {
			g := make([]string, len(p.GPUs))
			for k, x := range p.GPUs {
				g[k] = fmt.Sprint(x)
			}
			parts[i] += "[" + strings.Join(g, ",") + "]"
		}
	}
	return strings.Join(parts, " ")
}
