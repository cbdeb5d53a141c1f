package sim

import (
	"math"
	"testing"

	"github.com/taskgov/taskgov/internal/model"
)

// reclaimCluster: two 8-GPU nodes; a and b each own one, and b may borrow
// a's.
func reclaimCluster() model.Cluster {
	c := tinyCluster(2, 1, 1)
	pct := 100
	c.Teams[1].BorrowLimitPercent = &pct
	return c
}

// TestPaybackEpisodeEnds: b's 2-node gang borrows a's node and never
// checkpoints; a's 1-node task, within its quota, must wait out rule 10's
// payback before it reclaims. If the gang runs on, a's task preempts it at
// the time its reason gave ("preempted at its payback"); if the gang ends
// first, a's task starts on the freed node ("started without
// preempting"). Each episode's GPU·s waited is a's GPUs × its wait, and the
// work it reports lost is the run's.
func TestPaybackEpisodeEnds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		gangS   float64
		outcome string
	}{
		{"gang runs on", 100000, epPaid},
		{"gang ends first", 900, epStarted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jobs := []Job{
				{SubmitS: 0, Name: "b1", Team: "b", InstanceType: "ml.p5.48xlarge", Nodes: 2, DurationS: tc.gangS},
				{SubmitS: 600, Name: "a1", Team: "a", InstanceType: "ml.p5.48xlarge", Nodes: 1, DurationS: 100},
			}
			r, err := Run(jobs, Options{Cluster: reclaimCluster(), WaitReasons: true})
			if err != nil {
				t.Fatal(err)
			}
			outs := r.PaybackEpisodes["WaitingForPayback(reclaim)"]
			if len(r.PaybackEpisodes) != 1 || len(outs) != 1 || outs[tc.outcome] == nil || outs[tc.outcome].Episodes != 1 {
				t.Fatalf("episodes %+v; want one reclaim wait, %q", r.PaybackEpisodes, tc.outcome)
			}
			st := outs[tc.outcome]
			var a1 Outcome
			for _, o := range r.Jobs {
				if o.Name == "a1" {
					a1 = o
				}
			}
			wait := a1.FirstAdmitS - a1.SubmitS
			if wait <= 0 || math.Abs(st.WaitedGPUSecs-8*wait) > 1e-6 {
				t.Fatalf("waited %v GPU·s; a1 waited %v s at 8 GPUs", st.WaitedGPUSecs, wait)
			}
			if lost := r.Preemptions.LostGPUHours * 3600; math.Abs(st.LostGPUSecs-lost) > 1e-6 {
				t.Fatalf("lost %v GPU·s; the run lost %v", st.LostGPUSecs, lost)
			}
			// The gang started before a1's wait began: a victim, not a
			// fresh one.
			if want := map[string]float64{epPaid: 16, epStarted: 0}[tc.outcome]; st.VictimGPUs != want || st.FreshVictimGPUs != 0 {
				t.Fatalf("victims %v GPUs, fresh %v; want %v, 0", st.VictimGPUs, st.FreshVictimGPUs, want)
			}
			if tc.outcome == epPaid {
				// The price: b1's 16 GPUs × (600 s run + 60 s restart) when
				// a1's wait began; paid at 8 GPUs by the tick before 600 +
				// 1320 s.
				if st.PriceGPUSecs != 16*660 || st.LostGPUSecs <= st.PriceGPUSecs || a1.FirstAdmitS != 1860 {
					t.Fatalf("price %v, lost %v, a1 admitted at %v; want 10560, more, 1860", st.PriceGPUSecs, st.LostGPUSecs, a1.FirstAdmitS)
				}
			} else if st.LostGPUSecs != 0 || a1.FirstAdmitS != 900 {
				t.Fatalf("lost %v, a1 admitted at %v; want 0 at 900", st.LostGPUSecs, a1.FirstAdmitS)
			}
		})
	}
}
