package sqlite

// AfterPageRead makes TaskPage call fn between reading the page and
// counting it, for a test that commits there.
func (s *Store) AfterPageRead(fn func()) { s.afterPageRead = fn }
