package trends

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlite"
)

func TestDownsampleMeansPerType(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	var fine []model.Sample
	for m := 0; m < 60; m++ {
		fine = append(fine, model.Sample{At: h.Add(time.Duration(m) * time.Minute), InstanceType: "p5", GPUs: 32, GPUsUsed: float64(m % 2 * 16)})
	}
	fine = append(fine, model.Sample{At: h.Add(time.Hour), InstanceType: "p5", GPUs: 32, GPUsUsed: 32}) // next hour: left out
	ctx := context.Background()
	if err := st.AddSamples(ctx, Fine, fine); err != nil {
		t.Fatal(err)
	}
	s := &Sampler{Store: st}
	if err := s.Downsample(ctx, h, h.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	coarse, _ := st.Samples(ctx, Coarse, h)
	if len(coarse) != 1 || coarse[0].GPUsUsed != 8 || coarse[0].GPUs != 32 || !coarse[0].At.Equal(h) {
		t.Fatalf("coarse %+v", coarse)
	}
}
