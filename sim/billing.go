package sim

// bill counts billed attempts and tokens.
type bill struct {
	attempts      int64
	input, output float64 // whole tokens
}

func (b *bill) add(in, out float64) {
	b.attempts++
	b.input += in
	b.output += out
}

// cost is what b costs in USD at model m's prices.
func (b *bill) cost(m *Model) float64 {
	return (b.input*m.PriceInputPerMTok+b.output*m.PriceOutputPerMTok)/1e6 + float64(b.attempts)*m.PricePerRequest
}

// price is the cost in USD of one billed attempt.
func price(m *Model, in, out float64) float64 {
	return (in*m.PriceInputPerMTok+out*m.PriceOutputPerMTok)/1e6 + m.PricePerRequest
}
