package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// preemptions: recent preemptions come newest first, by either team
// (victim's or preemptor's), a page at a time, with what they cost; audit
// retention removes the old ones.
func preemptions[S Store[T], T Tx](t *testing.T, open func() S) {
	ctx := context.Background()
	s := open()
	t0 := time.Unix(1700000000, 0).UTC()
	teams := []string{"a", "b", "c"}
	var want []model.PreemptionRecord
	must(t, s.Commit(ctx, func(tx T) error {
		for i := range 40 {
			p := model.PreemptionRecord{At: t0.Add(time.Duration(i) * time.Minute), Task: fmt.Sprint("v", i), Team: teams[i%3],
				Reason: model.PreemptReason([]string{"Reclaim", "WithinTeamPriority", "NodeLost"}[i%3]), GPUs: int64(8 * (1 + i%2)),
				WorkGPUSeconds: float64(i) + 0.5, RestartGPUSeconds: 480}
			if p.Reason != "NodeLost" {
				p.Preemptor, p.PreemptorTeam = fmt.Sprint("p", i), teams[(i+1)%3]
			}
			if err := tx.AddPreemption(p); err != nil {
				return err
			}
			want = append(want, p)
		}
		return nil
	}))
	s.Close()
	s = open() // they are durable
	defer s.Close()
	slices.Reverse(want)
	check := func(f model.PreemptionFilter, want []model.PreemptionRecord) []model.PreemptionRecord {
		t.Helper()
		got, err := s.Preemptions(ctx, f)
		must(t, err)
		if len(got) != len(want) {
			t.Fatalf("%+v: %d preemptions, want %d", f, len(got), len(want))
		}
		for i := range got {
			g := got[i]
			g.ID = 0
			if g != want[i] {
				t.Fatalf("%+v: #%d is %+v, want %+v", f, i, got[i], want[i])
			}
		}
		return got
	}
	first := check(model.PreemptionFilter{Limit: 5}, want[:5])
	check(model.PreemptionFilter{Limit: 5, BeforeID: first[4].ID}, want[5:10])
	var ofA []model.PreemptionRecord
	for _, p := range want {
		if p.Team == "a" || p.PreemptorTeam == "a" {
			ofA = append(ofA, p)
		}
	}
	page := check(model.PreemptionFilter{Teams: []string{"a"}, Limit: 7}, ofA[:7])
	check(model.PreemptionFilter{Teams: []string{"a"}, Limit: 100, BeforeID: page[6].ID}, ofA[7:])
	check(model.PreemptionFilter{Teams: []string{"nobody"}}, nil)
	if _, err := s.PruneAudit(ctx, t0.Add(30*time.Minute)); err != nil {
		t.Fatal(err)
	}
	check(model.PreemptionFilter{}, want[:10])
}
