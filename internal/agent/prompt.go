package agent

import (
	"fmt"

	"github.com/worldprobe/worldprobe/internal/gen"
	"github.com/worldprobe/worldprobe/internal/task"
)

// Instructions is the system text of every agent run: the folder, the
// tools and what the answer is. The task itself comes from
// [task.Task.Prompt] alone, as for a single-shot generation.
const Instructions = `You write interactive 3D web pages with Three.js. You work in a folder, through tools, and the page you leave in its index.html is your answer.

The folder holds brief.md (the task: what to build and the state interface the page must expose, the same text as the first message), state-interface.json (that state interface as data) and index.html, empty at first.

index.html is judged on its own: one complete, self-contained HTML file, from <!DOCTYPE html> to </html>, with all JavaScript and CSS inside it. Other files of the folder are not served beside it, and it must not load local files, images, fonts or other assets. Three.js and its addons may be loaded from a CDN URL with a pinned version (unpkg.com, cdn.jsdelivr.net, cdnjs.cloudflare.com or esm.sh), through an import map or a script tag. Nothing else is fetched from the network.

The tools: list_files, read_file and grep read the folder; write_file writes a file whole; edit_file replaces one exact piece of text that occurs once in a file; run_page loads index.html in a headless browser on a virtual clock and reports load errors, uncaught exceptions, console messages, WebGL problems and window.__3D_STATE__ after the last frame (it does not tell you whether the page meets the task); finish ends the work. Your turns are limited: write the page early, run it, fix what run_page reports, and call finish.

Follow the task exactly: object names, element ids, keys, units, numbers and the state interface must be as it says. If the task leaves a detail open, choose something reasonable; do not ask questions.`

// ScaffoldInstructions follow [Instructions] for a task with a scaffold
// (task.yaml's scaffold:): where the scaffold is in the folder.
const ScaffoldInstructions = `This task starts from an existing app, its scaffold: index.html is not empty but holds the scaffold page (its source is also in brief.md), and any other file of the scaffold is in the scaffold folder. Change index.html so that it does everything the task asks; it is still judged on its own, as one self-contained page.`

// PromptOf is the prompt of an agent run over t: [Instructions] (and
// [ScaffoldInstructions] for a task with a scaffold), the task's prompt, and the tools' definitions ([Definitions]), all three in
// its digest.
func PromptOf(t *task.Task) (gen.Prompt, error) {
	user, err := t.Prompt()
	if err != nil {
		return gen.Prompt{}, fmt.Errorf("task %s: building its prompt: %w", t.ID, err)
	}
	system := Instructions
	if t.Scaffold != "" {
		system += "\n\n" + ScaffoldInstructions
	}
	return gen.Prompt{System: system, User: user, Tools: Definitions()}, nil
}
