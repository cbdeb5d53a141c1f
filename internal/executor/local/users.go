package local

import (
	"fmt"
	"hash/fnv"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// Users says which Unix identity a team's pods run as.
type Users struct {
	// Mode is UsersServer (the server's own user: no isolation from the
	// server or between teams), UsersShared (UID/GID for every team: the
	// server is protected, teams are not from each other) or UsersPerTeam
	// (a uid of its own per team, from PerTeamBase: each team is kept out of
	// the others' directories and processes too).
	Mode     string
	UID, GID uint32 // UsersShared
}

// The user modes.
const (
	UsersServer  = "server"
	UsersShared  = "shared"
	UsersPerTeam = "per-team"
)

// PerTeamBase is the first uid of the per-team range, and PerTeamSpan its
// size: a team's uid (and gid) is PerTeamBase + FNV-1a(team) mod
// PerTeamSpan. No other user on the host should have a uid in it.
const (
	PerTeamBase = 1 << 30
	PerTeamSpan = 1 << 24
)

// ParseUsers turns the --task-user flag into Users: "auto" (the flag's
// default: per-team when the server runs as root, else the server's user),
// "per-team", "server" (or empty), or a user name or numeric uid that every
// team shares. Anything but "server" needs root.
func ParseUsers(flag string) (Users, error) {
	root := os.Geteuid() == 0
	switch flag {
	case "auto":
		if root {
			return Users{Mode: UsersPerTeam}, nil
		}
		return Users{Mode: UsersServer}, nil
	case "", UsersServer:
		return Users{Mode: UsersServer}, nil
	}
	if !root {
		return Users{}, fmt.Errorf("--task-user %s: switching users needs the server to run as root; use --task-user server (tasks then run as the server's user, see docs/SERVER.md)", flag)
	}
	if flag == UsersPerTeam {
		return Users{Mode: UsersPerTeam}, nil
	}
	u, err := user.Lookup(flag)
	if err != nil {
		if u, err = user.LookupId(flag); err != nil {
			return Users{}, fmt.Errorf("--task-user %s: no such user; give a user name or uid (e.g. nobody), per-team or server", flag)
		}
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	if uid == 0 {
		return Users{}, fmt.Errorf("--task-user %s: is root; give an unprivileged user, per-team or server", flag)
	}
	return Users{Mode: UsersShared, UID: uint32(uid), GID: uint32(gid)}, nil
}

// ids returns the uid and gid team's pods run as; switch is false when they
// run as the server's user.
func (u Users) ids(team string) (uid, gid uint32, switchUser bool) {
	switch u.Mode {
	case UsersShared:
		return u.UID, u.GID, true
	case UsersPerTeam:
		h := fnv.New32a()
		h.Write([]byte(team))
		id := uint32(PerTeamBase + h.Sum32()%PerTeamSpan)
		return id, id, true
	}
	return uint32(os.Geteuid()), uint32(os.Getegid()), false
}

// credential is the SysProcAttr credential for team's pods (nil: the
// server's own).
func (u Users) credential(team string) *syscall.Credential {
	uid, gid, sw := u.ids(team)
	if !sw {
		return nil
	}
	return &syscall.Credential{Uid: uid, Gid: gid, Groups: []uint32{}}
}
