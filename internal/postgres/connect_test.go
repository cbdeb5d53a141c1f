package postgres

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestOpenSaysWhichDatabaseItCannotReach: a DSN whose PostgreSQL is not
// running is refused at once naming the host, port and database and what to
// do (before: "migrating: failed to connect to ..."), and never the
// password.
func TestOpenSaysWhichDatabaseItCannotReach(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().(*net.TCPAddr)
	l.Close() // nothing listens there now
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = Open(ctx, "postgres://taskgov:s3cret-pw@127.0.0.1:"+strconv.Itoa(addr.Port)+"/tgdb?sslmode=disable")
	if err == nil {
		t.Fatal("opened a database nobody serves")
	}
	msg := err.Error()
	for _, want := range []string{"cannot connect to PostgreSQL at 127.0.0.1:" + strconv.Itoa(addr.Port), `database "tgdb"`, "connection refused", "start PostgreSQL"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "s3cret-pw") || strings.HasPrefix(msg, "migrating") {
		t.Errorf("the error leaks the password or blames a migration: %s", msg)
	}
}
