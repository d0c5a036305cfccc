package render

import (
	crand "crypto/rand"
	"crypto/sha256"
	"math/rand/v2"
	"sync"

	"github.com/google/uuid"
)

// Helm charts call Sprig's random functions (randAlphaNum, randAlpha,
// randNumeric, randAscii, randBytes, uuidv4) for the names of test Pods,
// for annotations that force a rollout and for generated secrets. Left
// random, the same chart gives Pods other names on every run, so podlint's
// output, and the SARIF fingerprints that code scanning tracks alerts by,
// would change from one run to the next. While a chart renders, those
// functions read a fixed stream instead: Sprig reads crypto/rand.Reader at
// each call, and uuid its own reader, which SetRand replaces. podlint
// needs no secure randomness anywhere else, and a lock keeps charts from
// sharing the stream, so that each chart gets the same values in every
// run whatever else renders at the same time. (randInt uses math/rand's
// global source and now the clock; neither can be pinned from outside.)
var randomMu sync.Mutex

// repeatableRandom makes the random functions repeatable until restore is
// called. seed picks the stream.
func repeatableRandom(seed string) (restore func()) {
	randomMu.Lock()
	r := rand.NewChaCha8(sha256.Sum256([]byte("podlint render " + seed)))
	orig := crand.Reader
	crand.Reader = r
	uuid.SetRand(r)
	return func() {
		crand.Reader = orig
		uuid.SetRand(nil)
		randomMu.Unlock()
	}
}
