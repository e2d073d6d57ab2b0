package model

// readCost and writeCost are one guest read and write over the whole
// cluster with the objects spread evenly (their owners' hosts not known):
// each component on another host than the owner with probability (H-1)/H.
// Tests of the per-I/O accounting read them.

func (c *costModel) readCost(b, written float64, compressPct int) opCost {
	io := c.readIO(b, written, compressPct)
	return io.total(c.spreadRemote())
}

func (c *costModel) writeCost(b float64, lay layout, compressPct, dedupePct int) opCost {
	io := c.writeIO(b, lay, compressPct, dedupePct)
	return io.total(c.spreadRemote())
}

func (c *costModel) spreadRemote() [2]float64 {
	r := float64(c.p.Hosts-1) / float64(c.p.Hosts)
	return [2]float64{r, r}
}
