package model

// validateBorrowWithinGroup checks a team's borrowWithinGroup: a known
// policy, a weight threshold from 0 to 100, and LowerPriority only on a team
// that borrows.
func validateBorrowWithinGroup(f string, t Team) Errors {
	b := t.BorrowWithinGroup
	if b == nil {
		return nil
	}
	var errs Errors
	switch b.Policy {
	case BorrowWithinGroupNever, BorrowWithinGroupLowerPriority:
	case "":
		errs = append(errs, fieldErr(f+".policy", "use LowerPriority or Never", "is missing"))
	default:
		errs = append(errs, fieldErr(f+".policy", "use LowerPriority or Never", "unknown value %q", b.Policy))
	}
	if w := b.MaxPriorityWeight; w != nil && (*w < 0 || *w > 100) {
		errs = append(errs, fieldErr(f+".maxPriorityWeight", "use a priority-class weight from 0 to 100", "%d is out of range", *w))
	}
	if b.Preempts() && t.Lending != "" && !t.Lending.Borrows() {
		errs = append(errs, fieldErr(f, "set lending to LendAndBorrow, or drop borrowWithinGroup", "is set, but the team's lending is %s: it never borrows", t.Lending))
	}
	return errs
}
