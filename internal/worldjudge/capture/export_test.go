package capture

// Harness is the package's browser for its external tests (unseen_test.go).
var Harness = &h
