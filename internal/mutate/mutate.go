package mutate

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"

	"github.com/worldprobe/worldprobe/internal/pagescript"
)

// Operator names, in documentation order.
const (
	OpDeleteStateUpdate = "delete-state-update"
	OpScaleConstant     = "scale-constant"
	OpBreakAssetPath    = "break-asset-path"
	OpSwapKeyCodes      = "swap-key-codes"
	OpSwapEventBindings = "swap-event-bindings"
	OpDropDOMUpdate     = "drop-dom-update"
	OpDeleteCall        = "delete-call"
	OpDeadFunction      = "dead-function"
	OpDisableBlock      = "disable-block"
	OpFlipComparison    = "flip-comparison"
	OpShiftBoundary     = "shift-boundary"
	OpFreezeTime        = "freeze-time"
)

// Operator is one kind of mutation.
type Operator struct {
	Name    string `json:"name"`
	Summary string `json:"summary"` // one line
}

type opDef struct {
	Operator
	find func(*script) []candidate
}

// opDefs is the operator table, in documentation order. The order is also
// the precedence when two operators produce the same page: the first keeps it.
var opDefs = []opDef{
	{Operator{OpDeleteStateUpdate, "delete a statement inside a function that assigns, ++/--es, or calls a mutating method (.set/.copy/.setX/.push/...)"}, findDeleteStateUpdate},
	{Operator{OpScaleConstant, "a physics/timing numeric literal x becomes x*0.5, x*1.5 and -x (three mutants)"}, findScaleConstant},
	{Operator{OpBreakAssetPath, "an asset path or URL string gets 'missing-' inserted before its file name"}, findBreakAssetPath},
	{Operator{OpSwapKeyCodes, "two key names compared with event.key/.code (or switched on) trade places everywhere in the script"}, findSwapKeyCodes},
	{Operator{OpSwapEventBindings, "two addEventListener calls trade their event-type strings"}, findSwapEventBindings},
	{Operator{OpDropDOMUpdate, "delete a statement assigning .textContent/.innerText/.innerHTML/.value/.style of an element"}, findDropDOMUpdate},
	{Operator{OpDeleteCall, "delete a bare call statement (scene.add(x); reset(); requestAnimationFrame(f); ...)"}, findDeleteCall},
	{Operator{OpDeadFunction, "a function called by two or more call statements stays defined, every such statement is deleted"}, findDeadFunction},
	{Operator{OpDisableBlock, "wrap the contents of a function, if/else, loop or try block in if (false) { ... }"}, findDisableBlock},
	{Operator{OpFlipComparison, "swap < and <=, > and >=, === and !==, == and !="}, findFlipComparison},
	{Operator{OpShiftBoundary, "a numeric literal compared against gets +1 (integers) or *1.1 (fractions)"}, findShiftBoundary},
	{Operator{OpFreezeTime, "the frame delta (dt/delta/elapsed, clock.getDelta(), the rAF timestamp) becomes 0, or 1/60 every frame"}, findFreezeTime},
}

// Operators lists the operators in documentation order.
func Operators() []Operator {
	out := make([]Operator, len(opDefs))
	for i, d := range opDefs {
		out[i] = d.Operator
	}
	return out
}

// Options select and limit the mutants.
type Options struct {
	// Seed drives the choice when Max is smaller than the number of mutants.
	Seed int64 `json:"seed"`
	// Max is the number of mutants to return; 0 returns all of them.
	Max int `json:"max"`
	// Operators restricts generation to these operator names; empty means all.
	Operators []string `json:"operators,omitempty"`
	// IDs, when set, selects exactly the mutants with these IDs (IDs do
	// not depend on the selection, so a survivor can be re-judged after a
	// contract fix); Max and Seed are then ignored. An unknown ID is an error.
	IDs []string `json:"ids,omitempty"`
}

// Mutant is one edited copy of the page.
type Mutant struct {
	// ID is "<operator>-<n>", n counting that operator's mutants in source
	// order over the whole page. It does not depend on Seed, Max or
	// Operators, so a mutant keeps its ID across selections.
	ID       string `json:"id"`
	Operator string `json:"operator"`
	// Line and Col (1-based; Col counts characters, a tab is one) locate
	// the site in the page: the first byte of the statement deleted, of the
	// literal, operator or value replaced, or the '{' of the block disabled
	// or prefixed (freeze-time of a timestamp parameter); for dead-function
	// its first deleted call, for the swaps the first literal.
	Line        int    `json:"line"`
	Col         int    `json:"col"`
	Description string `json:"description"`
	// Diff is a unified diff (3 lines of context) from the page to the mutant.
	Diff string `json:"diff"`
	// HTML is the whole mutated page.
	HTML []byte `json:"-"`

	off int // page offset of the site
}

// Stats counts what Generate enumerated and dropped.
type Stats struct {
	Scripts  int      `json:"scripts"`            // JavaScript <script> elements mutated
	Skipped  []string `json:"skipped,omitempty"`  // scripts left alone, and why
	Sites    int      `json:"sites"`              // candidate mutants enumerated, all operators
	Invalid  int      `json:"invalid"`            // dropped: the edited script no longer parses
	NoChange int      `json:"no_change"`          // dropped: the edit left the page as it was
	Dupes    int      `json:"duplicates"`         // dropped: same page as an earlier mutant
	Valid    int      `json:"valid"`              // kept, all operators, before Operators and Max
	PerOp    []OpStat `json:"per_operator"`       // kept per operator (after Operators, before Max), documentation order
	Selected int      `json:"selected,omitempty"` // returned
}

// OpStat is the number of valid mutants of one operator.
type OpStat struct {
	Operator string `json:"operator"`
	Mutants  int    `json:"mutants"`
}

// Report is Generate's full answer.
type Report struct {
	Mutants []Mutant `json:"mutants"`
	Stats   Stats    `json:"stats"`
}

// Generate returns the mutants of page src (file names it in diffs). See
// the package documentation for the operators and the selection rules.
func Generate(src []byte, file string, opts Options) ([]Mutant, error) {
	r, err := GenerateReport(src, file, opts)
	if err != nil {
		return nil, err
	}
	return r.Mutants, nil
}

// GenerateReport is Generate with the statistics.
func GenerateReport(src []byte, file string, opts Options) (*Report, error) {
	want, err := operatorSet(opts.Operators)
	if err != nil {
		return nil, err
	}
	if opts.Max < 0 {
		return nil, fmt.Errorf("max must be 0 (all) or more, got %d", opts.Max)
	}
	rep := &Report{}
	scripts := loadScripts(src, &rep.Stats)

	// Enumerate every operator (so that IDs and duplicate resolution do not
	// depend on opts.Operators), in documentation order, then source order.
	// Pages are compared by hash and rebuilt for the selected mutants only,
	// so a large page with many sites does not hold every mutant in memory.
	seen := map[[sha256.Size]byte]bool{}
	var all []Mutant
	var allOp []int
	var allCand []candidate
	for oi, d := range opDefs {
		var cands []candidate
		for _, sc := range scripts {
			for _, c := range d.find(sc) {
				c.op = oi
				c.sc = sc
				cands = append(cands, c)
			}
		}
		sort.SliceStable(cands, func(a, b int) bool {
			ca, cb := cands[a], cands[b]
			if ca.sc.num != cb.sc.num {
				return ca.sc.num < cb.sc.num
			}
			return ca.pos < cb.pos
		})
		n := 0
		for _, c := range cands {
			rep.Stats.Sites++
			text, ok := c.check(&rep.Stats)
			if !ok {
				continue
			}
			// the page differs from src exactly where the script does
			h := sha256.Sum256(append([]byte(fmt.Sprintf("%d\x00", c.sc.num)), text...))
			if seen[h] {
				rep.Stats.Dupes++
				continue
			}
			seen[h] = true
			n++
			all = append(all, Mutant{
				ID:          fmt.Sprintf("%s-%d", d.Name, n),
				Operator:    d.Name,
				Description: c.desc,
				off:         c.sc.elem.Start + c.pos,
			})
			allOp = append(allOp, oi)
			allCand = append(allCand, c)
		}
	}
	rep.Stats.Valid = len(all)

	var keep []Mutant
	var keepOp []int
	var keepCand []candidate
	counts := make([]int, len(opDefs))
	for i, m := range all {
		if want == nil || want[m.Operator] {
			keep = append(keep, m)
			keepOp = append(keepOp, allOp[i])
			keepCand = append(keepCand, allCand[i])
			counts[allOp[i]]++
		}
	}
	for oi, d := range opDefs {
		if want == nil || want[d.Name] {
			rep.Stats.PerOp = append(rep.Stats.PerOp, OpStat{d.Name, counts[oi]})
		}
	}
	var picked []int
	if len(opts.IDs) > 0 {
		if picked, err = byID(keep, opts.IDs); err != nil {
			return nil, err
		}
	} else {
		picked = choose(len(keep), keepOp, opts.Max, opts.Seed)
	}

	lines := newLineIndex(src)
	out := make([]Mutant, len(picked))
	for i, p := range picked {
		m := keep[p]
		c := keepCand[p]
		text, _ := c.edited()
		m.HTML = make([]byte, 0, len(src)-len(c.sc.src)+len(text))
		m.HTML = append(m.HTML, src[:c.sc.elem.Start]...)
		m.HTML = append(m.HTML, text...)
		m.HTML = append(m.HTML, src[c.sc.elem.End:]...)
		m.Line, m.Col = lines.lineCol(src, m.off)
		m.Diff = unifiedDiff("a/"+file, "b/"+file, src, m.HTML)
		out[i] = m
	}
	keep = out
	rep.Mutants = keep
	rep.Stats.Selected = len(keep)
	return rep, nil
}

// byID returns the indices of the mutants named in ids, in mutant order.
func byID(ms []Mutant, ids []string) ([]int, error) {
	want := map[string]bool{}
	for _, id := range ids {
		if id = strings.TrimSpace(id); id != "" {
			want[id] = true
		}
	}
	var picked []int
	for i, m := range ms {
		if want[m.ID] {
			picked = append(picked, i)
			delete(want, m.ID)
		}
	}
	if len(want) > 0 {
		var bad []string
		for id := range want {
			bad = append(bad, id)
		}
		sort.Strings(bad)
		return nil, fmt.Errorf("no mutant with ID %s (see 'worldprobe task mutate --max 0')", strings.Join(bad, ", "))
	}
	return picked, nil
}

func operatorSet(names []string) (map[string]bool, error) {
	if len(names) == 0 {
		return nil, nil
	}
	known := map[string]bool{}
	for _, d := range opDefs {
		known[d.Name] = true
	}
	want := map[string]bool{}
	var bad []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !known[n] {
			bad = append(bad, n)
			continue
		}
		want[n] = true
	}
	if len(bad) > 0 {
		var all []string
		for _, d := range opDefs {
			all = append(all, d.Name)
		}
		return nil, fmt.Errorf("unknown operator %s (known: %s)", strings.Join(bad, ", "), strings.Join(all, ", "))
	}
	if len(want) == 0 {
		return nil, errors.New("no operator named")
	}
	return want, nil
}

// choose picks max of n mutants (all when max is 0 or there are no
// more), drawing round-robin over the operators (ops[i] is mutant i's, in
// documentation order) from a per-operator shuffle seeded with seed, so
// every operator with mutants is represented while there is room. It
// returns the indices of the chosen mutants in increasing order.
func choose(n int, ops []int, max int, seed int64) []int {
	if max == 0 || n <= max {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		return all
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x6d757461746f7273)) // "mutators"
	var groups [][]int
	byOp := map[int]int{}
	for i, oi := range ops {
		g, ok := byOp[oi]
		if !ok {
			g = len(groups)
			byOp[oi] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	// groups are in first-appearance order, which is documentation order.
	for _, g := range groups {
		r.Shuffle(len(g), func(a, b int) { g[a], g[b] = g[b], g[a] })
	}
	var picked []int
	for round := 0; len(picked) < max; round++ {
		progress := false
		for _, g := range groups {
			if round < len(g) && len(picked) < max {
				picked = append(picked, g[round])
				progress = true
			}
		}
		if !progress {
			break
		}
	}
	slices.Sort(picked)
	return picked
}

// script is one parsed, aligned <script> element.
type script struct {
	num   int // index among the page's mutated scripts
	elem  pagescript.Script
	src   []byte // the script text (capacity len+1: the AST's tokens point into it)
	ast   *js.AST
	nodes []node
	index map[js.INode]int

	lineBase      int          // page line of the script's first byte
	relevantFuncs map[int]bool // lazily: functions that mention a physics/timing name
}

func loadScripts(page []byte, st *Stats) []*script {
	var out []*script
	for k, el := range findScripts(page) {
		buf := make([]byte, el.End-el.Start, el.End-el.Start+1)
		copy(buf, page[el.Start:el.End])
		where := fmt.Sprintf("script %d (byte %d)", k+1, el.Start)
		ast, err := js.Parse(parse.NewInputBytes(buf), js.Options{})
		if err != nil {
			st.Skipped = append(st.Skipped, fmt.Sprintf("%s: %v", where, oneLine(err.Error(), 120)))
			continue
		}
		nodes, index, err := walkScript(buf, ast)
		if err != nil {
			st.Skipped = append(st.Skipped, fmt.Sprintf("%s: cannot align the AST with the source: %v", where, err))
			continue
		}
		out = append(out, &script{num: len(out), elem: el, src: buf, ast: ast, nodes: nodes, index: index,
			lineBase: bytes.Count(page[:el.Start], []byte("\n")) + 1})
	}
	st.Scripts = len(out)
	return out
}

// edit replaces src[start:end] of a script with text.
type edit struct {
	start, end int
	text       string
}

// candidate is one mutant before it is checked.
type candidate struct {
	op    int
	sc    *script
	pos   int // script offset of the site
	desc  string
	edits []edit
}

// edited returns the script text with the candidate's edits, or false
// when its edits overlap (a bug in an operator, never a mutant).
func (c candidate) edited() (string, bool) {
	edits := slices.Clone(c.edits)
	sort.SliceStable(edits, func(a, b int) bool { return edits[a].start < edits[b].start })
	var b strings.Builder
	last := 0
	for _, e := range edits {
		if e.start < last || e.end < e.start || e.end > len(c.sc.src) {
			return "", false
		}
		b.Write(c.sc.src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(c.sc.src[last:])
	return b.String(), true
}

// check returns the edited script, or false (counted in st) when the edit
// changes nothing or the script no longer parses.
func (c candidate) check(st *Stats) (string, bool) {
	text, ok := c.edited()
	if !ok {
		st.Invalid++
		return "", false
	}
	if text == string(c.sc.src) {
		st.NoChange++
		return "", false
	}
	buf := make([]byte, len(text), len(text)+1)
	copy(buf, text)
	if _, err := js.Parse(parse.NewInputBytes(buf), js.Options{}); err != nil {
		st.Invalid++
		return "", false
	}
	return text, true
}

// lineIndex maps byte offsets to 1-based line and column.
type lineIndex []int // offsets of line starts

func newLineIndex(src []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range src {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// lineCol returns the line and the column (in characters) of off.
func (idx lineIndex) lineCol(src []byte, off int) (int, int) {
	l := sort.Search(len(idx), func(i int) bool { return idx[i] > off }) - 1
	return l + 1, utf8.RuneCount(src[idx[l]:off]) + 1
}

// oneLine collapses white space and cuts s to at most n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
