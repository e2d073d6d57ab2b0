package campaign

import "sort"

// Order returns every cell of s in the order that makes the total cost of
// changes minimal: factors sorted by change cost, the most expensive as the
// slowest-moving digit of a reflected (Gray-code) mixed-radix count, so
// consecutive cells differ in exactly one factor.
//
// Why it is minimal: with factors sorted by cost c0 >= c1 >= ..., visiting
// every combination of the first k+1 factors needs at least P(k)-1 changes
// among them (P(k) = product of their level counts). The Gray order meets
// every one of these bounds at once, and a total cost sum(c_k * x_k) under
// such nested bounds is smallest exactly when all of them are met.
func Order(s *Spec) []Cell {
	byCost := costOrder(s)
	var cells []Cell
	levels := make([]int, len(s.Factors))
	var walk func(depth int, reverse bool)
	walk = func(depth int, reverse bool) {
		if depth == len(byCost) {
			cells = append(cells, Cell{Levels: append([]int(nil), levels...)})
			return
		}
		f := byCost[depth]
		n := len(s.Factors[f].Levels)
		for i := range n {
			level := i
			if reverse {
				level = n - 1 - i
			}
			levels[f] = level
			// The faster digits run forward under even levels and backward
			// under odd ones (mirrored when this digit runs backward), so a
			// backward walk is the exact mirror of a forward one and the step
			// between two blocks changes only this digit.
			walk(depth+1, reverse != (level%2 == 1))
		}
	}
	walk(0, false)
	return cells
}

// costOrder returns factor indexes by change cost, most expensive first;
// ties keep declaration order.
func costOrder(s *Spec) []int {
	idx := make([]int, len(s.Factors))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s.changeCost(idx[a]) > s.changeCost(idx[b]) })
	return idx
}
