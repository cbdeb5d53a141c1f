package model

// LogWindow is the part of a pod's log a reader asks for (GET
// /api/v1/tasks/{name}/logs): the bytes from Offset on, or the last Tail
// lines when Tail > 0, at most Limit bytes either way.
type LogWindow struct {
	Offset int64
	Tail   int
	Limit  int64
}

// LogPart is what a log that cannot be read at any offset (a pod's, through
// the Kubernetes API server) returns for a LogWindow. Start and End place
// Data in the log (bytes from its start across runs) and Size is the log's
// size; each is -1 when the reader could not tell without reading the
// whole log. More says the log holds more of what was asked than Data:
// bytes after End, or, for a tail, lines before Data.
type LogPart struct {
	Data             []byte
	Start, End, Size int64
	More             bool
}
