package model

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrKeyReused is wrapped when an Idempotency-Key that made a task comes
// again with a different submission: the retry of one request must send
// that request again.
var ErrKeyReused = errors.New("idempotency key reused with a different request")

// SubmissionDigest is a canonical form of a submission, as it is compared
// when its idempotency key comes again: the SHA-256 of the spec's JSON
// (fields in a fixed order, map keys sorted) as the client sent it, before
// the server fills anything in; SubmitTime, which the server's clock sets,
// is left out. Two bodies that decode to the same spec (spacing, field
// order) are the same submission.
func SubmissionDigest(s TaskSpec) string {
	s.SubmitTime = time.Time{}
	b, err := json.Marshal(s)
	if err != nil { // a TaskSpec always marshals; a digest that matches nothing is safe
		return "unmarshallable:" + err.Error()
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// CheckKeyReuse refuses a retry whose submission differs from the one its
// key made the task r with. A record stored before digests were kept has
// none, and is taken as the same submission.
func CheckKeyReuse(r TaskRecord, digest string) error {
	if r.IdempotencyDigest == "" || r.IdempotencyDigest == digest {
		return nil
	}
	return fmt.Errorf("Idempotency-Key %q made task %q (record %d) from a different request body; a retry must send the same body, and a new submission a new key: %w",
		r.IdempotencyKey, r.Name, r.Seq, ErrKeyReused)
}
