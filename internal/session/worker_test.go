package session

import "testing"

func TestDirectiveEnd(t *testing.T) {
	cases := map[string]int{
		"postMessage(1)":          0,
		"'use strict'; x()":       13,
		"\"use strict\"\nx()":     12,
		"  'use strict';\nx()":    15,
		"// c\n'use strict'; x()": 0, // a comment first: the runtime goes in front
		"'use strictly'; x()":     0,
	}
	for src, want := range cases {
		if got := directiveEnd([]byte(src)); got != want {
			t.Errorf("directiveEnd(%q) = %d, want %d", src, got, want)
		}
	}
}
