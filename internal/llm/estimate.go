package llm

// Rough token accounting used before a call: about four characters per
// token and a flat cost per image.
const (
	charsPerToken     = 4
	tokensPerImage    = 1000
	tokensPerMessage  = 8
	minTokensEstimate = 1
)

// EstimateInputTokens guesses the input tokens of req, for token caps and
// tokens-per-minute limits before the provider reports the real count.
func EstimateInputTokens(req Request) int {
	chars, tokens := 0, 0
	for _, m := range req.Messages {
		tokens += tokensPerMessage
		for _, p := range m.Parts {
			switch p.Kind {
			case PartText:
				chars += len(p.Text)
			case PartImage:
				tokens += tokensPerImage
			}
		}
		for _, tc := range m.ToolCalls {
			chars += len(tc.Name) + len(tc.Arguments)
		}
	}
	for _, t := range req.Tools {
		chars += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	if req.Schema != nil {
		chars += len(req.Schema.Schema)
	}
	return max(tokens+chars/charsPerToken, minTokensEstimate)
}
