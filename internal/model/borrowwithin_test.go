package model

import (
	"strings"
	"testing"
)

// TestBorrowWithinGroupRefusals: a bad borrowWithinGroup is refused with its
// field and a fix; a good one, and none, pass.
func TestBorrowWithinGroupRefusals(t *testing.T) {
	cat := NewCatalog(nil)
	w := func(v int) *int { return &v }
	team := func(lending Lending, b *BorrowWithinGroup) Team {
		return Team{Name: "a", Lending: lending, BorrowWithinGroup: b}
	}
	for _, c := range []struct {
		name string
		team Team
		want string // "" means valid
	}{
		{"none", team("", nil), ""},
		{"lower priority, no threshold", team("", &BorrowWithinGroup{Policy: BorrowWithinGroupLowerPriority}), ""},
		{"with a threshold", team(LendAndBorrow, &BorrowWithinGroup{Policy: BorrowWithinGroupLowerPriority, MaxPriorityWeight: w(50)}), ""},
		{"never on a team that does not borrow", team(DontLend, &BorrowWithinGroup{Policy: BorrowWithinGroupNever}), ""},
		{"no policy", team("", &BorrowWithinGroup{MaxPriorityWeight: w(50)}),
			"team.borrowWithinGroup.policy: is missing; use LowerPriority or Never"},
		{"unknown policy", team("", &BorrowWithinGroup{Policy: "Any"}),
			`team.borrowWithinGroup.policy: unknown value "Any"; use LowerPriority or Never`},
		{"threshold out of range", team("", &BorrowWithinGroup{Policy: BorrowWithinGroupLowerPriority, MaxPriorityWeight: w(101)}),
			"team.borrowWithinGroup.maxPriorityWeight: 101 is out of range; use a priority-class weight from 0 to 100"},
		{"on a team that does not borrow", team(LendOnly, &BorrowWithinGroup{Policy: BorrowWithinGroupLowerPriority}),
			"team.borrowWithinGroup: is set, but the team's lending is Lend: it never borrows; set lending to LendAndBorrow, or drop borrowWithinGroup"},
	} {
		errs := ValidateTeam("team", c.team, cat)
		switch {
		case c.want == "" && len(errs) > 0:
			t.Errorf("%s: refused: %v", c.name, errs)
		case c.want != "" && !strings.Contains(errs.Error(), c.want):
			t.Errorf("%s: got %v, want %q", c.name, errs, c.want)
		}
	}
}
