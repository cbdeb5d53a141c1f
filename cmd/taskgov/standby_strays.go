package main

import (
	"log/slog"
)

// sweepStandbyStrays kills the processes a replica's earlier, crashed run
// left on this host before the replica stands by for the lease (local
// executor). A replica that does not lead runs no pods, so every process
// marked with its data directory is a stray: a SIGKILLed leader's pods die
// with it (Pdeathsig), but their children live on, beside the new leader's
// run of the same task. Recovery as leader would sweep them too, but a
// restarted replica may stand by for a long time. The crash records stay
// for that recovery (the crash-loop guard counts them).
func sweepStandbyStrays(o serverOptions, log *slog.Logger) error {
	l, err := newLocalExecutor(o, nil)
	if err != nil {
		return err
	}
	defer l.Close()
	if n := l.KillStrays(); n > 0 {
		log.Warn("killed processes left by this replica's earlier run before standing by", "count", n)
	}
	return nil
}
