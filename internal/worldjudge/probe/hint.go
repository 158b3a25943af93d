package probe

import (
	"regexp"
	"strings"

	"github.com/worldprobe/worldprobe/internal/worldjudge/quote"
)

// Hints: quotes that may be real source text, and may even run, but prove
// nothing about the item (WorldBench's hint filter, and its WC005 rule
// against HUD text).
const (
	// HintComment: every line is a comment.
	HintComment = "hint_comment"
	// HintBiomeToken: a bare biome id such as BIOMES.desert.id.
	HintBiomeToken = "hint_biome_token"
	// HintWaypoint: a lone {x, z} position.
	HintWaypoint = "hint_waypoint"
	// HintLegendRow: a legend or config row (a label with a colour or a
	// weather) with no call that places anything.
	HintLegendRow = "hint_legend_row"
	// HintHUDText: only text written into the page's HUD (every line
	// writes textContent, innerHTML or innerText), tinting and moving
	// nothing. WorldBench refuses it in WC005 only; here in every test.
	HintHUDText = "hint_hud_text"
)

var (
	biomeTokenRe = regexp.MustCompile(`^(BIOMES\.)?\w+\.id,?$`)
	waypointRe   = regexp.MustCompile(`^\{x:[^,{}:]+,z:[^,{}:]+\},?$`)
	callRe       = regexp.MustCompile(`[A-Za-z_$][\w$]*\s*\(`)
	hudRe        = regexp.MustCompile(`\.(textContent|innerHTML|innerText)\s*[+]?=`)
	// A HUD line that also tints the world or moves something is not
	// HUD-only (WC005's world_tint and motion_mutation patterns, as the
	// shared corpus records them).
	worldTintRe      = regexp.MustCompile(`(?i)intensity|\.color\.set|fog|tint|rainMul|snowMul|sandMul|background`)
	motionMutationRe = regexp.MustCompile(`(?i)position\.(?:x|y|z)\s*[+\-]?=|\.position\.(?:x|y|z)\s*=|\.position\.set\s*\(|\.position\.copy\s*\(|attributes\.position|velocit\w*\[|\.P\[|pos\[.*?\]\s*[+\-]=|positions\[.*?\]\s*[+\-]=|\.intensity\s*[+\-]?=|\.color\.set`)
)

// Hint names why a quote proves nothing about an item, or "".
func Hint(q string) string {
	var lines []string
	for _, l := range quote.SplitLines(q) {
		if l = strings.TrimFunc(l, quote.IsSpace); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	comment, hud := true, true
	for _, l := range lines {
		if !strings.HasPrefix(l, "//") && !strings.HasPrefix(l, "/*") && !strings.HasPrefix(l, "*") {
			comment = false
		}
		if !hudRe.MatchString(l) {
			hud = false
		}
	}
	n := quote.Normalize(q)
	switch {
	case comment:
		return HintComment
	case biomeTokenRe.MatchString(n):
		return HintBiomeToken
	case waypointRe.MatchString(n):
		return HintWaypoint
	case strings.Contains(n, "label:") && (strings.Contains(n, "weather:") || strings.Contains(n, "color:")) && !callRe.MatchString(q):
		return HintLegendRow
	case hud && !worldTintRe.MatchString(CodeOnly(q)) && !motionMutationRe.MatchString(CodeOnly(q)):
		return HintHUDText
	}
	return ""
}
